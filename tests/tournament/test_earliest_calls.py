"""The "não antes de" of a match is a true lower bound on its call (``tournament.earliest_calls``):
a whole day played through the queue (``tournament.assign``, its rest rule) with matches that end
at any moment, by W.O. without play or after play (then their players rest): every bound shown
for a match before its call is at or before the call. The projection it replaced said "não
antes de ~12:30" for a semi-final called at 10:47 when the day ran early."""
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tournament import assign, build, earliest_calls, evaluate
from tournament.spec import Table

from test_properties import SETTINGS, competitions, result_for


def play_day(plan, rng, tables: int, rest_minutes: int):
    """Play ``plan`` through the queue on ``tables`` tables from time 0 (seconds). Each call is
    decided at random: a W.O. after 0–20 minutes (no play, no rest), or played for 0–90 minutes
    (in play from the call; its players rest after it). Before each call round, every match's
    bound is computed. Returns ``(calls, bounds, state)``: match id -> call time, match id -> the
    latest bound shown for it before its call, and the final state."""
    rest = rest_minutes * 60
    venue = [Table(f"Mesa {i}") for i in range(1, tables + 1)]
    results, on, calls, bounds, last_finish = {}, {}, {}, {}, {}
    ends = {}  # match id -> (end time, played)
    t = 0.0
    for _ in range(10_000):
        state = evaluate(plan, results)
        in_play = {m for m, (_e, played) in ends.items() if played}
        for mid, b in earliest_calls(state, t, rest_minutes, in_play=in_play, last_finish=last_finish).items():
            if mid not in calls:
                bounds[mid] = max(bounds.get(mid, b), b)
        busy = {p for m in on.values() for p in m.players}
        ready = [m for m in state.ready() if m.id not in calls]
        free = [tb for tb in venue if tb.name not in on]
        for tb, m in assign(free, ready, venue, busy, last_finish, t, rest_minutes):
            on[tb.name] = m
            calls[m.id] = t
            played = rng.random() < 0.7
            ends[m.id] = (t + rng.randrange(0, (90 if played else 20) * 60 + 1), played)
        if not ends:
            # nothing on a table: a rest holds the ready matches back; wake when the first ends
            waits = [last_finish[p] + rest for m in ready for p in m.players if p in last_finish
                     and last_finish[p] + rest > t]
            if not waits:
                break
            t = min(waits)
            continue
        mid = min(ends, key=lambda m: (ends[m][0], m))
        t, played = ends.pop(mid)
        name = next(n for n, m in on.items() if m.id == mid)
        m = on.pop(name)
        if played:
            results[mid] = result_for(m, rng)
            for p in m.players:
                last_finish[p] = t
        else:
            side = rng.randrange(3)
            results[mid] = ({"winner": None, "kind": "double_walkover"} if side == 2 else
                            {"winner": m.players[side], "kind": "walkover"})
    return calls, bounds, evaluate(plan, results)


@settings(max_examples=40, **SETTINGS)
@given(competitions(max_n=24), st.integers(1, 4), st.sampled_from([0, 10, 30]), st.randoms(use_true_random=False))
def test_no_match_is_called_before_its_not_before_time(comp, tables, rest, rng):
    plan = build(comp)
    calls, bounds, final = play_day(plan, rng, tables, rest)
    assert final.complete
    for mid, at in calls.items():
        assert bounds.get(mid, at) <= at, (mid, bounds[mid], at)


def test_a_knockout_running_early_reads_any_time_now_then_the_rest_after_its_feeders():
    """Four players, two semi-finals and the final, rest 15 min: before any result the final
    can be called no earlier than both semis' earliest calls (now: a double W.O. ends them at
    once); with both semis in play, not before now + 15 min; with one semi played (ended at
    t = 600) and the other in play, not before max(600, now) + 15 min."""
    from tournament import parse_competition

    comp = parse_competition({"name": "K", "reds": 15, "draw_seed": 1, "rest_minutes": 15,
                              "players": ["A", "B", "C", "D"],
                              "stages": [{"format": "knockout", "frames_to_win": 2}]})
    plan = build(comp)
    state = evaluate(plan, {})
    assert earliest_calls(state, 100.0, 15) == {1: 100.0, 2: 100.0, 3: 100.0}
    assert earliest_calls(state, 100.0, 15, in_play={1, 2}) == {3: 100.0 + 900}
    semi = state.matches[1]
    state = evaluate(plan, {1: {"winner": semi.players[0], "frames": [2, 0]}})
    got = earliest_calls(state, 700.0, 15, in_play={2}, last_finish={p: 600.0 for p in semi.players})
    assert got == {3: 700.0 + 900}
    # the other semi ends by a W.O. (no play): the final waits only for the first's rest
    other = state.matches[2]
    state = evaluate(plan, {1: {"winner": semi.players[0], "frames": [2, 0]},
                            2: {"winner": other.players[1], "kind": "walkover"}})
    assert earliest_calls(state, 700.0, 15, last_finish={p: 600.0 for p in semi.players}) == {3: 1500.0}
    assert earliest_calls(state, 2000.0, 15, last_finish={p: 600.0 for p in semi.players}) == {3: 2000.0}


def test_a_seed_that_waits_for_a_round_robin_group_waits_for_every_match_of_it():
    """A group's position is known once every match of the group is decided: the knockout match
    it feeds waits for the group's last match, in play (``now``) or not started (its own
    earliest call)."""
    from tournament import parse_competition

    comp = parse_competition({"name": "G", "reds": 15, "draw_seed": 2, "rest_minutes": 10,
                              "players": [f"P{i}" for i in range(1, 7)],
                              "stages": [{"format": "round_robin_groups", "groups": 2, "qualify": 1,
                                          "frames_to_win": 1},
                                         {"format": "knockout", "frames_to_win": 1}]})
    plan = build(comp)
    final = plan.fixtures[-1].id
    state = evaluate(plan, {})
    rng = random.Random(3)
    results = {}
    for f in plan.fixtures[:-1]:
        if f.group == "A":
            results[f.id] = result_for(state.matches[f.id], rng)
    state = evaluate(plan, results)
    group_b = [f.id for f in plan.fixtures if f.group == "B"]
    got = earliest_calls(state, 50.0, 10, in_play=set(group_b[:1]),
                         last_finish={p: 40.0 for m in results for p in state.matches[m].players})
    # group B's other matches each have a player of the match in play: his rest after it
    assert [got[m] for m in group_b[1:]] == [650.0, 650.0]
    # the final: group A's winner rests until 640, group B is decided no earlier than 650
    assert got[final] == 650.0
