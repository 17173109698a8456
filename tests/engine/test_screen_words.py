"""What the tablet (and the TV beside it) says of a position: the words of
``presentation.explain`` and the board of ``presentation.referee_html``, through the tablet's own
engine (``presentation.tablet.TabletEngine``), the code the browser runs offline."""
import json
import re

from presentation.explain import banners, foul_verdict, frame_over_texts, match_over_text
from presentation.tablet import TabletEngine
from presentation.tablet_board import facts, tablet_view
from presentation.referee_html import region
from sinuca import Match

NAMES = ["Ana Souza", "Bia Lima"]
SEVEN = {"reds_remaining": 0, "colours_remaining": [7], "scores": [40, 47], "striker": 0}
D = [["Ana", "Carla"], ["Bia", "Duda"]]


def engine(events=(), **config) -> TabletEngine:
    return TabletEngine({"players": NAMES, "first_breaker": 0, **config}, list(events))


def apply(t: TabletEngine, event: dict) -> dict:
    out = json.loads(t.answer(json.dumps({"op": "apply", "event": event})))
    assert out["ok"], out
    return out


def test_a_concession_reads_the_same_online_and_offline_winner_first():
    """The tablet's own engine words the message as the server's answer does
    (``scoreboard.pages.referee.tablet_message``, both :func:`explain.tap_message`)."""
    t = engine([{"type": "pot", "balls": [1]}, {"type": "no_pot"}, {"type": "pot", "balls": [1]},
                {"type": "pot", "balls": [2]}], frames_to_win=2)
    said = apply(t, {"type": "concede", "player": 0})["description"]
    assert said == "Bia Lima vence a partida 1 por 3–1 — Ana Souza reconheceu a derrota na partida (Art. 50.2)"
    t.lang = "en"
    apply(t, {"type": "undo"})
    assert apply(t, {"type": "concede", "player": 0})["description"] == (
        "Bia Lima wins frame 1 3–1 — Ana Souza conceded the frame (Art. 50.2)")


def test_a_match_conceded_is_said_once_with_its_article():
    m = Match({"players": NAMES, "first_breaker": 0})
    m.apply({"type": "concede_match", "player": 0})
    assert match_over_text(m.state(), NAMES) == {
        "pt": "Jogo encerrado: Bia Lima vence o jogo pela desistência de Ana Souza (Art. 54.2)",
        "en": "Match over: Bia Lima wins the match, Ana Souza conceded (Art. 54.2)"}


def test_a_match_won_reads_its_frames_winner_first():
    m = Match({"players": NAMES, "first_breaker": 0, "frames_to_win": 2})
    for _ in range(2):
        m.apply({"type": "concede", "player": 0})
        if m.state()["phase"] == "frame_over":
            m.apply({"type": "next_frame"})
    assert match_over_text(m.state(), NAMES)["pt"] == "Jogo encerrado: Bia Lima vence o jogo por 2–0, por partidas (Art. 54.1)"


def _decider(**config) -> Match:
    m = Match({"players": NAMES, "frames_to_win": 2, "position": SEVEN, **config})
    m.apply({"type": "pot", "balls": [7]})
    return m


def test_a_decider_lost_by_a_foul_says_so_with_art_51_2_in_the_preview_and_the_result():
    m = _decider()
    m.apply({"type": "lot", "player": 1})
    lines = [line["pt"] for line in foul_verdict(m, {})["lines"]]
    assert "Esta falta ENCERRA A PARTIDA: Ana Souza vence a partida 1 por 54–47 (partida complementar perdida " \
           "por falta, Art. 51.2, 52)" in lines
    m.apply({"type": "foul"})
    end = frame_over_texts(m.state(), facts(m), NAMES)
    assert end["heading"]["pt"] == "Ana Souza vence a partida 1 por 54–47"
    assert end["reason"] == {"pt": "Falta de Bia Lima na partida complementar (Art. 51.2, 52)",
                             "en": "Foul by Bia Lima in the decider (Art. 51.2, 52)"}
    m.undo()
    m.apply({"type": "pot", "balls": [7]})
    assert frame_over_texts(m.state(), facts(m), NAMES)["reason"]["pt"] == (
        "Bola 7 encaçapada na partida complementar (Art. 52)")


def test_the_decider_banner_ends_with_the_decider():
    m = _decider()
    assert banners(m.state(), facts(m))["decider"] is True  # its lot is awaited
    m.apply({"type": "lot", "player": 1})
    assert [b["text"] for b in tablet_view(m)["banner_rows"]] == ["PARTIDA COMPLEMENTAR (Art. 52)"]
    m.apply({"type": "pot", "balls": [7]})
    view = tablet_view(m)
    assert view["banner_rows"] == [] and view["banners"]["decider"] is False


def test_the_stalemate_banner_ends_with_the_frame_conceded():
    m = Match({"players": NAMES, "first_breaker": 0, "frames_to_win": 2})
    m.apply({"type": "stalemate_warning"})
    assert [b["text"] for b in tablet_view(m)["banner_rows"]] == ["Aviso de impasse (Art. 53)"]
    m.apply({"type": "concede", "player": 1})
    assert m.state()["warning"] == "stalemate"  # the engine's record; the board's banner is over
    assert tablet_view(m)["banner_rows"] == []


def test_the_first_aggravated_foul_shows_a_count_on_the_board():
    m = Match({"players": NAMES, "first_breaker": 0})
    m.apply({"type": "foul", "aggravated": True, "retorno": True})
    view = tablet_view(m)
    assert view["aggravated_fouls"] == 1
    assert [b["text"] for b in view["banner_rows"]] == ["1ª falta agravada seguida (Art. 27, 44)"]
    assert "1ª falta agravada seguida (Art. 27, 44)" in re.sub(r"<[^>]+>", "", region(view))  # "Art." tappable
    m.apply({"type": "decision", "choice": "retorno"})
    m.apply({"type": "foul", "aggravated": True, "retorno": True})
    texts = [b["text"] for b in tablet_view(m, "en")["banner_rows"]]
    assert texts[0].startswith("⚠ WARNING — Art. 27/46") and tablet_view(m)["aggravated_fouls"] == 2
    m.apply({"type": "decision", "choice": "play"})
    assert tablet_view(m)["aggravated_fouls"] == 0 and tablet_view(m)["banner_rows"] == []


def _ball_on_cell(html: str) -> str:
    return html.split('class="ref-ballon">')[1].split("</dd>")[0]


def test_the_ball_on_says_what_is_awaited_in_a_decision_and_a_lot():
    m = Match({"players": NAMES, "first_breaker": 0})
    m.apply({"type": "foul"})
    assert _ball_on_cell(region(tablet_view(m))) == "aguarda a decisão"
    assert _ball_on_cell(region(tablet_view(m, "en"), "en")) == "awaiting the decision"
    assert _ball_on_cell(region(tablet_view(_decider()))) == "aguarda o sorteio"


def test_points_in_play_count_art_7_with_a_free_ball_on():
    m = Match({"players": NAMES, "first_breaker": 0, "reds": 10})
    m.apply({"type": "foul", "snooker": True})
    m.apply({"type": "decision", "choice": "play"})
    view = tablet_view(m)
    assert (view["points_remaining"], view["free_ball_points"]) == (107, 8)
    assert region(view).split('class="ref-remaining">')[1].startswith("107 + 8<")
    m.apply({"type": "no_pot"})
    assert tablet_view(m)["free_ball_points"] == 0
    assert region(tablet_view(m)).split('class="ref-remaining">')[1].startswith("107<")


def test_doubles_foul_preview_names_the_persons():
    m = Match({"players": D, "first_breaker": 0})
    lines = [line["pt"] for line in foul_verdict(m, {})["lines"]]
    assert lines[0] == "4 pontos para Bia / Duda (Art. 40)"  # the side gets the points
    assert lines[-1] == "Retorno possível (Art. 25): marque “Falta e retorno” para oferecê-lo a Bia"
    lines = [line["pt"] for line in foul_verdict(m, {"retorno": True, "snooker": True})["lines"]]
    assert "Deixou sinuca: se Bia jogar, tem bola livre (Art. 36)" in lines
    assert "Retorno possível — falta e retorno (Art. 25): Bia poderá pedir que Ana repita a jogada" in lines


def test_the_lot_and_the_order_use_one_word_each():
    """The lot's winner breaks off ("Sai", Art. 17); the order within a side is "1º na ordem"."""
    t = TabletEngine({"players": D, "first_breaker": None}, [])
    html = json.loads(t.answer('{"op": "view"}'))["html"]
    assert "Sai Ana / Carla" in html and "Começa" not in html and "Carla 1º na ordem" in html
    t.lang = "en"
    html = json.loads(t.answer('{"op": "view"}'))["html"]
    assert "Ana / Carla breaks off" in html and "Carla first in the order" in html


def test_the_tied_frame_can_be_conceded_from_the_tablet_while_the_decider_lot_waits():
    t = TabletEngine({"players": NAMES, "frames_to_win": 2, "position": SEVEN}, [{"type": "pot", "balls": [7]}])
    html = json.loads(t.answer('{"op": "view"}'))["html"]
    assert "Bia Lima desiste da partida…" in html and '{"type":"concede","player":1}' in html
    said = apply(t, {"type": "concede", "player": 1})["description"]
    assert said == "Ana Souza vence a partida 1 por 47–47 — Bia Lima reconheceu a derrota na partida (Art. 50.2)"
