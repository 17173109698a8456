"""``pages/sheets.py``: the súmula downloads of a match (their content: test_reports_sumula.py)."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_the_sumula_of_an_unknown_match_is_404(client, db):
    assert client.get("/matches/999/sumula.pdf").status_code == 404
    assert client.get("/matches/999/sumula.csv").status_code == 404
