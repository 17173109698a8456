"""Command line: ``python -m sinuca replay FILE`` (contract section 9).

FILE (``-`` for standard input) holds ``{"config": {...}, "events": [...]}``.
Exit status 0 with the state on standard output when every event applies; 1 with
``{"error": {"index", "code", "message"}, "state"}`` when one is rejected (``index`` -1 and no
state for a rejected configuration); 2 with a message on standard error when the file cannot be
read or is not JSON.
"""
from __future__ import annotations

import argparse
import json
import sys

from .engine import Match
from .errors import SinucaError


def replay_document(doc: dict) -> tuple[int, dict]:
    """Replay a parsed match document. Returns ``(exit status, JSON object to print)``."""
    try:
        m = Match(doc.get("config"))
    except SinucaError as e:
        return 1, {"error": {"index": -1, **e.as_dict()}}
    for i, ev in enumerate(doc.get("events", [])):
        try:
            m.apply(ev)
        except SinucaError as e:
            return 1, {"error": {"index": i, **e.as_dict()}, "state": m.state()}
    return 0, m.state()


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    ap = argparse.ArgumentParser(prog="python -m sinuca", description="CBBS 2008 sinuca rules engine")
    sub = ap.add_subparsers(dest="command", required=True)
    rp = sub.add_parser("replay", help="replay a match file and print its state as JSON")
    rp.add_argument("file", help="match JSON {config, events}; - for standard input")
    a = ap.parse_args(argv)
    try:
        raw = sys.stdin.buffer.read() if a.file == "-" else open(a.file, "rb").read()
    except OSError as e:
        print(f"sinuca: não foi possível ler / cannot read {a.file}: {e.strerror}", file=sys.stderr)
        return 2
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as e:  # bad UTF-8, bad JSON, a 5000-digit number, deep nesting
        print(f"sinuca: JSON inválido / invalid JSON in {a.file}: {str(e)[:200]}", file=sys.stderr)
        return 2
    if not isinstance(doc, dict) or not isinstance(doc.get("events", []), list):
        print(f"sinuca: {a.file} não é um arquivo de jogo {{config, events}} / "
              f"is not a match file {{config, events}}", file=sys.stderr)
        return 2
    status, out = replay_document(doc)
    json.dump(out, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return status
