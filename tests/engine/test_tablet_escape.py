"""The tablet's renderer escapes with its own two lines, not the standard library's ``html``
module (issue 20: ``html`` pulled ``html.entities`` into the tablet's download, 20 kB brotli'd,
for an import nothing used). What it writes reads back, in the page, as the text it was given."""
from __future__ import annotations

import html
import json
import random
import subprocess
import sys
from html.parser import HTMLParser

import pytest

from presentation import referee_html
from presentation.tablet import TabletEngine
from sinuca import simulate

NASTY = ["", "&", "&amp;", "<", ">", '"', "'", "<script>alert(1)</script>", "Bia & \"Lima\" 'x'",
         "a&#x27;b", "&lt;", "João D'Ávila", "Conceição \"Ção\"", "\u00a0\u2014\U0001F3B1", "<<>>&&''\"\""]


def strings(value):
    """Every string inside a view (dicts, lists, nested)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from strings(k)
            yield from strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from strings(v)


def seen_by_the_renderer() -> set[str]:
    """The texts of the tablet's views (both languages, singles and doubles, every phase a
    simulated match reaches), the foul forms and previews, and names made to break markup."""
    out = set(NASTY)
    rng = random.Random(7)
    for seed, players in enumerate([[NASTY[7], NASTY[8]], ["Ana", "Bia"], [["<i>Ana</i>", "Carla"], ["Bia", NASTY[12]]]]):
        config = {"players": players, "reds": 6, "frames_to_win": 2, "first_breaker": 0}
        events = simulate.play_match(config, seed=seed, max_events=200)
        for lang in ("pt", "en"):
            eng = TabletEngine(config, [], lang, {"event": "/e/<x>&'\"/"})
            for n in sorted(rng.sample(range(len(events) + 1), 12)) + [len(events)]:
                eng.reset(events[:n])
                for op in ({"op": "view"}, {"op": "foul_form"}, {"op": "foul_preview", "fields": {}}):
                    out.update(strings(json.loads(eng.answer(json.dumps(op)))))
                out.update(strings(eng.view()))
    for _ in range(300):
        out.add("".join(rng.choice("&<>\"' aZç#;x0") for _ in range(rng.randint(1, 12))))
    return out


class Attrs(HTMLParser):
    def handle_starttag(self, tag, attrs):
        self.attrs = dict(attrs)


def test_the_renderer_does_not_import_the_html_module():
    code = "import sys, presentation.tablet, presentation.referee_html; print(sorted(m for m in sys.modules if m == 'html' or m.startswith('html.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.fixture(scope="module")
def texts():
    found = seen_by_the_renderer()
    assert len(found) > 400 and any("&" in t for t in found) and any("<" in t for t in found)
    return found


def test_text_is_escaped_as_html_escape_does(texts):
    for t in texts:
        assert referee_html._text(t) == html.escape(t, quote=False), t


def test_an_attribute_reads_back_as_its_value(texts):
    for t in texts:
        p = Attrs()
        p.feed(f"<b{referee_html._attr('data-x', t)}>")
        assert p.attrs == {"data-x": t}, t
