"""What the referee's tablet says, in Portuguese and English, from the engine's own answers.

The tablet must never have to work a rule out for itself: every verdict it shows (the penalty of
a foul, whether a replay is possible, the free ball, a warning or disqualification, whether the
foul ends the frame, what each decision does, how a frame or match ended) is a sentence built
here from the engine's state dicts (contract section 7) and :meth:`sinuca.Match.foul_preview`.
The same package runs on the server and, for the offline tablet, in the browser, so both show the
same words. Every function returns ``{"pt": str, "en": str}`` dicts (or lists of them) and takes
plain dicts, never an engine object, but :func:`foul_verdict`, which asks a match. In CBBS words a *partida* is a frame and the *jogo* the match.
"""
from __future__ import annotations

from sinuca.describe import frame_end_cause, frame_won, match_end_sentence

from .labels import CORRECTED, match_result_text, walkover_sentence
from sinuca.rules import BALL_NAMES, MAX_PENALTY, MIN_PENALTY
from sinuca.vocab import Choice, FoulGroup, FoulKind, FrameEnd, MatchResult, Phase, Sanction, TableWarning

LEVELS = ("info", "ok", "warn", "alarm")
"""How loud a line is on the tablet: plain, good news, caution, or it ends something."""


def _t(pt: str, en: str, level: str = "info", key: str = "") -> dict:
    return {"pt": pt, "en": en, "level": level, "key": key}


def _ordinal(n: int) -> tuple[str, str]:
    return f"{n}ª", {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


# ---------------------------------------------------------------------------------------------
# The foul dialog

def colour_owed(state: dict) -> bool:
    """After a red any colour is on (Art. 11.1): the referee must say which one was aimed at,
    nominated or evident (Art. 19), before a foul's penalty is known (Art. 40.1.a, 48.3)."""
    return state["phase"] == Phase.PLAY and len(state["ball_on"]) > 1


def nomination_choices(state: dict) -> list[dict]:
    """The choices of the foul dialog's first question while a colour is owed: each colour on
    the table with the penalty it sets when aimed at (Art. 40.1.a: the higher of 4 and its value),
    then "not nominated" (Art. 48.3: 7 points). Empty when no colour is owed.

    >>> from sinuca import Match
    >>> m = Match({"players": ["Ana", "Bia"], "first_breaker": 0}); _ = m.apply({"type": "pot", "balls": [1]})
    >>> [c["pt"] for c in nomination_choices(m.state())][3:]
    ['azul (5 pontos)', 'rosa (6 pontos)', 'preta (7 pontos)', 'não cantou (Art. 48.3, 7 pontos)']
    """
    if not colour_owed(state):
        return []
    out = []
    for c in state["colours_remaining"]:
        pts = max(MIN_PENALTY, c)  # Art. 40.1.a: the ball aimed at, at least 4
        out.append({"value": str(c), "ball": c, "points": pts,
                    "pt": f"{BALL_NAMES[c][0]} ({pts} pontos)", "en": f"{BALL_NAMES[c][1]} ({pts} points)"})
    out.append({"value": "none", "ball": None, "points": MAX_PENALTY,
                "pt": f"não cantou (Art. {FoulKind.FOUL_BEFORE_NOMINATION.article}, {MAX_PENALTY} pontos)",
                "en": f"not nominated (Art. {FoulKind.FOUL_BEFORE_NOMINATION.article}, {MAX_PENALTY} points)"})
    return out


def reds_count(k: int) -> dict:
    """``0`` → "nenhuma vermelha", ``1`` → "1 vermelha", ``3`` → "3 vermelhas" (and English)."""
    if k == 0:
        return {"pt": "nenhuma vermelha", "en": "no red"}
    if k == 1:
        return {"pt": "1 vermelha", "en": "1 red"}
    return {"pt": f"{k} vermelhas", "en": f"{k} reds"}


def aggravated_text(count: int, offender: str, receiver: str) -> dict:
    """The count of consecutive aggravated fouls of a retorno chain, said before the foul is
    confirmed: the 2nd warns that the next one ends the frame (Art. 27, 46), the 3rd ends it with
    the offender's loss (Art. 27, 44.2, 50.3)."""
    pt_n, en_n = _ordinal(count)
    if count >= 3:
        return _t(f"{pt_n} falta agravada seguida: encerra a partida, derrota de {offender} (Art. 27, 44.2, 50.3)",
                  f"{en_n} aggravated foul in a row: ends the frame, {offender} loses it (Art. 27, 44.2, 50.3)",
                  "alarm", "aggravated")
    if count == 2:
        return _t(f"{pt_n} falta agravada seguida: a próxima encerra a partida (Art. 27, 46)",
                  f"{en_n} aggravated foul in a row: the next one ends the frame (Art. 27, 46)",
                  "warn", "aggravated")
    return _t(f"{pt_n} falta agravada seguida (Art. 27, 44): a 3ª encerra a partida",
              f"{en_n} aggravated foul in a row (Art. 27, 44): the 3rd ends the frame", "warn", "aggravated")


def frame_result(row: dict, names: list) -> dict:
    """A ``history`` row told winner first, his score first: "Bia vence a partida 1 por 34–30"
    (:func:`sinuca.describe.frame_won`, the engine's lines' very words)."""
    return frame_won(row["frame"], row["scores"], row["winner"], names)


def match_result(state: dict, names: list) -> dict:
    """The match's result winner first ("Ana vence o jogo por 2–1"), by concession or
    disqualification (Art. 54), or with no winner (Art. 55): the engine's lines' words."""
    return match_end_sentence(state["match_winner"], state["match_result"], state["frames"], names)


def _sanction_line(event: dict, preview: dict, offender: str) -> dict:
    """Art. 42, 43: the first disciplinary foul warns; the second, or a grave one, disqualifies
    (the engine's ``disqualified``: in doubles the person's own warnings count)."""
    grave = event.get("grave") is True
    if preview.get("disqualified"):
        why = "43" if grave else "42.2"
        return _t(f"Desclassificação de {offender}: perde o jogo (Art. {why}, 54.3)",
                  f"{offender} disqualified: loses the match (Art. {why}, 54.3)", "alarm", "sanction")
    art = Sanction.WARNING.article
    return _t(f"Advertência a {offender} (Art. {art}); nova falta disciplinar de {offender}: "
              f"desclassificação e derrota no jogo (Art. 42.2, 54.3)",
              f"{offender} warned (Art. {art}); another disciplinary foul by {offender}: "
              f"disqualification and the match lost (Art. 42.2, 54.3)", "warn", "sanction")


def _end_line(preview: dict, before: dict, names: list) -> dict:
    """The foul ends the frame (and maybe the match), or levels it for the decider (Art. 51, 52)."""
    after = preview["state"]
    if after.get("decider") and after.get("phase") == Phase.LOT:
        return _t("Esta falta empata: partida complementar na bola 7 (Art. 51.1, 52)",
                  "This foul levels the scores: decider on the re-spotted 7 (Art. 51.1, 52)", "alarm", "end")
    pt, en = [], []
    if len(after["history"]) > len(before["history"]):
        row = after["history"][-1]
        r = frame_result(row, names)
        e = FrameEnd(row["ended_by"])
        # a decider ended by this foul is lost on it (Art. 51.2), said as the log will say it
        why = frame_end_cause(e, by_foul=True) if e is FrameEnd.DECIDER else {k: f"Art. {e.article}" for k in r}
        pt.append(f"{r['pt']} ({why['pt']})")
        en.append(f"{r['en']} ({why['en']})")
    if preview["ends_match"]:
        r = match_result(after, names)
        pt.append(r["pt"])
        en.append(r["en"])
        return _t("Esta falta ENCERRA O JOGO: " + "; ".join(pt), "This foul ENDS THE MATCH: " + "; ".join(en),
                  "alarm", "end")
    return _t("Esta falta ENCERRA A PARTIDA: " + "; ".join(pt), "This foul ENDS THE FRAME: " + "; ".join(en),
              "alarm", "end")


def _retorno_line(preview: dict, event: dict, rn: str, on: str) -> dict:
    """Art. 25, 26: one retorno verdict, "no replay" whenever the foul ends the frame."""
    if preview["ends_match"]:
        return _t("Sem retorno: a falta encerra o jogo", "No replay: the foul ends the match", "info", "retorno")
    if preview["ends_frame"]:
        return _t("Sem retorno: a falta encerra a partida", "No replay: the foul ends the frame", "info", "retorno")
    if preview["retorno_allowed"] and event.get("retorno") is True:
        return _t(f"Retorno possível — falta e retorno (Art. 25): {rn} poderá pedir que {on} repita a jogada",
                  f"Replay possible — foul and replay (Art. 25): {rn} may ask {on} to play the stroke again",
                  "ok", "retorno")
    if preview["retorno_allowed"]:
        return _t(f"Retorno possível (Art. 25): marque “Falta e retorno” para oferecê-lo a {rn}",
                  f"Replay possible (Art. 25): tick “Foul and replay” to offer it to {rn}", "ok", "retorno")
    why = preview.get("retorno_reason") or {"pt": "", "en": ""}
    # the engine's reasons mostly say "no replay" already ("Sem retorno com só a 7 …, Art. 26.1")
    pt = why["pt"] if "retorno" in why["pt"].lower() else f"Sem retorno: {why['pt']}".rstrip(": ")
    en = why["en"] if "replay" in why["en"].lower() else f"No replay: {why['en']}".rstrip(": ")
    if event.get("retorno") is True:  # called anyway: the foul cannot be recorded like this
        return _t(f"{pt} — desmarque “Falta e retorno”", f"{en} — untick “Foul and replay”", "alarm", "retorno")
    return _t(pt, en, "info", "retorno")


def foul_lines(preview: dict, event: dict, before: dict, names: list, refused: tuple | None = None,
               people: list | None = None) -> list[dict]:
    """The foul dialog's verdict, one line per point, never two that contradict:

    the penalty and its article; the sanction of a disciplinary foul (Art. 42, 43); the count of
    aggravated fouls (Art. 27, 44, 46); whether the foul ends the frame or the match, and how;
    the free ball (Art. 36); the retorno verdict and why (Art. 25, 26) — "no replay" whenever
    the foul ends the frame, whatever Art. 26 would say.

    Args:
        preview: :meth:`sinuca.Match.foul_preview`'s answer.
        event: the foul event previewed; before: the state before it; names: the players;
        refused: ``(pt, en)``, why the engine refuses the foul as entered, if it does;
        people: with sides of several players, each side's names (``config["sides"]``).
    Returns:
        ``[{"pt", "en", "level", "key"}]``; ``key`` is ``penalty``, ``sanction``, ``aggravated``,
        ``end``, ``free_ball``, ``retorno`` or ``error``.
    """
    if refused and preview.get("penalty") is None:
        return [_t(refused[0], refused[1], "alarm", "error")]
    rec = preview["receiver"]
    off = 1 - rec
    rn, on = names[rec], names[off]  # the sides: who gets the points, who loses a frame
    # doubles: a person fouls, and the beneficiary side's player due decides (contract section 11)
    rp, op = rn, on
    if people:
        after = preview.get("state") or {}
        if preview.get("person") is not None:
            op = people[off][preview["person"]]
        if after.get("phase") == Phase.DECISION and after.get("striker_player") is not None:
            rp = people[rec][after["striker_player"]]
    pen, art = preview["penalty"], preview["article"]
    kind = FoulKind(event.get("kind") or FoulKind.OTHER)
    why = ("", "")
    if art == FoulKind.FOUL_BEFORE_NOMINATION.article and kind is not FoulKind.FOUL_BEFORE_NOMINATION:
        why = (": cor não cantada", ": colour not nominated")
    off_table = before.get("phase") in (Phase.LOT, Phase.FRAME_OVER)
    if off_table and not pen:
        # between frames the finished frame's result stands: only the sanction counts
        lines = [_t("Sem pontos: a partida já terminou; conta a advertência ou a desclassificação (Art. 42, 43)",
                    "No points: the frame is over; the warning or the disqualification counts (Art. 42, 43)",
                    "info", "penalty")]
    else:
        lines = [_t(f"{pen} pontos para {rn} (Art. {art}{why[0]})", f"{pen} points to {rn} (Art. {art}{why[1]})",
                    "info", "penalty")]
    if kind.group == FoulGroup.DISCIPLINARY:
        # doubles: the warning and the disqualification are the person's (Art. 42), named
        lines.append(_sanction_line(event, preview, op))
    count = before["aggravated_fouls"] + 1 if event.get("aggravated") is True else 0
    if count:
        lines.append(aggravated_text(count, on, rn))
    ends = preview["ends_frame"] or preview["ends_match"]
    if ends:
        lines.append(_end_line(preview, before, names))
    # nobody at the table (a lot, between frames) is as good as seated: no stroke, no free ball
    seated = off_table or (event.get("player") is not None and event["player"] != before.get("striker"))
    if not ends and event.get("snooker") is True:
        lines.append(_t(f"Deixou sinuca: se {rp} jogar, tem bola livre (Art. 36)",
                        f"Snooker left: if {rp} plays, a free ball (Art. 36)", "ok", "free_ball"))
    elif not ends and not seated:
        lines.append(_t("Sem bola livre: não deixou sinuca (Art. 36)", "No free ball: no snooker left (Art. 36)",
                        "info", "free_ball"))
    lines.append(_retorno_line(preview, event, rp, op))
    if refused and refused[0] != (preview.get("retorno_reason") or {}).get("pt"):
        lines.append(_t(refused[0], refused[1], "alarm", "error"))
    return lines


def foul_verdict(match, event: dict) -> dict:
    """:meth:`sinuca.Match.foul_preview` of ``event`` (its facts) with ``lines``, the verdict in
    words (:func:`foul_lines`): what the foul dialog shows on the server and on the tablet.

    Args:
        match: a :class:`sinuca.Match` (only asked, never changed); event: a foul event.
    Returns:
        the preview's dict plus ``"lines": [{"pt", "en", "level", "key"}]``.
    """
    before = match.state()
    preview = match.foul_preview(event)
    refusal = preview.get("refusal")
    refused = (refusal["pt"], refusal["en"]) if refusal else None
    ev = dict(event, type="foul")
    return dict(preview, lines=foul_lines(preview, ev, before, match.config["players"], refused,
                                          match.config.get("sides")))


# ---------------------------------------------------------------------------------------------
# The decision after a foul

def decision_choices(state: dict, options: dict, names: list, people: tuple | None = None) -> list[dict]:
    """The beneficiary's choices after a foul (Art. 25, 35, 36) with what each does, in CBBS
    words: ``[{"choice", "label", "explain", "danger"}]`` (``label``/``explain`` pt/en dicts).
    "Play" is "Jogar com bola livre" when the foul left a snooker (Art. 36); the retorno is
    marked dangerous only when one more aggravated foul would end the frame (Art. 27, 46).
    ``people``: in doubles, ``(the beneficiary's player due, the offender)`` by name, who the
    texts name instead of the sides (Art. 1; contract section 11: on *passar* and *retorno* the
    offender himself plays again)."""
    if state["phase"] != Phase.DECISION:
        return []
    ben = state["striker"]
    bn, on = people if people else (names[ben], names[1 - ben])
    free = bool(options.get("free_ball_offered"))
    last_chance = state.get("warning") == TableWarning.AGGRAVATED_LAST_CHANCE
    out = []
    for c in state["decision_options"]:
        if c == Choice.PLAY and free:
            label = {"pt": "Jogar com bola livre", "en": "Play with a free ball"}
            explain = {"pt": f"{bn} joga com as bolas como pararam e pode eleger qualquer colorida como "
                             f"bola livre, ou jogar a bola da vez (Art. 35.3, 36)",
                       "en": f"{bn} plays from where the balls lie and may nominate any colour as a free "
                             f"ball, or play the ball on (Art. 35.3, 36)"}
        elif c == Choice.PLAY:
            label = {"pt": "Jogar", "en": "Play"}
            explain = {"pt": f"{bn} joga com as bolas como pararam (Art. 35.3)",
                       "en": f"{bn} plays from where the balls lie (Art. 35.3)"}
        elif c == Choice.PASS:
            label = {"pt": "Passar", "en": "Pass"}
            explain = {"pt": f"{on} joga de novo, com as bolas como pararam, sem bola livre (Art. 35.4)",
                       "en": f"{on} plays again from where the balls lie, no free ball (Art. 35.4)"}
        else:
            label = {"pt": "Retorno", "en": "Replay"}
            explain = {"pt": f"as bolas voltam à posição anterior e {on} repete a jogada; a penalidade fica "
                             f"(Art. 25.5, 30)",
                       "en": f"the balls go back where they were and {on} plays the stroke again; the penalty "
                             f"stands (Art. 25.5, 30)"}
            if last_chance:
                explain = {"pt": explain["pt"] + f" — atenção: mais uma falta agravada de {on} encerra a partida "
                                                 f"(Art. 27, 46)",
                           "en": explain["en"] + f" — warning: one more aggravated foul by {on} ends the frame "
                                                 f"(Art. 27, 46)"}
        out.append({"choice": str(c), "label": label, "explain": explain,
                    "danger": c == Choice.RETORNO and last_chance})
    return out


# ---------------------------------------------------------------------------------------------
# Frame and match end, and the referee's own endings

def frame_over_texts(state: dict, options: dict, names: list) -> dict | None:
    """How the last frame ended, told winner first with the reason and its article:
    ``{"heading", "reason", "bonus"}`` (pt/en dicts; ``bonus`` None unless the 7 may still be
    potted for the break after the 6 ended the frame, Art. 50.1, 6.1). None before any frame
    ended, or while the frame in play is not over."""
    if state["phase"] not in (Phase.FRAME_OVER, Phase.MATCH_OVER) or not state["history"]:
        return None
    h = state["history"][-1]
    if state["phase"] == Phase.MATCH_OVER and h["frame"] != state["frame_number"]:
        return None  # the match ended by concession or disqualification, not by this frame
    ln = names[1 - h["winner"]]
    heading = frame_result(h, names)
    e = FrameEnd(h["ended_by"])
    on_six = e is FrameEnd.POT and 7 in state["colours_remaining"]
    if e is FrameEnd.POT and on_six:
        reason = {"pt": f"A bola 6 encaçapada deixou diferença maior que 7 pontos (Art. {e.article})",
                  "en": f"The 6 potted left a lead of more than 7 points (Art. {e.article})"}
    elif e is FrameEnd.POT:
        reason = {"pt": f"Bola 7 encaçapada com vantagem no placar (Art. {e.article})",
                  "en": f"The 7 potted with the lead (Art. {e.article})"}
    elif e is FrameEnd.FOUL:
        reason = {"pt": f"Falta de {ln} com só a 7 na mesa (Art. 51.2)",
                  "en": f"Foul by {ln} with only the 7 left (Art. 51.2)"}
    elif e is FrameEnd.AGGRAVATED:
        reason = {"pt": f"3ª falta agravada seguida de {ln} (Art. 27, 44.2, 50.3)",
                  "en": f"{ln}'s 3rd aggravated foul in a row (Art. 27, 44.2, 50.3)"}
    elif e is FrameEnd.CONCESSION:
        reason = {"pt": f"{ln} reconheceu a derrota na partida (Art. 50.2)",
                  "en": f"{ln} conceded the frame (Art. 50.2)"}
    elif options.get("frame_lost_on_foul"):  # the decider, lost on a foul: scores level, any foul loses
        reason = {"pt": f"Falta de {ln} na partida complementar (Art. 51.2, 52)",
                  "en": f"Foul by {ln} in the decider (Art. 51.2, 52)"}
    else:
        reason = {"pt": f"Bola 7 encaçapada na partida complementar (Art. {e.article})",
                  "en": f"The 7 potted in the decider (Art. {e.article})"}
    bonus = None
    if options.get("bonus_seven"):
        bonus = {"pt": "A partida acabou, mas a bola 7 ainda pode ser encaçapada para somar à tacada (Art. 6.1)",
                 "en": "The frame is over, but the 7 may still be potted to add to the break (Art. 6.1)"}
    return {"heading": heading, "reason": reason, "bonus": bonus}


def match_over_text(state: dict, names: list) -> dict | None:
    """The match's result, winner first, with how it was won and the article (Art. 54, 55)."""
    if state["phase"] != Phase.MATCH_OVER:
        return None
    if state.get("walkover"):  # the desk's W.O. (a match-level result): nothing was played
        return walkover_sentence(state["walkover"], names)
    how = match_result_text(state["match_result"])
    if state["match_winner"] is None:
        return {"pt": f"Jogo encerrado sem vencedor: {how['pt']}", "en": f"Match over, no winner: {how['en']}"}
    s = match_result(state, names)
    if state["match_result"] == CORRECTED:  # the desk's correction: its own words, no article
        return {"pt": f"Jogo encerrado: {s['pt']} ({how['pt']})", "en": f"Match over: {s['en']} ({how['en']})"}
    if state["match_result"] != MatchResult.FRAMES:
        # "pela desistência de …" says how already: the article alone, never "…, por desistência"
        art = MatchResult(state["match_result"]).article
        return {"pt": f"Jogo encerrado: {s['pt']} (Art. {art})", "en": f"Match over: {s['en']} (Art. {art})"}
    # "how" carries its own article in parentheses: joined by a comma, never nested in brackets
    return {"pt": f"Jogo encerrado: {s['pt']}, {how['pt']}", "en": f"Match over: {s['en']}, {how['en']}"}


def tap_message(event_type: str, description: dict, state: dict, options: dict, names: list) -> dict:
    """The message bar's line for an accepted tap, the same online (the server's answer) and
    offline (the tablet's own engine): the event's line (``description``, :attr:`sinuca.Step.description`),
    except when the frame or match is over, told winner first with the reason and its article
    (:func:`frame_over_texts`, :func:`match_over_text`). ``state`` and ``options`` (with the
    engine's facts) are after the tap."""
    if event_type != "undo":
        fe = frame_over_texts(state, options, names)
        if fe:
            return {k: f"{fe['heading'][k]} — {fe['reason'][k]}" for k in ("pt", "en")}
        mo = match_over_text(state, names)
        if mo:
            return {"pt": mo["pt"], "en": mo["en"]}
    return {"pt": description["pt"], "en": description["en"]}


def ending_confirmations(state: dict, names: list, frames_to_win: int) -> dict:
    """What each ending by the referee's hand will do, said on its confirmation:
    ``{"concede": [pt/en per player], "concede_match": [...], "restart_frame": pt/en}``.
    Conceding a frame gives it to the opponent (Art. 50.2) and may give him the match (Art.
    54.1); conceding the match ends it (Art. 54.2); re-racking voids the frame (Art. 53.3)."""
    frame = state["frame_number"]
    out: dict = {"concede": [], "concede_match": []}
    for p in (0, 1):
        pn, on = names[p], names[1 - p]
        won = state["frames"][1 - p] + 1
        pt = f"{pn} reconhece a derrota na partida {frame}: {on} vence a partida (Art. 50.2)"
        en = f"{pn} concedes frame {frame}: {on} wins it (Art. 50.2)"
        if won >= frames_to_win:
            f = list(state["frames"])
            f[1 - p] = won
            pt += f" e o jogo por {f[1 - p]}–{f[p]} (Art. 54.1)"
            en += f" and the match {f[1 - p]}–{f[p]} (Art. 54.1)"
        out["concede"].append({"pt": pt, "en": en})
        out["concede_match"].append({"pt": f"{pn} abandona o jogo: {on} vence o jogo (Art. 54.2)",
                                     "en": f"{pn} concedes the match: {on} wins it (Art. 54.2)"})
    out["restart_frame"] = {"pt": f"A partida {frame} é anulada e as bolas recolocadas; o placar da partida volta "
                                  f"a 0–0 (Art. 53.3)",
                            "en": f"Frame {frame} is void and re-racked; its score goes back to 0–0 (Art. 53.3)"}
    return out


def banners(state: dict, options: dict) -> dict:
    """Which banners the board shows (tablet, TV, overlay), each only while the state it tells
    of is in force: ``free_ball`` (on, or offered by the decision, Art. 36); ``aggravated``, the
    last chance of a retorno chain (Art. 27, 46), and ``aggravated_fouls``, the chain's count from
    its first foul (Art. 27, 44), while the frame is in play; ``stalemate`` (Art. 53) while the
    frame is in play; ``decider`` while the decider waits for its lot or is played (Art. 52), not
    once it is over. ``options`` carries the engine's facts (``free_ball_shown``)."""
    phase = state.get("phase")
    in_play = phase in (Phase.PLAY, Phase.DECISION)
    warning = state.get("warning") if in_play else None
    return {"free_ball": bool(options.get("free_ball_shown")),
            "aggravated": warning == TableWarning.AGGRAVATED_LAST_CHANCE,
            "aggravated_fouls": state.get("aggravated_fouls", 0) if in_play else 0,
            "stalemate": warning == TableWarning.STALEMATE,
            "decider": bool(state.get("decider")) and phase in (Phase.LOT, Phase.PLAY, Phase.DECISION)}


def aggravated_count_text(count: int) -> dict:
    """The board's count of a retorno chain's aggravated fouls: "1ª falta agravada seguida (Art.
    27, 44)" (the third loses the frame)."""
    pt_n, en_n = _ordinal(count)
    return {"pt": f"{pt_n} falta agravada seguida (Art. 27, 44)", "en": f"{en_n} aggravated foul in a row (Art. 27, 44)"}


def art28_question() -> dict:
    """Art. 28: before the stroke the referee answers whether an aggravated snooker exists, one
    that would make a foul an aggravated technical foul (Art. 27, 44)."""
    return {"pt": "Art. 28 — antes da jogada: há sinuca parcial agravada?",
            "en": "Art. 28 — before the stroke: is there an aggravated snooker?"}


def position_key(state: dict) -> str:
    """The position the Art. 28 answer belongs to: the frame, the balls on the table, the ball
    on and who plays. A retorno restores it (Art. 25.5, 30), so the answer given before a fouled
    stroke still holds for its replay; any other stroke changes it."""
    return "|".join(str(x) for x in (state["frame_number"], state["reds_remaining"],
                                     ",".join(map(str, state["colours_remaining"])),
                                     ",".join(map(str, state["ball_on"])), state["striker"]))
