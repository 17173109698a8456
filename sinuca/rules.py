"""Constants of the CBBS 2008 rules: balls, foul kinds and their articles.

Balls are integers: ``1`` a red, ``2``..``7`` the colours (Art. 1).
"""
from __future__ import annotations

RED = 1
COLOURS = (2, 3, 4, 5, 6, 7)
ALL_COLOURS_SUM = 27  # 2+3+4+5+6+7 (Art. 6.2: "bola 2, 27 pontos")
RED_AND_COLOUR = 8    # a red and the 7 after it (Art. 6.2: "a cada vermelha adicional, mais 8")
REDS_ALLOWED = (6, 10, 15)  # Art. 1.2.1
MIN_PENALTY = 4       # Art. 40
MAX_PENALTY = 7       # Art. 41, 42, 43

BALL_NAMES = {
    1: ("vermelha", "red"),
    2: ("amarela", "yellow"),
    3: ("verde", "green"),
    4: ("marrom", "brown"),
    5: ("azul", "blue"),
    6: ("rosa", "pink"),
    7: ("preta", "black"),
}

# Foul kinds by group (contract section 5). Each: code -> (article, label pt, label en).
VARIABLE_FOULS = {
    "cue_ball_potted": ("47.1", "Tacadeira encaçapada (suicídio)", "Cue ball potted"),
    "double_hit": ("47.2", "Dois toques (bitoque)", "Double hit"),
    "push_stroke": ("47.3", "Conduzir a tacadeira (carretão)", "Push stroke"),
    "touching_ball": ("47.4", "Bola colada movimentada", "Touching ball moved"),
    "ball_touched": ("47.5", "Tocar bola indevidamente", "Ball touched"),
    "ball_moving": ("47.6", "Jogar com bola em movimento", "Played with a ball moving"),
    "not_tip": ("47.7", "Jogar sem a ponteira", "Not struck with the tip"),
    "no_foot_on_floor": ("47.8", "Sem contato com o piso", "No foot on the floor"),
    "outside_d": ("47.9", "Tacadeira fora do D", "Cue ball outside the D"),
    "ball_off_table": ("47.10", "Bola fora da mesa", "Ball off the table"),
    "jump": ("47.11", "Salto da tacadeira", "Jump shot"),
    "ball_not_on_potted": ("47.12", "Bola não visada encaçapada", "Ball not on potted"),
    "wrong_group_potted": ("47.13", "Bola da vez e colorida trocadas", "Red and colour confused"),
    "ball_on_not_hit_first": ("47.14", "Não atingir primeiro a bola visada", "Ball on not hit first"),
    "simultaneous_hit": ("47.15", "Toque simultâneo", "Simultaneous hit"),
    "free_ball_snooker": ("47.16", "Sinuca com a bola livre", "Snookered behind the free ball"),
    "not_nominated": ("47.17", "Bola não cantada", "Ball not nominated"),
    "other": ("47.18", "Outra falta técnica", "Other technical foul"),
}
MAX_FOULS = {
    "out_of_sequence": ("48.1", "Fora da sequência", "Out of sequence"),
    "wrong_ball": ("48.2", "Bola errada", "Wrong ball"),
    "foul_before_nomination": ("48.3", "Falta antes de cantar a colorida", "Foul before nominating"),
    "compulsory": ("48.4", "Falta compulsória (sinuca total)", "Compulsory foul (total snooker)"),
}
DISCIPLINARY_FOULS = {
    "intentional": ("49.1", "Falta intencional", "Intentional foul"),
    "intentional_jump": ("49.2", "Salto intencional", "Intentional jump"),
    "misuse_of_balls": ("49.3", "Uso indevido das bolas", "Misuse of the balls"),
    "slow_play": ("49.4", "Tempo excessivo", "Slow play"),
    "misconduct": ("49.5", "Conduta antidesportiva", "Misconduct"),
}
FOUL_ARTICLE = {code: v[0] for group in (VARIABLE_FOULS, MAX_FOULS, DISCIPLINARY_FOULS)
                for code, v in group.items()}

FOUL_KINDS = [
    {"group": group, "label": {"pt": pt, "en": en},
     "kinds": [{"code": code, "article": art, "label": {"pt": lpt, "en": len_}}
               for code, (art, lpt, len_) in table.items()]}
    for group, pt, en, table in (
        ("variable", "Penalidade variável (mín. 4, Art. 40)", "Variable penalty (min. 4, Art. 40)",
         VARIABLE_FOULS),
        ("max", "Penalidade máxima (7, Art. 41)", "Maximum penalty (7, Art. 41)", MAX_FOULS),
        ("disciplinary", "Falta disciplinar (7 + advertência, Art. 42)",
         "Disciplinary foul (7 + warning, Art. 42)", DISCIPLINARY_FOULS),
    )
]
"""Foul kinds grouped as in the contract's section 5, with articles and pt/en labels (for forms)."""
