"""What the referee tablet shows, as one plain dict: the "tablet view" (its board).

The same function answers on the server and in the tablet's browser (Pyodide runs this package
unchanged), so the legal buttons, the decision choices and the undo preview come from the engine
itself, online and offline; the browser only draws the dict (:func:`presentation.referee_html.region`).
No rule is decided here: every verdict is :meth:`Match.options` or a :class:`Step` property; the
words are :mod:`presentation.explain`'s and :mod:`presentation.tablet_labels`'.
"""
from __future__ import annotations

import json

from . import explain
from .tablet_labels import label
from sinuca.engine import Match
from sinuca.position import free_ball_points
from sinuca.rules import ball_name
from sinuca.vocab import Phase, TableWarning


def to_json(obj) -> str:
    """``obj`` as compact JSON, non-ASCII kept: what a button's event and the bridge's answers carry."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _button(text: str, event: dict | None = None, *, small: str = "", cls: str = "big",
            enabled: bool = True, action: str | None = None, **extra) -> dict:
    return {"label": text, "small": small, "cls": cls, "enabled": enabled,
            "event": to_json(event) if event is not None else None, "action": action, **extra}


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
    # the tied frame can be conceded while its decider's lot is awaited (Art. 50.2)
    if phase in (Phase.PLAY, Phase.DECISION) or "concede" in opts["events"]:
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
                    _button(label("lot", lang, name=names[i]), {"type": "lot", "player": i}) for i in (0, 1)]},
                *_disciplinary(opts, lang)]
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
        return rows + _disciplinary(opts, lang)
    return _end_rows(names, state, opts, lang)


def _disciplinary(opts: dict, lang: str) -> list[dict]:
    """"Falta disciplinar…" where no stroke is due but a foul is still taken (the engine's
    ``events``): a seated player's in a decision (Art. 49), anyone's in a lot or between frames
    (Art. 42, 43: conduct, not a stroke)."""
    if "foul" not in opts["events"]:
        return []
    return [{"kind": "actions", "title": None, "buttons": [_button(label("foul_disc", lang), cls="big foul", action="foul")]}]


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
    rows += _disciplinary(opts, lang)
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


FACTS = frozenset(Match.FACTS) | {"break_balls", "undo_target", "undone"}
"""The facts beside the engine's options in what :func:`view_of` reads: the engine's
(:meth:`sinuca.Match.facts`) and the server's log facts (``core.log.screen_options``); ``legal``
is the options alone."""


def facts(match: Match) -> dict:
    """The engine's ``options()`` with its facts (:meth:`sinuca.Match.facts`): what
    :func:`view_of` reads, as the server's ``core.log.screen_options`` gives it."""
    return {**match.options(), **match.facts()}


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
    ``points_remaining``, ``reds_remaining``, ``snookers_required``), ``free_ball_points`` (what a
    free ball on adds to ``points_remaining``, Art. 7), ``aggravated_fouls`` (the retorno chain's
    count while the frame is in play, Art. 27, 44), ``legal`` (the engine's
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
    shown = explain.banners(s, o)
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
        # what the engine counts (Art. 6, 7; Art. 27, 44), as the board shows it
        "free_ball_points": free_ball_points(s),
        "aggravated_fouls": shown["aggravated_fouls"],
        "banners": {k: shown[k] for k in ("free_ball", "aggravated", "stalemate", "decider")},
        # the board's banners (their classes, their words, their order)
        "banner_rows": [{"cls": cls, "text": text[lang], "alert": key == "b_aggravated"} for key, cls, text, on in (
            ("b_aggravated", "alarm", _label_texts("b_aggravated"), shown["aggravated"]),
            ("b_aggravated_count", "banner warn", explain.aggravated_count_text(shown["aggravated_fouls"]),
             shown["aggravated_fouls"] and not shown["aggravated"]),
            ("b_stalemate", "banner warn", _label_texts("b_stalemate"), shown["stalemate"]),
            ("b_decider", "banner", _label_texts("b_decider"), shown["decider"]),
            ("b_free_ball", "banner fb", _label_texts("b_free_ball"), shown["free_ball"])) if on],
        # the winner once the frame or match is over; nobody is at the table then
        "winner": o.get("winner"),
        "controls": controls,
        "position": explain.position_key(s),
        "undo": undo_what if "undo" in o["events"] else None,
        "log": list(log or []),
        "urls": urls,
        "seq": seq,
    }


def _label_texts(key: str) -> dict:
    return {"pt": label(key, "pt"), "en": label(key, "en")}


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

