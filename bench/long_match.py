"""A long recorded match (the first seeded ``sinuca.simulate`` match of 35+ frames, ~3,300
events) as a match file, for the report and import benchmarks.

Run: .venv/bin/python bench/long_match.py [OUT.json]   (default: var/long_match.json)
"""
from __future__ import annotations

import json
import pathlib
import sys

from sinuca import Match
from sinuca.simulate import play_match

CONFIG = {"players": ["Ana Souza", "Bia Lima"], "frames_to_win": 30, "first_breaker": 0}


def long_match_document() -> dict:
    """``{"config", "events"}`` of a match covering at least 35 frames."""
    for seed in range(100):
        events = play_match(CONFIG, seed=seed, undo_rate=0.02)
        if len(Match.replay(CONFIG, events).state()["history"]) >= 35:
            return {"config": CONFIG, "events": events}
    raise RuntimeError("no seed gave 35 frames")


def write(path: pathlib.Path) -> pathlib.Path:
    """Write the long match file to ``path`` (once: it is deterministic)."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(long_match_document()))
    return path


if __name__ == "__main__":
    root = pathlib.Path(__file__).resolve().parents[1]
    out = write(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else root / "var" / "long_match.json")
    print(out, len(json.loads(out.read_text())["events"]), "events")
