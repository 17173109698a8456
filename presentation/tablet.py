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
from sinuca.vocab import FoulKind, Phase, TableWarning

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
    "undo_line": ("Desfaz o lance {n}: {desc}", "Undoes entry {n}: {desc}"),
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
    "play_title_next": ("Na mesa: {name} · a seguir: {next}", "At the table: {name} · next: {next}"),
    "order_title": ("Ordem de jogo (Art. 1): {names}", "Order of play (Art. 1): {names}"),
    "order_first": ("Começa {name}", "{name} first"),
    "order_pick": ("Outra ordem de {side}…", "Another order for {side}…"),
    "order_pick_hint": ("Toque os nomes na ordem em que jogam:", "Tap the names in the order they play:"),
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


def _decision_people(config: dict | None, opts: dict, pending: dict | None) -> tuple | None:
    """In doubles, ``(the beneficiary's player due, the offender)`` by name for the decision's
    texts (who plays on *jogar*, who plays again on *passar* or *retorno*); None otherwise."""
    if config is None or "sides" not in config or not pending or pending.get("person") is None:
        return None
    return (_person(config, opts.get("at_table_player")),
            _member(config, pending["offender"], pending["person"]))


def _member(config: dict, side: int, index) -> str:
    """The name of player ``index`` of ``side`` in a doubles match (contract section 11)."""
    return config["sides"][side][index] if index is not None else ""


def _person(config: dict, who) -> str:
    """The name of the engine's ``(side, index)`` (:meth:`sinuca.Match.at_table_player`,
    :meth:`sinuca.Match.next_player`) in a doubles match; ``""`` for ``None``."""
    return _member(config, who[0], who[1]) if who is not None else ""


def _order_sequence(config: dict, state: dict) -> list[str]:
    """The frame's order of play as names, the sides alternating from the breaker's (A1, B1, A2,
    B2, …; a shorter side repeats its cycle), as the engine's decision has it."""
    first = state["breaker"] if state["breaker"] is not None else 0
    a, b = state["order"][first], state["order"][1 - first]
    out = []
    for i in range(max(len(a), len(b))):
        out += [_member(config, first, a[i % len(a)]), _member(config, 1 - first, b[i % len(b)])]
    return out


def _order_rows(config: dict, state: dict, opts: dict, lang: str) -> list[dict]:
    """Doubles, before the frame's first stroke: the order of play and, per side, who of it plays
    first (the side's listed order turned to start with him; the engine keeps it for the frame)."""
    if "order" not in opts["events"]:
        return []
    order = [list(o) for o in state["order"]]
    buttons = []
    for side in (0, 1):
        listed = list(range(len(config["sides"][side])))
        if len(listed) < 2:
            continue
        for k, idx in enumerate(listed):
            turned = listed[k:] + listed[:k]
            ev = {"type": "order", "order": [turned if side == i else order[i] for i in (0, 1)]}
            buttons.append(_button(label("order_first", lang, name=_member(config, side, idx)), ev,
                                   cls="big order" + (" on" if order[side][0] == idx else ""), side=side))
    names = ", ".join(_order_sequence(config, state))
    # A side of three or four: any order, by tapping its names in turn (the rotations above
    # reach only 3 of 6, or 4 of 24); the last tap sends the one order event.
    pickers = [{"side": side, "summary": label("order_pick", lang, side=config["players"][side]),
                "hint": label("order_pick_hint", lang), "nodes": _order_tree(config, order, side, [])}
               for side in (0, 1) if len(config["sides"][side]) > 2]
    return [{"kind": "order", "title": label("order_title", lang, names=names), "buttons": buttons,
             "pickers": pickers}]


def _order_tree(config: dict, order: list, side: int, chosen: list) -> list[dict]:
    """The names of ``side`` still to place after ``chosen`` (indices in turn), each a node
    ``{"name", "group", "children"}`` opening the names after it; with two left, each is a
    button ``{"name", "button"}`` sending the whole order (the other side's kept)."""
    left = [j for j in range(len(config["sides"][side])) if j not in chosen]
    group = f"order-{side}" + "".join(f"-{j}" for j in chosen)  # one open node per level
    if len(left) == 2:
        out = []
        for j in left:
            turn = chosen + [j] + [k for k in left if k != j]
            ev = {"type": "order", "order": [turn if i == side else order[i] for i in (0, 1)]}
            out.append({"name": _member(config, side, j), "button": _button(
                _member(config, side, j), ev, small=" → ".join(_member(config, side, k) for k in turn),
                cls="big order order-leaf" + (" on" if order[side] == turn else ""), side=side)})
        return out
    return [{"name": _member(config, side, j), "group": group,
             "children": _order_tree(config, order, side, chosen + [j])} for j in left]


def _controls(config: dict, state: dict, opts: dict, lang: str, undo_what: str | None) -> list[dict]:
    """The rows of the tablet's controls, in the order and with the values the server's template
    renders them (``templates/scoreboard/referee.html``), so that the page can draw them with the
    same markup: a row is ``{"kind", "title", "buttons"}`` plus what its kind needs."""
    names = config["players"]
    phase = state["phase"]
    rows = _phase_rows(names, state, opts, lang, config)
    if "sides" in config:
        rows[1:1] = _order_rows(config, state, opts, lang)
    # undo keeps its place: disabled while there is nothing to take back
    undo = _confirmable("undo", label("undo", lang), label("undo_q", lang, what=undo_what or ""),
                        label("confirm", lang), {"type": "undo"}, lang, "big undo-btn")
    for button in undo["buttons"][:2]:  # the ask and the confirm: nothing to take back, neither taps
        button["enabled"] = "undo" in opts["events"]
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


def _phase_rows(names: list, state: dict, opts: dict, lang: str, config: dict | None = None) -> list[dict]:
    """The rows of the phase: the lot, a stroke's buttons, the decision's choices, or the end.
    In doubles the headings name the player at the table (and who is next), not his side."""
    striker = state["striker"]
    name = names[striker] if striker is not None else ""
    # doubles: the engine's player at the table and who plays next (contract section 11)
    doubles = config is not None and "sides" in config and opts.get("at_table_player") is not None
    if doubles:
        name = _person(config, opts["at_table_player"])
    phase = state["phase"]
    if phase == Phase.LOT:
        return [{"kind": "title", "title": label("lot_decider" if state["decider"] else "lot_title", lang),
                 "buttons": []},
                {"kind": "lot", "title": None, "buttons": [
                    _button(label("lot", lang, name=names[i]), {"type": "lot", "player": i}) for i in (0, 1)]}]
    if phase == Phase.PLAY:
        return [
            {"kind": "title", "title": label("play_title_next", lang, name=name,
                                             next=_person(config, opts.get("next_player")))
             if doubles else label("play_title", lang, name=name), "buttons": []},
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
        pending = opts.get("pending_foul")  # the foul decided on, not a seated player's foul since (Art. 49)
        if pending:
            rows.append({"kind": "penalty", "title": label("decision_penalty", lang, pts=pending["penalty"]),
                         "buttons": []})
        rows.append({"kind": "decision", "title": None, "buttons": [
            _button(c["label"][lang], {"type": "decision", "choice": c["choice"]},
                    cls="choice danger" if c["danger"] else "choice", explain=c["explain"][lang],
                    choice=c["choice"])
            for c in explain.decision_choices(state, opts, names, _decision_people(config, opts, pending))]})
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
    (``referee.html#foul_form``) shows them: ``{"title", "needs_nomination", "fields":
    [{"legend", "cls", "choices": [{"name", "type", "value", "label", "ball", "checked"}],
    "more"?}]}``. Each offender's choice (the last field) adds ``nominates``: the values of the
    kind field for which his foul must name the colour aimed at
    (:meth:`sinuca.Match.nomination_needed`): none for a kind of fixed 7 points (Art. 41-43, 48,
    49) nor for a seated player (Art. 49), none at all while no colour is owed.

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
    if match.doubles:
        # every person of the match, "side.index": the engine's warnings are the person's (Art. 42)
        offenders = [_choice("player", "radio", f"{i}.{j}", f"{who} ({names[i]})", checked=at == (i, j))
                     for i in (0, 1) for j, who in enumerate(match.sides[i])]
    else:
        offenders = [_choice("player", "radio", i, names[i], checked=s["striker"] == i) for i in (0, 1)]
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
    a colour on after a red, the striker's foul of a variable kind, Art. 19, 40a) and the form
    has not said which one, nor "não cantou" (Art. 48.3). A fixed 7-point foul (a disciplinary
    "Tempo excessivo", Art. 42-43, 49.4) asks nothing."""
    return match.nomination_needed(event) and not str(answer or "").strip()


def _line(line: dict, lang: str) -> dict:
    """One of :func:`explain.foul_lines` as the server's preview renders it (text and classes)."""
    cls = f"pv-line pv-{line['key']} lv-{line['level']}" + (" alarm" if line["key"] == "end" else "")
    return {"text": line[lang], "cls": cls}


def preview_texts(match: Match, event: dict, lang: str = "pt", nominated: str | None = None) -> dict:
    """:meth:`Match.foul_preview` of ``event`` with the lines the dialog shows, the server's
    (:func:`explain.foul_lines`): ``{"preview", "lines": [{"text", "cls"}], "ask"}``.

    ``nominated``: the dialog's answer to the colour aimed at ("" when not answered yet), or None
    when the caller gives an event and no dialog. While a colour is owed and the question is not
    answered (:func:`nomination_missing`), ``ask`` is true and the only line asks for it:
    the penalty is not known yet."""
    if nominated is not None and nomination_missing(match, event, nominated):
        return {"preview": None, "ask": True, "lines": [{"text": label("f_ask", lang), "cls": "pv-ask"}]}
    p = explain.foul_verdict(match, event)
    return {"preview": p, "ask": False, "lines": [_line(line, lang) for line in p["lines"]]}


FACTS = frozenset({"free_ball_shown", "at_table", "at_table_player", "next_player", "winner", "best_of",
                   "pending_foul", "break_balls", "undo_target", "undone"})
"""The facts beside the engine's options in what :func:`view_of` reads (here and in the
server's ``screen_options``); ``legal`` is the options alone."""


def facts(match: Match) -> dict:
    """The engine's ``options()`` with the facts the tablet shows that only the engine knows (as
    the server's ``core.log.screen_options`` gives them): ``free_ball_shown``, ``at_table``,
    ``at_table_player`` and ``next_player`` (``[side, index]`` or ``None``), ``winner``,
    ``best_of``, ``pending_foul``."""
    return {**match.options(), **turn_facts(match), "free_ball_shown": match.free_ball_shown(),
            "at_table": match.at_table(), "winner": match.winner(), "best_of": match.best_of,
            "pending_foul": match.pending_foul()}


def turn_facts(match: Match) -> dict:
    """Who is at the table and who plays next, as the engine says (:meth:`sinuca.Match.at_table_player`,
    :meth:`sinuca.Match.next_player`; next is ``None`` while a decision is pending), each as
    ``[side, index within the side]`` (a list, as JSON carries it) or ``None``: what the tablet,
    the TV, the overlay and the feeds all show."""
    at, nxt = match.at_table_player(), match.next_player()
    return {"at_table_player": list(at) if at is not None else None,
            "next_player": list(nxt) if nxt is not None else None}


def tablet_view(match: Match, lang: str = "pt", undo_what: str | None = None, **extra) -> dict:
    """:func:`view_of` the engine's ``match`` as it stands now."""
    return view_of(match.config, match.state(), facts(match), lang, undo_what, **extra)


def view_of(config: dict, s: dict, o: dict, lang: str = "pt", undo_what: str | None = None, *,
            log: list | None = None, urls: dict | None = None, seq: int = 0) -> dict:
    """Everything the referee tablet shows for a position, as a plain JSON-able dict: the
    match's ``config``, the engine's state ``s`` and its options with its facts ``o``
    (:func:`facts`, or the server's ``screen_options``: native, or as JSON).

    Keys: ``phase``, ``striker``, ``players`` (``name``, ``score``, ``frames``, ``warnings``,
    ``at_table``), the state's facts (``frame_number``, ``best_of``, ``break``, ``ball_on``,
    ``points_remaining``, ``reds_remaining``, ``snookers_required``), ``legal`` (the engine's
    :meth:`Match.options`), ``banners`` (which of free ball / aggravated / stalemate / decider
    show), ``controls`` (the rows of buttons, each with its event and whether it is enabled),
    ``undo`` (what an undo would take back, or ``None``), ``log`` (the recent events, newest
    first: ``{"seq", "description", "undone_by", "undid"}``), ``urls`` (where the page's
    controls post: ``event``, ``foul``, ``foul_preview``, ``foul_submit``, ``art28``,
    ``next_match``) and ``seq`` (the events the view is after).
    """
    lang = "en" if lang == "en" else "pt"
    names = config["players"]
    urls = dict(urls or {})
    free_ball = bool(o.get("free_ball_shown"))
    controls = _controls(config, s, o, lang, undo_what)
    if s["phase"] == Phase.MATCH_OVER and urls.get("next_match"):
        at = next((i + 1 for i, r in enumerate(controls) if r["kind"] == "result"), len(controls))
        controls.insert(at, {"kind": "next_match", "title": None, "href": urls["next_match"], "buttons": []})
    return {
        "phase": str(s["phase"]),
        "striker": s["striker"],
        "players": [_side_view(config, s, i, o) for i in (0, 1)],
        "best_of": o["best_of"],
        "frame_number": s["frame_number"],
        "break": s["break"],
        "ball_on": list(s["ball_on"]),
        "points_remaining": s["points_remaining"],
        "reds_remaining": s["reds_remaining"],
        "snookers_required": s["snookers_required"],
        "legal": {k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in o.items() if k not in FACTS},
        "banners": {
            "free_ball": free_ball,
            "aggravated": s["warning"] == TableWarning.AGGRAVATED_LAST_CHANCE,
            "stalemate": s["warning"] == TableWarning.STALEMATE,
            "decider": bool(s["decider"]),
        },
        # the board's banners (their classes, their words, their order)
        "banner_rows": [{"cls": cls, "text": label(key, lang), "alert": key == "b_aggravated"} for key, cls, on in (
            ("b_aggravated", "alarm", s["warning"] == TableWarning.AGGRAVATED_LAST_CHANCE),
            ("b_stalemate", "banner warn", s["warning"] == TableWarning.STALEMATE),
            ("b_decider", "banner", bool(s["decider"])),
            ("b_free_ball", "banner fb", free_ball)) if on],
        # the winner once the frame or match is over; nobody is at the table then
        "winner": o.get("winner"),
        "controls": controls,
        "position": explain.position_key(s),
        "undo": undo_what if "undo" in o["events"] else None,
        "log": list(log or []),
        "urls": urls,
        "seq": seq,
    }


def _side_view(config: dict, s: dict, i: int, o: dict) -> dict:
    """One side on the board; in doubles also its ``members``: each player's ``name``, whether he
    is ``at_table`` or ``next`` (the engine's :meth:`sinuca.Match.at_table_player` and
    :meth:`sinuca.Match.next_player`: nobody is next while a decision is pending), and his
    ``warnings`` (Art. 42)."""
    at_table = o.get("at_table")
    out = {"name": config["players"][i], "score": s["scores"][i], "frames": s["frames"][i],
           "warnings": s["warnings"][i], "at_table": at_table == i}
    if "sides" in config:
        at, nxt = o.get("at_table_player"), o.get("next_player")
        out["members"] = [{"name": n, "at_table": at is not None and list(at) == [i, j],
                           "next": nxt is not None and list(nxt) == [i, j],
                           "warnings": s["player_warnings"][i][j]}
                          for j, n in enumerate(config["sides"][i])]
    return out


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
        names the undo that took it back, an undo says what it took back: "Desfaz o lance 3:
        …")."""
        undid, undone = self.match.undid(), self.match.undone()
        out = []
        for i in range(len(self._steps) - 1, max(-1, len(self._steps) - 1 - n), -1):
            text = self._steps[i].description[self.lang]
            if i in undid:
                text = label("undo_line", self.lang, n=undid[i] + 1,
                             desc=self._steps[undid[i]].description[self.lang])
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
        return _dump(out)

    def answer(self, request: str) -> str:
        """One call of the bridge: ``{"op": ..., ...}`` in, ``{"ok", ...}`` out (JSON).

        Ops: ``reset`` (``events``), ``apply`` (``event``: the view after it, its description,
        or the engine's error ``{"code", "message"}`` and nothing changed), ``view``,
        ``foul_form``, ``foul_event`` (``fields``), ``foul_preview`` (``fields`` or ``event``),
        ``state``, ``count``. A request that is not such an object (``[1]``, JSON nested too
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
            if fields is not None and not isinstance(fields, dict):
                raise TypeError("fields must be an object")
            event = req.get("event") or foul_event(fields or {})
            if not isinstance(event, dict):
                raise TypeError("event must be an object")
            nominated = None if fields is None else nomination_answer(fields)
            p = preview_texts(self.match, event, self.lang, nominated)
            return _dump({"ok": True, "event": event, "html": referee_html.foul_preview(p), **p})
        return _failed({"code": "bad_op", "message": {"pt": "operação desconhecida", "en": "unknown operation"}},
                       self.lang)


def _failed(error: dict, lang: str) -> str:
    """A refused request's answer: the ``error`` and ``message``, its words in ``lang`` (the
    page shows this text; an object there read "[object Object]")."""
    m = error.get("message")
    text = str(m.get(lang) or m.get("pt") or "") if isinstance(m, dict) else str(m or "")
    return _dump({"ok": False, "error": error, "message": text or str(error.get("code") or "")})


def _initial_fields(form: dict) -> dict:
    """The foul form's fields as they start (its checked choices), ``{name: [values]}``."""
    out: dict = {}
    for x in form["fields"]:
        for c in x["choices"]:
            if c.get("checked"):
                out.setdefault(c["name"], []).append(c["value"])
    return out
