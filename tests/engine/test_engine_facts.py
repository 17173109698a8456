"""Facts the engine states once (issue 16, items 3 and 6): which events are in effect and what each
undo took back, the free ball shown, who is at the table, who won, best-of; the foul preview that
agrees with apply (T2); the tablet's undo (T1) and decision line (T3); the crashes that are now
contract errors; the colour aimed at asked only when it sets the penalty (Art. 40.1.a vs 42-43)."""
from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from presentation.tablet import TabletEngine
from presentation.tablet_board import tablet_view
from presentation.tablet_foul import foul_event, foul_form, preview_texts
from sinuca import InvalidEvent, Match, SinucaError
from sinuca.simulate import play

from .test_properties import configs, raw_events

CONFIG = {"players": ["Ana", "Bia"], "first_breaker": 0}
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def nested(depth: int) -> list:
    x: list = []
    for _ in range(depth):
        x = [x]
    return x


def brackets(types: list[str]) -> tuple[list[int], dict[int, int]]:
    """An independent reading of the contract (section 4): an undo takes back the latest event
    still in effect. Returns (in effect, {undo: event})."""
    effect: list[int] = []
    undid = {}
    for i, t in enumerate(types):
        if t == "undo":
            undid[i] = effect.pop()
        else:
            effect.append(i)
    return effect, undid


# -- item 3: the facts --------------------------------------------------------------------------

@FAST
@given(configs, st.lists(raw_events, max_size=60))
def test_the_events_in_effect_and_what_each_undo_took_back_are_the_brackets_of_the_log(config, events):
    m = Match(config)
    applied = []
    for ev in events:
        try:
            m.apply(ev)
        except SinucaError:
            continue
        applied.append(ev["type"])
    effect, undid = brackets(applied)
    assert m.in_effect() == effect
    assert m.undid() == undid
    assert m.undone() == {e: u for u, e in undid.items()}
    assert m.undo_target() == (effect[-1] if effect else None)
    assert (m.undo_target() is not None) == m.can_undo == ("undo" in m.options()["events"])


def test_undo_facts_by_hand():
    m = Match(CONFIG)
    for ev in ({"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}, {"type": "undo"}, {"type": "undo"},
               {"type": "no_pot"}):
        m.apply(ev)
    assert m.in_effect() == [4]
    assert m.undid() == {2: 1, 3: 0}
    assert m.undone() == {1: 2, 0: 3}
    assert m.undo_target() == 4


@FAST
@given(st.integers(0, 10_000), st.integers(1, 3))
def test_free_ball_at_table_winner_and_best_of_follow_the_state(seed, ftw):
    m = Match({**CONFIG, "frames_to_win": ftw})
    assert m.best_of == 2 * ftw - 1
    for _ in play(m, random.Random(seed), 150, undo_rate=0.05):
        s = m.state()
        phase = s["phase"]
        assert m.free_ball_shown() == bool(s["free_ball"] or (phase == "decision" and m.options()["free_ball_offered"]))
        assert m.at_table() == (s["striker"] if phase in ("play", "decision") else None)
        assert m.winner() == {"match_over": s["match_winner"], "frame_over": s["frame_winner"]}.get(phase)


def test_a_snooker_left_shows_the_free_ball_while_the_decision_waits_and_after_play():
    m = Match(CONFIG)
    m.apply({"type": "foul", "snooker": True})
    assert m.free_ball_shown() and m.at_table() == 1 and m.winner() is None
    m.apply({"type": "decision", "choice": "play"})
    assert m.free_ball_shown() and m.state()["free_ball"]
    m.apply({"type": "concede", "player": 0})
    assert not m.free_ball_shown() and m.at_table() is None and m.winner() == 1


# -- T1, T2, T3 ---------------------------------------------------------------------------------

def test_t1_on_a_new_match_the_undo_confirm_is_disabled():
    undo = next(r for r in tablet_view(Match(CONFIG))["controls"] if r["kind"] == "undo")
    ask, confirm, cancel = undo["buttons"]
    assert confirm["event"] == '{"type":"undo"}'
    assert ask["enabled"] is False and confirm["enabled"] is False and cancel["enabled"] is True
    m = Match(CONFIG)
    m.apply({"type": "pot", "balls": [1]})
    undo = next(r for r in tablet_view(m)["controls"] if r["kind"] == "undo")
    assert [b["enabled"] for b in undo["buttons"]] == [True, True, True]


def test_t2_a_seated_foul_with_retorno_is_previewed_as_apply_refuses_it():
    m = Match(CONFIG)
    ev = {"kind": "slow_play", "player": 1, "retorno": True, "ball": 6}
    with pytest.raises(SinucaError) as refused:
        m.apply(dict(ev, type="foul"))
    assert refused.value.code == "retorno_not_allowed"
    assert m.foul_preview(ev)["error"] == refused.value.as_dict()


fouls = st.builds(
    lambda k, b, p, r, sn, ag, fb, n, pl, g: {key: v for key, v in {
        "kind": k, "ball": b, "potted": p, "retorno": r, "snooker": sn, "aggravated": ag, "free_ball": fb,
        "nominated": n, "player": pl, "grave": g}.items() if v is not None},
    # disciplinary kinds (the seated player's fouls) and both players drawn often: where preview
    # and apply once disagreed (T2)
    st.sampled_from([None, "other", "cue_ball_potted", "wrong_ball", "compulsory", "free_ball_snooker",
                     "foul_before_nomination", "bogus", "intentional", "slow_play", "misconduct",
                     "slow_play", "misconduct"]),
    *[st.one_of(st.none(), s) for s in (
        st.integers(0, 8), st.lists(st.integers(0, 8), max_size=3), st.booleans(), st.booleans(),
        st.booleans(), st.integers(0, 8), st.integers(0, 8))],
    st.sampled_from([None, 0, 1, 1, 2]), st.one_of(st.none(), st.booleans()))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(0, 120), st.booleans(), fouls)
@example(0, 0, True, {"kind": "slow_play", "player": 1, "retorno": True, "ball": 6})
def test_the_foul_preview_agrees_with_apply_on_random_positions_and_fouls(seed, n, retorno, foul):
    m = Match({**CONFIG, "retorno": retorno, "frames_to_win": 2})
    for _ in play(m, random.Random(seed), n):
        pass
    p = m.foul_preview(foul)
    try:
        step = m.apply(dict(foul, type="foul"))
    except SinucaError as e:
        assert p["error"] == e.as_dict(), foul
        assert p["refusal"] == {"pt": e.message_pt, "en": e.message_en}
        return
    assert p["error"] is None and p["refusal"] is None
    assert p["state"] == step.state
    assert p["penalty"] == step.foul["penalty"] and p["receiver"] == step.foul["receiver"]


def test_t3_the_decision_line_is_the_penalty_of_the_foul_decided_on():
    m = Match(CONFIG)
    m.apply({"type": "foul", "ball": 1})
    m.apply({"type": "foul", "kind": "misconduct", "player": 0})
    assert m.state()["last_penalty"] == {"player": 1, "points": 7}  # the state says the latest foul
    assert m.pending_foul() == {"offender": 0, "receiver": 1, "penalty": 4, "snooker": False, "retorno": False}
    rows = [r["title"] for r in tablet_view(m)["controls"] if r["kind"] == "penalty"]
    assert rows == ["Falta: 4 pontos"]


# -- the crashes: contract errors ---------------------------------------------------------------

def test_a_foul_kind_nested_1200_deep_is_an_invalid_event():
    with pytest.raises(InvalidEvent) as e:
        Match(CONFIG).apply({"type": "foul", "kind": nested(1200)})
    assert e.value.message_en == "Invalid event: unknown foul kind […]"
    p = Match(CONFIG).foul_preview({"kind": nested(1200)})
    assert p["error"]["code"] == "invalid_event"


@pytest.mark.parametrize("event", [{"type": nested(1200)}, {"type": "foul", ("k",) * 3: 1},
                                   {"type": 10 ** 5000}, {"type": "x" * 10_000}])
def test_a_refused_value_of_any_size_is_named_briefly(event):
    with pytest.raises(InvalidEvent) as e:
        Match(CONFIG).apply(event)
    assert len(e.value.message) < 200


def answer(engine: TabletEngine, request: str) -> dict:
    return json.loads(engine.answer(request))


@pytest.mark.parametrize("request_", ["[1]", "1", '"x"', "null", "[" * 5000 + "]" * 5000,
                                      json.dumps({"op": "apply", "event": nested(900)}),
                                      json.dumps({"op": "foul_preview", "fields": [1]}),
                                      json.dumps({"op": "foul_preview", "fields": {"kind": [nested(900)]}}),
                                      json.dumps({"op": "reset", "events": {"a": 1}})])
def test_the_tablet_bridge_answers_a_malformed_request_with_an_error(request_):
    e = TabletEngine(CONFIG)
    r = answer(e, request_)
    assert r["ok"] is False and r["error"]["code"] in ("bad_request", "bad_field", "invalid_event")
    assert set(r["error"]["message"]) >= {"pt", "en"} or " / " in r["error"]["message"]
    assert answer(e, json.dumps({"op": "view"}))["ok"] is True  # and it still answers


# -- the colour aimed at, asked only when it sets the penalty ----------------------------------

def after_red() -> Match:
    m = Match(CONFIG)
    m.apply({"type": "pot", "balls": [1]})
    return m


def test_a_disciplinary_foul_while_a_colour_is_owed_asks_no_colour_and_costs_7_art_42_43():
    m = after_red()
    assert m.nomination_needed({"kind": "slow_play"}) is False
    assert m.nomination_needed({"kind": "wrong_ball"}) is False  # Art. 48.2: 7 fixed too
    assert m.nomination_needed({}) is True and m.nomination_needed({"kind": "cue_ball_potted"}) is True
    assert m.nomination_needed({"kind": "misconduct", "player": 1}) is False  # seated (Art. 49)
    p = preview_texts(m, foul_event({"kind": ["slow_play"], "nominated": [""]}), "pt", "")
    assert p["ask"] is False and p["preview"]["penalty"] == 7
    assert p["lines"][0]["text"] == "7 pontos para Bia (Art. 49.4)"
    asked = preview_texts(m, foul_event({"kind": ["cue_ball_potted"]}), "pt", "")
    assert asked["ask"] is True
    form = foul_form(m)
    striker, seated = next(x for x in form["fields"] if x["legend"] == "Quem cometeu")["choices"]
    assert form["needs_nomination"] and "slow_play" not in striker["nominates"]
    assert "cue_ball_potted" in striker["nominates"] and "" in striker["nominates"]  # "" : the default kind
    assert seated["nominates"] == []
    assert Match(CONFIG).nomination_needed({}) is False  # red on: the aimed ball is the red


def test_the_foul_form_says_per_offender_whether_the_colour_aimed_at_is_asked():
    """The foul form carries, per offender, the kinds whose penalty needs the colour aimed at, as
    the engine's ``nomination_needed`` answers: the page's script reads it and decides nothing
    (it used to work out "a seated player's foul needs no colour" itself). In doubles the
    striker's partner is seated too: the engine asked his foul for a colour."""
    from presentation import referee_html

    m = Match({"players": [["Ana", "Carla"], ["Bia", "Duda"]], "first_breaker": 0})
    m.apply({"type": "pot", "balls": [1]})
    assert m.nomination_needed({"kind": "cue_ball_potted", "player": 0, "person": 0}) is True
    assert m.nomination_needed({"kind": "cue_ball_potted", "player": 0, "person": 1}) is False  # Carla, seated
    form = foul_form(m)
    who = form["fields"][-1]["choices"]
    assert [c["value"] for c in who] == ["0.0", "0.1", "1.0", "1.1"]
    assert [bool(c["nominates"]) for c in who] == [True, False, False, False]
    html = referee_html.foul_dialog(form)
    assert "data-fixed-kinds" not in html and "data-striker" not in html
    ana = re.search(r'<input type="radio" name="player" value="0.0" checked data-nominates=\'(\[[^\']*\])\'>', html)
    assert json.loads(ana.group(1)) == who[0]["nominates"]
    assert '<input type="radio" name="player" value="0.1">' in html


def test_the_tablet_bridge_previews_a_disciplinary_foul_without_asking_the_colour():
    e = TabletEngine(CONFIG, [{"type": "pot", "balls": [1]}])
    r = answer(e, json.dumps({"op": "foul_preview", "fields": {"kind": ["slow_play"]}}))
    assert r["ask"] is False and r["preview"]["penalty"] == 7


@pytest.mark.parametrize("fields,name", [({"ball": ["4²"]}, "ball"), ({"player": ["x"]}, "player"),
                                         ({"potted": ["3", "a"]}, "potted"), ({"kind": [5]}, "kind")])
def test_the_one_foul_form_parser_refuses_a_field_that_is_not_a_number(fields, name):
    from presentation.tablet_foul import FormError
    with pytest.raises(FormError) as e:
        foul_event(fields)
    assert e.value.name == name and name in e.value.message["en"]


json_values = st.recursive(st.none() | st.booleans() | st.integers(-3, 10) | st.text(max_size=6),
                           lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=6), kids,
                                                                                    max_size=3), max_leaves=12)
requests = st.one_of(json_values, st.fixed_dictionaries(
    {"op": st.sampled_from(["reset", "apply", "view", "state", "foul_form", "foul_event", "foul_preview", "x"])},
    optional={"event": json_values, "events": json_values, "fields": json_values, "declared": json_values}))


@FAST
@given(st.lists(requests, max_size=6))
def test_the_tablet_bridge_answers_any_json_with_json_and_never_raises(reqs):
    e = TabletEngine(CONFIG, [{"type": "pot", "balls": [1]}])
    for req in reqs:
        r = answer(e, json.dumps(req))
        assert r["ok"] in (True, False)
        if not r["ok"]:
            assert r["error"]["code"] in ("bad_request", "bad_field", "bad_op") or r["error"]["code"] in (
                "invalid_event", "wrong_phase", "match_over", "illegal_pot", "illegal_free_ball", "illegal_foul",
                "retorno_not_allowed", "nothing_to_undo")


def test_a_refused_log_on_reset_changes_nothing():
    e = TabletEngine(CONFIG, [{"type": "pot", "balls": [1]}])
    before = answer(e, json.dumps({"op": "state"}))
    r = answer(e, json.dumps({"op": "reset", "events": [{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [2]},
                                                         {"type": "pot", "balls": [7]}]}))
    assert r["ok"] is False
    assert answer(e, json.dumps({"op": "state"})) == before
    assert e.match.state()["scores"] == [1, 0] and len(e.events) == 1
