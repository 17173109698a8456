"""One-line descriptions of applied events, in Portuguese and English.

Used by the live feed and the score sheet (súmula): ``{"pt": "Falta de Ana: 5 pontos para Bia
(Art. 40)", "en": "Foul by Ana: 5 points to Bia (Art. 40)"}``.
"""
from __future__ import annotations

from .rules import BALL_NAMES, DISCIPLINARY_FOULS, MAX_FOULS, VARIABLE_FOULS

_KIND_LABELS = {**VARIABLE_FOULS, **MAX_FOULS, **DISCIPLINARY_FOULS}
_ENDED_BY = {
    "pot": ("Art. 50.1", "Art. 50.1"),
    "foul": ("Art. 51", "Art. 51"),
    "aggravated": ("falta agravada, Art. 27", "aggravated foul, Art. 27"),
    "decider": ("partida complementar, Art. 52", "decider, Art. 52"),
    "concession": ("desistência, Art. 50.2", "concession, Art. 50.2"),
}


def _balls(balls: list, lang: int) -> str:
    reds = balls.count(1)
    parts = []
    if reds == 1:
        parts.append("uma vermelha" if lang == 0 else "a red")
    elif reds > 1:
        parts.append(f"{reds} vermelhas" if lang == 0 else f"{reds} reds")
    parts += [f"{'a' if lang == 0 else 'the'} {BALL_NAMES[b][lang]} ({b})" for b in balls if b != 1]
    return (" e " if lang == 0 else " and ").join(parts)


def describe(event: dict, info: dict, before, after, names: list) -> dict:
    """Describe an applied event.

    Args:
        event: the event as applied; info: what the engine noted while applying it;
        before, after: the engine's positions around it; names: the two players' names.
    Returns:
        ``{"pt": str, "en": str}``, citing the article where a rule decided something.
    """
    t = event["type"]
    st = before.striker
    who = names[st] if st is not None else ""
    if t == "undo":
        pt, en = "Último lance desfeito pelo árbitro", "Last entry undone by the referee"
    elif t == "lot":
        p = names[info["player"]]
        if before.decider:
            pt, en = f"Sorteio da partida complementar: {p} começa (Art. 18, 52)", \
                f"Decider lot: {p} plays first (Art. 18, 52)"
        else:
            pt, en = f"Sorteio: {p} abre o jogo (Art. 17)", f"Lot: {p} breaks off (Art. 17)"
    elif t == "pot":
        pts, brk = info["points"], before.brk + info["points"]  # after.brk is 0 once a decider starts
        if info.get("bonus"):
            pt = f"{who} encaçapa a preta (7) após o fim da partida: +7, tacada {brk} (Art. 6.1)"
            en = f"{who} pots the black (7) after the frame ended: +7, break {brk} (Art. 6.1)"
        else:
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
            pt += f": +{pts}, tacada {brk}"
            en += f": +{pts}, break {brk}"
    elif t == "no_pot":
        other = names[after.striker]
        if info.get("safety"):
            pt, en = f"{who} joga defesa; vez de {other}", f"{who} plays safe; {other} to play"
        else:
            pt, en = f"{who} não encaçapa; vez de {other}", f"{who} misses; {other} to play"
    elif t == "foul":
        off, rec = names[info["offender"]], names[info["receiver"]]
        art, pen = info["article"], info["penalty"]
        pt = f"Falta de {off}: {pen} pontos para {rec} (Art. {art})"
        en = f"Foul by {off}: {pen} points to {rec} (Art. {art})"
        kind = info["kind"]
        if kind != "other":
            kart, kpt, ken = _KIND_LABELS[kind]
            cite = f" (Art. {kart})" if kart != art else ""
            pt += f"; {kpt[0].lower() + kpt[1:]}{cite}"
            en += f"; {ken[0].lower() + ken[1:]}{cite}"
        if event.get("retorno") and after.phase == "decision":
            pt += "; falta e retorno (Art. 25)"
            en += "; foul and replay offered (Art. 25)"
        if event.get("snooker") and after.phase == "decision":
            pt += "; bola livre disponível (Art. 36)"
            en += "; free ball available (Art. 36)"
        if kind in DISCIPLINARY_FOULS:
            if "disqualified" in info:
                pt += f"; desclassificação de {off} (Art. 42, 43, 54.3)"
                en += f"; {off} disqualified (Art. 42, 43, 54.3)"
            else:
                pt += f"; advertência a {off} (Art. 42)"
                en += f"; {off} warned (Art. 42)"
    elif t == "decision":
        ben, off = names[before.striker], names[info["offender"]]
        c = info["choice"]
        if c == "play":
            pt, en = f"{ben} joga (Art. 35.3)", f"{ben} plays (Art. 35.3)"
            if after.free_ball:
                pt += " com bola livre (Art. 36)"
                en += " with a free ball (Art. 36)"
        elif c == "pass":
            pt, en = f"{ben} passa: {off} joga de novo (Art. 35.4)", f"{ben} passes: {off} plays again (Art. 35.4)"
        else:
            pt = f"{ben} pede o retorno: {off} repete a jogada (Art. 25.3)"
            en = f"{ben} asks for the replay: {off} plays the stroke again (Art. 25.3)"
    elif t == "stalemate_warning":
        pt = "Aviso de impasse: a próxima jogada deve alterar a situação (Art. 53.1)"
        en = "Stalemate warning: the next stroke must change the position (Art. 53.1)"
    elif t == "restart_frame":
        pt = f"Partida anulada e reiniciada; {names[after.breaker]} abre (Art. 53.3)"
        en = f"Frame void and re-racked; {names[after.breaker]} breaks off (Art. 53.3)"
    elif t == "concede":
        p = names[info["player"]]
        pt, en = f"{p} reconhece a derrota na partida", f"{p} concedes the frame"
    elif t == "next_frame":
        b = names[after.breaker]
        pt = f"Partida {after.frame_number}: {b} abre (Art. 17)"
        en = f"Frame {after.frame_number}: {b} breaks off (Art. 17)"
    elif t == "concede_match":
        p = names[info["player"]]
        pt, en = f"{p} reconhece a derrota no jogo (Art. 54.2)", f"{p} concedes the match (Art. 54.2)"
    else:  # disqualify
        ps = info["players"]
        if len(ps) == 2:
            pt, en = "Ambos os jogadores desclassificados (Art. 55)", "Both players disqualified (Art. 55)"
        else:
            p = names[ps[0]]
            pt, en = f"Desclassificação de {p} (Art. 54.4)", f"{p} disqualified (Art. 54.4)"
    if t != "undo":
        pt, en = _suffix(pt, en, before, after, names)
    return {"pt": pt, "en": en}


def _suffix(pt: str, en: str, before, after, names: list) -> tuple[str, str]:
    """What the event did to the frame and the match, appended to its line."""
    if after.decider and not before.decider:
        return (pt + " — empate: partida complementar na bola 7 (Art. 52)",
                en + " — tie: decider on the re-spotted 7 (Art. 52)")
    if len(after.history) > len(before.history):
        f, sc, w, ended = after.history[-1]
        ept, een = _ENDED_BY[ended]
        pt += f" — {names[w]} vence a partida {f} por {sc[0]}–{sc[1]} ({ept})"
        en += f" — {names[w]} wins frame {f} {sc[0]}–{sc[1]} ({een})"
    if after.phase == "match_over" and before.phase != "match_over":
        if after.match_winner is None:
            pt, en = pt + " — jogo encerrado sem vencedor", en + " — match over, no winner"
        else:
            w, loser = names[after.match_winner], names[1 - after.match_winner]
            if after.match_result == "disqualification":
                pt += f" — {w} vence o jogo pela desclassificação de {loser}"
                en += f" — {w} wins the match, {loser} disqualified"
            elif after.match_result == "concession":
                pt += f" — {w} vence o jogo pela desistência de {loser}"
                en += f" — {w} wins the match, {loser} conceded"
            else:
                pt += f" — {w} vence o jogo por {after.frames[0]}–{after.frames[1]}"
                en += f" — {w} wins the match {after.frames[0]}–{after.frames[1]}"
    if after.warning == "aggravated_last_chance" and before.warning != "aggravated_last_chance":
        pt += " — atenção: outra falta agravada perde a partida (Art. 27, 46)"
        en += " — warning: another aggravated foul loses the frame (Art. 27, 46)"
    return pt, en
