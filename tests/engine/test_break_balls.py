"""The balls of the current break, as the TV and overlay draw them beside the break's points."""
from sinuca import Match, max_break


def test_break_balls_follow_pots_fouls_and_undo():
    m = Match({"players": ["Ana", "Bia"], "reds": 15, "frames_to_win": 1, "first_breaker": 0})
    assert m.break_balls() == []
    m.apply({"type": "pot", "balls": [1]})
    m.apply({"type": "pot", "balls": [7]})
    m.apply({"type": "pot", "balls": [1, 1]})
    assert m.break_balls() == [1, 7, 1, 1] and m.state()["break"] == 10
    m.undo()
    assert m.break_balls() == [1, 7]
    m.apply({"type": "no_pot"})  # the break ends: Bia to play, nothing running
    assert m.break_balls() == []
    m.apply({"type": "pot", "balls": [1]})
    assert m.break_balls() == [1]  # a new break starts from nothing
    m.apply({"type": "foul", "ball": 1})
    assert m.break_balls() == []


def test_max_break_by_rack():
    assert [max_break(r) for r in (6, 10, 15)] == [75, 107, 147]
