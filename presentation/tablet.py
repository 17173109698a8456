"""What the referee tablet shows, as one plain dict: the "tablet view".

The same function answers on the server and in the tablet's browser (Pyodide runs this package
unchanged), so the legal buttons, the decision choices, the foul preview and the undo preview
come from the engine itself, online and offline; the browser only draws the dict. No rule is
decided here: every verdict is :meth:`Match.options`, :meth:`Match.foul_preview`,
:meth:`Match.preview` or a :class:`Step` property. Every sentence the server's page also shows
(decision choices, foul verdict lines, counts of reds, frame and match end, the confirmations of
endings, the Art. 28 question, the colour aimed at) comes from :mod:`presentation.explain`, the one
source of the tablet's words; :data:`LABELS` holds only the plain button and heading words of the
server's template (its gettext catalogue gives the same English).

:class:`TabletEngine` holds a match for the browser: built from the configuration and the
server's log, it applies a tap (optimistically, before the server answers) and answers JSON in
and out, so the JavaScript bridge passes strings only.
"""
from __future__ import annotations

import json

from . import explain
from sinuca.engine import Match
from sinuca.errors import SinucaError
from sinuca.rules import FOUL_KINDS, ball_name
from sinuca.vocab import Phase, TableWarning
from . import referee_html

LANGS = ("pt", "en")

# Button and heading words of the tablet (pt, en), as the server's template and its English
# catalogue say them. Sentences about the position are explain's, not here.
LABELS = {
    "no_pot": ("Sem ponto", "No pot"),
    "safety": ("Defesa", "Safety"),
    "foul": ("Falta…", "Foul…"),
    "foul_disc": ("Falta disciplinar…", "Disciplinary foul…"),
    "free": ("Livre", "Free"),
    "free_title": ("BOLA LIVRE — nomeie a cor (Art. 36, 37)", "FREE BALL — nominate the colour (Art. 36, 37)"),
    "reds": ("{k} vermelhas", "{k} reds"),
    "next_frame": ("Próxima partida", "Next frame"),
    "undo": ("Desfazer…", "Undo…"),
    "undo_q": ("Desfazer: {what}?", "Undo: {what}?"),
    "confirm": ("Confirmar", "Confirm"),
    "cancel": ("Cancelar", "Cancel"),
    "yes": ("Sim", "Yes"),
    "no": ("Não", "No"),
    "more": ("Mais ações", "More actions"),
    "stalemate": ("Aviso de impasse (Art. 53)", "Stalemate warning (Art. 53)"),
    "restart": ("Recolocar as bolas (Art. 53)…", "Re-rack (Art. 53)…"),
    "restart_yes": ("Sim, recolocar as bolas", "Yes, re-rack"),
    "concede": ("{name} desiste da partida…", "{name} concedes the frame…"),
    "concede_yes": ("Sim, encerrar a partida", "Yes, end the frame"),
    "concede_match": ("{name} abandona o jogo…", "{name} concedes the match…"),
    "concede_match_yes": ("Sim, encerrar o jogo", "Yes, end the match"),
    "lot": ("Sai {name}", "{name} breaks"),
    "lot_title": ("Sorteio: quem sai? (Art. 17)", "Lot: who breaks off? (Art. 17)"),
    "lot_decider": ("Partida complementar: sorteio (Art. 18, 52)", "Decider: draw lots (Art. 18, 52)"),
    "play_title": ("Na mesa: {name}", "At the table: {name}"),
    "decision_title": ("Decisão de {name} (Art. 25, 35)", "{name} decides (Art. 25, 35)"),
    "decision_penalty": ("Falta: {pts} pontos", "Foul: {pts} points"),
    "b_aggravated": ("⚠ ATENÇÃO — Art. 27/46: mais uma falta agravada neste retorno PERDE A PARTIDA",
                     "⚠ WARNING — Art. 27/46: one more aggravated foul in this replay LOSES THE FRAME"),
    "b_stalemate": ("Aviso de impasse (Art. 53)", "Stalemate warning (Art. 53)"),
    "b_decider": ("PARTIDA COMPLEMENTAR (Art. 52)", "DECIDER (RE-SPOTTED 7) (Art. 52)"),
    "b_free_ball": ("BOLA LIVRE", "FREE BALL"),
    "bonus7": ("para a tacada (Art. 6.1, 50.1)", "for the break (Art. 6.1, 50.1)"),
    # foul form
    "f_title": ("Falta — na mesa: {name}", "Foul — at the table: {name}"),
    "f_nominated": ("Qual cor foi visada? (cantada, ou evidente — Art. 19)",
                    "Which colour was aimed at? (nominated, or evident — Art. 19)"),
    "f_ask": ("Escolha primeiro a cor visada: ela decide a penalidade.",
              "First choose the colour aimed at: it sets the penalty."),
    "f_kind": ("Tipo de falta", "Kind of foul"),
    "f_kind_other": ("Outra / não especificada (Art. 47.18)", "Other / unspecified (Art. 47.18)"),
    "f_kind_more": ("Outros tipos de falta…", "Other foul kinds…"),
    "f_ball": ("Bola envolvida de maior valor (Art. 40)", "Highest ball involved (Art. 40)"),
    "f_ball_aimed": ("a visada", "the ball aimed at"),
    "f_potted": ("Bolas encaçapadas na tacada", "Balls potted in the stroke"),
    "f_none": ("nenhuma", "none"),
    "f_free_ball": ("Bola livre nomeada nesta tacada", "Free ball nominated for this stroke"),
    "f_flags": ("Circunstâncias", "Circumstances"),
    "f_snooker": ("Deixou sinuca → bola livre (Art. 36)", "Left a snooker → free ball (Art. 36)"),
    "f_retorno": ("Falta e retorno (Art. 25)", "Foul and replay (Art. 25)"),
    "f_aggravated": ("Sinuca parcial agravada (Art. 27, 44)", "Aggravated partial snooker (Art. 27, 44)"),
    "f_declared": ("declarada (Art. 28)", "declared (Art. 28)"),
    "f_grave": ("Grave (Art. 43)", "Grave (Art. 43)"),
    "f_player": ("Quem cometeu", "Committed by"),
    "f_confirm": ("Confirmar falta", "Confirm foul"),
}


def label(key: str, lang: str = "pt", **fields) -> str:
    """The tablet label ``key`` in ``lang`` ("pt" or "en"), its ``{fields}`` filled in."""
    return LABELS[key][lang == "en"].format(**fields)


def _dump(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _button(text: str, event: dict | None = None, *, small: str = "", cls: str = "big",
            enabled: bool = True, action: str | None = None, **extra) -> dict:
    return {"label": text, "small": small, "cls": cls, "enabled": enabled,
            "event": _dump(event) if event is not None else None, "action": action, **extra}


def _confirmable(kind: str, ask: str, what: str, yes: str, event: dict, lang: str, ask_cls: str = "big") -> dict:
    """A row that asks before it ends something (as the server's ``.confirmable``): the ask
    button, then what it will do with "yes" and "cancel"."""
    return {"kind": kind, "title": what, "buttons": [
        _button(ask, cls=f"{ask_cls} ask", action="ask"),
        _button(yes, event, cls="big danger"),
        _button(label("cancel", lang), action="cancel")]}


def _controls(config: dict, state: dict, opts: dict, lang: str, undo_what: str | None) -> list[dict]:
    """The rows of the tablet's controls, in the order the page shows them (drawn by
    :func:`referee_html.region`): a row is ``{"kind", "title", "buttons"}`` plus what its kind
    needs."""
    names = config["players"]
    phase = state["phase"]
    rows = _phase_rows(names, state, opts, lang)
    # undo keeps its place: disabled while there is nothing to take back
    undo = _confirmable("undo", label("undo", lang), label("undo_q", lang, what=undo_what or ""),
                        label("confirm", lang), {"type": "undo"}, lang, "big undo-btn")
    undo["buttons"][0]["enabled"] = "undo" in opts["events"]
    # right under the heading in play and in a decision alike: "Desfazer…" never moves between
    # them (after the decision's tall choices it sat about 200 px lower than in play)
    rows.insert(1 if phase in (Phase.PLAY, Phase.DECISION) else len(rows), undo)
    if phase == Phase.PLAY:
        rows.append({"kind": "art28", "title": explain.art28_question()[lang],
                     "position": explain.position_key(state), "buttons": [
                         _button(label("yes", lang), answer="yes"), _button(label("no", lang), answer="no")]})
        if opts["free_ball"]:
            rows.append({"kind": "freeball", "title": label("free_title", lang), "buttons": [
                _button(f"{label('free', lang)}: {ball_name(c, lang)}",
                        {"type": "pot", "balls": [c], "free_ball": c}, cls=f"ball ball-{c}")
                for c in opts["free_ball"]]})
    if phase in (Phase.PLAY, Phase.DECISION):
        rows.append({"kind": "more", "title": label("more", lang), "buttons": [],
                     "rows": _more(state, opts, names, lang, config["frames_to_win"])})
    return rows


def _phase_rows(names: list, state: dict, opts: dict, lang: str) -> list[dict]:
    """The rows of the phase: the lot, a stroke's buttons, the decision's choices, or the end."""
    striker = state["striker"]
    name = names[striker] if striker is not None else ""
    phase = state["phase"]
    if phase == Phase.LOT:
        return [{"kind": "title", "title": label("lot_decider" if state["decider"] else "lot_title", lang),
                 "buttons": []},
                {"kind": "lot", "title": None, "buttons": [
                    _button(label("lot", lang, name=names[i]), {"type": "lot", "player": i}) for i in (0, 1)]}]
    if phase == Phase.PLAY:
        return [
            {"kind": "title", "title": label("play_title", lang, name=name), "buttons": []},
            {"kind": "balls", "title": None, "buttons": [
                _button(ball_name(n, lang).capitalize(), {"type": "pot", "balls": [n]}, small=str(n),
                        cls=f"ball ball-{n}", enabled=n in opts["pot"]) for n in range(1, 8)]},
            # always there, disabled when not legal: the rows below never jump when a red is on or off
            {"kind": "reds", "title": None, "buttons": [
                _button(label("reds", lang, k=k), {"type": "pot", "balls": [1] * k}, cls="ball ball-1 multi",
                        enabled=k <= opts["max_reds"]) for k in (2, 3, 4)]},
            {"kind": "actions", "title": None, "buttons": [
                _button(label("no_pot", lang), {"type": "no_pot"}),
                _button(label("safety", lang), {"type": "no_pot", "safety": True}),
                _button(label("foul", lang), cls="big foul", action="foul")]}]
    if phase == Phase.DECISION:
        rows = [{"kind": "title", "title": label("decision_title", lang, name=name), "buttons": []}]
        if state.get("last_penalty"):
            rows.append({"kind": "penalty", "title": label("decision_penalty", lang,
                                                            pts=state["last_penalty"]["points"]), "buttons": []})
        rows.append({"kind": "decision", "title": None, "buttons": [
            _button(c["label"][lang], {"type": "decision", "choice": c["choice"]},
                    cls="choice danger" if c["danger"] else "choice", explain=c["explain"][lang],
                    choice=c["choice"])
            for c in explain.decision_choices(state, opts, names)]})
        if "foul" in opts["events"]:
            rows.append({"kind": "actions", "title": None, "buttons": [
                _button(label("foul_disc", lang), cls="big foul", action="foul")]})
        return rows
    return _end_rows(names, state, opts, lang)


def _end_rows(names: list, state: dict, opts: dict, lang: str) -> list[dict]:
    """Frame or match over: winner first with the reason and article (explain), the next frame,
    and the 7 still to pot for the break (Art. 6.1, 50.1)."""
    texts = []
    end = explain.frame_over_texts(state, opts, names)
    if end:
        texts.append({"cls": "result", "tag": "h2", "text": end["heading"][lang]})
        texts.append({"cls": "result-why", "tag": "p", "text": end["reason"][lang]})
    if state["phase"] == Phase.MATCH_OVER:
        texts.append({"cls": "result result-match", "tag": "p", "text": explain.match_over_text(state, names)[lang]})
    if end and end["bonus"]:
        texts.append({"cls": "bonus-seven", "tag": "p", "text": end["bonus"][lang]})
    rows = [{"kind": "result", "title": None, "texts": texts, "buttons": []}]
    if state["phase"] == Phase.FRAME_OVER:
        rows.append({"kind": "next", "title": None, "buttons": [
            _button(label("next_frame", lang), {"type": "next_frame"}, cls="huge")]})
    if opts["bonus_seven"]:
        rows.append({"kind": "bonus", "title": None, "buttons": [
            _button(ball_name(n, lang).capitalize(), {"type": "pot", "balls": [n]}, small=label("bonus7", lang),
                    cls=f"ball ball-{n}") for n in opts["pot"]]})
    return rows


def _more(state: dict, opts: dict, names: list, lang: str, frames_to_win: int) -> list[dict]:
    """"Mais ações": the stalemate warning, then every ending by the referee's hand, each with
    its confirmation saying what it will do (:func:`explain.ending_confirmations`)."""
    ev = opts["events"]
    rows = [{"kind": "plain", "title": None, "buttons": [
        _button(label("stalemate", lang), {"type": "stalemate_warning"})] if "stalemate_warning" in ev else []}]
    ends = explain.ending_confirmations(state, names, frames_to_win)
    if "restart_frame" in ev:
        rows.append(_confirmable("confirm", label("restart", lang), ends["restart_frame"][lang] + "?",
                                 label("restart_yes", lang), {"type": "restart_frame"}, lang))
    if "concede" in ev:
        rows += [_confirmable("confirm", label("concede", lang, name=names[p]), ends["concede"][p][lang] + "?",
                              label("concede_yes", lang), {"type": "concede", "player": p}, lang) for p in (0, 1)]
    if "concede_match" in ev:
        rows += [_confirmable("confirm", label("concede_match", lang, name=names[p]),
                              ends["concede_match"][p][lang] + "?", label("concede_match_yes", lang),
                              {"type": "concede_match", "player": p}, lang, "big danger") for p in (0, 1)]
    return rows


COMMON_KINDS = ("cue_ball_potted", "ball_on_not_hit_first", "ball_not_on_potted", "ball_touched", "ball_off_table")
"""The foul kinds a referee calls most, one tap each in the foul dialog (the rest one tap further);
the server's dialog offers the same ones."""


def _choice(name: str, type_: str, value, text: str, ball=None, checked: bool = False) -> dict:
    return {"name": name, "type": type_, "value": str(value), "label": text, "ball": ball, "checked": checked}


def foul_form(match: Match, lang: str = "pt", declared: bool = False) -> dict:
    """The foul dialog for the table as it lies now, field by field as the server's dialog
    (``referee.html#foul_form``) shows them: ``{"title", "needs_nomination", "striker",
    "fields": [{"legend", "cls", "choices": [{"name", "type", "value", "label", "ball",
    "checked"}], "more"?}]}``.

    While a colour is owed its first field asks which one was aimed at, each with its penalty and
    "não cantou" (Art. 48.3), nothing preselected (:func:`explain.nomination_choices`). The
    fields are those :func:`foul_event` reads. ``declared``: the Art. 28 answer "yes" holds for
    this position, so "aggravated" starts ticked (as the server's dialog does)."""
    s, o = match.state(), match.options()
    names = match.config["players"]
    colours = s["colours_remaining"]
    nomination = explain.nomination_choices(s)
    fields = []
    if nomination:
        fields.append({"legend": label("f_nominated", lang), "cls": "nominated-q", "choices": [
            _choice("nominated", "radio", c["value"], c[lang], c["ball"]) for c in nomination]})
    by_code = {k["code"]: k for g in FOUL_KINDS for k in g["kinds"]}

    def kind(k):
        return _choice("kind", "radio", k["code"], f"{k['label'][lang]} (Art. {k['article']})")

    fields.append({"legend": label("f_kind", lang), "cls": "kinds", "choices": [
        _choice("kind", "radio", "", label("f_kind_other", lang), checked=True)]
        + [kind(by_code[c]) for c in COMMON_KINDS],
        "more": {"summary": label("f_kind_more", lang), "groups": [
            {"label": g["label"][lang], "choices": [kind(k) for k in g["kinds"] if k["code"] not in COMMON_KINDS]}
            for g in FOUL_KINDS]}})
    # the circumstances (retorno, snooker, aggravated) right after the kind: in view without
    # scrolling at every size, whatever the number of reds listed below
    aggravated = label("f_aggravated", lang) + (f" — {label('f_declared', lang)}" if declared else "")
    fields.append({"legend": label("f_flags", lang), "cls": "flags", "choices": [
        _choice("snooker", "checkbox", 1, label("f_snooker", lang)),
        _choice("retorno", "checkbox", 1, label("f_retorno", lang)),
        _choice("aggravated", "checkbox", 1, aggravated, checked=declared),
        _choice("grave", "checkbox", 1, label("f_grave", lang))]})
    fields.append({"legend": label("f_ball", lang), "cls": "", "choices": [
        _choice("ball", "radio", "", label("f_ball_aimed", lang), checked=True)]
        + ([_choice("ball", "radio", 1, ball_name(1, lang), 1)] if s["reds_remaining"] else [])
        + [_choice("ball", "radio", c, ball_name(c, lang), c) for c in colours]})
    fields.append({"legend": label("f_potted", lang), "cls": "", "choices": [
        _choice("potted_reds", "radio", k, explain.reds_count(k)[lang], 1 if k else None, k == 0)
        for k in (range(o["max_foul_reds"] + 1) if o["max_foul_reds"] else ())]
        + [_choice("potted", "checkbox", c, ball_name(c, lang), c) for c in colours]})
    if o["free_ball"]:
        fields.append({"legend": label("f_free_ball", lang), "cls": "", "choices": [
            _choice("free_ball", "radio", "", label("f_none", lang), checked=True)]
            + [_choice("free_ball", "radio", c, ball_name(c, lang), c) for c in o["free_ball"]]})
    fields.append({"legend": label("f_player", lang), "cls": "", "choices": [
        _choice("player", "radio", i, names[i], checked=s["striker"] == i) for i in (0, 1)]})
    striker = s["striker"]
    return {"title": label("f_title", lang, name=names[striker] if striker is not None else ""),
            "needs_nomination": bool(nomination), "striker": striker, "fields": fields,
            "labels": {"confirm": label("f_confirm", lang), "cancel": label("cancel", lang)}}


class BadField(ValueError):
    """A foul-form field that is not what the form sends (``ball=4²``, ``player=x``): ``name``
    says which. It used to be dropped silently (a plain 4-point foul recorded) on one side and
    to crash the other."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _number(name: str, value) -> int | None:
    """A form field's non-negative integer in ASCII digits, None when empty, else
    :class:`BadField` (``"²".isdigit()`` is true, and ``int("²")`` raises)."""
    v = str(value if value is not None else "").strip()
    if not v:
        return None
    if not (v.isascii() and v.isdigit() and len(v) <= 9):
        raise BadField(name)
    return int(v)


NOT_NOMINATED = "none"
"""The foul dialog's "não cantou" answer (Art. 48.3), chosen explicitly, never a default."""


def foul_event(fields: dict) -> dict:
    """The foul event described by the foul form's fields (``{name: [values]}``, as
    :func:`foul_form` names them): the one reading of the form, for the server's dialog and the
    tablet's engine alike. Empty values are absent, and so is "não cantou"
    (``nominated=none``: the engine charges Art. 48.3); reds potted come first (Art. 15); a
    number field that is not one raises :class:`BadField`."""
    def first(name):
        return (fields.get(name) or [""])[0]

    ev: dict = {"type": "foul"}
    kind = first("kind")
    if kind:
        ev["kind"] = str(kind)
    for name in ("ball", "nominated", "free_ball", "player"):
        if name == "nominated" and first(name) == NOT_NOMINATED:
            continue
        if (v := _number(name, first(name))) is not None:
            ev[name] = v
    # the engine refuses more reds than the table holds; no huge lists
    potted = [1] * min(_number("potted_reds", first("potted_reds")) or 0, 16)
    potted += sorted(b for b in (_number("potted", v) for v in fields.get("potted") or []) if b is not None)
    if potted:
        ev["potted"] = potted
    flags = set(fields.get("flags") or [])
    for flag in ("retorno", "snooker", "aggravated", "grave"):
        # one checkbox each ("flags" as the engine's first dialog sent them)
        if flag in flags or any(str(v).strip() for v in fields.get(flag) or []):
            ev[flag] = True
    return ev


def _line(line: dict, lang: str) -> dict:
    """One of :func:`explain.foul_lines` as the server's preview renders it (text and classes)."""
    cls = f"pv-line pv-{line['key']} lv-{line['level']}" + (" alarm" if line["key"] == "end" else "")
    return {"text": line[lang], "cls": cls}


def preview_texts(match: Match, event: dict, lang: str = "pt", nominated: str | None = None) -> dict:
    """:meth:`Match.foul_preview` of ``event`` with the lines the dialog shows, the server's
    (:func:`explain.foul_lines`): ``{"preview", "lines": [{"text", "cls"}], "ask"}``.

    ``nominated``: the dialog's answer to the colour aimed at ("" when not answered yet), or None
    when the caller gives an event and no dialog. While a colour is owed and the question is not
    answered (:func:`explain.nomination_missing`), ``ask`` is true and the only line asks for it:
    the penalty is not known yet."""
    if nominated is not None and explain.nomination_missing(match.state(), event.get("player"), nominated):
        return {"preview": None, "ask": True, "lines": [{"text": label("f_ask", lang), "cls": "pv-ask"}]}
    p = explain.foul_verdict(match, event)
    return {"preview": p, "ask": False, "lines": [_line(line, lang) for line in p["lines"]]}


def tablet_view(match: Match, lang: str = "pt", undo_what: str | None = None, **extra) -> dict:
    """:func:`view_of` the engine's ``match`` as it stands now."""
    return view_of(match.config, match.state(), match.options(), lang, undo_what, **extra)


def view_of(config: dict, s: dict, o: dict, lang: str = "pt", undo_what: str | None = None, *,
            log: list | None = None, urls: dict | None = None, seq: int = 0) -> dict:
    """Everything the referee tablet shows for a position, as a plain JSON-able dict: the
    match's ``config``, the engine's state ``s`` and options ``o`` (native, or as the server's
    log keeps them in JSON).

    Keys: ``phase``, ``striker``, ``players`` (``name``, ``score``, ``frames``, ``warnings``,
    ``at_table``), the state's facts (``frame_number``, ``best_of``, ``break``, ``ball_on``,
    ``points_remaining``, ``reds_remaining``, ``snookers_required``), ``legal`` (the engine's
    :meth:`Match.options`), ``banners`` (which of free ball / aggravated / stalemate / decider
    show), ``controls`` (the rows of buttons, each with its event and whether it is enabled),
    ``undo`` (what an undo would take back, or ``None``), ``log`` (the recent events, newest
    first: ``{"seq", "description", "undone_by", "undid", "undid_description"}``), ``urls``
    (where the page's controls post: ``event``, ``foul``, ``foul_preview``, ``foul_submit``,
    ``art28``, ``next_match``) and ``seq`` (the events the view is after).
    """
    lang = "en" if lang == "en" else "pt"
    names = config["players"]
    urls = dict(urls or {})
    controls = _controls(config, s, o, lang, undo_what)
    if s["phase"] == Phase.MATCH_OVER and urls.get("next_match"):
        at = next((i + 1 for i, r in enumerate(controls) if r["kind"] == "result"), len(controls))
        controls.insert(at, {"kind": "next_match", "title": None, "href": urls["next_match"], "buttons": []})
    return {
        "phase": str(s["phase"]),
        "striker": s["striker"],
        "players": [{"name": names[i], "score": s["scores"][i], "frames": s["frames"][i],
                     "warnings": s["warnings"][i],
                     "at_table": s["striker"] == i and s["phase"] in (Phase.PLAY, Phase.DECISION)} for i in (0, 1)],
        "frame_number": s["frame_number"],
        "best_of": 2 * config["frames_to_win"] - 1,
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
        # the board's banners (their classes, their words, their order)
        "banner_rows": [{"cls": cls, "text": label(key, lang), "alert": key == "b_aggravated"} for key, cls, on in (
            ("b_aggravated", "alarm", s["warning"] == TableWarning.AGGRAVATED_LAST_CHANCE),
            ("b_stalemate", "banner warn", s["warning"] == TableWarning.STALEMATE),
            ("b_decider", "banner", bool(s["decider"])),
            ("b_free_ball", "banner fb", bool(s["free_ball"] or o["free_ball_offered"]))) if on],
        # the winner once the frame or match is over; nobody is at the table then
        "winner": (s["match_winner"] if s["phase"] == Phase.MATCH_OVER else s["frame_winner"])
        if s["phase"] in (Phase.FRAME_OVER, Phase.MATCH_OVER) else None,
        "controls": controls,
        "position": explain.position_key(s),
        "undo": undo_what if "undo" in o["events"] else None,
        "log": list(log or []),
        "urls": urls,
        "seq": seq,
    }


RECENT = 6
"""Events the tablet's log lists (the server's page lists as many)."""


def _message(error: dict, lang: str) -> str:
    """An error's text in ``lang``: the engine's ``{"pt", "en"}``, or a plain string."""
    m = error.get("message")
    if isinstance(m, dict):
        return str(m.get(lang) or m.get("pt") or error.get("code") or "")
    return str(m or error.get("code") or "")


class TabletEngine:
    """A match for the tablet's browser: the server's log plus the taps not yet confirmed.

    Every method takes and returns JSON strings (the bridge passes strings, not proxies). It
    keeps the description of every event applied and which undo took back which event, so the
    log reads as the server's ("Desfaz o lance 18: …", the undone line struck through) and the
    undo preview says what an undo would take back. Its answers carry the HTML the page swaps in
    (:mod:`referee_html`), the same the server's page includes.
    """

    def __init__(self, config: dict, events: list | None = None, lang: str = "pt",
                 urls: dict | None = None) -> None:
        self.config = config
        self.lang = "en" if lang == "en" else "pt"
        self.urls = dict(urls or {})
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
        self._descs: list[dict] = []   # every event's description, by seq - 1
        self._stack: list[int] = []    # the seqs in effect (an undo takes back the newest)
        self._undone: dict[int, int] = {}  # seq -> the undo's seq that took it back
        self._undid: dict[int, int] = {}   # undo's seq -> the seq it took back
        for ev in events:
            self._apply(ev)

    def _apply(self, event: dict):
        step = self.match.apply(event)
        self.events.append(event)
        seq = len(self.events)
        self._descs.append(step.description)
        if event.get("type") == "undo":
            if self._stack:
                k = self._stack.pop()
                self._undone[k], self._undid[seq] = seq, k
        else:
            self._stack.append(seq)
        return step

    def _described(self, n: int) -> list[str]:
        """The descriptions of the last ``n`` events in effect, oldest first."""
        return [self._descs[k - 1][self.lang] for k in self._stack[-n:]] if n else []

    @property
    def descriptions(self) -> list[str]:
        """The description of every event in effect, oldest first."""
        return self._described(len(self._stack))

    def log(self) -> list[dict]:
        """The last :data:`RECENT` events, newest first, as the tablet's log lists them."""
        out = []
        for seq in range(len(self.events), max(0, len(self.events) - RECENT), -1):
            undid = self._undid.get(seq)
            out.append({"seq": seq, "description": self._descs[seq - 1], "undone_by": self._undone.get(seq),
                        "undid": undid, "undid_description": self._descs[undid - 1] if undid else None})
        return out

    def view(self) -> dict:
        """:func:`tablet_view` of the current position, with the undo preview, the log and
        ``recent``: the descriptions of the last 8 events in effect, newest first."""
        recent = self._described(8)[::-1]
        view = tablet_view(self.match, self.lang, recent[0] if recent else None,
                           log=self.log(), urls=self.urls, seq=len(self.events))
        view["recent"] = recent
        return view

    def _shown(self, with_view: bool = False, **extra) -> str:
        """The answer that draws the tablet: its ``html`` (what the page swaps in), ``count``,
        ``position`` (the Art. 28 answer's key) and, asked for, the ``view`` itself."""
        view = self.view()
        out = {"ok": True, "html": referee_html.region(view, self.lang), "count": len(self.events),
               "position": view["position"], **extra}
        if with_view:
            out["view"] = view
        return _dump(out)

    def answer(self, request: str) -> str:
        """One call of the bridge: ``{"op": ..., ...}`` in, ``{"ok", ...}`` out (JSON).

        Ops: ``reset`` (``events``), ``apply`` (``event``: the view after it with its ``html``
        and its description, or the engine's error ``{"code", "message"}`` with ``message`` in
        the tablet's language, and nothing changed), ``view``, ``foul_form`` (``declared``: its
        ``html``), ``foul_event`` (``fields``), ``foul_preview`` (``fields`` or ``event``: its
        lines and ``html``), ``state``, ``count``. A malformed request is a ``bad_request``.
        """
        try:
            req = json.loads(request)
            if not isinstance(req, dict):
                raise TypeError("the request is not an object")
            op = req.get("op")
            if op == "reset":
                self.reset(req.get("events") or [])
                return self._shown()
            if op == "apply":
                try:
                    step = self._apply(req["event"])
                except SinucaError as e:
                    err = e.as_dict()
                    return _dump({"ok": False, "error": err, "message": _message(err, self.lang)})
                return self._shown(description=step.description[self.lang])
            if op == "view":
                return self._shown(with_view=True)
            if op == "state":
                return _dump({"ok": True, "state": self.match.state(), "events": self.events})
            if op == "foul_form":
                form = foul_form(self.match, self.lang, bool(req.get("declared")))
                first = preview_texts(self.match, foul_event(_initial_fields(form)), self.lang,
                                      "" if form["needs_nomination"] else None)
                return _dump({"ok": True, "form": form, "html": referee_html.foul_dialog(
                    form, first, self.urls, len(self.events))})
            if op == "foul_event":
                return _dump({"ok": True, "event": foul_event(req.get("fields") or {})})
            if op == "foul_preview":
                fields = req.get("fields")
                event = req.get("event") or foul_event(fields or {})
                nominated = None if fields is None else str((fields.get("nominated") or [""])[0])
                p = preview_texts(self.match, event, self.lang, nominated)
                return _dump({"ok": True, "event": event, "html": referee_html.foul_preview(p), **p})
            err = {"code": "bad_op", "message": {"pt": "operação desconhecida", "en": "unknown operation"}}
            return _dump({"ok": False, "error": err, "message": _message(err, self.lang)})
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as e:  # a malformed request
            err = {"code": "bad_request", "message": {"pt": f"pedido inválido: {type(e).__name__}",
                                                      "en": f"invalid request: {type(e).__name__}"}}
            return _dump({"ok": False, "error": err, "message": _message(err, self.lang)})


def _initial_fields(form: dict) -> dict:
    """The foul form's fields as they start (its checked choices), ``{name: [values]}``."""
    out: dict = {}
    for x in form["fields"]:
        for c in x["choices"]:
            if c.get("checked"):
                out.setdefault(c["name"], []).append(c["value"])
    return out
