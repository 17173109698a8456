"""What the referee tablet shows, as one plain dict: the "tablet view".

The same function answers on the server and in the tablet's browser (Pyodide runs this package
unchanged), so the legal buttons, the decision choices, the foul preview and the undo preview
come from the engine itself, online and offline; the browser only draws the dict. No rule is
decided here: every verdict is :meth:`Match.options`, :meth:`Match.foul_preview`,
:meth:`Match.preview` or a :class:`Step` property, and the texts are the engine's
(``describe.py``, ``messages.py``, ``vocab.py``) or plain button labels.

:class:`TabletEngine` holds a match for the browser: built from the configuration and the
server's log, it applies a tap (optimistically, before the server answers) and answers JSON in
and out, so the JavaScript bridge passes strings only.
"""
from __future__ import annotations

import json

from .engine import Match
from .errors import SinucaError
from .rules import FOUL_KINDS, ball_name
from .vocab import Choice, Phase, TableWarning

LANGS = ("pt", "en")

# Button and heading labels of the tablet (pt, en): the CBBS words the server's template uses.
LABELS = {
    "no_pot": ("Sem ponto", "No score"),
    "safety": ("Defesa", "Safety"),
    "foul": ("Falta…", "Foul…"),
    "foul_disc": ("Falta disciplinar…", "Disciplinary foul…"),
    "free": ("Livre", "Free"),
    "free_title": ("BOLA LIVRE — nomeie a cor (Art. 36, 37)", "FREE BALL — name the colour (Art. 36, 37)"),
    "reds": ("{k} vermelhas", "{k} reds"),
    "next_frame": ("Próxima partida", "Next frame"),
    "undo": ("Desfazer…", "Undo…"),
    "undo_q": ("Desfazer: {what}?", "Undo: {what}?"),
    "confirm": ("Confirmar", "Confirm"),
    "cancel": ("Cancelar", "Cancel"),
    "lot": ("Sai {name}", "{name} breaks"),
    "lot_title": ("Sorteio: quem sai? (Art. 17)", "Lot: who breaks? (Art. 17)"),
    "play_title": ("Na mesa: {name}", "At the table: {name}"),
    "decision_title": ("Decisão de {name} (Art. 25, 35)", "{name}'s decision (Art. 25, 35)"),
    "frame_title": ("Partida de {name}", "Frame to {name}"),
    "match_title": ("Jogo encerrado: vence {name}", "Match over: {name} wins"),
    "bonus7": ("para a tacada (Art. 6.1, 50.1)", "for the break (Art. 6.1, 50.1)"),
    "penalty": ("{pts} pontos para {name} (Art. {art})", "{pts} points to {name} (Art. {art})"),
    "retorno_ok": ("Retorno possível", "Replay possible"),
    "retorno_no": ("Sem retorno", "No replay"),
    "ends_match": ("Esta falta ENCERRA O JOGO", "This foul ENDS THE MATCH"),
    "ends_frame": ("Esta falta ENCERRA A PARTIDA", "This foul ENDS THE FRAME"),
    "aggravated": ("ATENÇÃO — Art. 27/46: mais uma falta agravada neste retorno PERDE A PARTIDA",
                   "WARNING — Art. 27/46: one more aggravated foul in this replay LOSES THE FRAME"),
    "free_ball": ("BOLA LIVRE", "FREE BALL"),
    # foul form
    "f_kind": ("Tipo de falta", "Kind of foul"),
    "f_kind_other": ("Outra / não especificada (Art. 47.18)", "Other / unspecified (Art. 47.18)"),
    "f_ball": ("Bola envolvida de maior valor (Art. 40)", "Highest-value ball involved (Art. 40)"),
    "f_ball_aimed": ("a visada", "the ball on"),
    "f_potted": ("Bolas encaçapadas na tacada", "Balls potted in the stroke"),
    "f_nominated": ("Cor cantada (Art. 19)", "Nominated colour (Art. 19)"),
    "f_none": ("nenhuma", "none"),
    "f_free_ball": ("Bola livre nomeada nesta tacada", "Free ball named in this stroke"),
    "f_flags": ("Circunstâncias", "Circumstances"),
    "f_snooker": ("Deixou sinuca → bola livre (Art. 36)", "Left a snooker → free ball (Art. 36)"),
    "f_retorno": ("Falta e retorno (Art. 25)", "Foul and replay (Art. 25)"),
    "f_aggravated": ("Sinuca parcial agravada (Art. 27, 44)", "Aggravated partial snooker (Art. 27, 44)"),
    "f_grave": ("Grave (Art. 43)", "Serious (Art. 43)"),
    "f_player": ("Quem cometeu", "Committed by"),
    "f_title": ("Falta — na mesa: {name}", "Foul — at the table: {name}"),
    "f_confirm": ("Confirmar falta", "Confirm foul"),
}


def label(key: str, lang: str = "pt", **fields) -> str:
    """The tablet label ``key`` in ``lang`` ("pt" or "en"), its ``{fields}`` filled in."""
    return LABELS[key][lang == "en"].format(**fields)


def _dump(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _button(text: str, event: dict | None = None, *, small: str = "", cls: str = "big",
            enabled: bool = True, action: str | None = None) -> dict:
    return {"label": text, "small": small, "cls": cls, "enabled": enabled,
            "event": _dump(event) if event is not None else None, "action": action}


def _controls(match: Match, state: dict, opts: dict, lang: str, undo_what: str | None) -> list[dict]:
    """The rows of buttons the tablet offers now (a row: ``{"kind", "title", "buttons"}``)."""
    names = match.config["players"]
    striker = state["striker"]
    name = names[striker] if striker is not None else ""
    phase = state["phase"]
    rows: list[dict] = []
    if phase == Phase.LOT:
        rows.append({"kind": "lot", "title": label("lot_title", lang), "buttons": [
            _button(label("lot", lang, name=names[i]), {"type": "lot", "player": i}) for i in (0, 1)]})
    elif phase == Phase.PLAY:
        rows.append({"kind": "title", "title": label("play_title", lang, name=name), "buttons": []})
        if opts["free_ball"]:
            rows.append({"kind": "freeball", "title": label("free_title", lang), "buttons": [
                _button(f"{label('free', lang)}: {ball_name(c, lang)}",
                        {"type": "pot", "balls": [c], "free_ball": c}, cls=f"ball ball-{c}")
                for c in opts["free_ball"]]})
        rows.append({"kind": "balls", "title": None, "buttons": [
            _button(ball_name(n, lang).capitalize(), {"type": "pot", "balls": [n]}, small=str(n),
                    cls=f"ball ball-{n}", enabled=n in opts["pot"]) for n in range(1, 8)]})
        if opts["max_reds"] > 1:
            rows.append({"kind": "reds", "title": None, "buttons": [
                _button(label("reds", lang, k=k), {"type": "pot", "balls": [1] * k}, cls="ball ball-1 multi")
                for k in range(2, min(opts["max_reds"], 4) + 1)]})
        rows.append({"kind": "actions", "title": None, "buttons": [
            _button(label("no_pot", lang), {"type": "no_pot"}),
            _button(label("safety", lang), {"type": "no_pot", "safety": True}),
            _button(label("foul", lang), cls="big foul", action="foul")]})
    elif phase == Phase.DECISION:
        rows.append({"kind": "title", "title": label("decision_title", lang, name=name), "buttons": []})
        rows.append({"kind": "decision", "title": None, "buttons": [
            _button(Choice(c).label[lang].capitalize(), {"type": "decision", "choice": c},
                    cls="huge retorno" if c == Choice.RETORNO else "huge")
            for c in opts["decision_options"]]})
        if "foul" in opts["events"]:
            rows.append({"kind": "actions", "title": None, "buttons": [
                _button(label("foul_disc", lang), cls="big foul", action="foul")]})
    elif phase == Phase.FRAME_OVER:
        winner = state["frame_winner"]
        rows.append({"kind": "title", "title": label("frame_title", lang,
                                                      name=names[winner] if winner is not None else ""),
                     "buttons": []})
        rows.append({"kind": "next", "title": None, "buttons": [
            _button(label("next_frame", lang), {"type": "next_frame"}, cls="huge")]})
    elif phase == Phase.MATCH_OVER:
        winner = state["match_winner"]
        rows.append({"kind": "title", "title": label("match_title", lang,
                                                      name=names[winner] if winner is not None else "—"),
                     "buttons": []})
    if opts["bonus_seven"]:
        rows.append({"kind": "bonus", "title": None, "buttons": [
            _button(ball_name(n, lang).capitalize(), {"type": "pot", "balls": [n]}, small=label("bonus7", lang),
                    cls=f"ball ball-{n}") for n in opts["pot"]]})
    if "undo" in opts["events"]:
        rows.append({"kind": "undo", "title": label("undo_q", lang, what=undo_what or "—"), "buttons": [
            _button(label("undo", lang), action="undo"),
            _button(label("confirm", lang), {"type": "undo"}, cls="big danger"),
            _button(label("cancel", lang), action="undo-cancel")]})
    return rows


def foul_form(match: Match, lang: str = "pt") -> list[dict]:
    """The foul dialog's fields for the table as it lies now: ``[{"name", "legend", "type"
    ("select" | "radio" | "checkbox"), "choices": [{"value", "label", "ball", "checked"}]}]``.
    The fields are those :func:`foul_event` reads; which balls appear is the engine's state."""
    s, o = match.state(), match.options()
    names = match.config["players"]

    def choice(value, text, ball=None, checked=False):
        return {"value": str(value), "label": text, "ball": ball, "checked": checked}

    colours = [choice(c, ball_name(c, lang), c) for c in s["colours_remaining"]]
    kinds = [choice("", label("f_kind_other", lang), checked=True)]
    for g in FOUL_KINDS:
        for k in g["kinds"]:
            kinds.append(choice(k["code"], f"{k['label'][lang]} (Art. {k['article']})"))
    fields = [
        {"name": "kind", "legend": label("f_kind", lang), "type": "select", "choices": kinds},
        {"name": "ball", "legend": label("f_ball", lang), "type": "radio",
         "choices": [choice("", label("f_ball_aimed", lang), checked=True)]
         + ([choice(1, ball_name(1, lang), 1)] if s["reds_remaining"] else []) + colours},
        {"name": "potted", "legend": label("f_potted", lang), "type": "checkbox",
         "choices": [dict(c) for c in colours]},
    ]
    if o["max_foul_reds"]:
        fields.append({"name": "potted_reds", "legend": f"{label('f_potted', lang)}: {ball_name(1, lang)}",
                       "type": "radio", "choices": [choice(k, str(k), 1, k == 0)
                                                    for k in range(o["max_foul_reds"] + 1)]})
    if len(s["ball_on"]) > 1:
        fields.append({"name": "nominated", "legend": label("f_nominated", lang), "type": "radio",
                       "choices": [choice("", label("f_none", lang), checked=True)] + [dict(c) for c in colours]})
    if o["free_ball"]:
        fields.append({"name": "free_ball", "legend": label("f_free_ball", lang), "type": "radio",
                       "choices": [choice("", label("f_none", lang), checked=True)]
                       + [choice(c, ball_name(c, lang), c) for c in o["free_ball"]]})
    fields.append({"name": "flags", "legend": label("f_flags", lang), "type": "checkbox", "choices": [
        choice(f, label(f"f_{f}", lang)) for f in ("snooker", "retorno", "aggravated", "grave")]})
    fields.append({"name": "player", "legend": label("f_player", lang), "type": "radio", "choices": [
        choice(i, names[i], checked=s["striker"] == i) for i in (0, 1)]})
    return fields


def foul_event(fields: dict) -> dict:
    """The foul event described by the foul form's fields (``{name: [values]}``, as
    :func:`foul_form` names them). Empty values are absent; reds potted come first (Art. 15)."""
    def first(name):
        v = (fields.get(name) or [""])[0]
        return int(v) if str(v).strip().isdigit() else None

    ev: dict = {"type": "foul"}
    kind = (fields.get("kind") or [""])[0]
    if kind:
        ev["kind"] = kind
    for name in ("ball", "nominated", "free_ball", "player"):
        if (v := first(name)) is not None:
            ev[name] = v
    potted = [1] * min(first("potted_reds") or 0, 16)
    potted += sorted(int(v) for v in fields.get("potted") or [] if str(v).isdigit())
    if potted:
        ev["potted"] = potted
    flags = set(fields.get("flags") or [])
    for flag in ("retorno", "snooker", "aggravated", "grave"):
        # "flags" in this form; one checkbox each in the server's dialog
        if flag in flags or any(str(v).strip() for v in fields.get(flag) or []):
            ev[flag] = True
    return ev


def preview_texts(match: Match, event: dict, lang: str = "pt") -> dict:
    """:meth:`Match.foul_preview` of ``event`` with the lines the dialog shows:
    ``{"preview": {...}, "lines": [{"text", "cls"}]}``."""
    p = match.foul_preview(event)
    names = match.config["players"]
    lines: list[dict] = []
    if p["error"]:
        lines.append({"text": p["error"]["message"], "cls": "msg msg-error"})  # "pt / en"
    else:
        receiver = p["receiver"]
        lines.append({"text": label("penalty", lang, pts=p["penalty"], art=p["article"],
                                    name=names[receiver] if receiver in (0, 1) else ""),
                      "cls": "pv-penalty"})
        if p["retorno_allowed"]:
            lines.append({"text": label("retorno_ok", lang), "cls": "pv-retorno ok"})
        else:
            why = p["retorno_reason"][lang] if p["retorno_reason"] else ""
            lines.append({"text": label("retorno_no", lang) + (f": {why}" if why else ""),
                          "cls": "pv-retorno no"})
        if p["ends_match"]:
            lines.append({"text": label("ends_match", lang), "cls": "alarm"})
        elif p["ends_frame"]:
            lines.append({"text": label("ends_frame", lang), "cls": "alarm"})
    return {"preview": p, "lines": lines}


def tablet_view(match: Match, lang: str = "pt", undo_what: str | None = None) -> dict:
    """Everything the referee tablet shows for ``match`` now, as a plain JSON-able dict.

    Keys: ``phase``, ``striker``, ``players`` (``name``, ``score``, ``frames``, ``warnings``,
    ``at_table``), the state's facts (``frame_number``, ``break``, ``ball_on``,
    ``points_remaining``, ``reds_remaining``, ``snookers_required``), ``legal`` (the engine's
    :meth:`Match.options`), ``banners`` (which of free ball / aggravated / stalemate / decider
    show), ``controls`` (the rows of buttons, each with its event and whether it is enabled) and
    ``undo`` (what an undo would take back, or ``None``).
    """
    lang = "en" if lang == "en" else "pt"
    s, o = match.state(), match.options()
    names = match.config["players"]
    return {
        "phase": str(s["phase"]),
        "striker": s["striker"],
        "players": [{"name": names[i], "score": s["scores"][i], "frames": s["frames"][i],
                     "warnings": s["warnings"][i], "at_table": s["striker"] == i} for i in (0, 1)],
        "frame_number": s["frame_number"],
        "break": s["break"],
        "ball_on": list(s["ball_on"]),
        "points_remaining": s["points_remaining"],
        "reds_remaining": s["reds_remaining"],
        "snookers_required": s["snookers_required"],
        "legal": {k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in o.items()},
        "banners": {
            "free_ball": bool(s["free_ball"] or o["free_ball_offered"]),
            "aggravated": s["warning"] == TableWarning.AGGRAVATED_LAST_CHANCE,
            "stalemate": s["warning"] == TableWarning.STALEMATE,
            "decider": bool(s["decider"]),
        },
        "controls": _controls(match, s, o, lang, undo_what),
        "undo": undo_what if "undo" in o["events"] else None,
    }


class TabletEngine:
    """A match for the tablet's browser: the server's log plus the taps not yet confirmed.

    Every method takes and returns JSON strings (the bridge passes strings, not proxies).
    ``descriptions`` keeps the description of each event still in effect, so the undo preview
    can say what an undo would take back (an undo pops it, as the engine pops its snapshot).
    """

    def __init__(self, config: dict, events: list | None = None, lang: str = "pt") -> None:
        self.config = config
        self.lang = "en" if lang == "en" else "pt"
        self.reset(events or [])

    def reset(self, events: list) -> None:
        """Rebuild from ``events`` (the server's log, then any taps still queued).

        When the events held are a prefix of ``events`` (the usual case: the server confirmed
        what the tablet had applied), only the rest is applied: a full replay of a long match
        would keep the engine busy for a second while the referee taps."""
        held = getattr(self, "events", None)
        if held is not None and len(held) <= len(events) and events[:len(held)] == held:
            for ev in events[len(held):]:
                self._apply(ev)
            return
        self.match = Match(self.config)
        self.events: list[dict] = []
        self._steps: list = []  # the steps in effect (an undo pops one), described when shown
        for ev in events:
            self._apply(ev)

    def _apply(self, event: dict):
        step = self.match.apply(event)
        self.events.append(event)
        if event.get("type") == "undo":
            if self._steps:
                self._steps.pop()
        else:
            self._steps.append(step)
        return step

    def _described(self, n: int) -> list[str]:
        """The descriptions of the last ``n`` events in effect, oldest first."""
        return [s.description[self.lang] for s in self._steps[-n:]] if n else []

    @property
    def descriptions(self) -> list[str]:
        """The description of every event in effect, oldest first."""
        return self._described(len(self._steps))

    def view(self) -> dict:
        """:func:`tablet_view` of the current position, with the undo preview and ``recent``: the
        descriptions of the last 8 events in effect, newest first (the board's list)."""
        recent = self._described(8)[::-1]
        view = tablet_view(self.match, self.lang, recent[0] if recent else None)
        view["recent"] = recent
        return view

    def answer(self, request: str) -> str:
        """One call of the bridge: ``{"op": ..., ...}`` in, ``{"ok", ...}`` out (JSON).

        Ops: ``reset`` (``events``), ``apply`` (``event``: the view after it, its description,
        or the engine's error ``{"code", "message"}`` and nothing changed), ``view``,
        ``foul_form``, ``foul_event`` (``fields``), ``foul_preview`` (``fields`` or ``event``),
        ``state``, ``count``.
        """
        try:
            req = json.loads(request)
            op = req.get("op")
            if op == "reset":
                self.reset(req.get("events") or [])
                return _dump({"ok": True, "view": self.view(), "count": len(self.events)})
            if op == "apply":
                try:
                    step = self._apply(req["event"])
                except SinucaError as e:
                    return _dump({"ok": False, "error": e.as_dict(), "view": self.view()})
                return _dump({"ok": True, "view": self.view(), "count": len(self.events),
                              "description": step.description[self.lang]})
            if op == "view":
                return _dump({"ok": True, "view": self.view(), "count": len(self.events)})
            if op == "state":
                return _dump({"ok": True, "state": self.match.state(), "events": self.events})
            if op == "foul_form":
                return _dump({"ok": True, "fields": foul_form(self.match, self.lang)})
            if op == "foul_event":
                return _dump({"ok": True, "event": foul_event(req.get("fields") or {})})
            if op == "foul_preview":
                event = req.get("event") or foul_event(req.get("fields") or {})
                return _dump({"ok": True, "event": event, **preview_texts(self.match, event, self.lang)})
            return _dump({"ok": False, "error": {"code": "bad_op", "message": {"pt": "operação desconhecida",
                                                                             "en": "unknown operation"}}})
        except (ValueError, KeyError, TypeError) as e:  # a malformed request from the page
            return _dump({"ok": False, "error": {"code": "bad_request",
                                                 "message": {"pt": f"pedido inválido: {e}",
                                                             "en": f"invalid request: {e}"}}})
