"""A player's career and a head-to-head (``tournament.career``): properties over random seasons of
random matches, singles and doubles, with W.O.s, double W.O.s and matches still in play."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from tournament.career import BREAK_MARKS, career, head_to_head

PLAYERS = list(range(1, 7))


@st.composite
def records(draw):
    out = []
    for i in range(draw(st.integers(0, 25))):
        size = draw(st.sampled_from([1, 1, 1, 2]))
        people = draw(st.permutations(PLAYERS))[: 2 * size]
        sides = [sorted(people[:size]), sorted(people[size:])]
        kind = draw(st.sampled_from(["played", "played", "played", "wo", "double_wo", "in_play"]))
        frames = [draw(st.integers(0, 3)), draw(st.integers(0, 3))]
        winner = None if kind in ("double_wo", "in_play") else draw(st.integers(0, 1))
        if kind == "played":
            frames[winner] = max(frames) + 1
        elif kind != "in_play":
            frames = [0, 0]
        breaks = [{"player": draw(st.sampled_from(people)), "points": draw(st.integers(1, 140))}
                  for _ in range(draw(st.integers(0, 3)))] if kind in ("played", "in_play") else []
        out.append({"id": i, "when": f"2026-0{1 + i % 9}-{10 + i:02d}T10:00", "season": draw(st.sampled_from([1, 2, None])),
                    "competition": f"E{i % 3}", "sides": sides, "frames": frames,
                    "frame_scores": [[draw(st.integers(0, 80)), draw(st.integers(0, 80))] for _ in range(sum(frames))],
                    "winner": winner, "walkover": kind in ("wo", "double_wo"), "breaks": breaks})
    return out


# 50 seasons of up to 25 records each (every kind of record, singles and doubles, many times
# over): drawing a season is most of the time of an example, and 150 took 7 s a property
@settings(max_examples=50, deadline=None)
@given(records(), st.sampled_from(PLAYERS))
def test_a_career_adds_up(recs, player):
    c = career(player, recs, last=100)
    t = c["total"]
    mine = [r for r in recs if any(player in s for s in r["sides"])]
    played = [r for r in mine if r["winner"] is not None and not r["walkover"]]
    won = [r for r in played if player in r["sides"][r["winner"]]]
    assert (t["matches"], t["won"], t["lost"]) == (len(played), len(won), len(played) - len(won))
    side = {r["id"]: 0 if player in r["sides"][0] else 1 for r in mine}
    assert t["frames_won"] == sum(r["frames"][side[r["id"]]] for r in played)
    assert t["frames_lost"] == sum(r["frames"][1 - side[r["id"]]] for r in played)
    wos = [r for r in mine if r["walkover"] and r["winner"] is not None]
    assert t["wo_won"] + t["wo_lost"] == len(wos)
    assert t["wo_won"] == sum(1 for r in wos if player in r["sides"][r["winner"]])
    own = [b["points"] for r in played for b in r["breaks"] if b["player"] == player]
    assert t["highest_break"] == max(own, default=0)
    for m in BREAK_MARKS:
        assert t[f"breaks_{m}"] == sum(1 for p in own if p >= m)
    assert t["win_pct"] == (round(100 * len(won) / len(played), 1) if played else None)
    # the seasons add up to the whole
    for key in ("matches", "won", "lost", "frames_won", "frames_lost", "wo_won", "wo_lost", "breaks_30"):
        assert sum(line[key] for line in c["by_season"].values()) == t[key]
    # every match of the player listed once, newest first
    assert [r["id"] for r in c["last"]] == [r["id"] for r in sorted(mine, key=lambda r: r["when"], reverse=True)]


@settings(max_examples=50, deadline=None)
@given(records(), st.sampled_from(PLAYERS), st.sampled_from(PLAYERS))
def test_a_head_to_head_is_the_same_seen_from_either_side(recs, a, b):
    if a == b:
        with pytest.raises(ValueError):
            head_to_head(a, b, recs)
        return
    ab, ba = head_to_head(a, b, recs), head_to_head(b, a, recs)
    assert ab["won"] == ba["won"][::-1] and ab["frames"] == ba["frames"][::-1]
    assert ab["walkovers"] == ba["walkovers"][::-1] and ab["played"] == ba["played"] == sum(ab["won"])
    facing = [r for r in recs if (a in r["sides"][0] and b in r["sides"][1]) or (a in r["sides"][1] and b in r["sides"][0])]
    assert [m["id"] for m in ab["matches"]] == [r["id"] for r in sorted(facing, key=lambda r: r["when"])]
    beat = sum(1 for r in facing if r["winner"] is not None and not r["walkover"] and a in r["sides"][r["winner"]])
    assert ab["won"][0] == beat
    # a won no more against b than in his whole career
    assert ab["won"][0] <= career(a, recs)["total"]["won"]


def test_a_small_season_by_hand():
    recs = [
        {"id": "m1", "when": "2026-03-01", "season": 1, "sides": [[1], [2]], "frames": [2, 1],
         "frame_scores": [[70, 10], [5, 60], [44, 30]], "winner": 0,
         "breaks": [{"player": 1, "points": 52}, {"player": 2, "points": 31}, {"player": 1, "points": 101}]},
        {"id": "m2", "when": "2026-04-01", "season": 1, "sides": [[2], [1]], "frames": [0, 0], "winner": 1,
         "walkover": True},
        {"id": "m3", "when": "2026-05-01", "season": 2, "sides": [[1, 3], [2, 4]], "frames": [0, 2],
         "frame_scores": [[0, 40], [12, 70]], "winner": 1, "breaks": [{"player": 4, "points": 35}]},
    ]
    c = career(1, recs)
    assert c["total"] == {"matches": 2, "won": 1, "lost": 1, "wo_won": 1, "wo_lost": 0, "frames_won": 2,
                          "frames_lost": 3, "win_pct": 50.0, "highest_break": 101, "breaks_30": 2,
                          "breaks_50": 2, "breaks_100": 1}
    assert [r["outcome"] for r in c["last"]] == ["lost", "won_walkover", "won"]
    assert c["last"][0]["partners"] == [1, 3] and c["last"][0]["opponents"] == [2, 4]
    h = head_to_head(1, 2, recs)
    assert (h["played"], h["won"], h["walkovers"], h["frames"]) == (2, [1, 1], [1, 0], [2, 3])
    assert h["matches"][0]["frame_scores"] == [[70, 10], [5, 60], [44, 30]]
    assert h["matches"][2]["frame_scores"] == [[0, 40], [12, 70]] and h["matches"][2]["winner"] == "b"


@pytest.mark.parametrize("bad", [
    {"id": 1, "sides": [[1], []], "winner": 0},
    {"id": 1, "sides": [[1], [1]], "winner": 0},
    {"id": 1, "sides": [[1], [2]], "winner": 2},
])
def test_a_malformed_record_is_refused(bad):
    with pytest.raises(ValueError):
        career(1, [bad])
