"""Hypothesis properties of the engine: rejection changes nothing, undo is exact, a replay equals
the match built step by step, scores and points remaining move only the ways the rules allow,
and no event stream crashes it."""
import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sinuca import Match, SinucaError
from sinuca.simulate import next_event, play

from .conftest import new_match

balls = st.integers(min_value=0, max_value=8)
kinds = st.sampled_from(["other", "cue_ball_potted", "wrong_ball", "compulsory", "free_ball_snooker",
                         "intentional", "slow_play", "misconduct", "foul_before_nomination", "bogus"])
maybe = lambda s: st.one_of(st.none(), s)  # noqa: E731


def _drop_none(d: dict) -> dict:
    return {k: v for k, v in d.items() if v is not None}


raw_events = st.one_of(
    st.builds(lambda b, fb, n: _drop_none({"type": "pot", "balls": b, "free_ball": fb, "nominated": n}),
              st.lists(balls, max_size=4), maybe(balls), maybe(balls)),
    st.builds(lambda fb, s: _drop_none({"type": "no_pot", "free_ball": fb, "safety": s}), maybe(balls),
              maybe(st.booleans())),
    st.builds(lambda k, b, p, r, sn, ag, fb, n, pl, g: _drop_none(
        {"type": "foul", "kind": k, "ball": b, "potted": p, "retorno": r, "snooker": sn, "aggravated": ag,
         "free_ball": fb, "nominated": n, "player": pl, "grave": g}),
        maybe(kinds), maybe(balls), maybe(st.lists(balls, max_size=3)), maybe(st.booleans()),
        maybe(st.booleans()), maybe(st.booleans()), maybe(balls), maybe(balls),
        maybe(st.integers(0, 2)), maybe(st.booleans())),
    st.builds(lambda c: {"type": "decision", "choice": c}, st.sampled_from(["play", "pass", "retorno", "x"])),
    st.builds(lambda p: {"type": "lot", "player": p}, st.integers(-1, 2)),
    st.sampled_from([{"type": t} for t in ("stalemate_warning", "restart_frame", "next_frame", "undo",
                                           "nonsense")]),
    st.builds(lambda p: {"type": "concede", "player": p}, st.integers(0, 1)),
    st.builds(lambda p: {"type": "concede_match", "player": p}, st.integers(0, 1)),
    st.builds(lambda p: {"type": "disqualify", "players": p}, st.lists(st.integers(0, 1), max_size=2)),
    st.just({"type": "pot"}), st.just("pot"), st.just(None),
)

configs = st.builds(
    lambda reds, ftw, first, ret: _drop_none({"players": ["Ana", "Bia"], "reds": reds, "frames_to_win": ftw,
                                              "first_breaker": first, "retorno": ret}),
    st.sampled_from([6, 10, 15]), st.integers(1, 3), maybe(st.integers(0, 1)), st.booleans())

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _dump(m: Match) -> str:
    return json.dumps(m.state(), sort_keys=True)


@FAST
@given(configs, st.lists(raw_events, max_size=60))
def test_random_streams_raise_only_contract_errors_and_rejections_change_nothing(config, events):
    m = Match(config)
    for ev in events:
        before = _dump(m)
        n = len(m)
        try:
            m.apply(ev)
        except SinucaError as e:
            assert e.code in {"invalid_event", "wrong_phase", "match_over", "illegal_pot", "illegal_free_ball",
                              "illegal_foul", "retorno_not_allowed", "nothing_to_undo"}
            assert _dump(m) == before and len(m) == n


def _legal_stream(seed: int, config: dict, length: int) -> tuple[Match, list, list]:
    """Play ``length`` legal events by chance; return the match, the events and every state."""
    m = Match(config)
    events, states = [], [_dump(m)]
    for step in play(m, random.Random(seed), length, undo_rate=0.05):
        events.append(step.event)
        states.append(_dump(m))
    return m, events, states


@FAST
@given(st.integers(0, 10**9), configs, st.integers(0, 300))
def test_replaying_the_log_equals_the_match_built_step_by_step(seed, config, length):
    m, events, _ = _legal_stream(seed, config, length)
    assert _dump(Match.replay(config, events)) == _dump(m)


@FAST
@given(st.integers(0, 10**9), configs, st.integers(1, 200), st.data())
def test_undo_returns_the_exact_earlier_state(seed, config, length, data):
    m = Match(config)
    states = [_dump(m)]
    for _ in play(m, random.Random(seed), length, undo_rate=0):
        states.append(_dump(m))
    k = data.draw(st.integers(0, len(states) - 1))
    for _ in range(k):
        m.undo()
    assert _dump(m) == states[len(states) - 1 - k]


@FAST
@given(st.integers(0, 10**9), configs)
def test_within_a_frame_scores_rise_and_points_remaining_falls(seed, config):
    rng = random.Random(seed)
    m = Match(config)
    prev = m.state()
    for _ in range(400):
        ev = next_event(m, rng, undo_rate=0.03)
        if ev is None:
            break
        try:
            step = m.apply(ev)
        except SinucaError:
            continue
        s = step.state
        t = ev["type"]
        same_frame = s["frame_number"] == prev["frame_number"] and t not in ("undo", "restart_frame", "next_frame")
        if same_frame:
            assert s["scores"][0] >= prev["scores"][0] and s["scores"][1] >= prev["scores"][1], ev
            allowed_up = (t == "decision" and ev["choice"] == "retorno") or (t == "pot" and "free_ball" in ev) \
                or t == "lot"  # the first lot starts the frame; a later one the decider
            if not allowed_up:
                assert s["points_remaining"] <= prev["points_remaining"], (ev, prev, s)
        prev = s


@FAST
@given(st.integers(0, 10**9))
def test_a_whole_match_reaches_a_result(seed):
    m, events, _ = _legal_stream(seed, {"players": ["Ana", "Bia"], "frames_to_win": 2, "reds": 6}, 5000)
    s = m.state()
    assert s["phase"] == "match_over"
    assert s["match_result"] in ("frames", "disqualification", "both_disqualified", "concession")
    if s["match_result"] == "frames":
        assert max(s["frames"]) == 2 and s["frames"][s["match_winner"]] == 2
        assert len(s["history"]) == sum(s["frames"])


def test_preview_changes_nothing():
    m = new_match()
    before = _dump(m)
    assert m.preview({"type": "pot", "balls": [1]}).state["scores"] == [1, 0]
    assert _dump(m) == before and len(m) == 0
