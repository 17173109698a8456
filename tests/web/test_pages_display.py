"""``pages/display.py``: display options of the TV and overlay by URL parameters, and the
``/display/`` guide documenting them."""
from __future__ import annotations

import pytest

from scoreboard.core.matches import new_match
from scoreboard.pages.display import Display

from ops_helpers import CONFIG, fresh_engines  # noqa: F401

pytestmark = pytest.mark.django_db


def test_parsing_keeps_good_values_and_drops_bad_ones():
    d = Display.from_query({"layout": "corner", "theme": "light", "scale": "1.5", "delay": "3",
                            "primary": "#002776", "accent": "ffdf00", "text": "red;}body{x"})
    assert (d.layout, d.theme, d.scale, d.delay) == ("corner", "light", 1.5, 3.0)
    assert d.colours == {"--club-primary": "#002776", "--accent": "#ffdf00"}
    assert d.classes == "layout-corner theme-light"
    assert d.css == "--scale: 1.5; --club-primary: #002776; --accent: #ffdf00"
    bad = Display.from_query({"layout": "huge", "theme": "neon", "scale": "nan", "delay": "-4"})
    assert (bad.layout, bad.theme, bad.scale, bad.delay) == ("lower-third", "dark", 1.0, 0.0)
    assert Display.from_query({"scale": "99", "delay": "9999"}).scale == 4.0
    assert Display.from_query({"delay": "9999"}).delay == 120.0


def test_overlay_and_tv_pages_carry_the_options(client):
    m = new_match(CONFIG)
    html = client.get(f"/matches/{m.pk}/overlay/?layout=full&theme=light&scale=2&delay=4.5"
                      "&primary=%23112233").content.decode()
    assert 'class="overlay layout-full theme-light"' in html
    assert "--scale: 2; --club-primary: #112233" in html
    assert 'data-delay="4.5"' in html and "scoreboard/ops.js" in html
    assert html.index("scoreboard/ops.js") < html.index("scoreboard/live.js")  # wraps the socket first
    tv = client.get(f"/matches/{m.pk}/tv/?theme=light&lang=en").content.decode()
    assert 'class="tv layout-lower-third theme-light"' in tv and 'lang="en"' in tv and "Ball on" in tv
    plain = client.get(f"/matches/{m.pk}/overlay/").content.decode()
    assert 'class="overlay layout-lower-third theme-dark"' in plain and "<style>body" not in plain


def test_a_hostile_colour_is_not_injected(client):
    m = new_match(CONFIG)
    html = client.get(f"/matches/{m.pk}/overlay/?primary=%3C/style%3E%3Cscript%3E").content.decode()
    assert "<script>" not in html and "--club-primary" not in html


def test_guide_documents_every_parameter_with_previews(client):
    m = new_match(CONFIG, table="1")
    html = client.get("/display/").content.decode()
    for p in ("layout", "theme", "primary", "accent", "scale", "lang", "delay", "position"):
        assert f"<code>{p}</code>" in html
    # the stream graphics and the venue-wide feed are found from here too (a tryout did not)
    assert f'href="/tables/{m.table_id}/graphics/"' in html and 'href="/tables/feed.json"' in html
    en = client.get("/display/?lang=en").content.decode()
    assert "Stream graphics" in en and "score bar sits: top or bottom" in en
    assert f'src="/tables/{m.table_id}/overlay/?layout=corner"' in html
    assert html.count("<iframe") == 9  # eight overlay examples and the light TV
    r = client.get(f"/tables/{m.table_id}/overlay/?layout=corner")
    # the previews may frame it, and so may any site (a club's page, a streaming tool)
    assert "X-Frame-Options" not in r and "frame-ancestors *" in r["Content-Security-Policy"]


@pytest.mark.parametrize("query, name", [
    ("layout=weird", "layout"), ("scale=abc", "scale"), ("scale=9", "scale"), ("primary=zzz", "primary"),
    ("delay=-3", "delay"), ("popups=foul,fireworks", "popups"), ("milestones=50,x", "milestones"),
    ("position=middle", "position"), ("position=top-bottom", "position"), ("theme=neon", "theme")])
def test_an_option_a_screen_does_not_take_is_a_clear_400(client, query, name):
    """Found by a tryout: ``layout=weird``, ``scale=abc``, ``primary=zzz``, ``delay=-3`` gave the
    default overlay with no hint, so a streamer believed the option was in force."""
    m = new_match(CONFIG, table="4")
    for path in (f"/matches/{m.pk}/overlay/", f"/tables/{m.table_id}/overlay/", f"/matches/{m.pk}/tv/",
                 f"/tables/{m.table_id}/tv/"):
        r = client.get(f"{path}?{query}")
        page = r.content.decode()
        assert r.status_code == 400, (path, r.status_code)
        assert f"<code>?{name}=" in page and "Opção inválida no endereço" in page and "Invalid option" in page


def test_every_option_the_guide_shows_is_taken(client):
    m = new_match(CONFIG)
    for q in ("layout=corner&theme=light&scale=0.25&delay=0&popups=none&popup_seconds=60",
              "layout=full&scale=4&primary=%23002776&accent=ffdf00&position=top-right&milestones=30,50,100",
              "popups=foul,frame&position=bottom&scale=&lang=en&utm_source=obs"):
        assert client.get(f"/matches/{m.pk}/overlay/?{q}").status_code == 200, q
