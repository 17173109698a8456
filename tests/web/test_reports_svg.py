"""``reports/svg.py``: a frame's worm and the match's breaks drawn as SVG from the statistics fold,
every text escaped."""
from __future__ import annotations

from scoreboard.reports import svg

from ops_helpers import CONFIG, LOG, fold


def test_svg_pictures_are_drawn_from_the_fold():
    st = fold(CONFIG, LOG)
    worm = str(svg.worm(st.frames[0], st.names))
    assert worm.startswith("<svg") and worm.count("<polyline") == 2
    assert "Ana Souza 28" in worm and "Bia Lima 8" in worm
    bars = str(svg.breaks_chart(st.breaks, st.names))
    assert bars.count("<rect") == 3  # 15 and 8 for Ana, 1 for Bia
    assert "Ana Souza: 15" in bars


def test_names_are_escaped_in_svg():
    st = fold({**CONFIG, "players": ["<b>A&B</b>", "C"]}, LOG[:2])
    assert "<b>" not in str(svg.worm(st.frames[0], st.names)) and "&lt;b&gt;A&amp;B" in str(svg.worm(st.frames[0], st.names))
