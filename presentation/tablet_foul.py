"""The foul dialog of the referee tablet and the server's page: the form, its one parser, its preview.

:func:`foul_form` lists the dialog's fields for the table as it lies, :func:`foul_event` reads
them back into the engine's foul event (the one parser, online and offline), and
:func:`preview_texts` gives the verdict lines the dialog shows (:func:`explain.foul_verdict`).
No rule is decided here: the engine says what a foul costs and whether it needs a nomination.
"""
from __future__ import annotations

from . import explain
from .tablet_labels import label
from sinuca.engine import Match
from sinuca.rules import FOUL_KINDS, ball_name
from sinuca.vocab import FoulGroup, FoulKind, Phase


OFF_TABLE = (Phase.LOT.value, Phase.FRAME_OVER.value)
"""The phases in which nobody is at the table (a lot, or between frames): only a disciplinary foul
is entered there (Art. 42, 43), so the foul dialog offers nothing else."""

COMMON_KINDS = ("cue_ball_potted", "ball_on_not_hit_first", "ball_not_on_potted", "ball_touched", "ball_off_table")
"""The foul kinds a referee calls most, one tap each in the foul dialog (the rest one tap further);
the server's dialog offers the same ones."""


def _choice(name: str, type_: str, value, text: str, ball=None, checked: bool = False) -> dict:
    return {"name": name, "type": type_, "value": str(value), "label": text, "ball": ball, "checked": checked}


def foul_form(match: Match, lang: str = "pt", declared: bool = False) -> dict:
    """The foul dialog for the table as it lies now, field by field as the server's dialog
    (``referee.html#foul_form``) shows them: ``{"title", "needs_nomination", "fields":
    [{"legend", "cls", "choices": [{"name", "type", "value", "label", "ball", "checked"}],
    "more"?}]}``. Each offender's choice (the last field) adds ``nominates``: the values of the
    kind field for which his foul must name the colour aimed at
    (:meth:`sinuca.Match.nomination_needed`): none for a kind of fixed 7 points (Art. 41-43, 48,
    49) nor for a seated player (Art. 49), none at all while no colour is owed.

    While a colour is owed its first field asks which one was aimed at, each with its penalty and
    "não cantou" (Art. 48.3), nothing preselected (:func:`explain.nomination_choices`). The
    fields are those :func:`foul_event` reads. ``declared``: the Art. 28 answer "yes" holds for
    this position, so "aggravated" starts ticked (as the server's dialog does).

    While nobody is at the table (a lot, or between frames: :data:`OFF_TABLE`) only a
    disciplinary foul is entered (Art. 42, 43): the form is :func:`_off_table_form`'s (the
    disciplinary kinds, "grave" and the offender, nothing preselected, ``"off_table": True``)."""
    s, o = match.state(), match.options()
    names = match.config["players"]
    if s["phase"] in OFF_TABLE:
        return _off_table_form(match, lang)
    colours = s["colours_remaining"]
    nomination = explain.nomination_choices(s)
    fields = []
    if nomination:
        fields.append({"legend": label("f_nominated", lang), "cls": "nominated-q", "choices": [
            _choice("nominated", "radio", c["value"], c[lang], c["ball"]) for c in nomination]})
    by_code = {k["code"]: k for g in FOUL_KINDS for k in g["kinds"]}

    def kind(k):
        return _choice("kind", "radio", k["code"], f"{k['label'][lang]} (Art. {k['article']})")

    kind_at = len(fields)
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
    striker = s["striker"]
    at = match.at_table_player()
    offenders = _offenders(match, at, striker)
    # per offender, the kinds whose penalty hangs on the colour aimed at: the engine says which
    # (a fixed 7 points, Art. 41-43, 48, 49, or a seated player's foul, Art. 49, asks none)
    kinds = [c["value"] for c in fields[kind_at]["choices"]
             + [c for g in fields[kind_at]["more"]["groups"] for c in g["choices"]]]
    for c in offenders:
        c["nominates"] = [k for k in kinds if match.nomination_needed(foul_event({"kind": k, "player": c["value"]}))]
    fields.append({"legend": label("f_player", lang), "cls": "who" if match.doubles else "", "choices": offenders})
    title_name = names[striker] if striker is not None else ""
    if match.doubles and at is not None:
        title_name = match.sides[at[0]][at[1]]
    return {"title": label("f_title", lang, name=title_name),
            "needs_nomination": bool(nomination), "fields": fields,
            "labels": {"confirm": label("f_confirm", lang), "cancel": label("cancel", lang)}}


def _offenders(match: Match, at, striker) -> list[dict]:
    """The foul dialog's "committed by" choices: each person in doubles ("side.index", the
    engine's warnings are the person's, Art. 42), each player in singles; the one ``at`` the
    table (doubles) or the ``striker`` (singles) checked, none when ``None``."""
    names = match.config["players"]
    if match.doubles:
        return [_choice("player", "radio", f"{i}.{j}", f"{who} ({names[i]})", checked=at == (i, j))
                for i in (0, 1) for j, who in enumerate(match.sides[i])]
    return [_choice("player", "radio", i, names[i], checked=striker == i) for i in (0, 1)]


def _off_table_form(match: Match, lang: str) -> dict:
    """:func:`foul_form` while nobody is at the table (a lot, or between frames): only a
    disciplinary foul is entered there (Art. 42, 43), conduct and no stroke, so the dialog offers
    only the disciplinary kinds and "grave", with no ball, retorno or snooker, and nothing
    preselected: neither a kind (each one charges a penalty) nor an offender (the engine needs
    him named, in doubles the person). ``off_table`` is true; no offender names a colour."""
    kinds = next(g for g in FOUL_KINDS if g["group"] == FoulGroup.DISCIPLINARY.value)["kinds"]
    offenders = _offenders(match, None, None)
    for c in offenders:
        c["nominates"] = []
    fields = [
        {"legend": label("f_kind", lang), "cls": "kinds", "choices": [
            _choice("kind", "radio", k["code"], f"{k['label'][lang]} (Art. {k['article']})") for k in kinds]},
        {"legend": label("f_flags", lang), "cls": "flags", "choices": [
            _choice("grave", "checkbox", 1, label("f_grave", lang))]},
        {"legend": label("f_player", lang), "cls": "who" if match.doubles else "", "choices": offenders}]
    return {"title": label("f_title_off", lang), "needs_nomination": False, "off_table": True,
            "fields": fields, "labels": {"confirm": label("f_confirm", lang), "cancel": label("cancel", lang)}}


NOT_NOMINATED = "none"
"""The foul dialog's "não cantou" answer (Art. 48.3), chosen explicitly, never a default."""

NUMBER_MAX_DIGITS = 9


class FormError(ValueError):
    """A foul-form field that is not what the form sends (``ball=4²``, ``player=x``).

    Attributes:
        name: the field's name. ``message``: ``{"pt", "en"}``, what the dialog says.
    """

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name
        self.message = {"pt": f"Campo inválido no formulário de falta: {name} (número de 0 a 999999999)",
                        "en": f"Invalid field in the foul form: {name} (a number from 0 to 999999999)"}


def _number(name: str, value) -> int | None:
    """A form field's non-negative integer in ASCII digits (``"²".isdigit()`` is true and
    ``int("²")`` raises), ``None`` when empty; anything else raises :class:`FormError` (a
    dropped field once recorded ``ball=4²`` as a plain 4-point foul)."""
    value = value.strip() if isinstance(value, str) else value
    if value in (None, ""):
        return None
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= NUMBER_MAX_DIGITS:
        return int(value)
    raise FormError(name)


def _values(fields: dict, name: str) -> list:
    v = fields.get(name)
    if v is None:
        return []
    return v if isinstance(v, list) else [v]


def _first(fields: dict, name: str) -> str:
    """A single-valued field (a radio button): its value, "" when absent."""
    v = _values(fields, name)
    if not v:
        return ""
    if not isinstance(v[0], str):
        raise FormError(name)
    return v[0]


def foul_event(fields: dict) -> dict:
    """The foul event described by the foul form's fields (contract section 3): the one parser
    of the foul dialog, for the server's page (``pages/referee.py``) and the tablet's own.

    ``fields`` is ``{name: [values]}`` (a single value is taken as a list of one), as
    :func:`foul_form` and the server's dialog name them. Empty values are absent, and so is
    "não cantou" (``nominated=none``: the engine charges Art. 48.3); reds potted come first
    (Art. 15), at most 16 (the engine refuses more than the table holds).

    Raises:
        FormError: a number field that is not ASCII digits (at most 9), or not a string.
    """
    if not isinstance(fields, dict):
        raise FormError("fields")
    ev: dict = {"type": "foul"}
    if kind := _first(fields, "kind"):
        ev["kind"] = kind
    for name in ("ball", "nominated", "free_ball", "player"):
        value = _first(fields, name)
        if name == "nominated" and value.strip() == NOT_NOMINATED:
            continue  # "não cantou": no colour nominated, the engine charges Art. 48.3
        if name == "player" and isinstance(value, str) and value.count(".") == 1:
            # doubles: "side.index" names the person (contract section 11)
            side, person = value.split(".")
            ev["player"], ev["person"] = _number(name, side), _number(name, person)
            if None in (ev["player"], ev["person"]):
                raise FormError(name)
            continue
        if (v := _number(name, value)) is not None:
            ev[name] = v
    potted = [1] * min(_number("potted_reds", _first(fields, "potted_reds")) or 0, 16)
    potted += sorted(b for b in (_number("potted", v) for v in _values(fields, "potted")) if b is not None)
    if potted:
        ev["potted"] = potted
    flags = set(v for v in _values(fields, "flags") if isinstance(v, str))
    for flag in ("retorno", "snooker", "aggravated", "grave"):
        # one checkbox each, as in the server's dialog ("flags" as the engine's first dialog sent them)
        if flag in flags or any(str(v).strip() for v in _values(fields, flag) if isinstance(v, (str, int))):
            ev[flag] = True
    return ev


def nomination_answer(fields: dict) -> str:
    """The foul form's answer to "which colour was aimed at?": a colour, :data:`NOT_NOMINATED`,
    or "" when not answered yet."""
    try:
        return _first(fields, "nominated").strip() if isinstance(fields, dict) else ""
    except FormError:
        return ""


def nomination_missing(match: Match, event: dict, answer: str | None) -> bool:
    """The foul's penalty depends on the colour aimed at (:meth:`sinuca.Match.nomination_needed`:
    a colour on after a red, the striker's foul of a variable kind, Art. 19, 40.1.a) and the form
    has not said which one, nor "não cantou" (Art. 48.3). A fixed 7-point foul (a disciplinary
    "Tempo excessivo", Art. 42-43, 49.4) asks nothing."""
    return match.nomination_needed(event) and not str(answer or "").strip()


def _line(line: dict, lang: str) -> dict:
    """One of :func:`explain.foul_lines` as the server's preview renders it (text and classes)."""
    cls = f"pv-line pv-{line['key']} lv-{line['level']}" + (" alarm" if line["key"] == "end" else "")
    return {"text": line[lang], "cls": cls}


def _disciplinary_named(event: dict) -> bool:
    """The foul event names a disciplinary kind (Art. 49) and its offender."""
    try:
        kind = FoulKind(event.get("kind") or FoulKind.OTHER)
    except ValueError:
        return True  # the engine's refusal says what is wrong with it
    return kind.group is FoulGroup.DISCIPLINARY and event.get("player") is not None


def preview_texts(match: Match, event: dict, lang: str = "pt", nominated: str | None = None) -> dict:
    """:meth:`Match.foul_preview` of ``event`` with the lines the dialog shows, the server's
    (:func:`explain.foul_lines`): ``{"preview", "lines": [{"text", "cls"}], "ask"}``.

    ``nominated``: the dialog's answer to the colour aimed at ("" when not answered yet), or None
    when the caller gives an event and no dialog. While a colour is owed and the question is not
    answered (:func:`nomination_missing`), ``ask`` is true and the only line asks for it:
    the penalty is not known yet. While nobody is at the table (:data:`OFF_TABLE`) and the
    disciplinary kind or its offender is not chosen yet, ``ask`` is true and the only line says
    that a disciplinary foul (Art. 42, 43) is being entered and what to choose."""
    if nominated is not None and nomination_missing(match, event, nominated):
        return {"preview": None, "ask": True, "lines": [{"text": label("f_ask", lang), "cls": "pv-ask"}]}
    if match.state()["phase"] in OFF_TABLE and not _disciplinary_named(event):
        # nobody at the table: the disciplinary foul is described until its kind and offender
        # are said, never refused for the stroke nobody is playing
        return {"preview": None, "ask": True, "lines": [{"text": label("f_ask_off", lang), "cls": "pv-ask"}]}
    p = explain.foul_verdict(match, event)
    return {"preview": p, "ask": False, "lines": [_line(line, lang) for line in p["lines"]]}



def initial_fields(form: dict) -> dict:
    """The foul form's fields as they start (its checked choices), ``{name: [values]}``."""
    out: dict = {}
    for x in form["fields"]:
        for c in x["choices"]:
            if c.get("checked"):
                out.setdefault(c["name"], []).append(c["value"])
    return out
