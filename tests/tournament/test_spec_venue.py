"""The competition file's "venue" (where it is played, printed on its súmulas)."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournament import TournamentError, parse_competition

BASE = {"name": "Etapa", "players": ["Ana", "Bia", "Caio", "Davi"],
        "stages": [{"format": "knockout", "frames_to_win": 1}]}


@given(st.text(max_size=120).filter(lambda v: len(v.strip()) <= 120))
def test_a_venue_is_kept_trimmed_and_survives_the_round_trip(venue):
    comp = parse_competition({**BASE, "venue": venue})
    assert comp.venue == venue.strip()
    assert parse_competition(comp.to_dict()) == comp


def test_no_venue_is_empty():
    assert parse_competition(BASE).venue == ""


@pytest.mark.parametrize("venue", [7, ["Santos"], "x" * 121])
def test_a_venue_that_is_no_short_text_is_refused_in_both_languages(venue):
    with pytest.raises(TournamentError) as e:
        parse_competition({**BASE, "venue": venue})
    assert "'venue'" in str(e.value) and "120" in str(e.value)
