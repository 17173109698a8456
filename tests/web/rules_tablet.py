"""The rules' words on the referee tablet, as a browser test checks them (used by the tablet's
engine tests, whose pages carry these checks instead of loading a tablet of their own): one tap
on an "Art. N" opens the article verbatim with the cited item marked, one tap on a log line its
"why?", one tap anywhere closes either, and none of these taps is a tap on the control around it.
"""
from __future__ import annotations

from sinuca.rulebook import load

SEQ = "() => +document.getElementById('live-seq').dataset.seq"
DIALOG = "document.getElementById('rule-dialog')"
OPENED = f"(ref) => {DIALOG}.open && ({DIALOG}.querySelector('.rule-panel') || {{}}).dataset?.ref === ref"
WHY = f"(seq) => {DIALOG}.open && ({DIALOG}.querySelector('.why-panel') || {{}}).dataset?.seq === String(seq)"
RECT = "(sel) => { const r = document.querySelector(sel).getBoundingClientRect();" \
       " return [r.left, r.top, r.right, r.bottom]; }"
# a decision's chips (the articles of each choice, in order) and the boxes of the chips and of
# every control shown
CHIPS = r"""() => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const shown = e => e.checkVisibility({visibilityProperty: true}) && e.getBoundingClientRect().width > 0;
  return {chips: [...document.querySelectorAll('#ref-live .choice-item')]
            .map(i => [...i.querySelectorAll('.choice-arts .art')].map(a => a.dataset.art)),
          boxes: [...document.querySelectorAll('#ref-live .choice-arts .art')].map(box),
          controls: [...document.querySelectorAll('#ref-live :is(button, summary, a.big)')].filter(shown).map(box)};
}"""
FACTS = ("() => [...document.querySelectorAll('#rule-dialog .why-before dt')]"
         ".map(dt => dt.textContent + ': ' + dt.nextElementSibling.textContent)")


def overlap(a, b) -> bool:
    """Whether two boxes ``[left, top, right, bottom]`` overlap by more than a pixel."""
    return a[0] < b[2] - 1 and b[0] < a[2] - 1 and a[1] < b[3] - 1 and b[1] < a[3] - 1


def chips_beside_buttons(page) -> None:
    """A decision's chips are a finger's size (44 px tall at least) and lie on no control."""
    got = page.evaluate(CHIPS)
    assert got["boxes"], got
    for chip in got["boxes"]:
        assert chip[3] - chip[1] >= 44, chip
        assert not [c for c in got["controls"] if overlap(chip, c)], (chip, got["controls"])


def open_rule(page, locator, ref: str) -> None:
    """One tap on ``locator`` (an "Art.") opens ``ref``'s article: its text and every item
    verbatim, the cited item marked with its own words."""
    locator.tap()
    page.wait_for_function(OPENED, arg=ref, timeout=30000)
    art, item = load().find(ref)
    panel = page.locator("#rule-dialog .rule-panel")
    assert panel.locator(".rule-text").inner_text() == art.text
    assert page.locator("#rule-dialog li").count() == len(art.items)
    if item is not None:
        cited = panel.locator("li.cited")
        assert cited.get_attribute("data-id") == ref
        assert cited.inner_text() == f"{ref} {item.text}"


def open_why(page, line, seq: int) -> list[str]:
    """One tap on the log line ``line`` opens event ``seq``'s why; its facts before the event."""
    line.locator(".seq").tap()
    page.wait_for_function(WHY, arg=seq, timeout=30000)
    return page.evaluate(FACTS)


def close_rule(page) -> None:
    """One tap anywhere (the dialog's own corner) closes it."""
    box = page.locator("#rule-dialog").bounding_box()
    page.touchscreen.tap(box["x"] + 12, box["y"] + 12)
    page.wait_for_function(f"() => !{DIALOG}.open", timeout=30000)


def nothing_taken(page, seq: int, queued: int = 0) -> None:
    """The taps on the rules sent nothing: the board's seq, the queue and no flash of a dropped tap."""
    assert page.evaluate(SEQ) == seq and page.evaluate("() => refereeQueue.length()") == queued
    assert page.evaluate("() => document.getElementById('tap-flash').hidden")
