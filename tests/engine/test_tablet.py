"""``presentation/tablet_board.py``, ``tablet_foul.py`` and ``tablet.py``: the tablet view the server and the
tablet's browser both compute, its foul dialog, and the JSON bridge the browser calls. Its verdicts are the engine's own (options, foul_preview, describe)."""
from __future__ import annotations

import json

import pytest

from presentation.explain import foul_verdict
from presentation.tablet import TabletEngine
from presentation.tablet_board import tablet_view
from presentation.tablet_foul import foul_event, foul_form
from sinuca import Match

CONFIG = {"players": ["Ana", "Bia"], "reds": 15, "frames_to_win": 2, "first_breaker": 0}


def ask(engine: TabletEngine, **req) -> dict:
    return json.loads(engine.answer(json.dumps(req)))


def enabled(view: dict, kind: str = "balls") -> list[dict]:
    row = next(r for r in view["controls"] if r["kind"] == kind)
    return [json.loads(b["event"]) for b in row["buttons"] if b["enabled"]]


def test_the_view_enables_exactly_the_engines_legal_pots():
    m = Match(CONFIG)
    assert enabled(tablet_view(m)) == [{"type": "pot", "balls": [1]}]
    m.apply({"type": "pot", "balls": [1]})
    v = tablet_view(m)
    assert enabled(v) == [{"type": "pot", "balls": [b]} for b in (2, 3, 4, 5, 6, 7)]
    assert v["legal"] == m.options() and v["ball_on"] == [2, 3, 4, 5, 6, 7]
    assert v["players"][0] == {"name": "Ana", "score": 1, "frames": 0, "warnings": 0, "at_table": True}
    # the multi-red row stays (so nothing below it moves), all disabled after a red, as on the server's page
    assert [b["enabled"] for b in next(r for r in v["controls"] if r["kind"] == "reds")["buttons"]] == [False] * 3


def test_the_decision_row_is_the_engines_decision_options_and_the_free_ball_its_own_row():
    m = Match(CONFIG)
    m.apply({"type": "foul", "ball": 4, "snooker": True, "retorno": True})
    v = tablet_view(m)
    row = next(r for r in v["controls"] if r["kind"] == "decision")
    # explain's words: the free ball is its own choice, each says what it does (Art. 35, 36)
    assert [b["label"] for b in row["buttons"]] == ["Jogar com bola livre", "Passar", "Retorno"]
    assert row["buttons"][1]["explain"] == "Ana joga de novo, com as bolas como pararam, sem bola livre (Art. 35.4)"
    assert [json.loads(b["event"])["choice"] for b in row["buttons"]] == m.options()["decision_options"]
    assert v["banners"]["free_ball"] is True
    m.apply({"type": "decision", "choice": "play"})
    v = tablet_view(m, "en")
    free = next(r for r in v["controls"] if r["kind"] == "freeball")
    assert [b["label"] for b in free["buttons"]] == ["Free: yellow", "Free: green", "Free: brown", "Free: blue",
                                                      "Free: pink", "Free: black"]
    assert json.loads(free["buttons"][0]["event"]) == {"type": "pot", "balls": [2], "free_ball": 2}


def test_apply_answers_the_view_and_description_and_a_refused_tap_changes_nothing():
    e = TabletEngine(CONFIG, [], "pt")
    r = ask(e, op="apply", event={"type": "pot", "balls": [1]})
    assert r["ok"] and r["description"] == "Ana encaçapa uma vermelha: +1, tacada 1" and r["count"] == 1
    bad = ask(e, op="apply", event={"type": "pot", "balls": [1]})
    assert bad["ok"] is False and bad["error"]["code"] == "illegal_pot"
    assert "Art. 11.1" in bad["error"]["message"] and " / " in bad["error"]["message"]  # pt / en
    assert ask(e, op="state")["events"] == [{"type": "pot", "balls": [1]}]
    assert ask(e, op="view")["view"]["players"][0]["score"] == 1


def test_the_undo_preview_names_the_event_an_undo_takes_back():
    e = TabletEngine(CONFIG, [{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [5]}], "pt")
    assert e.view()["undo"] == "Ana encaçapa a azul (5): +5, tacada 6"
    ask(e, op="apply", event={"type": "undo"})
    assert e.view()["undo"] == "Ana encaçapa uma vermelha: +1, tacada 1"
    ask(e, op="apply", event={"type": "undo"})
    undo = next(r for r in e.view()["controls"] if r["kind"] == "undo")  # kept in place, disabled
    assert e.view()["undo"] is None and undo["buttons"][0]["enabled"] is False


def test_foul_form_fields_give_the_event_and_the_engines_preview():
    e = TabletEngine(CONFIG, [{"type": "pot", "balls": [1]}], "pt")
    form = foul_form(e.match)
    names = [sorted({c["name"] for c in f["choices"]}) for f in form["fields"]]
    # the circumstances right after the kind: in view without scrolling, in portrait too
    assert names == [["nominated"], ["kind"], ["aggravated", "grave", "retorno", "snooker"], ["ball"],
                     ["potted", "potted_reds"], ["player"]]
    assert form["needs_nomination"] is True and not any(c["checked"] for c in form["fields"][0]["choices"])
    fields = {"ball": ["5"], "nominated": ["5"], "snooker": ["1"], "player": ["0"], "potted": ["6"]}
    assert foul_event(fields) == {"type": "foul", "ball": 5, "nominated": 5, "player": 0, "potted": [6],
                                  "snooker": True}
    # the server dialog's names (one checkbox per circumstance, reds as a count) give the same event
    assert foul_event({"ball": ["5"], "retorno": ["1"], "potted_reds": ["2"], "potted": ["7"]}) == \
        {"type": "foul", "ball": 5, "potted": [1, 1, 7], "retorno": True}
    p = ask(e, op="foul_preview", fields=fields)
    assert p["preview"] == foul_verdict(Match.replay(CONFIG, [{"type": "pot", "balls": [1]}]), p["event"])
    assert [line["text"] for line in p["lines"]] == [line["pt"] for line in p["preview"]["lines"]] == [
        "6 pontos para Bia (Art. 40)", "Deixou sinuca: se Bia jogar, tem bola livre (Art. 36)",
        "Retorno possível (Art. 25): marque “Falta e retorno” para oferecê-lo a Bia"]
    # no colour aimed at said yet: no penalty shown, the question instead (no default 7, Art. 48.3)
    none = ask(e, op="foul_preview", fields={})
    assert none["ask"] is True and none["preview"] is None
    assert [line["text"] for line in none["lines"]] == ["Escolha primeiro a cor visada: ela decide a penalidade."]
    said = ask(e, op="foul_preview", fields={"nominated": ["none"]})
    assert said["lines"][0]["text"] == "7 pontos para Bia (Art. 48.3: cor não cantada)"


def test_a_malformed_request_is_an_error_in_both_languages():
    e = TabletEngine(CONFIG)
    r = json.loads(e.answer("not json"))
    assert r["ok"] is False and r["error"]["code"] == "bad_request"
    assert set(r["error"]["message"]) == {"pt", "en"}
    assert ask(e, op="nope")["error"]["code"] == "bad_op"


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_replaying_the_log_gives_the_view_of_the_match(lang):
    events = [{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}, {"type": "no_pot"},
              {"type": "foul", "ball": 4}, {"type": "decision", "choice": "play"}]
    e = TabletEngine(CONFIG, events, lang)
    view = e.view()
    assert view.pop("recent") == e.descriptions[::-1][:8]
    assert view == tablet_view(Match.replay(CONFIG, events), lang, e.descriptions[-1], log=e.log(), seq=5)
    assert [line["seq"] for line in view["log"]] == [5, 4, 3, 2, 1]
    assert e.view()["players"][0]["score"] == 12 and e.view()["phase"] == "play"


def test_reset_applies_only_what_it_lacks_and_replays_when_the_log_differs():
    events = [{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}]
    e = TabletEngine(CONFIG, events[:1], "pt")
    match = e.match
    r = ask(e, op="reset", events=events)
    assert r["count"] == 2 and e.match is match  # the same match, one event applied
    other = [{"type": "no_pot"}]
    r = ask(e, op="reset", events=other)  # another device's log: replayed from the start
    assert e.match is not match and r["count"] == 1 and e.view()["players"][1]["at_table"] is True


def test_a_bad_number_in_the_foul_form_is_an_error_in_words_not_a_plain_foul():
    from presentation.tablet_foul import FormError

    assert foul_event({"ball": ["4"], "nominated": ["none"], "potted_reds": ["2"], "potted": ["5"],
                       "retorno": ["1"]}) == {"type": "foul", "ball": 4, "potted": [1, 1, 5], "retorno": True}
    for field in ("ball", "player", "potted_reds", "potted"):
        with pytest.raises(FormError) as e:
            foul_event({field: ["4²"]})  # "²".isdigit() is true, int("²") raises
        assert e.value.name == field
    r = json.loads(TabletEngine(CONFIG).answer(json.dumps({"op": "foul_event", "fields": {"ball": ["4²"]}})))
    assert r["ok"] is False and r["error"]["code"] == "bad_field" and isinstance(r["message"], str)
