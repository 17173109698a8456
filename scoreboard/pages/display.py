"""Display options of the TV and overlay pages, read from URL parameters.

``?layout=lower-third|corner|full&theme=dark|light&primary=%23123456&accent=%23ffd54f&text=%23ffffff
&scale=1.25&delay=3&lang=en&popups=foul,frame,match&popup_seconds=6&milestones=30,50,100`` — every
one optional; bad values fall back to the default, so an OBS source with a typo still shows a
scoreboard. ``lang`` is handled by ``LangQueryMiddleware``. The overlay's pop-ups: ``popups`` the
kinds to show (default all of ``POPUPS``; ``none`` for none), ``popup_seconds`` how long each
stays, ``milestones`` the break values that pop up when a break passes them. ``position`` moves
the overlay's bar (its pop-ups follow it): ``top`` or ``bottom`` and/or ``left``, ``center`` or
``right``, joined by ``-`` (``?position=top-right``); what is not given stays where the layout puts it.

The overlay is drawn for a 1920x1080 source and grows with a bigger one (a 3840x2160 source shows
it at twice the size). ``scale`` multiplies that, but the overlay never leaves the frame: a layout
takes at most the scale at which its bar fills the frame's width but for its margins (lower third
about 1.42, corner 3.9, full 1.12 at 16:9), so ``scale=4`` gives the largest bar that fits, at the
layout's anchor. Its players' names shrink to fit down to a readable floor (24 px of a 1080p source
in the lower third, 20 in the corner, 30 in the full layout) and then take a second line in the
bar's fixed height (up to three in the full layout); both names are always at one size.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

LAYOUTS = ("lower-third", "corner", "full")
THEMES = ("dark", "light")
COLOUR_PARAMS = {"primary": "--club-primary", "accent": "--accent", "text": "--club-text", "bg": "--club-bg"}
SCALE = (0.25, 4.0)
DELAY = (0.0, 120.0)
POPUPS = ("foul", "retorno", "free_ball", "aggravated", "break", "max", "frame", "match")
POPUP_SECONDS = (1.0, 60.0)
MILESTONES = (30, 50, 100)
VERTICAL = ("top", "bottom")
HORIZONTAL = ("left", "center", "right")
_HEX = re.compile(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")


def _number(value: str | None, lo: float, hi: float, default: float) -> float:
    try:
        v = float(value) if value not in (None, "") else default
    except ValueError:
        return default
    return default if v != v else min(max(v, lo), hi)  # NaN → default


def _popups(value: str | None) -> tuple:
    if value is None or value.strip() == "":
        return POPUPS
    if value.strip() == "none":
        return ()
    wanted = [v.strip() for v in value.split(",")]
    return tuple(p for p in POPUPS if p in wanted) or POPUPS


def _milestones(value: str | None) -> tuple:
    if value is None or value.strip() == "":
        return MILESTONES
    out = set()
    for v in value.split(","):
        v = v.strip()
        if v.isdigit() and 0 < int(v) <= 1000:
            out.add(int(v))
    return tuple(sorted(out)) or MILESTONES


def _position(value: str | None) -> tuple[str, str]:
    """``"top-right"`` -> ``("top", "right")``; a part not given or not known is ``""``."""
    parts = [p.strip().lower() for p in (value or "").replace(" ", "-").split("-")]
    return (next((p for p in parts if p in VERTICAL), ""), next((p for p in parts if p in HORIZONTAL), ""))


def _float_in(value: str, lo: float, hi: float) -> bool:
    try:
        v = float(value)
    except ValueError:
        return False
    return lo <= v <= hi  # NaN is in no range


def problem(q) -> tuple[str, str, str] | None:
    """The first option of the query ``q`` that is given but not one the screens take, as
    ``(name, value, the values taken)``, else None (an option not given, or given empty, is its
    default). Parameters that are not options (``lang``, a tracker's ``utm_*``) are not looked at.
    The screens answer it with a 400 that says so (``screens.bad_option``): a typo showed the
    default, and whoever set the screen up believed the option was in force."""
    def given(name):
        v = q.get(name)
        return v.strip() if isinstance(v, str) and v.strip() else None

    checks = [
        ("layout", lambda v: v in LAYOUTS, " | ".join(LAYOUTS)),
        ("theme", lambda v: v in THEMES, " | ".join(THEMES)),
        *[(name, lambda v: bool(_HEX.match(v)), "%23RRGGBB") for name in COLOUR_PARAMS],
        ("scale", lambda v: _float_in(v, *SCALE), "0.25 – 4"),
        ("delay", lambda v: _float_in(v, *DELAY), "0 – 120"),
        ("popup_seconds", lambda v: _float_in(v, *POPUP_SECONDS), "1 – 60"),
        ("popups", lambda v: v == "none" or all(p.strip() in POPUPS for p in v.split(",")),
         ", ".join(POPUPS) + " | none"),
        ("milestones", lambda v: all(p.strip().isdigit() and 0 < int(p) <= 1000 for p in v.split(",")),
         "30,50,100 (1 – 1000)"),
        ("position", _position_ok, "top | bottom, left | center | right (top-right)"),
    ]
    for name, ok, allowed in checks:
        v = given(name)
        if v is not None and not ok(v):
            return name, v, allowed
    return None


def _position_ok(value: str) -> bool:
    parts = [p.strip().lower() for p in value.replace(" ", "-").split("-")]
    return (all(p in VERTICAL + HORIZONTAL for p in parts) and len(parts) <= 2
            and sum(p in VERTICAL for p in parts) <= 1 and sum(p in HORIZONTAL for p in parts) <= 1)


@dataclass(frozen=True)
class Display:
    """Parsed options; ``classes`` go on ``<body>``, ``css`` declares the custom properties."""

    layout: str = "lower-third"
    theme: str = "dark"
    scale: float = 1.0
    delay: float = 0.0
    colours: dict = field(default_factory=dict)
    popups: tuple = POPUPS
    popup_seconds: float = 6.0
    milestones: tuple = MILESTONES
    position: tuple = ("", "")

    @classmethod
    def from_query(cls, q) -> "Display":
        layout = q.get("layout", "")
        theme = q.get("theme", "")
        colours = {}
        for name, var in COLOUR_PARAMS.items():
            m = _HEX.match(q.get(name, "").strip())
            if m:
                colours[var] = "#" + m.group(1)
        return cls(layout=layout if layout in LAYOUTS else "lower-third",
                   theme=theme if theme in THEMES else "dark",
                   scale=_number(q.get("scale"), *SCALE, 1.0),
                   delay=_number(q.get("delay"), *DELAY, 0.0), colours=colours,
                   popups=_popups(q.get("popups")),
                   popup_seconds=_number(q.get("popup_seconds"), *POPUP_SECONDS, 6.0),
                   milestones=_milestones(q.get("milestones")),
                   position=_position(q.get("position")))

    @property
    def classes(self) -> str:
        pos = "".join(f" pos-{p}" for p in self.position if p)
        return f"layout-{self.layout} theme-{self.theme}{pos}"

    @property
    def css(self) -> str:
        decl = ([f"--scale: {self.scale:g}"] if self.scale != 1 else []) + [
            f"{k}: {v}" for k, v in self.colours.items()]
        return "; ".join(decl)


def from_request(request) -> Display:
    return Display.from_query(request.GET if request is not None else {})
