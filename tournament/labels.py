"""Bilingual labels: placeholders, round names, tie-break reasons (``{"pt": …, "en": …}``)."""
from __future__ import annotations

ROUND_NAMES = {
    "final": ("Final", "Final"),
    "semi_final": ("Semifinal", "Semi-final"),
    "quarter_final": ("Quartas de final", "Quarter-final"),
    "round_of_16": ("Oitavas de final", "Round of 16"),
    "round_of_32": ("16 avos de final", "Round of 32"),
    "round_of_64": ("32 avos de final", "Round of 64"),
    "round_of_128": ("64 avos de final", "Round of 128"),
    "third_place": ("Disputa de 3º lugar", "Third-place match"),
    "opening": ("Jogo de abertura", "Opening match"),
    "winners": ("Jogo dos vencedores", "Winners' match"),
    "losers": ("Jogo dos perdedores", "Losers' match"),
    "decider": ("Jogo decisivo", "Decider"),
}

STAGE_NAMES = {
    "round_robin_groups": ("Fase de grupos", "Group stage"),
    "double_elimination_groups": ("Fase de grupos (dupla eliminação)", "Group stage (double elimination)"),
    "knockout": ("Mata-mata", "Knockout"),
}
ONE_GROUP = ("Todos contra todos", "Round robin")  # a round-robin stage of a single group

TIE_BREAKS = {
    "wins": ("vitórias", "wins"),
    "head_to_head": ("confronto direto", "head-to-head"),
    "frame_difference": ("saldo de partidas", "frame difference"),
    "frames_won": ("partidas ganhas", "frames won"),
    "points_difference": ("saldo de pontos", "points difference"),
    "points_won": ("pontos marcados", "points won"),
    "highest_break": ("maior tacada", "highest break"),
    "lot": ("sorteio", "lot"),
}


def ordinal_en(n: int) -> str:
    """``1 → "1st"``, ``2 → "2nd"``, ``11 → "11th"``."""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return str(n) + {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def round_label(round_name: str) -> dict:
    """``"semi_final" → {"pt": "Semifinal", "en": "Semi-final"}``; ``"round_3"`` → Rodada 3."""
    if round_name in ROUND_NAMES:
        pt, en = ROUND_NAMES[round_name]
        return {"pt": pt, "en": en}
    if round_name.startswith("round_"):
        n = round_name.split("_", 1)[1]
        return {"pt": f"Rodada {n}", "en": f"Round {n}"}
    return {"pt": round_name, "en": round_name}


def stage_label(stages, index: int) -> dict:
    """The name of stage ``index`` (0-based) of ``stages`` (each with ``format`` and ``groups``):
    ``{"pt": "Fase de grupos", "en": "Group stage"}``, ``Mata-mata`` / ``Knockout``, a round
    robin of one group ``Todos contra todos`` / ``Round robin``; when two stages would read the
    same, each is numbered (``Fase de grupos 2`` / ``Group stage 2``)."""
    def name(st) -> tuple[str, str]:
        if st.format == "round_robin_groups" and st.groups == 1:
            return ONE_GROUP
        return STAGE_NAMES.get(st.format, (st.format, st.format))

    names = [name(st) for st in stages]
    pt, en = names[index]
    if names.count(names[index]) > 1:
        k = names[:index + 1].count(names[index])
        pt, en = f"{pt} {k}", f"{en} {k}"
    return {"pt": pt, "en": en}


def group_label(group: str | None) -> dict:
    """``"A" → {"pt": "Grupo A", "en": "Group A"}``; no group: empty strings."""
    if not group:
        return {"pt": "", "en": ""}
    return {"pt": f"Grupo {group}", "en": f"Group {group}"}


def tie_break_reason(criterion: str) -> dict:
    """``"head_to_head" → {"code", "pt": "desempate: confronto direto", "en": "tie-break: head-to-head"}``."""
    pt, en = TIE_BREAKS[criterion]
    return {"code": criterion, "pt": f"desempate: {pt}", "en": f"tie-break: {en}"}
