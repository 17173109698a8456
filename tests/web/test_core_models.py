"""``core/models.py``: what the models say of themselves (a table's short name)."""
from __future__ import annotations

import pytest

from scoreboard.core.models import Table


@pytest.mark.parametrize("name, short", [("Mesa 1", "1"), ("mesa  2", "2"), ("TABLE 3", "3"), ("7", "7"),
                                         ("Mesa", "Mesa"), ("Mesão 1", "Mesão 1"), ("Central", "Central")])
def test_table_short_name_drops_a_leading_mesa(name, short):
    assert Table(name=name).short_name == short
