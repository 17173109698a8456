"""Display options of the TV and overlay pages, read from URL parameters.

``?layout=lower-third|corner|full&theme=dark|light&primary=%23123456&accent=%23ffd54f&text=%23ffffff
&scale=1.25&delay=3&lang=en`` — every one optional; bad values fall back to the default, so an OBS
source with a typo still shows a scoreboard. ``lang`` is handled by ``LangQueryMiddleware``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

LAYOUTS = ("lower-third", "corner", "full")
THEMES = ("dark", "light")
COLOUR_PARAMS = {"primary": "--club-primary", "accent": "--accent", "text": "--club-text", "bg": "--club-bg"}
SCALE = (0.25, 4.0)
DELAY = (0.0, 120.0)
_HEX = re.compile(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")


def _number(value: str | None, lo: float, hi: float, default: float) -> float:
    try:
        v = float(value) if value not in (None, "") else default
    except ValueError:
        return default
    return default if v != v else min(max(v, lo), hi)  # NaN → default


@dataclass(frozen=True)
class Display:
    """Parsed options; ``classes`` go on ``<body>``, ``css`` declares the custom properties."""

    layout: str = "lower-third"
    theme: str = "dark"
    scale: float = 1.0
    delay: float = 0.0
    colours: dict = field(default_factory=dict)

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
                   delay=_number(q.get("delay"), *DELAY, 0.0), colours=colours)

    @property
    def classes(self) -> str:
        return f"layout-{self.layout} theme-{self.theme}"

    @property
    def css(self) -> str:
        decl = ([f"--scale: {self.scale:g}"] if self.scale != 1 else []) + [
            f"{k}: {v}" for k, v in self.colours.items()]
        return "; ".join(decl)


def from_request(request) -> Display:
    return Display.from_query(request.GET if request is not None else {})
