"""Display options of the TV and overlay pages, read from URL parameters.

``?layout=lower-third|corner|full&theme=dark|light&primary=%23123456&accent=%23ffd54f&text=%23ffffff
&scale=1.25&delay=3&lang=en&popups=foul,frame,match&popup_seconds=6&milestones=30,50,100`` — every
one optional; bad values fall back to the default, so an OBS source with a typo still shows a
scoreboard. ``lang`` is handled by ``LangQueryMiddleware``. The overlay's pop-ups: ``popups`` the
kinds to show (default all of ``POPUPS``; ``none`` for none), ``popup_seconds`` how long each
stays, ``milestones`` the break values that pop up when a break passes them. ``position`` moves
the overlay's bar (its pop-ups follow it): ``top`` or ``bottom`` and/or ``left``, ``center`` or
``right``, joined by ``-`` (``?position=top-right``); what is not given stays where the layout puts it.
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
