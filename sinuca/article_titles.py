"""A short title for each article of the CBBS 2008 rules, written for the project: the text names
only its Títulos, and a TV line or an overlay pop-up needs two or three words, not an article's
opening sentence. Portuguese first (the CBBS's terms), English beside it; the text itself
(:mod:`sinuca.rulebook`) stays the authority.

>>> short_title("25.5")
'Falta e retorno'
>>> short_title("40", "en")
'Variable penalty'
"""
from __future__ import annotations

SHORT = {
    1: ("Definições", "Definitions"),
    2: ("Finalidade da partida", "Object of the frame"),
    3: ("Bola da vez", "Ball on"),
    4: ("Bola livre", "Free ball"),
    5: ("Ataque ou defesa", "Attack or safety"),
    6: ("Pontuação máxima", "Maximum scores"),
    7: ("Pontos da bola livre", "Free-ball points"),
    8: ("Situação de sinuca", "Snookered"),
    9: ("Obstáculos da sinuca", "What is an obstacle"),
    10: ("Opção adicional por sinuca", "Extra option after a snooker"),
    11: ("Sequência das bolas", "Order of the balls"),
    12: ("Retorno de bolas ao jogo", "Balls re-spotted"),
    13: ("Conversão simultânea", "Several balls potted"),
    14: ("Vermelhas juntas", "Reds potted together"),
    15: ("Vermelha não retorna", "A red never returns"),
    16: ("Saída da partida", "Break-off"),
    17: ("Sorteio da saída", "Lot for the break-off"),
    18: ("Saída da partida complementar", "Decider's break-off"),
    19: ("Cantada da bola", "Nominating"),
    20: ("Desvio por tabela", "Off a cushion"),
    21: ("Qualquer caçapa", "Any pocket"),
    22: ("Bola colada", "Touching ball"),
    23: ("Bola colada confirmada", "Touching ball confirmed"),
    24: ("Informação de bola colada", "Asking about a touching ball"),
    25: ("Falta e retorno", "Foul and replay"),
    26: ("Retorno não concedido", "No replay"),
    27: ("Sinuca agravada no retorno", "Aggravated snooker on a replay"),
    28: ("Pergunta de sinuca agravada", "Asking about an aggravated snooker"),
    29: ("Retorno por categoria", "Replay by category"),
    30: ("Vermelha no retorno", "A red on a replay"),
    31: ("Recolocação na marca", "Re-spotting"),
    32: ("Marcas obstruídas", "Spots taken"),
    33: ("Sem espaço para recolocar", "No room to re-spot"),
    34: ("Várias bolas retornam", "Several balls re-spotted"),
    35: ("Opções após falta", "Options after a foul"),
    36: ("Falta que deixa sinuca", "Foul leaving a snooker"),
    37: ("Bola livre encaçapada", "Free ball potted"),
    38: ("Sinuca atrás da bola livre", "Snookering behind a free ball"),
    39: ("Penas adicionais", "Additional penalties"),
    40: ("Penalidade variável", "Variable penalty"),
    41: ("Penalidade máxima", "Maximum penalty"),
    42: ("Falta disciplinar", "Disciplinary foul"),
    43: ("Falta disciplinar grave", "Grave disciplinary foul"),
    44: ("Falta técnica agravada", "Aggravated foul"),
    45: ("Bola de maior valor envolvida", "Highest ball involved"),
    46: ("Aviso antes do retorno", "Warning before a replay"),
    47: ("Faltas de pena variável", "Variable-penalty fouls"),
    48: ("Faltas de pena máxima", "Maximum-penalty fouls"),
    49: ("Faltas disciplinares", "Disciplinary fouls"),
    50: ("Fim da partida", "End of a frame"),
    51: ("Só a bola 7 em jogo", "Only the 7 left"),
    52: ("Partida complementar", "Decider"),
    53: ("Impasse", "Stalemate"),
    54: ("Fim do jogo", "End of the match"),
    55: ("Dupla desclassificação", "Both disqualified"),
}
"""Article (1..55) -> ``(pt, en)`` short title."""


def short_title(ref: str | int, lang: str = "pt") -> str:
    """The short title of the article of ``ref`` (``"25.5.2"`` -> Art. 25's) in ``lang`` ("pt"
    or "en"); ``""`` for a reference to no article."""
    try:
        pair = SHORT.get(int(str(ref).split(".")[0]))
    except ValueError:
        return ""
    return pair[lang == "en"] if pair else ""
