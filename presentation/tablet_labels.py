"""The tablet's button and heading words, in Portuguese and English.

:data:`LABELS` holds only the plain button and heading words of the server's template (its
gettext catalogue gives the same English); every sentence about the position (decision choices,
foul verdict lines, counts of reds, frame and match end, the confirmations of endings, the Art. 28
question, the colour aimed at) is :mod:`presentation.explain`'s, the one source of the tablet's
words.
"""
from __future__ import annotations

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
    "lot": ("Sai {name}", "{name} breaks off"),
    "lot_title": ("Sorteio: quem sai? (Art. 17)", "Lot: who breaks off? (Art. 17)"),
    "lot_decider": ("Partida complementar: sorteio (Art. 18, 52)", "Decider: draw lots (Art. 18, 52)"),
    "play_title": ("Na mesa: {name}", "At the table: {name}"),
    "play_title_next": ("Na mesa: {name} · a seguir: {next}", "At the table: {name} · next: {next}"),
    "order_title": ("Ordem de jogo (Art. 1): {names}", "Order of play (Art. 1): {names}"),
    # the order within a side: never "começa"/"starts", the lot's winner breaks off ("Sai")
    "order_first": ("{name} 1º na ordem", "{name} first in the order"),
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
    "f_title_off": ("Falta disciplinar — ninguém na mesa (Art. 42, 43)",
                    "Disciplinary foul — nobody at the table (Art. 42, 43)"),
    "f_nominated": ("Qual cor foi visada? (cantada, ou evidente — Art. 19)",
                    "Which colour was aimed at? (nominated, or evident — Art. 19)"),
    "f_ask": ("Escolha primeiro a cor visada: ela decide a penalidade.",
              "First choose the colour aimed at: it sets the penalty."),
    "f_ask_off": ("Falta disciplinar (Art. 42, 43): escolha o tipo e quem cometeu; a penalidade aparece aqui.",
                  "Disciplinary foul (Art. 42, 43): choose its kind and who committed it; the penalty shows here."),
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

