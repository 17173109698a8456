"""One-line descriptions of applied events, and of how frames and matches end, in Portuguese and
English: the engine's account of each event (:attr:`sinuca.Step.description`, stored with the
event in the log). The labels the screens show beside the state are in ``presentation.labels``.

Used by the live feed and the score sheet (súmula): ``{"pt": "Falta de Ana: 5 pontos para Bia
(Art. 40)", "en": "Foul by Ana: 5 points to Bia (Art. 40)"}``. The articles cited are those of
``docs/rules.md``.
"""
from __future__ import annotations

from .position import player_due
from .rules import BALL_NAMES
from .vocab import Choice, FoulGroup, FoulKind, FrameEnd, MatchResult, Phase, TableWarning

# What a frame-ending line cites after the score: the article, with words where it is not a pot.
_ENDED_BY_WORDS = {FrameEnd.AGGRAVATED: ("falta agravada", "aggravated foul"),
                   FrameEnd.DECIDER: ("partida complementar", "decider"),
                   FrameEnd.CONCESSION: ("desistência", "concession")}
# A decider lost by a foul: the scores were level with only the 7 left, so any foul loses it.
_DECIDER_FOUL = ("partida complementar perdida por falta", "decider lost on a foul", "51.2, 52")


def score_line(scores, winner: int) -> str:
    """The two scores the winner's first ("34–30"), as every "vence … por" line prints them."""
    return f"{scores[winner]}–{scores[1 - winner]}"


def frame_won(frame: int, scores, winner: int, names: list) -> dict:
    """``{"pt": "Bia vence a partida 1 por 34–30", "en": "Bia wins frame 1 34–30"}``: the winner
    first, his score first, whatever the players' order."""
    w, sc = names[winner], score_line(scores, winner)
    return {"pt": f"{w} vence a partida {frame} por {sc}", "en": f"{w} wins frame {frame} {sc}"}


def frame_end_cause(ended_by: str, by_foul: bool = False) -> dict:
    """How a frame ended as a line cites it: ``{"pt": "desistência, Art. 50.2", "en": …}``, the
    article alone for a pot (Art. 50.1) or a foul with only the 7 left (Art. 51); a decider lost
    by a foul (``by_foul``) cites Art. 51.2 (the scores were level: any foul loses) and 52."""
    e = FrameEnd(ended_by)
    if e is FrameEnd.DECIDER and by_foul:
        pt, en, art = _DECIDER_FOUL
        return {"pt": f"{pt}, Art. {art}", "en": f"{en}, Art. {art}"}
    words = _ENDED_BY_WORDS.get(e)
    if words is None:
        return {"pt": f"Art. {e.article}", "en": f"Art. {e.article}"}
    return {"pt": f"{words[0]}, Art. {e.article}", "en": f"{words[1]}, Art. {e.article}"}


def frame_end_sentence(frame: int, scores, winner: int, ended_by: str, names: list, *,
                       by_foul: bool = False, cause: bool = True) -> dict:
    """``{"pt": "Bia vence a partida 1 por 34–30 (Art. 51)", "en": "Bia wins frame 1 34–30 (Art. 51)"}``:
    :func:`frame_won` with :func:`frame_end_cause` in brackets (``cause=False``: the article
    alone, when the line has just said how, as after "Ana reconhece a derrota na partida")."""
    won, why = frame_won(frame, scores, winner, names), frame_end_cause(ended_by, by_foul)
    if not cause:
        why = {k: v[v.index("Art."):] for k, v in why.items()}
    return {k: f"{won[k]} ({why[k]})" for k in ("pt", "en")}


def match_end_sentence(winner: int | None, result: str, frames, names: list) -> dict:
    """``{"pt": "Bia vence o jogo por 2–0", "en": "Bia wins the match 2–0"}`` (the winner's frames
    first), or by whose concession or disqualification (Art. 54), or no winner (Art. 55)."""
    if winner is None:
        return {"pt": "jogo encerrado sem vencedor", "en": "match over, no winner"}
    w, loser = names[winner], names[1 - winner]
    if result == MatchResult.DISQUALIFICATION:
        return {"pt": f"{w} vence o jogo pela desclassificação de {loser}",
                "en": f"{w} wins the match, {loser} disqualified"}
    if result == MatchResult.CONCESSION:
        return {"pt": f"{w} vence o jogo pela desistência de {loser}", "en": f"{w} wins the match, {loser} conceded"}
    sc = score_line(frames, winner)
    return {"pt": f"{w} vence o jogo por {sc}", "en": f"{w} wins the match {sc}"}


def _balls(balls: list, lang: int) -> str:
    reds = balls.count(1)
    parts = []
    if reds == 1:
        parts.append("uma vermelha" if lang == 0 else "a red")
    elif reds > 1:
        parts.append(f"{reds} vermelhas" if lang == 0 else f"{reds} reds")
    parts += [f"{'a' if lang == 0 else 'the'} {BALL_NAMES[b][lang]} ({b})" for b in balls if b != 1]
    return (" e " if lang == 0 else " and ").join(parts)


def describe(event: dict, info: dict, before, after, names: list, sides: list | None = None) -> dict:
    """Describe an applied event.

    Args:
        event: the event as applied; info: what the engine noted while applying it;
        before, after: the engine's positions around it; names: the two players' (sides') names;
        sides: with sides of several players, each side's players' names: the line then names
        the person who played, fouled or chose, and the side that received the points.
    Returns:
        ``{"pt": str, "en": str}``, citing the article where a rule decided something.
    """
    t = event["type"]
    if t == "undo":
        return {"pt": "Último lance desfeito pelo árbitro", "en": "Last entry undone by the referee"}
    if t == "order":
        pt, en = _order(info, after, sides or [[n] for n in names])
        return {"pt": pt, "en": en}
    who = _people(t, info, before, after, names, sides) if sides else names
    pt, en = _DESCRIBE[t](event, info, before, after, who)
    pt, en = _suffix(pt, en, t, before, after, names)
    return {"pt": pt, "en": en}


def _people(t: str, info: dict, before, after, names: list, sides: list) -> list:
    """The names a line uses for a doubles event: the person at the table (or who fouled)
    in place of his side's name."""
    who = list(names)
    if t in ("pot", "no_pot", "decision") and before.striker is not None:
        who[before.striker] = sides[before.striker][player_due(before, before.striker)]
    if t == "no_pot":
        who[after.striker] = sides[after.striker][player_due(after, after.striker)]
    elif t == "foul":
        who[info["offender"]] = sides[info["offender"]][info["person"]]
    elif t == "disqualify" and "persons" in info:
        for side, person in info["persons"].items():
            who[side] = sides[side][person]
    elif t == "decision" and before.pending is not None:
        off = info["offender"]
        who[off] = sides[off][before.order[off][before.pending.due]]
    return who


def _order(info: dict, after, sides: list) -> tuple[str, str]:
    """The frame's order of play, the sides alternating from the breaker's (doubles decision)."""
    first = after.breaker if after.breaker is not None else 0
    a, b = info["order"][first], info["order"][1 - first]
    seq = []
    for i in range(max(len(a), len(b))):
        seq += [sides[first][a[i % len(a)]], sides[1 - first][b[i % len(b)]]]
    names = ", ".join(seq)
    return (f"Ordem de jogo da partida {after.frame_number}: {names} (Art. 1)",
            f"Order of play for frame {after.frame_number}: {names} (Art. 1)")


def _lot(event, info, before, after, names) -> tuple[str, str]:
    p = names[info["player"]]
    if before.decider:
        return f"Sorteio da partida complementar: {p} sai (Art. 18, 52)", f"Decider lot: {p} breaks off (Art. 18, 52)"
    return f"Sorteio: {p} abre o jogo (Art. 17)", f"Lot: {p} breaks off (Art. 17)"


def _pot(event, info, before, after, names) -> tuple[str, str]:
    who = names[before.striker]
    pts, brk = info["points"], before.brk + info["points"]  # after.brk is 0 once a decider starts
    if info.get("bonus"):
        # the frame's row takes the 7 (contract section 4): its final score is said again
        frame, scores, winner, _ = after.history[-1]
        won = frame_won(frame, scores, winner, names)
        return (f"{who} encaçapa a preta (7) após o fim da partida: +7, tacada {brk} (Art. 6.1) — {won['pt']}",
                f"{who} pots the black (7) after the frame ended: +7, break {brk} (Art. 6.1) — {won['en']}")
    fb = info.get("free_ball")
    rest = [b for b in info["balls"] if b != fb] if fb else info["balls"]
    pt_parts = [_balls(rest, 0)] if rest else []
    en_parts = [_balls(rest, 1)] if rest else []
    if fb and fb in info["balls"]:
        pt_parts.append(f"a {BALL_NAMES[fb][0]} ({fb}) como bola livre")
        en_parts.append(f"the {BALL_NAMES[fb][1]} ({fb}) as free ball")
    pt = f"{who} encaçapa {' e '.join(pt_parts)}"
    en = f"{who} pots {' and '.join(en_parts)}"
    if fb:
        pt += " (Art. 37)" if fb in info["balls"] else f" na jogada de bola livre {fb} (Art. 13)"
        en += " (Art. 37)" if fb in info["balls"] else f" on a free-ball stroke at the {fb} (Art. 13)"
    return f"{pt}: +{pts}, tacada {brk}", f"{en}: +{pts}, break {brk}"


def _no_pot(event, info, before, after, names) -> tuple[str, str]:
    who, other = names[before.striker], names[after.striker]
    if info.get("safety"):
        return f"{who} joga defesa; vez de {other}", f"{who} plays safe; {other} to play"
    return f"{who} não encaçapa; vez de {other}", f"{who} misses; {other} to play"


def _foul(event, info, before, after, names) -> tuple[str, str]:
    off, rec = names[info["offender"]], names[info["receiver"]]
    art, pen, kind = info["article"], info["penalty"], info["kind"]
    if info.get("off_table") and not pen:  # between frames: the finished frame's result stands
        pt = f"Falta de {off} entre partidas, sem pontos: a partida {before.frame_number} já terminou (Art. 50)"
        en = f"Foul by {off} between frames, no points: frame {before.frame_number} is over (Art. 50)"
    else:
        pt = f"Falta de {off}: {pen} pontos para {rec} (Art. {art})"
        en = f"Foul by {off}: {pen} points to {rec} (Art. {art})"
    if kind is not FoulKind.OTHER:
        cite = f" (Art. {kind.article})" if kind.article != art else ""
        kpt, ken = kind.label["pt"], kind.label["en"]
        pt += f"; {kpt[0].lower() + kpt[1:]}{cite}"
        en += f"; {ken[0].lower() + ken[1:]}{cite}"
    if event.get("aggravated") and "disqualified" not in info:
        # Art. 27, 44: every aggravated foul is counted in its retorno chain, from the first
        n = before.agg + 1
        pt += f"; {n}ª falta agravada seguida (Art. 27, 44)"
        en += f"; {_ORDINAL_EN.get(n, f'{n}th')} aggravated foul in a row (Art. 27, 44)"
    if after.phase is Phase.DECISION:
        if event.get("retorno"):
            pt += "; falta e retorno (Art. 25)"
            en += "; foul and replay offered (Art. 25)"
        if event.get("snooker"):
            pt += "; bola livre disponível (Art. 36)"
            en += "; free ball available (Art. 36)"
    if kind.group is FoulGroup.DISCIPLINARY:
        if "disqualified" in info:
            pt += f"; desclassificação de {off} (Art. 42, 43, 54.3)"
            en += f"; {off} disqualified (Art. 42, 43, 54.3)"
        else:
            pt += f"; advertência a {off} (Art. 42)"
            en += f"; {off} warned (Art. 42)"
    return pt, en


def _decision(event, info, before, after, names) -> tuple[str, str]:
    ben, off = names[before.striker], names[info["offender"]]
    c = info["choice"]
    if c is Choice.PLAY:
        if after.free_ball:
            return f"{ben} joga (Art. 35.3) com bola livre (Art. 36)", f"{ben} plays (Art. 35.3) with a free ball (Art. 36)"
        return f"{ben} joga (Art. 35.3)", f"{ben} plays (Art. 35.3)"
    if c is Choice.PASS:
        return f"{ben} passa: {off} joga de novo (Art. 35.4)", f"{ben} passes: {off} plays again (Art. 35.4)"
    return (f"{ben} pede o retorno: {off} repete a jogada (Art. 25.5)",
            f"{ben} asks for the replay: {off} plays the stroke again (Art. 25.5)")


def _stalemate_warning(event, info, before, after, names) -> tuple[str, str]:
    return ("Aviso de impasse: a próxima jogada deve alterar a situação (Art. 53.1)",
            "Stalemate warning: the next stroke must change the position (Art. 53.1)")


def _restart_frame(event, info, before, after, names) -> tuple[str, str]:
    b = names[after.breaker]
    return f"Partida anulada e reiniciada; {b} abre (Art. 53.3)", f"Frame void and re-racked; {b} breaks off (Art. 53.3)"


def _concede(event, info, before, after, names) -> tuple[str, str]:
    p = names[info["player"]]
    return f"{p} reconhece a derrota na partida", f"{p} concedes the frame"


def _next_frame(event, info, before, after, names) -> tuple[str, str]:
    b = names[after.breaker]
    return f"Partida {after.frame_number}: {b} abre (Art. 17)", f"Frame {after.frame_number}: {b} breaks off (Art. 17)"


def _concede_match(event, info, before, after, names) -> tuple[str, str]:
    p = names[info["player"]]
    return f"{p} reconhece a derrota no jogo (Art. 54.2)", f"{p} concedes the match (Art. 54.2)"


def _disqualify(event, info, before, after, names) -> tuple[str, str]:
    ps = info["players"]
    if len(ps) == 2:
        if "persons" in info:  # doubles: one named person of each side
            a, b = names[0], names[1]
            return f"Desclassificação de {a} e de {b} (Art. 55)", f"{a} and {b} disqualified (Art. 55)"
        return "Ambos os jogadores desclassificados (Art. 55)", "Both players disqualified (Art. 55)"
    p = names[ps[0]]
    return f"Desclassificação de {p} (Art. 54.4)", f"{p} disqualified (Art. 54.4)"


_ORDINAL_EN = {1: "1st", 2: "2nd", 3: "3rd"}

_DESCRIBE = {"lot": _lot, "pot": _pot, "no_pot": _no_pot, "foul": _foul, "decision": _decision,
             "stalemate_warning": _stalemate_warning, "restart_frame": _restart_frame, "concede": _concede,
             "next_frame": _next_frame, "concede_match": _concede_match, "disqualify": _disqualify}


def _suffix(pt: str, en: str, event_type: str, before, after, names: list) -> tuple[str, str]:
    """What the event did to the frame and the match, appended to its line: a concession's line
    has said how already, so its frame end cites the article alone."""
    if after.decider and not before.decider:
        return (pt + " — empate: partida complementar na bola 7 (Art. 52)",
                en + " — tie: decider on the re-spotted 7 (Art. 52)")
    if len(after.history) > len(before.history):
        t = frame_end_sentence(*after.history[-1], names, by_foul=event_type == "foul",
                               cause=event_type != "concede")
        pt, en = f"{pt} — {t['pt']}", f"{en} — {t['en']}"
    if after.phase is Phase.MATCH_OVER and before.phase is not Phase.MATCH_OVER:
        t = match_end_sentence(after.match_winner, after.match_result, after.frames, names)
        pt, en = f"{pt} — {t['pt']}", f"{en} — {t['en']}"
    last_chance = TableWarning.AGGRAVATED_LAST_CHANCE
    if after.warning is last_chance and before.warning is not last_chance:
        pt += " — atenção: outra falta agravada perde a partida (Art. 27, 46)"
        en += " — warning: another aggravated foul loses the frame (Art. 27, 46)"
    return pt, en
