"""The referee tablet's JSON bridge: :class:`TabletEngine`, the match its browser holds.

Built from the configuration and the server's log, it applies a tap (optimistically, before the
server answers) and answers JSON in and out, so the JavaScript bridge (``engine-worker.js``,
Pyodide running this package unchanged) passes strings only. What it shows is the tablet view
(:mod:`presentation.tablet_board`) drawn by :mod:`presentation.referee_html`; its foul dialog is
:mod:`presentation.tablet_foul`'s.
"""
from __future__ import annotations

import json

from . import explain, referee_html
from .why import why_view
from .labels import undo_line
from .tablet_board import facts, tablet_view, to_json
from .tablet_foul import FormError, foul_event, foul_form, initial_fields, nomination_answer, preview_texts
from sinuca.engine import Match
from sinuca.errors import SinucaError


class TabletEngine:
    """A match for the tablet's browser: the server's log plus the taps not yet confirmed.

    Every method takes and returns JSON strings (the bridge passes strings, not proxies). The
    step of every event is kept (its description is computed when shown); which of them are in
    effect, and what each undo took back, the engine says (:meth:`sinuca.Match.in_effect`,
    :meth:`sinuca.Match.undid`).
    """

    def __init__(self, config: dict, events: list | None = None, lang: str = "pt",
                 urls: dict | None = None) -> None:
        self.config = config
        self.lang = "en" if lang == "en" else "pt"
        self.urls = dict(urls or {})  # where the drawn controls post (the page's own URLs)
        self.reset(events or [])

    def reset(self, events: list) -> None:
        """Rebuild from ``events`` (the server's log, then any taps still queued).

        When the events held are a prefix of ``events`` (the usual case: the server confirmed
        what the tablet had applied), only the rest is applied: a full replay of a long match
        would keep the engine busy for a second while the referee taps.

        Raises:
            SinucaError: an event of ``events`` is refused; the engine keeps what it held.
        """
        held = list(getattr(self, "events", None) or [])
        try:
            self._reset(events)
        except SinucaError:
            self._reset(held, rebuild=True)  # a refused log changes nothing
            raise

    def _reset(self, events: list, rebuild: bool = False) -> None:
        held = None if rebuild else getattr(self, "events", None)
        if held is not None and len(held) <= len(events) and events[:len(held)] == held:
            for ev in events[len(held):]:
                self._apply(ev)
            return
        self.match = Match(self.config)
        self.events: list[dict] = []
        self._steps: list = []  # every event's step, by log position
        for ev in events:
            self._apply(ev)

    def _apply(self, event: dict):
        step = self.match.apply(event)
        self.events.append(event)
        self._steps.append(step)
        return step

    def _described(self, n: int) -> list[str]:
        """The descriptions of the last ``n`` events in effect, oldest first."""
        return [self._steps[i].description[self.lang] for i in self.match.in_effect()[-n:]] if n else []

    @property
    def descriptions(self) -> list[str]:
        """The description of every event in effect, oldest first."""
        return [self._steps[i].description[self.lang] for i in self.match.in_effect()]

    def log(self, n: int = 6) -> list[dict]:
        """The last ``n`` events of the log as the server's board lists them, newest first:
        ``{"seq", "description", "undone_by", "undid"}`` (``seq`` from 1; an event taken back
        names the undo that took it back, an undo says what it took back,
        :func:`presentation.labels.undo_line`)."""
        undid, undone = self.match.undid(), self.match.undone()
        out = []
        for i in range(len(self._steps) - 1, max(-1, len(self._steps) - 1 - n), -1):
            text = self._steps[i].description[self.lang]
            if i in undid:
                text = undo_line(undid[i] + 1, self._steps[undid[i]].description)[self.lang]
            out.append({"seq": i + 1, "description": text,
                        "undone_by": undone[i] + 1 if i in undone else None,
                        "undid": undid[i] + 1 if i in undid else None})
        return out

    def view(self) -> dict:
        """:func:`tablet_view` of the current position, with the undo preview, ``recent``: the
        descriptions of the last 8 events in effect, newest first (the board's list), and
        ``log`` (:meth:`log`)."""
        target = self.match.undo_target()
        view = tablet_view(self.match, self.lang,
                           self._steps[target].description[self.lang] if target is not None else None,
                           log=self.log(), urls=self.urls, seq=len(self.events))
        view["recent"] = self._described(8)[::-1]
        return view

    def _shown(self, with_view: bool = False, **extra) -> str:
        """The answer that draws the tablet: its ``html`` (:func:`referee_html.region`, what the
        page swaps in: the server's page includes the same function's output), ``count``,
        ``position`` (the Art. 28 answer's key) and, asked for, the ``view`` itself."""
        view = self.view()
        out = {"ok": True, "html": referee_html.region(view, self.lang), "count": len(self.events),
               "position": view["position"], **extra}
        if with_view:
            out["view"] = view
        return to_json(out)

    def answer(self, request: str) -> str:
        """One call of the bridge: ``{"op": ..., ...}`` in, ``{"ok", ...}`` out (JSON).

        Ops: ``reset`` (``events``), ``apply`` (``event``: the view after it, its description,
        or the engine's error ``{"code", "message"}`` and nothing changed), ``view``,
        ``foul_form``, ``foul_event`` (``fields``), ``foul_preview`` (``fields`` or ``event``),
        ``state``, ``count``, ``article`` (``ref``: :func:`referee_html.article_panel`, the
        rules' words with no server), ``why`` (``seq``: :func:`referee_html.why_panel` of that
        event of the log, the state before it from the engine's step). A request that is not such an object (``[1]``, JSON nested too
        deep, a field of the wrong type) is answered ``{"ok": false, "error": {"code":
        "bad_request", "message": {"pt", "en"}}}``, never an exception.
        """
        try:
            req = json.loads(request)
            if not isinstance(req, dict):
                raise TypeError("expected a JSON object")
            return self._answer(req)
        except FormError as e:
            return _failed({"code": "bad_field", "message": e.message}, self.lang)
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as e:
            # a malformed request from the page; its text is the exception's kind, never its
            # value (a value nested deep has no printable repr)
            if isinstance(e, RecursionError):
                why = ("JSON aninhado demais", "JSON nested too deeply")
            else:
                why = (type(e).__name__,) * 2 if isinstance(e, KeyError) else (str(e)[:200],) * 2
            return _failed({"code": "bad_request", "message": {"pt": f"pedido inválido: {why[0]}",
                                                               "en": f"invalid request: {why[1]}"}}, self.lang)

    def _answer(self, req: dict) -> str:
        op = req.get("op")
        if op == "reset":
            events = req.get("events") or []
            if not isinstance(events, list):
                raise TypeError("events must be a list")
            self.reset(events)
            return self._shown()
        if op == "apply":
            try:
                step = self._apply(req["event"])
            except SinucaError as e:
                return _failed(e.as_dict(), self.lang)
            # the message bar's line, as the server's answer words it (explain.tap_message)
            said = explain.tap_message(step.event["type"], step.description, step.state, facts(self.match),
                                       self.config["players"])
            return self._shown(description=said[self.lang])
        if op == "view":
            return self._shown(with_view=True)
        if op == "state":
            return to_json({"ok": True, "state": self.match.state(), "events": self.events})
        if op == "foul_form":
            form = foul_form(self.match, self.lang, bool(req.get("declared")))
            first = preview_texts(self.match, foul_event(initial_fields(form)), self.lang,
                                  "" if form["needs_nomination"] else None)
            return to_json({"ok": True, "form": form, "html": referee_html.foul_dialog(
                form, first, self.urls, len(self.events))})
        if op == "foul_event":
            return to_json({"ok": True, "event": foul_event(req.get("fields") or {})})
        if op == "foul_preview":
            fields = req.get("fields")
            if fields is not None and not isinstance(fields, dict):
                raise TypeError("fields must be an object")
            event = req.get("event") or foul_event(fields or {})
            if not isinstance(event, dict):
                raise TypeError("event must be an object")
            nominated = None if fields is None else nomination_answer(fields)
            p = preview_texts(self.match, event, self.lang, nominated)
            return to_json({"ok": True, "event": event, "html": referee_html.foul_preview(p), **p})
        if op == "article":
            return to_json({"ok": True, "html": referee_html.article_panel(str(req.get("ref") or ""), self.lang)})
        if op == "why":
            seq = req.get("seq")
            if not isinstance(seq, int) or isinstance(seq, bool) or not 1 <= seq <= len(self._steps):
                return _failed({"code": "bad_seq", "message": {
                    "pt": f"o registro não tem o evento nº {str(seq)[:12]}",
                    "en": f"the log has no event no. {str(seq)[:12]}"}}, self.lang)
            step = self._steps[seq - 1]
            line = next((x["description"] for x in self.log(len(self._steps) - seq + 1) if x["seq"] == seq),
                        step.description[self.lang])
            w = why_view(self.config["players"], seq, line, step.state_before, self.lang)
            return to_json({"ok": True, "html": referee_html.why_panel(w, self.lang)})
        return _failed({"code": "bad_op", "message": {"pt": "operação desconhecida", "en": "unknown operation"}},
                       self.lang)


def _failed(error: dict, lang: str) -> str:
    """A refused request's answer: the ``error`` and ``message``, its words in ``lang`` (the
    page shows this text; an object there read "[object Object]")."""
    m = error.get("message")
    text = str(m.get(lang) or m.get("pt") or "") if isinstance(m, dict) else str(m or "")
    return to_json({"ok": False, "error": error, "message": text or str(error.get("code") or "")})

