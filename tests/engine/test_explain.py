"""``presentation.explain``: what the referee's tablet says, built from the engine's answers (issue 10).

The same words show on the server-rendered tablet and in the browser's copy of the engine, so they
are checked here, at the engine, in both languages.
"""
import json
import pathlib

from presentation.explain import (decision_choices, ending_confirmations, foul_verdict, frame_over_texts,
                                  match_over_text, nomination_choices, position_key, reds_count)
from sinuca import Match

ROOT = pathlib.Path(__file__).resolve().parents[2]
NAMES = ["Ana", "Bia"]


def new_match(**kw):
    return Match({"players": NAMES, "first_breaker": 0, **kw})


def texts(preview, lang="pt"):
    return [line[lang] for line in preview["lines"]]


def test_a_colour_owed_asks_which_one_with_its_penalty_and_not_nominated_worth_7():
    m = new_match()
    assert nomination_choices(m.state()) == []  # a red is on: nothing to ask
    m.apply({"type": "pot", "balls": [1]})
    choices = nomination_choices(m.state())
    assert [(c["value"], c["points"]) for c in choices] == [
        ("2", 4), ("3", 4), ("4", 4), ("5", 5), ("6", 6), ("7", 7), ("none", 7)]
    assert choices[-1]["pt"] == "não cantou (Art. 48.3, 7 pontos)"
    assert choices[-1]["en"] == "not nominated (Art. 48.3, 7 points)"
    # blue aimed at: 5 points (Art. 40.1.a); nothing nominated: 7 (Art. 48.3), said so
    assert texts(foul_verdict(m, {"nominated": 5}))[0] == "5 pontos para Bia (Art. 40)"
    assert texts(foul_verdict(m, {}))[0] == "7 pontos para Bia (Art. 48.3: cor não cantada)"
    assert texts(foul_verdict(m, {}), "en")[0] == "7 points to Bia (Art. 48.3: colour not nominated)"


def test_reds_are_counted_in_words():
    assert [reds_count(k)["pt"] for k in (0, 1, 2)] == ["nenhuma vermelha", "1 vermelha", "2 vermelhas"]
    assert [reds_count(k)["en"] for k in (0, 1, 2)] == ["no red", "1 red", "2 reds"]


def test_an_intentional_foul_says_the_warning_and_what_the_next_one_does_art_49_1_42():
    m = new_match(frames_to_win=2)
    p = foul_verdict(m, {"kind": "intentional"})
    assert texts(p)[:2] == ["7 pontos para Bia (Art. 49.1)",
                            "Advertência a Ana (Art. 42.1); nova falta disciplinar de Ana: desclassificação e "
                            "derrota no jogo (Art. 42.2, 54.3)"]
    m.apply({"type": "foul", "kind": "intentional"})
    m.apply({"type": "decision", "choice": "pass"})
    p = foul_verdict(m, {"kind": "intentional"})
    lines = texts(p)
    assert lines[1] == "Desclassificação de Ana: perde o jogo (Art. 42.2, 54.3)"
    assert lines[2].startswith("Esta falta ENCERRA O JOGO: Bia vence o jogo pela desclassificação de Ana")
    assert lines[-1] == "Sem retorno: a falta encerra o jogo"
    assert not any("Retorno possível" in t for t in lines)


def test_snooker_left_mentions_the_free_ball_art_36():
    p = foul_verdict(new_match(), {"snooker": True})
    assert "Deixou sinuca: se Bia jogar, tem bola livre (Art. 36)" in texts(p)
    assert "Snooker left: if Bia plays, a free ball (Art. 36)" in texts(p, "en")
    assert "Sem bola livre: não deixou sinuca (Art. 36)" in texts(foul_verdict(new_match(), {}))


def test_the_aggravated_chain_is_counted_before_each_foul_and_the_third_never_offers_a_replay():
    m = new_match()
    agg = {"aggravated": True, "retorno": True}
    p = foul_verdict(m, agg)
    assert p["aggravated_count"] == 1
    assert "1ª falta agravada seguida (Art. 27, 44): a 3ª encerra a partida" in texts(p)
    m.apply(dict(agg, type="foul"))
    m.apply({"type": "decision", "choice": "retorno"})
    p = foul_verdict(m, agg)
    assert p["aggravated_count"] == 2
    assert "2ª falta agravada seguida: a próxima encerra a partida (Art. 27, 46)" in texts(p)
    assert "2nd aggravated foul in a row: the next one ends the frame (Art. 27, 46)" in texts(p, "en")
    m.apply(dict(agg, type="foul"))
    m.apply({"type": "decision", "choice": "retorno"})
    p = foul_verdict(m, {"aggravated": True})
    lines = texts(p)
    assert p["aggravated_count"] == 3 and p["ends_frame"]
    assert "3ª falta agravada seguida: encerra a partida, derrota de Ana (Art. 27, 44.2, 50.3)" in lines
    assert "Esta falta ENCERRA O JOGO: Bia vence a partida 1 por 12–0 (Art. 27); Bia vence o jogo por 1–0" in lines
    assert [t for t in lines if "etorno" in t] == ["Sem retorno: a falta encerra o jogo"]


def test_no_preview_ever_says_replay_possible_and_ends_the_frame_together():
    doc = json.loads((ROOT / "demo" / "final.json").read_text())
    m = Match(doc["config"])
    fouls = [{}, {"ball": 7}, {"snooker": True}, {"aggravated": True}, {"kind": "intentional"},
             {"kind": "compulsory"}, {"retorno": True}]
    checked = 0
    for ev in doc["events"]:
        if m.state()["phase"] == "play":
            for f in fouls:
                p = foul_verdict(m, f)
                lines = texts(p)
                if p["penalty"] is None:
                    continue
                checked += 1
                retorno = [line["pt"] for line in p["lines"] if line["key"] == "retorno"]
                assert len(retorno) == 1 and sum("retorno" in t.lower() for t in lines) == 1, lines
                if p["ends_frame"] or p["ends_match"]:
                    assert retorno[0].startswith("Sem retorno: a falta encerra"), lines
                    assert not any("bola livre" in t for t in lines), lines
                assert lines[0].startswith(f"{p['penalty']} pontos para ")
        m.apply(ev)
    assert checked > 500


def test_the_decision_says_what_each_choice_does():
    m = new_match()
    m.apply({"type": "foul", "snooker": True, "retorno": True})
    choices = decision_choices(m.state(), m.options(), NAMES)
    assert [(c["choice"], c["label"]["pt"], c["danger"]) for c in choices] == [
        ("play", "Jogar com bola livre", False), ("pass", "Passar", False), ("retorno", "Retorno", False)]
    assert choices[0]["explain"]["pt"].startswith("Bia joga com as bolas como pararam e pode eleger qualquer colorida")
    assert choices[1]["explain"]["pt"] == "Ana joga de novo, com as bolas como pararam, sem bola livre (Art. 35.4)"
    assert choices[2]["explain"]["en"].startswith("the balls go back where they were and Ana plays the stroke again")
    m = new_match()
    m.apply({"type": "foul"})
    assert [c["label"]["pt"] for c in decision_choices(m.state(), m.options(), NAMES)] == ["Jogar", "Passar"]


def test_the_frame_end_is_told_winner_first_with_the_reason():
    m = new_match(frames_to_win=2)
    m.apply({"type": "concede", "player": 0})
    t = frame_over_texts(m.state(), m.options(), NAMES)
    assert t["heading"]["pt"] == "Bia vence a partida 1 por 0–0"
    assert t["reason"]["pt"] == "Ana reconheceu a derrota na partida (Art. 50.2)" and t["bonus"] is None
    m = new_match(frames_to_win=2, reds=6)
    m.apply({"type": "no_pot"})  # Bia at the table
    for _ in range(6):
        m.apply({"type": "pot", "balls": [1]})
        m.apply({"type": "pot", "balls": [7]})
    for c in (2, 3, 4, 5, 6):
        m.apply({"type": "pot", "balls": [c]})
    t = frame_over_texts(m.state(), m.options(), NAMES)
    assert t["heading"] == {"pt": "Bia vence a partida 1 por 68–0", "en": "Bia wins frame 1 68–0"}
    assert t["reason"]["pt"] == "A bola 6 encaçapada deixou diferença maior que 7 pontos (Art. 50.1)"
    assert t["bonus"]["pt"] == ("A partida acabou, mas a bola 7 ainda pode ser encaçapada para somar à tacada "
                                "(Art. 6.1)")
    m.apply({"type": "pot", "balls": [7]})
    t = frame_over_texts(m.state(), m.options(), NAMES)
    assert t["heading"]["pt"] == "Bia vence a partida 1 por 75–0" and t["bonus"] is None


def test_the_match_end_and_the_endings_by_the_referees_hand():
    m = new_match(frames_to_win=2)
    conf = ending_confirmations(m.state(), NAMES, 2)
    assert conf["concede"][0]["pt"] == "Ana reconhece a derrota na partida 1: Bia vence a partida (Art. 50.2)"
    assert conf["concede_match"][1]["en"] == "Bia concedes the match: Ana wins it (Art. 54.2)"
    assert "Art. 53.3" in conf["restart_frame"]["pt"]
    m.apply({"type": "concede", "player": 1})
    m.apply({"type": "next_frame"})
    conf = ending_confirmations(m.state(), NAMES, 2)
    assert conf["concede"][1]["pt"].endswith("Ana vence a partida (Art. 50.2) e o jogo por 2–0 (Art. 54.1)")
    m.apply({"type": "concede_match", "player": 0})
    assert match_over_text(m.state(), NAMES)["pt"] == \
        "Jogo encerrado: Bia vence o jogo pela desistência de Ana (Art. 54.2)"
    assert frame_over_texts(m.state(), m.options(), NAMES) is None  # no frame ended by that


def test_the_art_28_position_is_the_same_for_the_replay_after_a_retorno():
    m = new_match()
    before = position_key(m.state())
    m.apply({"type": "foul", "aggravated": True, "retorno": True})
    m.apply({"type": "decision", "choice": "retorno"})
    assert position_key(m.state()) == before
    m.apply({"type": "no_pot"})
    assert position_key(m.state()) != before


def test_both_disqualified_is_said_once_art_55():
    m = new_match()
    m.apply({"type": "disqualify", "players": [0, 1]})
    assert match_over_text(m.state(), NAMES) == {
        "pt": "Jogo encerrado sem vencedor: ambos desclassificados (Art. 55)",
        "en": "Match over, no winner: both disqualified (Art. 55)"}


def test_a_doubles_decision_names_the_persons_not_the_sides():
    """Art. 1 "em conjunto" (contract section 11): on *jogar* the beneficiary's player due plays,
    on *passar* and *retorno* the offender himself; the tablet's choices name them."""
    import re

    from presentation.tablet import TabletEngine

    cfg = {"players": [["Ana", "Carla"], ["Bia", "Duda"]], "first_breaker": 0}
    events = [{"type": "no_pot"}, {"type": "foul", "ball": 4, "retorno": True}]  # Ana misses, Bia fouls
    out = json.loads(TabletEngine(cfg, [], "pt", {}).answer(json.dumps({"op": "reset", "events": events})))
    explains = re.findall(r'class="choice-explain">([^<]*)<', json.dumps(out, ensure_ascii=False).replace('\\"', '"'))
    # the articles are chips beside the buttons (presentation.referee_html), not in the words
    assert explains[0] == "Carla joga com as bolas como pararam"
    assert explains[1] == "Bia joga de novo, com as bolas como pararam, sem bola livre"
    assert explains[2].startswith("as bolas voltam à posição anterior e Bia repete a jogada")
    m = Match(cfg)
    for ev in events:
        m.apply(ev)
    sides = decision_choices(m.state(), m.options(), ["Ana / Carla", "Bia / Duda"])
    assert sides[0]["explain"]["pt"].startswith("Ana / Carla joga")  # without people: the sides, as before


def test_a_doubles_warning_names_the_person_and_counts_his_own_warnings():
    """Art. 42 with sides of several players (contract section 11): the warnings are the
    person's. Found by a tester: the preview named the pair ("Advertência a Fábio / Gil") and
    counted the side's warnings, so after his partner's warning a player's first disciplinary
    foul read as a disqualification."""
    m = Match({"players": [["Ana", "Carla"], ["Bia", "Duda"]], "first_breaker": 0})
    first = {"kind": "misconduct", "player": 1, "person": 1}  # Duda, seated
    assert texts(foul_verdict(m, first))[1] == (
        "Advertência a Duda (Art. 42.1); nova falta disciplinar de Duda: desclassificação e derrota "
        "no jogo (Art. 42.2, 54.3)")
    m.apply(dict(first, type="foul"))
    bia = {"kind": "misconduct", "player": 1, "person": 0}  # Bia: her first warning, not Duda's second
    assert texts(foul_verdict(m, bia), "en")[1].startswith("Bia warned (Art. 42.1)")
    verdict = foul_verdict(m, first)
    assert verdict["disqualified"] is True and verdict["person"] == 1
    assert texts(verdict)[1] == "Desclassificação de Duda: perde o jogo (Art. 42.2, 54.3)"
    # singles as before: the side is the person
    s = new_match()
    s.apply({"type": "foul", "kind": "misconduct", "player": 1})
    assert texts(foul_verdict(s, {"kind": "misconduct", "player": 1}))[1].startswith("Desclassificação de Bia")
