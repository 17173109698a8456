"""A match as the contract's JSON (``{"config", "events"}``), out and in.

The export is exactly what ``python -m sinuca replay`` reads. An import checks the whole log with
the engine first, then stores each event through ``log.append_event`` like a referee's tap, so
the imported match has the same log, descriptions and broadcasts as one scored live.
"""
from __future__ import annotations

import json

import sinuca

from ..core import log
from ..core.matches import new_match
from ..core.models import Match


def export_document(match: Match) -> dict:
    """``{"config", "events"}`` of a match: its frozen configuration and every stored event."""
    return {"config": match.config,
            "events": [e.event for e in log.events_of(match.pk)]}


def read_document(text: str) -> dict:
    """Parse and check a match file; raise ``ValueError`` (a ``SinucaError`` for the engine's
    refusals, with ``index`` the refused event's position) when it cannot be imported."""
    doc = json.loads(text)
    if not isinstance(doc, dict) or not isinstance(doc.get("config"), dict) \
            or not isinstance(doc.get("events", []), list):
        raise ValueError('esperado {"config": {...}, "events": [...]} / expected {"config": {...}, "events": [...]}')
    sinuca.Match.replay(doc["config"], doc.get("events", []))  # the engine decides, before anything is stored
    return doc


def import_document(doc: dict, *, table: str = "", entered_by: str = "import") -> Match:
    """Store a checked match file as a new match (see :func:`read_document`)."""
    match = new_match(doc["config"], table=table)
    for i, ev in enumerate(doc.get("events", [])):
        log.append_event(match.pk, ev, expected_seq=i, entered_by=entered_by)
    match.refresh_from_db()
    return match
