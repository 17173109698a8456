"""Exact values: the CBBS double-elimination group, the issue's 8-player event, the knockout
bracket and byes, round-robin rounds and standings with tie-break reasons."""
import json

import pytest

from tournament import (TournamentError, bracket_order, build, check_correction, check_result,
                        circle_rounds, evaluate, make_draw, snake)
from tournament.progress import Result

from tourney_helpers import comp, win

DE8 = [{"format": "double_elimination_groups", "groups": 2, "frames_to_win": 2, "qualify": 2},
       {"format": "knockout", "frames_to_win": 3}]


def ph(slot):
    return slot.placeholder()["pt"] if slot.kind != "entry" else slot.entry


def test_issue_event_draw_and_placeholders():
    c = comp(8, DE8)
    plan = build(c, make_draw(c, method="snake"))
    rows = [(f.id, f.round, f.round_name, f.group, ph(f.a), ph(f.b), f.frames_to_win)
            for f in plan.fixtures]
    assert rows == [
        (1, 1, "opening", "A", 1, 8, 2), (2, 1, "opening", "A", 4, 5, 2),
        (3, 1, "opening", "B", 2, 7, 2), (4, 1, "opening", "B", 3, 6, 2),
        (5, 2, "winners", "A", "Vencedor J1", "Vencedor J2", 2),
        (6, 2, "losers", "A", "Perdedor J1", "Perdedor J2", 2),
        (7, 2, "winners", "B", "Vencedor J3", "Vencedor J4", 2),
        (8, 2, "losers", "B", "Perdedor J3", "Perdedor J4", 2),
        (9, 3, "decider", "A", "Vencedor J6", "Perdedor J5", 2),
        (10, 3, "decider", "B", "Vencedor J8", "Perdedor J7", 2),
        (11, 1, "semi_final", None, "1º Grupo A", "2º Grupo B", 3),
        (12, 1, "semi_final", None, "1º Grupo B", "2º Grupo A", 3),
        (13, 2, "final", None, "Vencedor J11", "Vencedor J12", 3),
    ]
    assert plan.fixtures[10].b.placeholder()["en"] == "2nd Group B"
    assert plan.fixtures[12].a.placeholder()["en"] == "Winner M11"
    json.dumps(plan.to_dict())


def test_issue_event_played_out():
    c = comp(8, DE8)
    plan = build(c, make_draw(c, method="snake"))
    # group A: 1 8 4 5 ; group B: 2 7 3 6. Upsets: 5 beats 4; in B, 7 beats 2.
    res = {1: {"winner": 1, "frames": [2, 1]}, 2: {"winner": 5, "frames": [0, 2]},
           3: {"winner": 7, "frames": [1, 2]}, 4: {"winner": 3, "frames": [2, 0]}}
    s = evaluate(plan, res)
    assert [(m.id, m.players) for m in s.ready()] == [(5, [1, 5]), (6, [8, 4]), (7, [7, 3]),
                                                      (8, [2, 6])]
    assert s.matches[9].status == "waiting" and s.matches[11].status == "waiting"
    res.update({5: {"winner": 1, "frames": [2, 0]}, 6: {"winner": 4, "frames": [1, 2]},
                7: {"winner": 3, "frames": [0, 2]}, 8: {"winner": 2, "frames": [2, 1]}})
    s = evaluate(plan, res)
    # 1st of A known (1) after the winners' match; 4th (8) after the losers' match
    assert s.positions[(0, "A")] == [1, None, None, 8]
    assert s.matches[9].players == [4, 5] and s.matches[10].players == [2, 7]
    assert s.matches[11].players == [1, None]
    assert s.matches[11].placeholders == [None, {"pt": "2º Grupo B", "en": "2nd Group B"}]
    res.update({9: {"winner": 5, "frames": [1, 2]}, 10: {"winner": 2, "frames": [2, 0]}})
    s = evaluate(plan, res)
    assert s.positions == {(0, "A"): [1, 5, 4, 8], (0, "B"): [3, 2, 7, 6]}
    assert [r["entry"] for r in s.standings[(0, "A")]] == [1, 5, 4, 8]
    assert s.matches[11].players == [1, 2] and s.matches[12].players == [3, 5]
    assert s.matches[11].fixture.frames_to_win == 3
    res.update({11: {"winner": 2, "frames": [2, 3]}, 12: {"winner": 3, "frames": [3, 1]}})
    s = evaluate(plan, res)
    assert s.matches[13].players == [2, 3] and s.champion is None
    res[13] = {"winner": 3, "frames": [1, 3]}
    s = evaluate(plan, res)
    assert s.complete and s.champion == 3
    assert s.placings == {3: 1, 2: 2, 1: 3, 5: 3, 4: 5, 7: 5, 8: 7, 6: 7}
    json.dumps(s.to_dict())


def test_de_group_of_three_gives_seed_one_a_bye():
    c = comp(3, [{"format": "double_elimination_groups", "groups": 1, "frames_to_win": 2}])
    plan = build(c, make_draw(c, method="snake"))
    assert [(f.round_name, ph(f.a), ph(f.b)) for f in plan.fixtures] == [
        ("opening", 2, 3), ("winners", 1, "Vencedor J1"), ("decider", "Perdedor J1", "Perdedor J2")]
    s = evaluate(plan, {1: {"winner": 3, "frames": [0, 2]}, 2: {"winner": 3, "frames": [1, 2]},
                        3: {"winner": 1, "frames": [0, 2]}})
    assert s.positions[(0, "A")] == [3, 1, 2, None]
    assert s.champion == 3 and s.placings == {3: 1, 1: 2, 2: 3}


def test_bracket_order_and_byes():
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    c = comp(5, [{"format": "knockout", "frames_to_win": 2, "draw": "snake"}])
    plan = build(c)
    assert [(f.id, f.round_name, ph(f.a), ph(f.b)) for f in plan.fixtures] == [
        (1, "quarter_final", 4, 5), (2, "semi_final", 1, "Vencedor J1"),
        (3, "semi_final", 2, 3), (4, "final", "Vencedor J2", "Vencedor J3")]


def test_third_place_and_longer_final():
    c = comp(4, [{"format": "knockout", "frames_to_win": 2, "third_place": True, "draw": "snake",
                  "frames_to_win_by_round": {"final": 4}}])
    plan = build(c)
    assert [(f.round_name, ph(f.a), ph(f.b), f.frames_to_win) for f in plan.fixtures] == [
        ("semi_final", 1, 4, 2), ("semi_final", 2, 3, 2),
        ("third_place", "Perdedor J1", "Perdedor J2", 2),
        ("final", "Vencedor J1", "Vencedor J2", 4)]
    s = evaluate(plan, {1: {"winner": 4, "frames": [0, 2]}, 2: {"winner": 2, "frames": [2, 0]},
                        3: {"winner": 3, "frames": [1, 2]}, 4: {"winner": 2, "frames": [3, 4]}})
    assert s.placings == {2: 1, 4: 2, 3: 3, 1: 4}


def test_four_groups_cross_over():
    c = comp(16, [{"format": "round_robin_groups", "groups": 4, "frames_to_win": 2, "qualify": 2},
                  {"format": "knockout", "frames_to_win": 3}])
    plan = build(c, make_draw(c, method="snake"))
    qf = [(ph(f.a), ph(f.b)) for f in plan.fixtures if f.round_name == "quarter_final"]
    assert qf == [("1º Grupo A", "2º Grupo B"), ("1º Grupo D", "2º Grupo C"),
                  ("1º Grupo B", "2º Grupo A"), ("1º Grupo C", "2º Grupo D")]


def test_round_robin_rounds_and_snake():
    assert snake(8, 2) == [[0, 3, 4, 7], [1, 2, 5, 6]]
    rounds = circle_rounds(list(range(5)))
    assert len(rounds) == 5
    pairs = [frozenset(p) for r in rounds for p in r]
    assert len(pairs) == 10 == len(set(pairs))
    for r in rounds:
        flat = [x for p in r for x in p]
        assert len(flat) == len(set(flat))


def _rr4(results):
    c = comp(4, [{"format": "round_robin_groups", "groups": 1, "frames_to_win": 2,
                  "draw": "snake"}])
    plan = build(c)
    by_pair = {frozenset((ph(f.a), ph(f.b))): f for f in plan.fixtures}
    res = {}
    for (w, l), (fw, fl), *pts in results:
        f = by_pair[frozenset((w, l))]
        fr = [fw, fl] if ph(f.a) == w else [fl, fw]
        r = {"winner": w, "frames": fr}
        if pts:
            r["points"] = pts[0] if ph(f.a) == w else pts[0][::-1]
        res[f.id] = r
    return plan, evaluate(plan, res)


def test_tie_break_head_to_head_then_frames():
    # 1, 2, 3 each win 2 (a cycle 1>2>3>1, all beat 4): head-to-head does not split them; frame
    # difference does.
    plan, s = _rr4([((1, 2), (2, 0)), ((2, 3), (2, 1)), ((3, 1), (2, 1)),
                    ((1, 4), (2, 0)), ((2, 4), (2, 0)), ((3, 4), (2, 1))])
    rows = s.standings[(0, "A")]
    # frames 1: 5-2, 2: 4-3, 3: 5-4, 4: 1-6 → 1 first on frames; 2 and 3 still level, and the
    # tie-breaks start again for the two of them: 2 beat 3.
    assert [(r["entry"], r["position"], r["wins"], r["frame_difference"],
             r["tie_break"] and r["tie_break"]["code"]) for r in rows] == [
        (1, 1, 2, 3, "frame_difference"), (2, 2, 2, 1, "head_to_head"),
        (3, 3, 2, 1, "head_to_head"), (4, 4, 0, -5, None)]
    assert rows[0]["tie_break"] == {
        "code": "frame_difference", "pt": "desempate: saldo de partidas",
        "en": "tie-break: frame difference"}


def test_tie_break_head_to_head_between_two():
    plan, s = _rr4([((2, 1), (2, 1)), ((1, 3), (2, 0)), ((1, 4), (2, 0)),
                    ((3, 2), (2, 1)), ((2, 4), (2, 0)),
                    ((4, 3), (2, 0))])
    rows = s.standings[(0, "A")]
    # 1: beat 3, 4 (2 wins); 2: beat 1, 4 (2 wins); 3: beat 2 (1); 4: beat 3 (1)
    assert [r["entry"] for r in rows] == [2, 1, 4, 3]
    assert rows[0]["tie_break"] == {"code": "head_to_head", "pt": "desempate: confronto direto",
                                    "en": "tie-break: head-to-head"}
    assert rows[1]["tie_break"]["code"] == "head_to_head"
    assert rows[2]["tie_break"]["code"] == "head_to_head"


def test_result_for_unknown_players_is_refused():
    c = comp(8, DE8)
    plan = build(c)
    with pytest.raises(TournamentError) as e:
        evaluate(plan, {5: {"winner": 1, "frames": [2, 0]}})
    assert e.value.code == "players_unknown"
    assert "Vencedor" not in e.value.pt and "J5" in e.value.pt and "M5" in e.value.en
    s = evaluate(plan, {})
    with pytest.raises(TournamentError) as e:
        check_result(s, 13, {"winner": 1, "kind": "walkover"})
    assert e.value.code == "players_unknown"


def test_walkover_and_withdrawal():
    c = comp(4, [{"format": "round_robin_groups", "groups": 1, "frames_to_win": 3,
                  "draw": "snake"}])
    plan = build(c)
    first = plan.fixtures[0]
    s = evaluate(plan, {first.id: {"winner": ph(first.a), "kind": "walkover"}})
    m = s.matches[first.id]
    assert m.status == "walkover" and m.result.frames == (3, 0) and not m.auto
    # 4 withdraws in his first match: every other match of his becomes W.O.
    f4 = next(f for f in plan.fixtures if 4 in (ph(f.a), ph(f.b)))
    other = ph(f4.a) if ph(f4.b) == 4 else ph(f4.b)
    fr = [1, 0] if ph(f4.a) == other else [0, 1]
    s = evaluate(plan, {f4.id: {"winner": other, "frames": fr, "kind": "withdrawal"}})
    assert s.withdrawn == {4}
    rest = [m for m in s.matches.values() if 4 in m.players and m.id != f4.id]
    assert len(rest) == 2 and all(m.status == "walkover" and m.auto and m.winner != 4
                                  and m.result.frames in ((3, 0), (0, 3)) for m in rest)


def test_correction_refused_once_a_dependent_started():
    c = comp(8, DE8)
    plan = build(c, make_draw(c, method="snake"))
    res = {1: {"winner": 1, "frames": [2, 1]}, 2: {"winner": 5, "frames": [0, 2]}}
    new = check_correction(plan, res, 1, {"winner": 8, "frames": [1, 2]})
    assert evaluate(plan, new).matches[5].players == [8, 5]
    assert res[1] == {"winner": 1, "frames": [2, 1]}  # input unchanged
    with pytest.raises(TournamentError) as e:
        check_correction(plan, res, 1, {"winner": 8, "frames": [1, 2]}, started=[5])
    assert e.value.code == "correction_refused"
    assert e.value.pt == "J1 não pode ser corrigido: o jogo seguinte já começou (J5)"
    assert e.value.en == "M1 cannot be corrected: a match it feeds has started (M5)"
    from tournament import can_correct
    assert can_correct(plan, res, 1) == (True, None)
    assert can_correct(plan, res, 1, started=[6]) == (False, {
        "code": "correction_refused",
        "pt": "J1 não pode ser corrigido: o jogo seguinte já começou (J6)",
        "en": "M1 cannot be corrected: a match it feeds has started (M6)"})
    assert can_correct(plan, res, 3)[1]["code"] == "not_finished"


def test_bad_input_errors():
    with pytest.raises(TournamentError) as e:
        comp(5, DE8)
    assert e.value.code == "too_few_entrants"
    with pytest.raises(TournamentError) as e:
        comp(8, [{"format": "swiss"}])
    assert e.value.code == "unknown_format" and "swiss" in e.value.en
    with pytest.raises(TournamentError) as e:
        comp(1, [{"format": "knockout"}])
    assert e.value.code == "too_few_entrants"
    from tournament import parse_competition
    with pytest.raises(TournamentError) as e:
        parse_competition({"name": "x", "players": ["Ana", "Bia", "ana"],
                           "stages": [{"format": "knockout"}]})
    assert e.value.code == "duplicate_entrant" and e.value.pt == "Jogador inscrito duas vezes: ana"
    # namesakes from two clubs are two entrants
    c = parse_competition({"name": "x", "players": [{"name": "Ana", "club": "X"},
                                                    {"name": "Ana", "club": "Y"}],
                           "stages": [{"format": "knockout"}]})
    assert [e.club for e in c.entries] == ["X", "Y"]
    with pytest.raises(TournamentError) as e:
        parse_competition({"name": "x", "reds": 12, "players": ["a", "b"],
                           "stages": [{"format": "knockout"}]})
    assert e.value.code == "invalid_field"


def test_invalid_score():
    c = comp(2, [{"format": "knockout", "frames_to_win": 3}])
    plan = build(c)
    with pytest.raises(TournamentError) as e:
        evaluate(plan, {1: {"winner": 1, "frames": [2, 1]}})
    assert e.value.code == "invalid_result"
    s = evaluate(plan, {1: {"winner": 2, "frames": [1, 2], "kind": "concession"}})
    assert s.champion == 2


def test_a_withdrawal_in_the_final_keeps_the_walkovers_won_before():
    # Round robin of 3 then a final: 3 withdraws in round 1, so 1's match against 3 is an
    # automatic W.O. win. Later 1 withdraws in the final: that earlier W.O. must stand (it led
    # to the final), or the group and the final would change under a finished result.
    c = comp(3, [{"format": "round_robin_groups", "groups": 1, "frames_to_win": 1, "qualify": 2,
                  "draw": "snake"},
                 {"format": "knockout", "frames_to_win": 1}])
    plan = build(c)
    by_pair = {frozenset((ph(f.a), ph(f.b))): f for f in plan.fixtures if f.stage == 0}
    f23, f12, f13 = by_pair[frozenset((2, 3))], by_pair[frozenset((1, 2))], by_pair[frozenset((1, 3))]
    res = {f23.id: {"winner": 2, "frames": [1, 0] if ph(f23.a) == 2 else [0, 1],
                    "kind": "withdrawal"},
           f12.id: {"winner": 1, "frames": [1, 0] if ph(f12.a) == 1 else [0, 1]}}
    s = evaluate(plan, res)
    assert s.matches[f13.id].auto and s.matches[f13.id].winner == 1
    final = plan.fixtures[-1]
    assert s.matches[final.id].players == [1, 2]
    res[final.id] = {"winner": 2, "frames": [0, 1], "kind": "withdrawal"}
    s = evaluate(plan, res)
    assert s.matches[f13.id].winner == 1 and s.matches[f13.id].status == "walkover"
    assert s.withdrawn == {1, 3} and s.champion == 2
    assert s.placings == {2: 1, 1: 2, 3: 3}


def test_json_shapes_and_string_match_ids():
    c = comp(8, DE8)
    plan = build(c, make_draw(c, method="snake"))
    s = evaluate(plan, json.loads(json.dumps({1: {"winner": 1, "frames": [2, 0]}})))
    assert s.matches[1].winner == 1
    d = json.loads(json.dumps(s.to_dict()))
    assert [x["format"] for x in d["stages"]] == ["double_elimination_groups", "knockout"]
    assert d["stages"][0]["groups"] == ["A", "B"] and not d["stages"][0]["complete"]
    m11 = d["matches"][10]
    assert m11["status"] == "waiting" and m11["placeholders"][0] == {"pt": "1º Grupo A",
                                                                     "en": "1st Group A"}
    assert m11["label"] == {"pt": "J11 · Semifinal", "en": "M11 · Semi-final"}
    assert d["matches"][0]["label"] == {"pt": "J1 · Grupo A · Jogo de abertura",
                                        "en": "M1 · Group A · Opening match"}


def test_unknown_round_override_is_refused():
    with pytest.raises(TournamentError) as e:
        comp(4, [{"format": "knockout", "frames_to_win_by_round": {"finals": 4}}])
    assert e.value.code == "invalid_field" and "finals" in e.value.en


def test_cbbs_double_elimination_group_places():
    """CBBS group of 4 (seeds 1–4): 1×4 and 2×3; winners' match → 1st; losers' match → its
    loser 4th; decider between the losers'-match winner and the winners'-match loser → 2nd/3rd."""
    c = comp(4, [{"format": "double_elimination_groups", "groups": 1, "frames_to_win": 2,
                  "draw": "snake"}])
    plan = build(c)
    assert [(x.round, x.round_name, ph(x.a), ph(x.b)) for x in plan.fixtures] == [
        (1, "opening", 1, 4), (1, "opening", 2, 3),
        (2, "winners", "Vencedor J1", "Vencedor J2"), (2, "losers", "Perdedor J1", "Perdedor J2"),
        (3, "decider", "Vencedor J4", "Perdedor J3")]
    # 4 beats 1, 2 beats 3; winners' match 2 beats 4 → 2 is 1st; losers' match 1 beats 3 → 3 is
    # 4th; decider 4 (loser of the winners' match) beats 1 → 4 is 2nd, 1 is 3rd.
    res = {1: {"winner": 4, "frames": [1, 2]}, 2: {"winner": 2, "frames": [2, 0]},
           3: {"winner": 2, "frames": [0, 2]}, 4: {"winner": 1, "frames": [2, 1]}}
    s = evaluate(plan, res)
    assert s.positions[(0, "A")] == [2, None, None, 3]
    assert s.matches[5].players == [1, 4]
    res[5] = {"winner": 4, "frames": [1, 2]}
    s = evaluate(plan, res)
    assert s.positions[(0, "A")] == [2, 4, 1, 3]
    assert s.champion == 2 and s.placings == {2: 1, 4: 2, 1: 3, 3: 4}
    rows = s.standings[(0, "A")]
    assert [(r["entry"], r["position"], r["wins"], r["losses"]) for r in rows] == [
        (2, 1, 2, 0), (4, 2, 2, 1), (1, 3, 1, 2), (3, 4, 0, 2)]


def test_a_double_walkover_pair_shares_the_last_place_once_the_group_has_ended():
    """Both absent from 1×4 (a double W.O. sends nobody on): the group still ends, 2 and 3
    place 1st and 2nd, and 1 and 4 share 3rd; their rows showed no place ("–") after the end."""
    c = comp(4, [{"format": "double_elimination_groups", "groups": 1, "frames_to_win": 2,
                  "draw": "snake"}])
    plan = build(c)
    res = {1: {"winner": None, "frames": [0, 0], "kind": "double_walkover"},
           2: {"winner": 2, "frames": [2, 0]}}
    s = evaluate(plan, res)
    assert all(m.status in ("finished", "walkover", "bye", "void") for m in s.matches.values())
    rows = s.standings[(0, "A")]
    assert [(r["entry"], r["position"]) for r in rows] == [(2, 1), (3, 2), (1, 3), (4, 3)]
    assert s.placings == {2: 1, 3: 2, 1: 3, 4: 3}
    # while the group is open, nobody is given a place he has not reached
    s = evaluate(plan, {1: res[1]})
    assert [r["position"] for r in s.standings[(0, "A")]] == [None] * 4


def test_cbbs_national_format_seeds_enter_at_the_knockout():
    # Campeonato Brasileiro 2019: 8 double-elimination groups of 4 (best of 5), then a knockout
    # (best of 7) where the 16 best-ranked enter.
    c = comp(48, [{"format": "double_elimination_groups", "groups": 8, "frames_to_win": 3,
                   "qualify": 2, "draw": "snake"},
                  {"format": "knockout", "frames_to_win": 4, "seeded": 16}])
    plan = build(c)
    drawn = sorted(e for g in plan.draw.groups for e in g)
    assert drawn == list(range(17, 49))          # seeds 1–16 skip the groups
    assert plan.draw.groups[0] == (17, 32, 33, 48)  # snake over seeds 17..48
    ko = [f for f in plan.fixtures if f.stage == 1 and f.round == 1]
    assert len(ko) == 16 and all(f.round_name == "round_of_32" for f in ko)
    assert (ph(ko[0].a), ph(ko[0].b)) == (1, "2º Grupo H")
    assert (ph(ko[1].a), ph(ko[1].b)) == (16, "1º Grupo A")
    assert {f.frames_to_win for f in plan.fixtures if f.stage == 1} == {4}
    assert len(plan.fixtures) == 8 * 5 + 31


def test_manual_draw_round_trips_and_is_checked():
    from tournament import parse_competition
    data = {"name": "M", "players": [f"P{i}" for i in range(1, 9)],
            "stages": [{"format": "double_elimination_groups", "groups": 2, "draw": "manual",
                        "manual": [[8, 7, 6, 5], [4, 3, 2, 1]]},
                       {"format": "knockout"}]}
    c = parse_competition(data)
    assert parse_competition(json.loads(json.dumps(c.to_dict()))) == c
    plan = build(c)
    assert plan.draw.groups == ((8, 7, 6, 5), (4, 3, 2, 1))
    assert (ph(plan.fixtures[0].a), ph(plan.fixtures[0].b)) == (8, 5)
    with pytest.raises(TournamentError) as e:
        make_draw(c, manual=[[1, 2, 3, 4], [5, 6, 7, 7]])
    assert e.value.code == "invalid_draw"


def test_a_later_withdrawal_keeps_a_walkover_won_before_it():
    # 4 is withdrawn before the day: 3's match against 4 is a W.O. win for 3. Then 3 withdraws
    # in his match against 1. The W.O. he won stands (it is not turned into a double W.O.), and
    # his match against 2, still to play, becomes a W.O. for 2.
    c = comp(4, [{"format": "round_robin_groups", "groups": 1, "frames_to_win": 1,
                  "draw": "snake"}])
    plan = build(c)
    by_pair = {frozenset((ph(f.a), ph(f.b))): f for f in plan.fixtures}
    f13, f34, f23 = (by_pair[frozenset(p)] for p in ((1, 3), (3, 4), (2, 3)))
    res = {f13.id: {"winner": 1, "frames": [1, 0] if ph(f13.a) == 1 else [0, 1],
                    "kind": "withdrawal"}}
    s = evaluate(plan, res, withdrawn=[4])
    assert s.matches[f34.id].auto and s.matches[f34.id].winner == 3
    assert s.matches[f23.id].auto and s.matches[f23.id].winner == 2
    rows = {r["entry"]: r for r in s.standings[(0, "A")]}
    assert rows[3]["wins"] == 1 and rows[4]["wins"] == 0 and rows[4]["walkovers"] == 3
    assert s.withdrawn == {3, 4}


def test_a_recorded_seed_redraws_exactly():
    # pinned values: the recorded seed must give this draw on any machine and run (the lot too)
    c = comp(12, [{"format": "round_robin_groups", "groups": 3, "qualify": 1, "frames_to_win": 2},
                  {"format": "knockout"}], seed=42)
    assert make_draw(c).groups == ((1, 5, 9, 11), (2, 4, 8, 12), (3, 6, 7, 10))
    assert make_draw(c, method="random").groups == ((8, 9, 12, 1), (6, 10, 4, 2), (3, 7, 5, 11))
    assert build(c).lot == (9, 7, 6, 8, 11, 1, 3, 5, 10, 12, 2, 4)
    k = comp(8, [{"format": "knockout"}], seed=42)
    assert make_draw(k).order == (1, 2, 4, 3, 8, 6, 7, 5)   # seeds 1–2 fixed, 3–4 and 5–8 drawn
    assert make_draw(k, seed=43) != make_draw(k) or make_draw(k, seed=44) != make_draw(k)
