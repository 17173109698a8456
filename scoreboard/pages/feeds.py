"""Feeds for broadcast tools: a match's or a table's current state as one flat record.

- ``/matches/<id>/feed.json`` and ``/tables/<id>/feed.json``: a flat JSON object (a vMix JSON
  data source; every value a string, a number, a boolean or null);
- ``/matches/<id>/feed.xml`` and ``/tables/<id>/feed.xml``: the same record as
  ``<sinuca><field>value</field>…</sinuca>`` (a vMix XML data source, XPath ``/sinuca``);
- ``/matches/<id>/feed/<field>.txt`` and ``/tables/<id>/feed/<field>.txt``: one value as plain
  text (an OBS text source, a browser source, a Companion variable).

The table's feed follows whatever match is on the table (the current one, else the last one
played there), so a broadcast tool needs no change between matches. Everything comes from the
engine's state and words (labels, ball names, descriptions); nothing here knows a rule.

``/tables/feed.json`` and ``/tables/feed.xml``: every table's record at once, for a ticker
(``{"tables": [record, …]}``; ``<sinuca><table>…</table>…</sinuca>``).

Read-only and cacheable: each answer carries an ``ETag`` that is a hash of its body, so it differs
between formats and fields and changes whenever anything shown changes (a player renamed too), ``Cache-Control: no-cache`` (revalidate, then a 304 costs no body), and
``Access-Control-Allow-Origin: *`` for GET (a browser overlay on another origin may read it). The
reads share the anonymous read bound (``http.capacity.anonymous_read``) with the other reports.
"""
from __future__ import annotations

from xml.sax.saxutils import escape

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

import hashlib

from django.utils.translation import gettext

import sinuca
from presentation import labels
from sinuca import Phase, TableWarning

from ..core import log, stages, tables
from ..http import capacity, errors
from ..core.i18n import engine_lang
from ..core.venue_rules import result_text
from ..core.models import Event, Match, Table

FIELDS = (
    "match_id", "seq", "table", "competition", "fixture", "stage", "round", "group", "player_a", "player_b", "score_a", "score_b",
    "frames_a", "frames_b", "frame_number", "frames_to_win", "best_of", "reds", "phase", "phase_label",
    "striker", "at_table", "break", "ball_on", "points_remaining", "difference", "snookers_required",
    "reds_remaining", "free_ball", "decision_options", "aggravated_fouls", "decider", "warning", "warning_label", "warnings_a", "warnings_b",
    "highest_break_a", "highest_break_b", "last_penalty_points", "last_penalty_to", "last_action",
    "frame_winner", "match_winner", "match_result", "match_result_label",
    "table_label", "club_a", "flag_a", "photo_a", "club_b", "flag_b", "photo_b", "referee", "frames_history",
    "members_a", "members_b", "at_table_player", "next_player",
)
"""Every key of a feed record, always present, in this order (the XML's element order)."""


def _error(code: str, msgid: str, **params) -> JsonResponse:
    """A feed's error (``http.errors``: the status of ``code``, the message in both languages),
    readable from any origin like the feed itself."""
    resp = errors.request_error(code, msgid, **params).json()
    resp["Access-Control-Allow-Origin"] = "*"
    return resp


def empty_record(table: Table | None = None) -> dict:
    """A record with every field and no match: a table with nothing played on it yet."""
    rec = {k: None for k in FIELDS}
    rec.update(seq=0, table=table.name if table else "", table_label=table_label(table))
    return rec


def table_label(table: Table | None) -> str:
    """The table as the TV names it, in the active language: "Mesa 4" / "Table 4"."""
    return f"{gettext('Mesa')} {table.short_name}" if table else ""


def people(m: Match) -> dict:
    """Club, flag (ISO code) and photo URL of each player (empty when none): the URL's path here,
    made whole by the view (:func:`absolute_photos`)."""
    out = {}
    for side, player in (("a", m.player_a), ("b", m.player_b)):
        photo = getattr(player, "photo", None)
        country = getattr(player, "country", None)
        out.update({f"club_{side}": getattr(player, "club", "") or "",
                    f"flag_{side}": country.code if country else "",
                    f"photo_{side}": photo.url if photo else ""})
    return out


def record(match_id: int) -> dict:
    """The flat record of a match at its committed seq, in the active language (``?lang=``).

    Raises ``Match.DoesNotExist``."""
    snap = log.snapshot(match_id)
    m, s, lang = snap.match, snap.state, engine_lang()
    opts = snap.options
    names = m.player_names
    striker = s["striker"]
    last = (Event.objects.filter(match_id=m.pk, seq=snap.seq)
            .values_list("description_pt", "description_en").first())
    penalty = s["last_penalty"]
    return {
        "match_id": m.pk,
        "seq": snap.seq,
        "table": m.table.name if m.table_id else "",
        # the competition's name, and the match's place in it as fields of their own in the
        # feed's language ("J3", "Fase de grupos" / "Group stage", "Rodada 1", "Grupo A")
        **stages.of_match(m).texts(lang),
        "player_a": names[0],
        "player_b": names[1],
        "score_a": s["scores"][0],
        "score_b": s["scores"][1],
        "frames_a": s["frames"][0],
        "frames_b": s["frames"][1],
        "frame_number": s["frame_number"],
        "frames_to_win": m.config["frames_to_win"],
        "best_of": opts["best_of"],
        "reds": m.config["reds"],
        "phase": s["phase"],
        "phase_label": Phase(s["phase"]).label[lang],
        "striker": names[striker] if striker is not None else "",
        "at_table": "ab"[opts["at_table"]] if opts["at_table"] is not None else "",
        "break": s["break"],
        "ball_on": ", ".join(sinuca.ball_name(b, lang) for b in s["ball_on"]),
        "points_remaining": s["points_remaining"],
        "difference": abs(s["scores"][0] - s["scores"][1]),
        "snookers_required": s["snookers_required"],
        "reds_remaining": s["reds_remaining"],
        # on, or offered by the pending decision (Art. 36): what the TV's "BOLA LIVRE" shows
        "free_ball": opts["free_ball_shown"],
        # the beneficiary's choices while a decision is pending (Art. 24-26), e.g. "play, pass, retorno"
        "decision_options": ", ".join(str(c) for c in s["decision_options"]),
        # consecutive aggravated fouls of the striker (Art. 27, 44): the third loses the frame
        "aggravated_fouls": s["aggravated_fouls"],
        "decider": s["decider"],
        "warning": s["warning"] or "",
        "warning_label": TableWarning(s["warning"]).label[lang] if s["warning"] else "",
        "warnings_a": s["warnings"][0],
        "warnings_b": s["warnings"][1],
        "highest_break_a": s["highest_break"][0],
        "highest_break_b": s["highest_break"][1],
        "last_penalty_points": penalty["points"] if penalty else 0,
        "last_penalty_to": names[penalty["player"]] if penalty else "",
        "last_action": (last[1] if lang == "en" else last[0]) if last else "",
        "frame_winner": names[s["frame_winner"]] if s["frame_winner"] is not None else "",
        "match_winner": names[s["match_winner"]] if s["match_winner"] is not None else "",
        "match_result": s["match_result"] or "",
        "match_result_label": result_text(s["match_result"])[lang] if s["match_result"] else "",
        "table_label": table_label(m.table if m.table_id else None),
        **people(m),
        "referee": m.referee_name,
        # the frames played, "1: 72–40; 2: 15–64" (player A's score first)
        "frames_history": "; ".join(f"{h['frame']}: {h['scores'][0]}–{h['scores'][1]}" for h in s.get("history", [])),
        **members(m, s, opts),
    }


def members(m: Match, s: dict, opts: dict) -> dict:
    """Doubles (Art. 1 "em conjunto", contract section 11): each side's players ("Ana, Carla"),
    the person at the table and the one who plays next, as the engine says
    (``opts["at_table_player"]``, ``opts["next_player"]``: in a decision the beneficiary's player
    due is at the table and nobody is next, it hangs on the choice). In singles no members, the
    player at the table's name, no next player."""
    sides, names = m.config.get("sides"), m.player_names
    at = opts["at_table"]
    if not sides:
        return {"members_a": "", "members_b": "", "at_table_player": names[at] if at is not None else "",
                "next_player": ""}
    who, nxt = opts.get("at_table_player"), opts.get("next_player")
    return {"members_a": ", ".join(sides[0]), "members_b": ", ".join(sides[1]),
            "at_table_player": sides[who[0]][who[1]] if who else "",
            "next_player": sides[nxt[0]][nxt[1]] if nxt else ""}


def table_record(table: Table) -> dict:
    """The record of the match on ``table`` now (else the last one played there)."""
    now = tables.table_now(table)
    match = now.current or now.last
    return record(match.pk) if match is not None else empty_record(table)


def as_text(value) -> str:
    """A value as a text source shows it: booleans as 1/0 (vMix and OBS compare them easily),
    nothing for null."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def as_xml(rec: dict) -> str:
    """``<sinuca><field>value</field>…</sinuca>``: one element per field, in :data:`FIELDS` order."""
    body = "".join(f"<{k}>{escape(as_text(rec[k]))}</{k}>" for k in FIELDS)
    return f'<?xml version="1.0" encoding="utf-8"?>\n<sinuca>{body}</sinuca>\n'


def venue_xml(recs: list[dict]) -> str:
    """``<sinuca><table><field>…</field>…</table>…</sinuca>``: every table's record."""
    body = "".join("<table>" + "".join(f"<{k}>{escape(as_text(r[k]))}</{k}>" for k in FIELDS) + "</table>"
                   for r in recs)
    return f'<?xml version="1.0" encoding="utf-8"?>\n<sinuca>{body}</sinuca>\n'


def _answer(request: HttpRequest, rec, fmt: str, field: str | None = None) -> HttpResponse:
    if fmt == "json":
        resp = JsonResponse(rec if isinstance(rec, dict) else {"tables": rec},
                            json_dumps_params={"ensure_ascii": False})
    elif fmt == "xml":
        resp = HttpResponse(as_xml(rec) if isinstance(rec, dict) else venue_xml(rec),
                            content_type="application/xml; charset=utf-8")
    else:
        resp = HttpResponse(as_text(rec[field]), content_type="text/plain; charset=utf-8")
    # a hash of the body: one per format and field, and it moves when anything shown moves
    etag = '"' + hashlib.sha256(resp.content).hexdigest()[:32] + '"'
    if etag in [t.strip() for t in request.headers.get("If-None-Match", "").split(",")]:
        resp = HttpResponse(status=304)
    resp["ETag"] = etag
    resp["Cache-Control"] = "no-cache"  # cacheable, revalidated every time: a score is never stale
    resp["Vary"] = "Accept-Language, Cookie"
    resp["Access-Control-Allow-Origin"] = "*"
    resp["Access-Control-Expose-Headers"] = "ETag"
    return resp


def _preflight() -> HttpResponse:
    resp = HttpResponse(status=204)
    resp["Access-Control-Allow-Origin"] = "*"
    resp["Access-Control-Allow-Methods"] = "GET, HEAD, OPTIONS"
    resp["Access-Control-Allow-Headers"] = "If-None-Match"
    resp["Access-Control-Max-Age"] = "86400"
    return resp


def _serve(request: HttpRequest, get_record, fmt: str, field: str | None) -> HttpResponse:
    if request.method == "OPTIONS":
        return _preflight()
    if request.method not in ("GET", "HEAD"):
        resp = _error("method_not_allowed", "Método não permitido (somente leitura)")
        resp["Allow"] = "GET, HEAD, OPTIONS"
        return resp
    if field is not None and field not in FIELDS:
        return _error("unknown_field", "Campo desconhecido: %(field)s. Campos: %(fields)s",
                      field=field[:40], fields=", ".join(FIELDS))
    rec = get_record()
    if rec is None:
        return _error("not_found", "Jogo ou mesa não encontrado(a)")
    return _answer(request, absolute_photos(request, rec), fmt, field)


def absolute_photos(request: HttpRequest, rec):
    """``rec`` (a record or a list of them) with its photos as full URLs ("http://host/media/…"):
    vMix and OBS load an image from a URL and know nothing of the page's address."""
    if isinstance(rec, list):
        return [absolute_photos(request, r) for r in rec]
    return {**rec, **{k: request.build_absolute_uri(rec[k]) for k in ("photo_a", "photo_b")
                      if isinstance(rec.get(k), str) and rec[k].startswith("/")}}


def _match_record(match_id: int):
    try:
        return record(match_id)
    except (Match.DoesNotExist, OverflowError):
        return None


def _table_record(table_id: int):
    try:
        table = Table.objects.get(pk=table_id)
    except (Table.DoesNotExist, OverflowError):
        return None
    return table_record(table)


@csrf_exempt  # read-only: a POST gets the JSON 405 above, not the CSRF page's HTML 403
@capacity.anonymous_read
def match_feed(request: HttpRequest, match_id: int, fmt: str = "json", field: str | None = None) -> HttpResponse:
    """``/matches/<id>/feed.json|.xml`` and ``/matches/<id>/feed/<field>.txt``."""
    return _serve(request, lambda: _match_record(match_id), fmt, field)


@csrf_exempt  # read-only: a POST gets the JSON 405 above, not the CSRF page's HTML 403
@capacity.anonymous_read
def table_feed(request: HttpRequest, table_id: int, fmt: str = "json", field: str | None = None) -> HttpResponse:
    """``/tables/<id>/feed.json|.xml`` and ``/tables/<id>/feed/<field>.txt``: the match on the
    table now, else the last one played there."""
    return _serve(request, lambda: _table_record(table_id), fmt, field)


@csrf_exempt  # read-only: a POST gets the JSON 405 above, not the CSRF page's HTML 403
@capacity.anonymous_read
def venue_feed(request: HttpRequest, fmt: str = "json") -> HttpResponse:
    """``/tables/feed.json|.xml``: every table's record (the match on it now, else its last one),
    in the tables' order, for a ticker of the venue."""
    return _serve(request, lambda: [table_record(t) for t in Table.objects.all()], fmt, None)
