"""The referee tablet of a doubles match (issue 19, item 2): the players of each side, who is at
the table and who is next, the order at the frame's start, the foul dialog naming the offender.
The same functions draw the server's page and the offline tablet (Pyodide), so this is both."""
import json

from presentation import referee_html
from presentation.tablet import TabletEngine
from presentation.tablet_board import tablet_view
from presentation.tablet_foul import foul_event, foul_form
from sinuca import Match

CONFIG = {"players": [["Ana", "Carla"], ["Bia", "Duda"]], "first_breaker": 0}


def _engine(events=()):
    return TabletEngine(Match(CONFIG).config, list(events))


def _row(view, kind):
    return next(r for r in view["controls"] if r["kind"] == kind)


def test_the_board_shows_each_sides_players_who_is_at_the_table_and_who_is_next():
    v = _engine([{"type": "no_pot"}]).view()  # Ana missed: Bia at the table, Carla next
    assert [(m["name"], m["at_table"], m["next"]) for m in v["players"][1]["members"]] == [
        ("Bia", True, False), ("Duda", False, False)]
    assert [(m["name"], m["at_table"], m["next"]) for m in v["players"][0]["members"]] == [
        ("Ana", False, False), ("Carla", False, True)]
    assert _row(v, "title")["title"] == "Na mesa: Bia · a seguir: Carla"
    html = referee_html.region(v, "pt")
    # every name has the marker and the tag (the CSS shows them for whom they are true), so a
    # name takes the same lines whoever is at the table
    mark, tag = '<span class="mark">▶ </span>', '<span class="next"> <span class="next-tag">a seguir</span></span>'
    assert f'<li class="member at-table">{mark}Bia{tag}</li>' in html
    assert f'<li class="member next">{mark}Carla{tag}</li>' in html
    assert f'<li class="member">{mark}Ana{tag}</li>' in html


def test_a_singles_view_has_no_members_and_the_same_title():
    t = TabletEngine(Match({"players": ["Ana", "Bia"], "first_breaker": 0}).config, [])
    v = t.view()
    assert "members" not in v["players"][0] and _row(v, "title")["title"] == "Na mesa: Ana"
    assert not any(r["kind"] == "order" for r in v["controls"])


def test_the_order_is_offered_before_the_first_stroke_and_its_buttons_set_it():
    t = _engine()
    row = _row(t.view(), "order")
    assert row["title"] == "Ordem de jogo (Art. 1): Ana, Bia, Carla, Duda"
    carla = next(b for b in row["buttons"] if b["label"] == "Carla 1º na ordem")
    out = json.loads(t.answer(json.dumps({"op": "apply", "event": json.loads(carla["event"])})))
    assert out["ok"], out
    v = t.view()
    assert _row(v, "order")["title"] == "Ordem de jogo (Art. 1): Carla, Bia, Ana, Duda"
    assert _row(v, "title")["title"] == "Na mesa: Carla · a seguir: Bia"
    assert "order-row" in out["html"] and "Duda 1º na ordem" in out["html"]
    t.answer(json.dumps({"op": "apply", "event": {"type": "pot", "balls": [1]}}))
    assert not any(r["kind"] == "order" for r in t.view()["controls"])  # fixed for the frame


def test_the_foul_dialog_names_every_player_and_the_offender_is_sent():
    m = Match(CONFIG)
    m.apply({"type": "no_pot"})
    form = foul_form(m, "en")
    who = next(f for f in form["fields"] if f["cls"] == "who")
    assert [(c["value"], c["label"], c["checked"]) for c in who["choices"]] == [
        ("0.0", "Ana (Ana / Carla)", False), ("0.1", "Carla (Ana / Carla)", False),
        ("1.0", "Bia (Bia / Duda)", True), ("1.1", "Duda (Bia / Duda)", False)]
    assert form["title"] == "Foul — at the table: Bia"
    assert [c["nominates"] for c in who["choices"]] == [[]] * 4  # a red is on: no colour is owed
    html = referee_html.foul_dialog(form)
    assert 'value="0.1"' in html
    ev = foul_event({"kind": ["slow_play"], "player": ["0.1"]})
    assert ev == {"type": "foul", "kind": "slow_play", "player": 0, "person": 1}
    step = m.apply(ev)
    assert step.description["en"].startswith("Foul by Carla: 7 points to Bia / Duda (Art. 49.4)")
    v = tablet_view(m, "en")
    assert v["players"][0]["members"][1]["warnings"] == 1
    assert "⚠1" in referee_html.region(v, "en")


def test_a_bad_offender_field_is_a_form_error():
    import pytest

    from presentation.tablet_foul import FormError

    for bad in ("0.x", "a.1", ".1"):
        with pytest.raises(FormError):
            foul_event({"player": [bad]})


def test_a_whole_doubles_frame_on_the_tablet_engine():
    t = _engine()
    for ev in [{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}, {"type": "no_pot"},
               {"type": "foul", "ball": 4}, {"type": "decision", "choice": "pass"}, {"type": "no_pot"}]:
        out = json.loads(t.answer(json.dumps({"op": "apply", "event": ev})))
        assert out["ok"], (ev, out)
    v = t.view()
    # Ana, Bia (foul, passed: Bia again), then Carla; Duda next
    assert _row(v, "title")["title"] == "Na mesa: Carla · a seguir: Duda"
    assert v["recent"][:3] == ["Bia não encaçapa; vez de Carla", "Carla passa: Bia joga de novo (Art. 35.4)",
                               "Falta de Bia: 4 pontos para Ana / Carla (Art. 40)"]


def _leaves(nodes):
    for n in nodes:
        if "button" in n:
            yield n["button"]
        else:
            yield from _leaves(n["children"])


def test_a_side_of_three_or_four_gets_any_order_by_tapping_its_names_in_turn():
    """The order screen could only rotate a side ("Começa X"): 3 of a side of three's 6 orders,
    4 of a side of four's 24. Its names tapped in turn now reach each order once, the last tap
    sending the one order event (the other side's order kept)."""
    import itertools

    for players, size in ([["Ana", "Carla", "Eva"], ["Bia", "Duda"]], 3), ([["Ana", "Carla", "Eva", "Gil"], "Bia"], 4):
        t = TabletEngine(Match({"players": players, "first_breaker": 0}).config, [])
        row = _row(t.view(), "order")
        [picker] = row["pickers"]  # the side of two (or one) has its rotations: every order already
        assert picker["side"] == 0 and picker["summary"] == f"Outra ordem de {' / '.join(players[0])}…"
        leaves = list(_leaves(picker["nodes"]))
        orders = [json.loads(b["event"])["order"] for b in leaves]
        assert sorted(o[0] for o in orders) == sorted(list(p) for p in itertools.permutations(range(size)))
        assert all(o[1] == ([0, 1] if size == 3 else [0]) for o in orders)
        assert [b["cls"].endswith(" on") for b in leaves].count(True) == 1  # the order now marked
    # Ana, Carla, Eva: tap Eva, then Ana (Carla last)
    t = TabletEngine(Match({"players": [["Ana", "Carla", "Eva"], ["Bia", "Duda"]], "first_breaker": 0}).config, [])
    eva = next(n for n in _row(t.view(), "order")["pickers"][0]["nodes"] if n["name"] == "Eva")
    ana = next(n["button"] for n in eva["children"] if n["name"] == "Ana")
    assert (ana["label"], ana["small"]) == ("Ana", "Eva → Ana → Carla")
    out = json.loads(t.answer(json.dumps({"op": "apply", "event": json.loads(ana["event"])})))
    assert out["ok"] and t.match.state()["order"] == [[2, 0, 1], [0, 1]] and len(t.events) == 1
    v = t.view()
    assert _row(v, "order")["title"] == "Ordem de jogo (Art. 1): Eva, Bia, Ana, Duda, Carla, Bia"
    assert _row(v, "title")["title"] == "Na mesa: Eva · a seguir: Bia"
    assert '<button class="big order order-leaf on" name="event"' in out["html"]
    html = referee_html.region(v, "pt")
    picker = html[html.index('<details class="order-pick"'):]
    assert picker.count('<details class="order-node" name="order-0">') == 3
    assert picker.count('<details class="order-node" name="order-0-') == 0  # two left: buttons
    assert "<summary>Eva</summary>" in picker and "Eva → Ana → Carla" in picker
    # refused once the frame started (a stale screen): the engine's words, nothing changed
    stale = json.loads(ana["event"])
    t.answer(json.dumps({"op": "apply", "event": {"type": "pot", "balls": [1]}}))
    assert not any(r["kind"] == "order" for r in t.view()["controls"])
    out = json.loads(t.answer(json.dumps({"op": "apply", "event": dict(stale, order=[[0, 1, 2], [0, 1]])})))
    assert not out["ok"] and out["error"]["code"] == "wrong_phase"
    assert out["message"].startswith("A ordem de jogo é fixa depois da primeira tacada da partida (Art. 1)")
    assert len(t.events) == 2


def test_a_side_of_four_taps_three_names():
    t = TabletEngine(Match({"players": [["A1", "A2", "A3", "A4"], ["B1", "B2"]], "first_breaker": 1}).config, [])
    nodes = _row(t.view(), "order")["pickers"][0]["nodes"]
    a3 = next(n for n in nodes if n["name"] == "A3")
    a1 = next(n for n in a3["children"] if n["name"] == "A1")
    assert a1["group"] == "order-0-2"  # one open at a time among A3's followers
    leaf = next(n["button"] for n in a1["children"] if n["name"] == "A4")
    assert leaf["small"] == "A3 → A1 → A4 → A2"
    assert json.loads(leaf["event"]) == {"type": "order", "order": [[2, 0, 3, 1], [0, 1]]}
    html = referee_html.region(t.view(), "en")
    assert '<details class="order-node" name="order-0-2">' in html
