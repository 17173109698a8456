"""The engine's lines say what happened: the winner's score first in every "vence … por", a
concession worded once, every aggravated foul counted, a decider lost by a foul named with Art.
51.2, the lot's "sai" (break-off) for the decider too, the frame's final score after the extra 7."""
import random
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sinuca import Match
from sinuca.simulate import play

from .conftest import position, run

POT = lambda *b, **kw: {"type": "pot", "balls": list(b), **kw}  # noqa: E731
FOUL = lambda **kw: {"type": "foul", **kw}  # noqa: E731
WON = re.compile(r"(\S+) vence (a partida \d+|o jogo) por (\d+)–(\d+)")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from([6, 10]), st.integers(1, 3))
def test_every_won_line_prints_the_winners_score_first(seed, reds, frames_to_win):
    """Any match played by chance: each "X vence … por a–b" of a line, a frame end or the match
    end is the winner's score (or frames) first, the loser's second."""
    m = Match({"players": ["Ana", "Bia"], "reds": reds, "frames_to_win": frames_to_win, "first_breaker": 0})
    names = ["Ana", "Bia"]
    for step in play(m, random.Random(seed), 3000, undo_rate=0.01):
        s = step.state
        said = WON.findall(step.description["pt"])
        if step.frame_end:
            said += WON.findall(step.frame_end["text"]["pt"])
        if step.match_end:
            said += WON.findall(step.match_end["text"]["pt"])
        for name, kind, a, b in said:
            w = names.index(name)
            pair = s["frames"] if kind == "o jogo" else s["history"][-1]["scores"]
            assert (int(a), int(b)) == (pair[w], pair[1 - w]), step.description["pt"]
            assert kind == "o jogo" or s["history"][-1]["winner"] == w
    assert m.state()["phase"] == "match_over"


def test_a_frame_and_the_match_won_read_winner_first():
    step = position(reds=0, colours=(7,), scores=(30, 27)).apply(FOUL())
    assert step.description["pt"] == ("Falta de Ana: 7 pontos para Bia (Art. 40) — Bia vence a partida 1 por 34–30"
                                       " (Art. 51) — Bia vence o jogo por 1–0")
    assert step.description["en"].endswith("Bia wins frame 1 34–30 (Art. 51) — Bia wins the match 1–0")


def test_a_concession_says_it_once_with_the_winners_score_first():
    m = position(reds=0, colours=(5, 6, 7), scores=(23, 12), striker=0, frames_to_win=2)
    d = m.apply({"type": "concede", "player": 0}).description
    assert d == {"pt": "Ana reconhece a derrota na partida — Bia vence a partida 1 por 12–23 (Art. 50.2)",
                 "en": "Ana concedes the frame — Bia wins frame 1 12–23 (Art. 50.2)"}


def test_the_first_aggravated_foul_is_counted_in_its_line():
    m = position(reds=3, colours=(2, 3, 4, 5, 6, 7), scores=(0, 0), striker=0)
    d = m.apply(FOUL(aggravated=True, retorno=True)).description
    assert d["pt"] == ("Falta de Ana: 4 pontos para Bia (Art. 40); 1ª falta agravada seguida (Art. 27, 44);"
                       " falta e retorno (Art. 25)")
    assert d["en"] == ("Foul by Ana: 4 points to Bia (Art. 40); 1st aggravated foul in a row (Art. 27, 44);"
                       " foul and replay offered (Art. 25)")
    run(m, {"type": "decision", "choice": "retorno"})
    d = m.apply(FOUL(aggravated=True, retorno=True)).description
    assert "; 2ª falta agravada seguida (Art. 27, 44)" in d["pt"] and "2nd aggravated foul in a row" in d["en"]


def test_a_decider_lost_by_a_foul_says_so_with_art_51_2():
    m = position(reds=0, colours=(7,), scores=(40, 47), striker=0, frames_to_win=2)
    run(m, POT(7), {"type": "lot", "player": 1})
    step = m.apply(FOUL())
    assert step.frame_end["text"] == {
        "pt": "Ana vence a partida 1 por 54–47 (partida complementar perdida por falta, Art. 51.2, 52)",
        "en": "Ana wins frame 1 54–47 (decider lost on a foul, Art. 51.2, 52)"}
    assert step.description["pt"].endswith("— Ana vence a partida 1 por 54–47 (partida complementar perdida por"
                                           " falta, Art. 51.2, 52)")
    m.undo()
    assert m.apply(POT(7)).frame_end["text"]["pt"] == "Bia vence a partida 1 por 54–47 (partida complementar, Art. 52)"


def test_the_decider_lot_says_who_breaks_off():
    m = position(reds=0, colours=(7,), scores=(40, 47), striker=0, frames_to_win=2)
    run(m, POT(7))
    assert m.apply({"type": "lot", "player": 1}).description == {
        "pt": "Sorteio da partida complementar: Bia sai (Art. 18, 52)",
        "en": "Decider lot: Bia breaks off (Art. 18, 52)"}


def test_the_extra_seven_restates_the_frames_final_score():
    m = position(reds=0, colours=(6, 7), scores=(4, 70), striker=1, frames_to_win=2)
    assert "Bia vence a partida 1 por 76–4" in m.apply(POT(6)).description["pt"]
    d = m.apply(POT(7)).description
    assert d["pt"].endswith("+7, tacada 13 (Art. 6.1) — Bia vence a partida 1 por 83–4")
    assert d["en"].endswith("+7, break 13 (Art. 6.1) — Bia wins frame 1 83–4")
