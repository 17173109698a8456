"""Every stream graphic stays readable whatever the size of the event: events of 2, 8, 16, 27, 32,
64 and 128 entrants with 1, 2, 4 and 8 groups (``gfx_events``: built once with the pure tournament
core, no match played), each graphic (group standings, bracket, ticker, holding, intro,
head-to-head, next match, sponsors) rendered by the real template, CSS and script in one
Chromium page at 1920×1080 and 3840×2160, every page of a card that turns (the groups of a
stage, the sections of a bracket) measured in the browser: no two text boxes overlap, every text
is whole (nothing cut, no ellipsis: ``scrollWidth <= clientWidth``) and inside its card or bar,
no text below 26 px of the 1920×1080 stage, nothing drawn outside the cards and bars, whose
surroundings stay transparent. Four groups side by side had no player names and each "Pos."
printed over the previous group's "Saldo"; a bracket of 64 had 32 boxes in one column.

No server: the page and its static files come from ``page.route`` (the graphics page as the view
renders it, each board set as the push sets it), so a case costs one ``evaluate``."""
from __future__ import annotations

import io
import pathlib
import time
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import AnonymousUser
from django.template.loader import render_to_string
from django.test import RequestFactory, override_settings
from django.utils import timezone, translation

from scoreboard.core import graphics as switches
from scoreboard.core.models import Table
from scoreboard.live import graphics

from browser import ARGS, CHROMIUM, require_chromium
from gfx_events import EVENTS, LONG, build

pytestmark = pytest.mark.browser

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = ROOT / "shots"
ORIGIN = "http://gfx.test"
SMALL_MEDIUM_LARGE = ("ko2", "g4-16", "g8-64", "ko64")
CLUB = "Associação Atlética Recreativa de Sinuca do Vale do Paraíba"

# Render a board into the page as the push does, then for each page of whatever turns (a card's
# pages, the ticker's, the sponsors'; with every=false the first and last only) measure every
# text node of the stage.
MEASURE = r"""async ({html, label, every = true}) => {
  const root = document.getElementById('gfx-root');
  root.innerHTML = html;
  await Promise.all([...root.querySelectorAll('img')].map(i => i.decode().catch(() => null)));
  const counts = [...root.querySelectorAll('[data-rotate]')].map(el => el.querySelectorAll('[data-rotate-item]').length);
  const pages = Math.max(1, ...counts), out = [];
  const clear = ['rgba(0, 0, 0, 0)', 'transparent'];
  for (const el of [document.documentElement, document.body, root, document.getElementById('gfx-stage')])
    if (!clear.includes(getComputedStyle(el).backgroundColor)) out.push('painted ' + (el.id || el.tagName));
  let texts = 0;
  for (let p = 0; p < pages; p++) {
    if (!every && p > 0 && p < pages - 1) continue;
    window.gfxShowPage(p);
    const where = label + ' p' + p + ': ';
    const frames = [...root.querySelectorAll('.gfx-card, .gfx-bar')].map(e => e.getBoundingClientRect());
    const inside = (r, f) => r.left >= f.left - 1 && r.right <= f.right + 1 && r.top >= f.top - 1 && r.bottom <= f.bottom + 1;
    // nothing painted outside a card or a bar
    for (const el of root.querySelectorAll('#gfx-stage *')) {
      const r = el.getBoundingClientRect();
      if (!el.getClientRects().length || r.width === 0 || r.height === 0) continue;
      if (!frames.some(f => inside(r, f))) out.push(where + 'outside ' + el.className);
    }
    const nodes = [], walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!n.textContent.trim() || !n.parentElement.getClientRects().length) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      const rects = [...range.getClientRects()].filter(r => r.width > 0 && r.height > 0);
      if (rects.length) nodes.push({n, text: n.textContent.trim(), rects});
    }
    texts = Math.max(texts, nodes.length);
    for (const {n, text, rects} of nodes) {
      const el = n.parentElement, px = parseFloat(getComputedStyle(el).fontSize);
      if (px < 26) out.push(where + 'small ' + px + ' ' + text);
      let box = el;
      while (box.parentElement && getComputedStyle(box).display.startsWith('inline') && !getComputedStyle(box).display.includes('-')) box = box.parentElement;
      if (box.scrollWidth > box.clientWidth + 1) out.push(where + 'cut ' + text + ' ' + box.scrollWidth + '>' + box.clientWidth);
      if (getComputedStyle(box).webkitLineClamp !== 'none' && box.scrollHeight > box.clientHeight + 1) out.push(where + 'cut lines ' + text);
      const frame = el.closest('.gfx-card, .gfx-bar').getBoundingClientRect();
      if (!rects.every(r => inside(r, frame))) out.push(where + 'off its card ' + text);
    }
    for (let i = 0; i < nodes.length; i++) for (let j = i + 1; j < nodes.length; j++)
      for (const a of nodes[i].rects) for (const b of nodes[j].rects)
        if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 2 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 2)
          out.push(where + 'overlap ' + nodes[i].text + ' × ' + nodes[j].text);
    // an empty slot draws nothing: no box without a name in it
    for (const m of root.querySelectorAll('.br-m'))
      if (m.getClientRects().length && !m.querySelector('.br-n')) out.push(where + 'empty box ' + m.textContent.trim());
  }
  window.gfxShowPage(null);
  const imgs = [...root.querySelectorAll('img')].filter(i => i.getClientRects().length && i.naturalWidth > 0).length;
  return {pages, texts, imgs, problems: [...new Set(out)]};
}"""

# a board set as the push sets it, its page n shown
SHOW = """async ({html, n}) => {
  document.getElementById('gfx-root').innerHTML = html;
  await Promise.all([...document.querySelectorAll('#gfx-root img')].map(i => i.decode().catch(() => null)));
  window.gfxShowPage(n);
}"""


def person(name: str, club: str = CLUB) -> dict:
    return {"pk": None, "name": name, "photo": "", "club": club, "flag_url": "", "country_name": ""}


def side(row: dict, table: Table | None = None, state: str = "last") -> dict:
    """A summary's match as the cards' ``side``: its players (or their placeholders) and score."""
    names = [row["players"][i] or row["placeholders"][i] or "" for i in (0, 1)]
    frames = row["frames"] or [0, 0]
    return {"match": None, "players": [person(n) for n in names], "label": row["label"], "frames": frames,
            "scores": [37, 12] if state == "live" else [0, 0], "at": timezone.now().replace(hour=21, minute=30),
            "walkover": row["kind"] == "walkover", "over": row["status"] == "finished",
            "winner": 0 if row["winner"] and row["winner"] == row["players"][0] else 1 if row["winner"] else None,
            "table": table}


def cases(ev: dict) -> list[tuple[str, dict]]:
    """``(label, context)`` of every graphic for one event, as ``live.graphics.context`` builds
    them: the group and bracket cards chosen automatically, by the table's match, by letter or
    round (and a letter and a round the event lacks), the bars and the other cards."""
    s, key = ev["summary"], ev["key"]
    comp = SimpleNamespace(name=s["name"])
    tables = [Table(pk=k, name=f"Mesa {k}") for k in range(1, min(24, max(2, len(ev["names"]) // 4)) + 1)]
    rows = [r for st in s["stages"] for r in st["matches"]]
    done = [r for r in rows if r["status"] == "finished"] or rows
    later = [r for r in rows if r["status"] == "scheduled"] or rows
    group_row = next((r for r in rows if r["group"]), None)
    ko_row = next((r for st in s["stages"] if st["format"] == "knockout" for r in st["matches"]), None)
    src = graphics.bracket_sources(ev["plan"])
    base = {"table": tables[0], "comp": comp, "lang": "pt", "ver": 1}

    def on(name, **ctx):
        return {**base, "g": {**switches.DEFAULTS, name: True}, **ctx}

    fx = lambda r: SimpleNamespace(number=r["number"]) if r else None  # noqa: E731
    letters = sorted({k.split(":", 1)[1] for k in s["standings"]})
    out = [
        (f"{key} group", on("group", groups=graphics.groups(s, None))),
        (f"{key} group of the table", on("group", groups=graphics.groups(s, fx(group_row)))),
        (f"{key} group by letter", on("group", groups=graphics.groups(s, None, letters[-1] if letters else "B"))),
        (f"{key} group missing", on("group", groups=graphics.groups(s, None, "K"))),
        (f"{key} bracket", on("bracket", bracket=graphics.bracket(s, None, src))),
        (f"{key} bracket of the table", on("bracket", bracket=graphics.bracket(s, fx(ko_row), src))),
        (f"{key} bracket from round 2", on("bracket", bracket=graphics.bracket(s, None, src, 2))),
        (f"{key} bracket missing round", on("bracket", bracket=graphics.bracket(s, None, src, 9))),
        (f"{key} ticker", on("ticker", ticker=[
            {"table": t, "state": st, "item": side(r, t, st)}
            for t, st, r in zip(tables[1:], ["live", "next", "last", "free"] * 6, later[:2] + done[:1] + later[2:] + done[1:])])),
        (f"{key} holding", on("holding", results=[side(r, t) for t, r in zip(tables * 8, done[:graphics.RESULTS_MAX])],
                              countdown=timezone.localtime() + timezone.timedelta(hours=1, minutes=5))),
        (f"{key} next", on("next", next=side(later[-1], tables[0]), countdown=timezone.localtime() + timezone.timedelta(minutes=9))),
        (f"{key} intro", on("intro", pair=side(later[-1]), intro={"p": person(LONG[0]), "record": {
            "played": 128, "won": 97, "lost": 31, "frames_won": 301, "frames_lost": 144, "highest_break": 87}})),
        (f"{key} h2h", on("h2h", pair=side(later[-1]), h2h={
            "a": person(LONG[1]), "b": person(LONG[2]), "wins": [3, 2], "frames": [11, 9], "played": 5,
            "meetings": [{"date": timezone.localtime(), "frames": [3, 2], "walkover": False, "winner": LONG[1],
                          "competition": s["name"]}] * 5})),
        (f"{key} sponsors", on("sponsors", sponsors=[SimpleNamespace(name="Banco do Vale", image=SimpleNamespace(url="/media/logo.png"))])),
    ]
    return out


def render_stage(ctx: dict, lang: str) -> str:
    with translation.override(lang):
        return render_to_string("scoreboard/graphics.html#stage", ctx)


def shell() -> str:
    """The graphics page as ``pages.venue.table_graphics`` renders it, nothing switched on and no
    socket (each board is set by the test as the push sets it)."""
    request = RequestFactory().get("/tables/1/graphics/")
    request.user = AnonymousUser()
    ctx = {"table": Table(pk=1, name="Mesa 1"), "g": dict(switches.DEFAULTS), "ver": 0, "board_ws": ""}
    ctx["board"] = render_stage(ctx, "pt-br")
    plain = {"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
    with translation.override("pt-br"), override_settings(STORAGES=plain):
        return render_to_string("scoreboard/graphics.html", ctx, request=request)


def logo() -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (400, 160), (200, 30, 30)).save(buf, "PNG")
    return buf.getvalue()


@pytest.fixture(scope="module")
def events() -> dict:
    return {key: build(key, **kw) for key, kw in EVENTS}


@pytest.fixture(scope="module")
def page():
    from playwright.sync_api import sync_playwright

    require_chromium()
    html, png = shell(), logo()

    def serve(route):
        path = route.request.url[len(ORIGIN):].split("?", 1)[0]
        if path.startswith("/static/"):
            f = ROOT / "static" / path[len("/static/"):]
            if f.is_file():
                kind = {"css": "text/css", "js": "text/javascript", "svg": "image/svg+xml"}.get(f.suffix[1:], "application/octet-stream")
                return route.fulfill(body=f.read_bytes(), content_type=kind)
        elif path == "/media/logo.png":
            return route.fulfill(body=png, content_type="image/png")
        elif path == "/tables/1/graphics/":
            return route.fulfill(body=html, content_type="text/html; charset=utf-8")
        return route.fulfill(status=404, body="")

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pg = browser.new_page(viewport={"width": 1920, "height": 1080})
        pg.route(f"{ORIGIN}/**", serve)
        pg.goto(f"{ORIGIN}/tables/1/graphics/")
        pg.wait_for_function("() => typeof window.gfxShowPage === 'function'")
        yield pg


def test_every_graphic_fits_at_every_size_of_event(events, page):
    """The cards that grow with the event (groups, bracket: automatic, by the table's match, by
    letter or round, and one the event lacks) for every event, in Portuguese and English; the
    other graphics for a small, a medium and a large event; at 3840×2160 each graphic as chosen
    automatically for those three events."""
    started = time.monotonic()
    boards, wide = {}, set()
    for ev in events.values():
        for label, ctx in cases(ev):
            grows = " group" in label or " bracket" in label
            if not grows and ev["key"] not in SMALL_MEDIUM_LARGE:
                continue
            boards[label] = render_stage(ctx, "pt-br")
            if label.endswith((" group", " bracket")):
                boards[label + " en"] = render_stage({**ctx, "lang": "en"}, "en")
            if ev["key"] in SMALL_MEDIUM_LARGE and (not grows or label.endswith((" group", " bracket"))):
                wide.add(label)
    problems, pages, measured = [], {}, 0
    for w, h in ((1920, 1080), (3840, 2160)):
        page.set_viewport_size({"width": w, "height": h})
        for label, html in boards.items():
            if w > 1920 and label not in wide:
                continue
            # scaled: the same layout, so the first and last pages of a card that turns
            got = page.evaluate(MEASURE, {"html": html, "label": f"{label} {w}", "every": w == 1920})
            problems += got["problems"]
            pages[label] = got["pages"]
            measured += got["pages"] if w == 1920 else min(got["pages"], 2)
            assert got["texts"] > 0 or got["imgs"] == 1 and "sponsors" in label, label
    assert problems == [], "\n".join(problems[:60])
    # what turns: four groups of four in two pages, eight groups of four in four, eight of eight
    # in nine (group B's marks, a W.O. under every name, take it over two); the bracket of 64 in eight sections of four first-round matches, two of the
    # round of 16, then the quarter-finals to the final
    assert pages["g4-16 group"] == 2 and pages["g8-32 group"] == 4 and pages["g8-64 group"] == 9, pages
    assert pages["g1-8 group"] == 1 and pages["g2-8 group"] == 1 and pages["g4-16 group of the table"] == 1
    assert pages["g1-12 group"] == 2 and pages["g4-16-new group"] == 2, pages  # 12 players: 8 and 4 rows
    assert pages["ko64 bracket"] == 11 and pages["ko64 bracket from round 2"] == 5, pages
    assert pages["ko64 bracket of the table"] == 1 and pages["g8-32 bracket"] == 3, pages
    assert pages["ko2 bracket"] == 1 and pages["g1-8 bracket"] == 1, pages
    print(f"\n{len(boards)} boards, {measured} pages measured in {time.monotonic() - started:.1f} s")


def test_what_a_viewer_reads_on_the_large_cards(events, page):
    """The group card of a four- and an eight-group stage shows each player's whole name; the
    bracket of 64 pages through its sections; a letter or round the event lacks says so; a bye
    draws no box. Screenshots for a person to look at (``SINUCA_SHOTS=1``)."""
    from PIL import Image

    page.set_viewport_size({"width": 1920, "height": 1080})
    shown = {label: ctx for ev in events.values() for label, ctx in cases(ev)}
    read = "() => [...document.querySelectorAll('[data-rotate-item]:not([hidden]), .card-sub')].map(e => e.innerText).join('\\n')"

    def show(label: str, n: int = 0) -> str:
        page.evaluate(SHOW, {"html": render_stage(shown[label], "pt-br"), "n": n})
        return page.evaluate(read)

    g4 = events["g4-16"]["summary"]["standings"]
    text = show("g4-16 group")
    assert "Grupo A" in text and "Grupo B" in text and "Grupo C" not in text
    assert all(r["name"] in text for r in g4["0:A"] + g4["0:B"]), text
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "graphics-sizes-group4-1920.png"), omit_background=True)
    text = show("g8-64 group", 8)
    g8 = events["g8-64"]["summary"]["standings"]["0:H"]
    assert "Grupo H" in text and all(r["name"] in text for r in g8), text
    page.screenshot(path=str(SHOTS / "graphics-sizes-group8-1920.png"), omit_background=True)
    show("g8-32 group", 3)
    page.screenshot(path=str(SHOTS / "graphics-sizes-group8x4-1920.png"), omit_background=True)
    assert "não tem grupo K" in show("g4-16 group missing")
    assert "não tem rodada 9" in show("ko64 bracket missing round")
    assert "Sem grupos" in show("ko64 group")
    text = show("ko64 bracket")
    assert "32 avos de final" in text and "16 avos de final" in text and "Oitavas de final" in text
    page.screenshot(path=str(SHOTS / "graphics-sizes-bracket64-1920.png"), omit_background=True)
    text = show("ko64 bracket", 10)
    assert "Semifinal" in text and "Final" in text and "Disputa de 3º lugar" in text
    page.screenshot(path=str(SHOTS / "graphics-sizes-bracket64-final-1920.png"), omit_background=True)
    # 27 entrants: five byes, so the first page has fewer first-round boxes than slots
    show("ko27 bracket")
    boxes = page.evaluate("() => [...document.querySelectorAll('.br:not([hidden]) .br-m')].map(m => m.style.gridColumn)")
    assert boxes.count("1") < 4 and boxes.count("2") == 2, boxes
    page.screenshot(path=str(SHOTS / "graphics-sizes-bracket27-1920.png"), omit_background=True)
    # transparent around the card: the strip under it, at both sizes
    for w, h in ((1920, 1080), (3840, 2160)):
        page.set_viewport_size({"width": w, "height": h})
        show("g8-64 group")
        strip = page.screenshot(clip={"x": 0, "y": h * 0.935, "width": w, "height": h * 0.065}, omit_background=True)
        img = Image.open(io.BytesIO(strip)).convert("RGBA")
        assert img.getextrema()[3] == (0, 0), (w, img.getextrema())
    # ?per=2: two tables a ticker page while their names fit at 26 px (short names), else one
    # (long names: two a page cut them or took them below 26 px)
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(f"{ORIGIN}/tables/1/graphics/?per=2")
    page.wait_for_function("() => typeof window.gfxShowPage === 'function'")
    short = dict(shown["g8-64 ticker"])
    short["ticker"] = [{**r, "item": {**r["item"], "players": [person(n) for n in ("Ana Souza", "Bia Lima")]}}
                       for r in short["ticker"] if r["state"] != "live"]
    shown_per_page = "() => document.querySelectorAll('.tk-item:not([hidden])').length"
    for label, ctx, per in (("g8-64 ticker", shown["g8-64 ticker"], 1), ("short names ticker", short, 2)):
        got = page.evaluate(MEASURE, {"html": render_stage(ctx, "pt-br"), "label": label + " per=2"})
        assert got["problems"] == [] and got["texts"] > 0, got["problems"]
        page.evaluate("() => window.gfxShowPage(0)")
        assert page.evaluate(shown_per_page) == per, label
