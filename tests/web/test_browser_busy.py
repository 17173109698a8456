"""In Chromium: the page a busy worker answers a spectator's screen with fits a TV, a phone and a
tablet, and is blank and transparent on an overlay (it would sit on top of a broadcast).

Screenshots go to shots/ (gitignored) for a person to look at.
"""
from __future__ import annotations

import pathlib

import pytest
from django.test import RequestFactory

from scoreboard.http import capacity

from browser import ARGS, CHROMIUM, require_chromium

SHOTS = pathlib.Path(__file__).resolve().parents[2] / "shots"


def busy_html(path: str) -> str:
    return capacity.busy_response(RequestFactory().get(path)).content.decode()


@pytest.mark.browser
@pytest.mark.parametrize("name,size", [("tv", (1920, 1080)), ("phone", (390, 844)), ("tablet", (1024, 768))])
def test_the_busy_page_fits_every_screen(name, size):
    from playwright.sync_api import sync_playwright

    require_chromium()
    SHOTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": size[0], "height": size[1]})
        page.set_content(busy_html("/tables/1/tv/"))
        page.screenshot(path=str(SHOTS / f"busy-{name}.png"))
        h1 = page.locator("h1").bounding_box()
        text = page.locator("p[lang=en]").bounding_box()
        font = page.evaluate("parseFloat(getComputedStyle(document.querySelector('p')).fontSize)")
        scroll_w = page.evaluate("document.documentElement.scrollWidth")
        browser.close()
    assert scroll_w <= size[0]  # nothing cut off sideways
    for box in (h1, text):
        assert box["x"] >= 0 and box["x"] + box["width"] <= size[0]
        assert box["y"] >= 0 and box["y"] + box["height"] <= size[1]
    assert text["y"] > h1["y"] + h1["height"] - 1
    assert font >= (40 if name == "tv" else 17)  # readable from across the room on a TV


@pytest.mark.browser
def test_the_busy_page_of_an_overlay_is_transparent():
    from playwright.sync_api import sync_playwright

    require_chromium()
    SHOTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        page.set_content(busy_html("/tables/1/overlay/"))
        png = page.screenshot(omit_background=True)  # read below: taken whether shots are on or not
        (SHOTS / "busy-overlay.png").write_bytes(png)
        browser.close()
    from PIL import Image
    import io

    img = Image.open(io.BytesIO(png)).convert("RGBA")
    assert img.getextrema()[3] == (0, 0)  # every pixel fully transparent
