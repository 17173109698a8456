"""The referee tablet holds still, measured in Chromium with touch at 1280×800, 1024×768 and
800×1280: a singles frame and a doubles frame are tapped through (long names, a warning, a foul
with a free ball, "Desfazer…" asked, "Mais ações" opened, the frame's last ball, "Próxima
partida") on one page, and after every tap the page is resized to each size and each control on
screen is measured (the taps themselves go round the three sizes):

- it sits where it sat the first time it was on screen (its place and width, to the pixel);
- nothing on screen is cut off (a box whose content overflows it: an ellipsis, a clamp, a
  scroll bar), below the fold, or under the engine's status line;
- each text is at least 4.5:1 against what it is drawn on, each enabled ball at least 3:1
  against the panel (its fill or its ring, WCAG 2.2 1.4.11), each disabled ball weaker than
  every enabled one; the colours are the browser's computed styles, opacity included.

Screenshots (``SINUCA_SHOTS=1``) go to ``$TABLET_SHOTS`` or ``shots/``.
"""
from __future__ import annotations

import json
import os
import pathlib
from concurrent.futures import ThreadPoolExecutor

from scoreboard.core import log
from scoreboard.core.credentials import login_path
from scoreboard.core.matches import create_match
from scoreboard.core.models import RefereeCredential

from browser import ARGS, CHROMIUM, frames, settled
from test_browser_tablet_engine import SEQ, SHOTS, EngineCase

OUT = pathlib.Path(os.environ.get("TABLET_SHOTS") or SHOTS)
LONG = "Maria Aparecida dos Santos Oliveira"
LONG2 = "Duda Fernandes de Albuquerque"
SIZES = [(1280, 800), (1024, 768), (800, 1280)]

# Every control on screen, by a name that stays while the control does: its row's kind and its
# words (a decision choice by its label only: its explanation names whoever it concerns).
CONTROLS = r"""() => {
  const out = {};
  const seen = {};
  const els = document.querySelectorAll('#ref-live button, #ref-live summary, #ref-live a.big');
  for (const el of els) {
    if (!el.checkVisibility({visibilityProperty: true, opacityProperty: false})) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    const row = el.closest('.undo, .more, .decision-list, .freeball, .order-row, [class*=row]');
    const words = (el.querySelector('.choice-label') || el).textContent.replace(/\s+/g, ' ').trim();
    let key = (row ? row.className.split(' ').slice(0, 3).join('.') : '') + ' | ' + words;
    seen[key] = (seen[key] || 0) + 1;
    if (seen[key] > 1) key += ' #' + seen[key];
    out[key] = [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)];
  }
  return out;
}"""

# What cannot be read whole where it is: a box whose content overflows it while it clips (an
# ellipsis, a line clamp, a scroll bar), a control or text below the fold or beside the screen,
# a control under the engine's status line, the frames line on two lines, a log showing fewer
# than three whole entries.
CUT = r"""() => {
  const bad = [];
  const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : '') +
    ' "' + el.textContent.replace(/\s+/g, ' ').trim().slice(0, 50) + '"';
  const dialog = document.querySelector('#foul-dialog[open]');
  const roots = dialog ? [dialog] : [document.querySelector('.ref-top'), document.getElementById('ref-live'),
                                     document.getElementById('engine-status')];
  const W = innerWidth, H = innerHeight;
  for (const root of roots) {
    for (const el of [root, ...root.querySelectorAll('*')]) {
      if (!el.checkVisibility({visibilityProperty: true})) continue;
      if (el.closest('.ref-log') && el.tagName !== 'LI') continue;
      const cs = getComputedStyle(el);
      const clips = cs.overflowX !== 'visible' || cs.overflowY !== 'visible';
      if (clips && !el.classList.contains('ref-log') && el.clientWidth > 0 &&
          (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1))
        bad.push('cut ' + name(el) + ' ' + [el.scrollWidth, el.clientWidth, el.scrollHeight, el.clientHeight]);
      const r = el.getBoundingClientRect();
      const leaf = el.matches('button, summary, a, label, legend, h2, p, li, .ref-name, .ref-score, .ref-frames, .msg, dd, dt');
      if (leaf && r.width > 0 && !el.closest('.ref-log') && (r.bottom > H + 0.5 || r.right > W + 0.5 || r.top < -0.5 || r.left < -0.5))
        bad.push('off screen ' + name(el) + ' ' + [r.left, r.top, r.right, r.bottom].map(Math.round));
    }
  }
  const doc = document.scrollingElement;
  if (doc.scrollHeight > innerHeight + 1 || doc.scrollWidth > innerWidth + 1)
    bad.push('the page scrolls ' + [doc.scrollWidth, doc.scrollHeight]);
  const st = document.getElementById('engine-status');
  if (st && st.textContent.trim() && !dialog) {
    const s = st.getBoundingClientRect();
    for (const el of document.querySelectorAll('#ref-live button, #ref-live summary, #ref-live a')) {
      const r = el.getBoundingClientRect();
      if (r.width && el.checkVisibility() && r.left < s.right && r.right > s.left && r.top < s.bottom && r.bottom > s.top)
        bad.push('under the engine status ' + name(el));
    }
  }
  // "partidas: 0", "advertências: 1": each on one line
  for (const el of document.querySelectorAll('#ref-live .ref-frames')) {
    const texts = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let t = texts.nextNode(); t; t = texts.nextNode()) {
      for (const m of t.textContent.matchAll(/[^\s:·]+: \d+/g)) {
        const range = document.createRange();
        range.setStart(t, m.index);
        range.setEnd(t, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].map(x => Math.round(x.top)));
        if (tops.size > 1) bad.push('two lines "' + m[0] + '"');
      }
    }
  }
  // and the line "partidas: 0 · advertências: 1" as a whole on one line (it took two at 1024x768)
  for (const el of document.querySelectorAll('#ref-live .ref-frames')) {
    const range = document.createRange();
    range.selectNodeContents(el);
    const tops = [...range.getClientRects()].filter(x => x.width > 0).map(x => x.top).sort((a, b) => a - b);
    if (tops.length && tops[tops.length - 1] - tops[0] > 4) bad.push('frames line on two lines "' + el.textContent + '"');
  }
  const logBox = document.querySelector('#ref-live .ref-log');
  if (logBox && !dialog) {
    const b = logBox.getBoundingClientRect();
    const items = [...logBox.querySelectorAll('li')];
    const whole = items.filter(li => { const r = li.getBoundingClientRect();
      return r.left >= b.left - 0.5 && r.right <= b.right + 0.5 && r.top >= b.top - 0.5 && r.bottom <= b.bottom + 0.5; });
    if (whole.length < Math.min(3, items.length)) bad.push('log shows ' + whole.length + ' of ' + items.length);
  }
  return bad;
}"""

# Colours as drawn: an element's background and text composed over its ancestors' backgrounds,
# the opacity of the outermost translucent ancestor applied to the whole group (a disabled
# button is drawn at its opacity over the panel).
COLOURS = r"""
const rgba = s => { const m = s.match(/[\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
const mix = (c, under, a) => [0, 1, 2].map(i => c[i] * a + under[i] * (1 - a));
const lum = c => { const [r, g, b] = c.map(v => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
function drawn(el, prop) {
  const chain = [];
  for (let e = el; e; e = e.parentElement) chain.unshift(e);
  let c = [255, 255, 255], under = null, o = 1;
  for (const e of chain) {
    const cs = getComputedStyle(e);
    if (+cs.opacity < 1 && under === null) under = c;
    o *= +cs.opacity;
    const bg = rgba(cs.backgroundColor);
    c = mix(bg, c, bg[3]);
  }
  let fg = c;
  if (prop) { const v = rgba(getComputedStyle(el)[prop]); fg = mix(v, c, v[3]); }
  return under ? [mix(c, under, o), mix(fg, under, o)] : [c, fg];
}
"""

# Every text on screen against what it is drawn on (a disabled control's text is exempt, WCAG
# 1.4.3), with probes of the states a walk may not show: each banner, message and queue colour.
TEXT_CONTRAST = "() => {" + COLOURS + r"""
  const probes = [];
  const add = (parent, cls, tag = 'div') => { const e = document.createElement(tag); e.className = cls; e.textContent = 'Probe';
    parent.appendChild(e); probes.push(e); };
  const banners = document.querySelector('#ref-live .ref-banners');
  if (banners) for (const k of ['banner', 'banner retorno', 'banner alarm', 'banner foul', 'banner fb', 'banner end',
                                'banner warn', 'alarm']) add(banners, k);
  const top = document.querySelector('.ref-top');
  if (top) for (const k of ['msg msg-info', 'msg msg-warn', 'msg msg-error', 'tap-queue sending', 'tap-queue blocked'])
    add(top, k);
  const bad = [];
  let low = 99;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const el = t.parentElement;
    if (!t.textContent.trim() || !el || el.closest(':disabled, [hidden], script, style, template')) continue;
    if (!el.checkVisibility({visibilityProperty: true}) || el.closest('#engine-status')) continue;
    if (el.closest('.alarm') && getComputedStyle(el.closest('.alarm')).animationName !== 'none') {
      // the blinking alarm: both of its backgrounds
    }
    const [bg, fg] = drawn(el, 'color');
    const r = ratio(bg, fg);
    low = Math.min(low, r);
    if (r < 4.5) bad.push(r.toFixed(2) + ' ' + el.tagName + '.' + el.className + ' "' + t.textContent.trim().slice(0, 30) + '"');
  }
  probes.forEach(p => p.remove());
  return {bad: [...new Set(bad)], low};
}"""

# Each ball button: its boundary (the fill, or a ring of 2 px or more) against the panel, its
# label against its fill. ``probe``: the stroke's row, each ball enabled and disabled in turn;
# otherwise every ball on screen as it is.
BALLS = "(probe) => {" + COLOURS + r"""
  const out = {};
  const edge = b => {
    const panel = drawn(b.parentElement)[0];
    const [fill, label] = drawn(b, 'color');
    const cs = getComputedStyle(b);
    let e = ratio(fill, panel);
    if (parseFloat(cs.borderTopWidth) >= 2) e = Math.max(e, ratio(drawn(b, 'borderTopColor')[1], panel));
    if (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2)
      e = Math.max(e, ratio(drawn(b, 'outlineColor')[1], panel));
    return {edge: +e.toFixed(2), fill: +ratio(fill, panel).toFixed(2), text: +ratio(fill, label).toFixed(2)};
  };
  if (!probe) {
    for (const b of document.querySelectorAll('#ref-live button.ball:not(:disabled)'))
      if (b.checkVisibility()) out[b.textContent.replace(/\s+/g, ' ').trim()] = edge(b);
    return out;
  }
  for (const b of document.querySelectorAll('#ref-live .ref-balls button.ball')) {
    const was = b.disabled;
    const n = b.className.match(/ball-(\d)/)[1];
    for (const state of ['enabled', 'disabled']) {
      b.disabled = state === 'disabled';
      out[n + ' ' + state] = edge(b);
    }
    b.disabled = was;
  }
  return out;
}"""


class StillBoardCase(EngineCase):
    """A singles and a doubles match with long names, walked through once on one page: after every
    tap the page is measured at each of the three sizes (one engine load, each position reached
    once, instead of a page and a walk per size)."""

    def setUp(self):
        super().setUp()
        OUT.mkdir(parents=True, exist_ok=True)
        self.singles = create_match(LONG, "Bia Lima", first_breaker=0, reds=6, frames_to_win=2).match.pk
        self.doubles = create_match([LONG, "Carla"], ["Bia Lima", LONG2], first_breaker=0, reds=6,
                                    frames_to_win=2).match.pk
        self.mid = self.singles

    def open(self, page, mid):
        self.mid = mid
        page.goto(self.net.url + login_path(RefereeCredential.objects.get(match_id=mid)))
        page.wait_for_function("() => document.getElementById('conn').classList.contains('up')", timeout=30000)
        self.engine_ready(page)

    def seq(self, page) -> int:
        return page.evaluate(SEQ)

    def append(self, page, event):
        """An event entered by another screen (the server's log), drawn on the tablet."""
        seq = self.seq(page)
        with ThreadPoolExecutor(1) as pool:
            pool.submit(log.append_event, self.mid, event, expected_seq=seq).result()
        page.wait_for_function(f"(n) => ({SEQ})() === n", arg=seq + 1, timeout=10000)
        settled(page)

    def tap(self, page, locator, stores=True):
        """Tap ``locator`` (a touch); when it ``stores`` an event, wait for the server's board."""
        seq = self.seq(page)
        # a tap where the last one landed, or on a board another screen just changed, comes
        # after the tablet's guard (half a second: a finger's double tap, a board not yet seen):
        # the page's clock is moved a second on, and only a tap at the previous tap's spot waits
        # for the half second between the touches themselves
        self.now += 1000
        page.clock.set_fixed_time(self.now / 1000)
        box = locator.bounding_box()
        page.wait_for_function("([x, y]) => !window.refereeGuard || refereeGuard.ready(x, y)",
                               arg=[box["x"] + box["width"] / 2, box["y"] + box["height"] / 2], timeout=5000)
        locator.tap()
        if stores:
            page.wait_for_function(f"(n) => ({SEQ})() === n", arg=seq + 1, timeout=15000)
        settled(page)
        frames(page)

    def button(self, page, text, scope="#ref-live"):
        return page.locator(f"{scope} button:not([disabled])").filter(has_text=text).first

    def ball(self, page, n):
        return page.locator(f"#ref-live .row.balls button.ball-{n}:not([disabled]):not(.multi)").filter(
            has_not_text="Livre").first

    def walk(self):
        """Both matches tapped through once; after every tap the screen is measured at each size
        (the page resized), each size with its own first places. The taps go round the sizes."""
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx, page = self.tablet(browser, SIZES[0])
            self.size = 0  # the size the page has now: the next tap's
            self.now = 1_900_000_000_000  # the page's Date.now(), moved by the test only
            page.clock.set_fixed_time(self.now / 1000)
            self.engine_ready(page)
            self.faults: list[str] = []
            self.contrast_low = 99.0

            def resize(i):
                if i != self.size:
                    w, h = SIZES[i]
                    page.set_viewport_size({"width": w, "height": h})
                    self.size = i
                    frames(page)

            def look(what, shot=None):
                """Measure the screen after ``what`` at each size: boxes against their first place
                there, cuts, contrast. It ends at the next size round, where the next tap lands."""
                now = self.size
                for i in (now, (now + 2) % 3, (now + 1) % 3):
                    resize(i)
                    w, h = SIZES[i]
                    places = self.places.setdefault(i, {})
                    for key, box in page.evaluate(CONTROLS).items():
                        # its place and width: a control may grow at its foot (a decision's
                        # explanation naming a longer name), what it pushes down is caught below it
                        first = places.setdefault(key, (box, what))
                        if first[0][:3] != box[:3]:
                            self.faults.append(f"{w}x{h} {self.name}: after {what!r} {key!r} at {box}, "
                                               f"at {first[0]} after {first[1]!r}")
                    for cut in page.evaluate(CUT):
                        self.faults.append(f"{w}x{h} {self.name}: after {what!r} {cut}")
                    for ball, c in page.evaluate(BALLS, False).items():
                        if c["edge"] < 3 or c["text"] < 4.5:
                            self.faults.append(f"{w}x{h} {self.name}: after {what!r} ball {ball!r} {c}")
                    text = page.evaluate(TEXT_CONTRAST)
                    self.contrast_low = min(self.contrast_low, text["low"])
                    for low in text["bad"]:
                        self.faults.append(f"{w}x{h} {self.name}: after {what!r} text contrast {low}")
                    if shot:
                        page.screenshot(path=str(OUT / f"still-{shot}-{w}x{h}.png"))

            # -- singles: a warning, reds and colours, a foul with a free ball, the frame's end
            self.name, self.places = "singles", {}
            look("load")
            self.append(page, {"type": "foul", "kind": "slow_play", "player": 1})
            look("a warning")
            for i in range(3):
                resize((self.size + 1) % 3)
                w, h = SIZES[self.size]
                balls = page.evaluate(BALLS, True)
                for key, c in balls.items():
                    if key.endswith("enabled") and not key.endswith("disabled"):
                        if c["edge"] < 3 or c["text"] < 4.5:
                            self.faults.append(f"{w}x{h} ball {key}: {c}")
                        weaker = [k for k, d in balls.items() if k.endswith("disabled") and d["edge"] >= c["edge"]]
                        if weaker:
                            self.faults.append(f"{w}x{h} ball {key} {c['edge']}: not above disabled {weaker}")
                print(f"\n{w}x{h} balls against the panel (edge, fill) and label: {json.dumps(balls)}")
            self.tap(page, self.ball(page, 1))
            look("red")
            self.tap(page, page.locator("#ref-live .art28 button[data-answer=yes]"), stores=False)
            look("Art. 28 yes")
            self.tap(page, self.ball(page, 7))
            look("black")
            self.tap(page, self.button(page, "4 vermelhas"))
            look("4 reds")
            self.tap(page, self.ball(page, 5))
            look("blue")
            page.locator("#ref-live button.foul:not([disabled])").first.tap()
            page.wait_for_selector("#foul-dialog[open] #foul-form", timeout=15000)
            page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")
            frames(page)
            look("the foul dialog", shot="foul")
            page.locator("#foul-form label.chip").filter(has_text="Deixou sinuca").tap()
            page.wait_for_function("() => /sinuca/i.test(document.getElementById('foul-preview').textContent)",
                                   timeout=15000)
            settled(page)
            self.tap(page, page.locator("#foul-dialog button.danger"))
            page.wait_for_selector("#ref-live .decision-list", timeout=15000)
            look("foul")
            self.tap(page, page.locator("#ref-live .undo button.undo-btn"), stores=False)
            look("Desfazer… asked", shot="undo")
            self.tap(page, page.locator("#ref-live .undo .confirm button").filter(has_text="Cancelar"), stores=False)
            look("Desfazer… cancelled")
            self.tap(page, page.locator("#ref-live .decision-list button").first)
            look("free ball", shot="freeball")
            self.tap(page, page.locator("#ref-live details.more > summary"), stores=False)
            look("Mais ações opened", shot="more")
            self.tap(page, page.locator("#ref-live details.more > summary"), stores=False)
            self.tap(page, self.button(page, "Sem ponto"))
            look("no pot")
            self.tap(page, self.ball(page, 1))
            look("last red")
            self.tap(page, self.ball(page, 7))
            look("black")
            for n in range(2, 8):  # the colours in order (Art. 6); the 6 ends it (Art. 50.1), the 7 for the break
                self.tap(page, self.ball(page, n))
                look(f"ball {n}", shot="frame-over" if n == 6 else None)
            self.tap(page, self.button(page, "Próxima partida"))
            look("next frame")

            # -- doubles: the order of play, its first stroke, a safety, a concession
            self.open(page, self.doubles)
            self.name, self.places = "doubles", {}
            look("load", shot="doubles")
            self.tap(page, self.button(page, "Carla 1º na ordem"))
            look("order")
            self.tap(page, self.ball(page, 1))
            look("red")
            self.tap(page, self.ball(page, 7))
            look("black")
            self.tap(page, self.button(page, "Defesa"))
            look("safety", shot="doubles-play")
            # a foul with the replay offered: three choices (the first foul's decision had two)
            self.append(page, {"type": "foul", "ball": 4, "retorno": True})
            look("a foul with retorno", shot="doubles-decision")
            self.tap(page, page.locator("#ref-live .decision-list button[data-choice=play]"))
            look("play")
            # a foul without the replay: two choices, "Falta disciplinar…" where it was with three
            self.append(page, {"type": "foul", "ball": 4})
            look("a foul without retorno")
            self.tap(page, page.locator("#ref-live .decision-list button[data-choice=play]"))
            look("play again")
            self.tap(page, page.locator("#ref-live details.more > summary"), stores=False)
            look("Mais ações opened")
            self.tap(page, page.locator("#ref-live details.more .confirmable button.big").filter(
                has_text="desiste").first, stores=False)
            look("concession asked")
            self.tap(page, page.locator("#ref-live details.more .confirmable.confirming .confirm button").first)
            look("concession", shot="doubles-over")
            self.tap(page, self.button(page, "Próxima partida"))
            look("next frame")
            ctx.close()
        # each fault once, after the first tap that showed it
        once = {}
        for f in self.faults:
            once.setdefault(f.split(": after ")[0] + ":" + f.split("'", 2)[-1], f)
        assert not once, "\n".join(once.values())


class StillBoardTest(StillBoardCase):
    def test_the_board_holds_still_at_1280x800_1024x768_and_800x1280(self):
        self.walk()
