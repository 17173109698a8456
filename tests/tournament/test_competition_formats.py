"""The formats behind one interface: each answers :class:`tournament.CompetitionFormat`, exactly
one claims any file, and through the interface a file reads, plans and evaluates exactly as its
own functions do (individual: parse_competition / build / evaluate; team: parse_team_competition
/ team_plan / evaluate_teams)."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournament import (COMPETITION_FORMATS, CompetitionFormat, Draw, TournamentError, build, evaluate,
                        evaluate_teams, format_for, parse_competition, parse_team_competition, team_plan)
from tournament.formats import INDIVIDUAL, TEAM

from test_properties import SETTINGS, competitions, play_out
from test_teams import _results, team_files


def test_both_formats_answer_the_protocol():
    assert [f.kind for f in COMPETITION_FORMATS] == ["individual", "team"]
    for fmt in COMPETITION_FORMATS:
        assert isinstance(fmt, CompetitionFormat)
    # anything that is no team file is the individual parser's to refuse, in both languages
    for junk in (None, [], "x", {}):
        assert format_for(junk) is INDIVIDUAL
        with pytest.raises(TournamentError):
            format_for(junk).parse(junk)
    assert format_for({"format": "team_round_robin"}) is TEAM
    with pytest.raises(TournamentError) as e:
        TEAM.plan(parse_team_competition({"name": "L", "teams": [{"name": "A", "players": ["a"]},
                                                                  {"name": "B", "players": ["b"]}],
                                          "tie": [{"kind": "singles"}]}), Draw("random", 1, (), ()))
    assert e.value.code == "invalid_field" and "draw" in e.value.en


@settings(max_examples=40, **SETTINGS)
@given(competitions(max_n=40), st.randoms(use_true_random=False), st.data())
def test_an_individual_file_through_the_protocol_is_its_own_functions(comp, rng, data):
    file = comp.to_dict()
    fmt = format_for(file)
    assert fmt is INDIVIDUAL and [f.kind for f in COMPETITION_FORMATS if f.is_file(file)] == ["individual"]
    spec = fmt.parse(file)
    assert spec == parse_competition(file)
    plan = fmt.plan(spec)
    direct = build(parse_competition(file))
    assert plan.to_dict() == direct.to_dict()
    ids = [e.id for e in spec.entries]
    withdrawn = data.draw(st.lists(st.sampled_from(ids), max_size=2, unique=True))
    results, _states, _final = play_out(plan, rng, withdrawn=withdrawn)
    fed = list(results.items())[:data.draw(st.integers(0, len(results)))]  # a valid moment: a prefix fed
    state = fmt.evaluate(plan, dict(fed), withdrawn=withdrawn)
    own = evaluate(direct, dict(fed), withdrawn)
    assert state.to_dict() == own.to_dict()
    assert fmt.ready(state) == [m.id for m in own.ready()]
    assert fmt.rows(state) == own.standings and all(isinstance(k, tuple) for k in fmt.rows(state))


@settings(max_examples=40, **SETTINGS)
@given(team_files(), st.randoms(use_true_random=False), st.data())
def test_a_team_file_through_the_protocol_is_its_own_functions(file, rng, data):
    fmt = format_for(file)
    assert fmt is TEAM and [f.kind for f in COMPETITION_FORMATS if f.is_file(file)] == ["team"]
    spec = fmt.parse(file)
    assert spec == parse_team_competition(file)
    plan = fmt.plan(spec)
    assert plan == team_plan(parse_team_competition(file))
    every = list(_results(plan, rng).items())
    rng.shuffle(every)
    given_ = dict(every[:data.draw(st.integers(0, len(every)))])
    state = fmt.evaluate(plan, given_)
    own = evaluate_teams(plan, given_)
    assert state.to_dict() == own.to_dict()
    # each tie's next rubber, ties in order, and nothing with a result
    assert fmt.ready(state) == [r["number"] for t in own.to_dict()["ties"] for r in t["rubbers"]
                                if r["status"] == "next"]
    assert not set(fmt.ready(state)) & set(given_)
    assert fmt.rows(state) == {(0, None): own.standings}
