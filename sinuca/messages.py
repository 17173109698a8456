"""Every message the engine can refuse an event with, in Portuguese and English.

:data:`MESSAGES` maps a message id to its two :meth:`str.format` templates; the id starts with the
contract's error code (``docs/contract.md`` section 8), so ``"illegal_pot.not_on"`` is always an
:class:`~sinuca.errors.IllegalPot`. A screen that translates keeps the id and the parameters
(:attr:`SinucaError.msg_id`, :attr:`SinucaError.params`) and renders its own text.

>>> texts("illegal_pot.not_on", ball_on="1")["en"]
'Illegal pot: the ball on is 1; record a foul instead (Art. 11, 47.12)'
"""
from __future__ import annotations

from .vocab import Phase


def _config(pt: str, en: str) -> tuple[str, str]:
    return f"Configuração inválida: {pt}", f"Invalid configuration: {en}"


def _event(pt: str, en: str) -> tuple[str, str]:
    return f"Evento inválido: {pt}", f"Invalid event: {en}"


def _balls_listed(code: str, pt: str, en: str) -> dict:
    """The three checks of a list of potted balls, worded for a pot or for a foul."""
    return {
        f"{code}.ball_twice": (f"{pt}: a bola {{ball}} aparece duas vezes", f"{en}: ball {{ball}} is listed twice"),
        f"{code}.ball_off_table": (f"{pt}: a bola {{ball}} não está na mesa",
                                   f"{en}: ball {{ball}} is not on the table"),
        f"{code}.too_many_reds": (f"{pt}: só restam {{reds}} vermelhas", f"{en}: only {{reds}} reds remain"),
        f"{code}.nominated_off_table": ("A bola cantada {nominated} não está na mesa (Art. 19)",
                                        "The nominated ball {nominated} is not on the table (Art. 19)"),
    }


MESSAGES: dict[str, tuple[str, str]] = {
    # Configuration (contract section 2)
    "invalid_config.not_object": _config("esperado um objeto JSON", "expected a JSON object"),
    "invalid_config.unknown_key": _config("chave desconhecida {key!r}", "unknown key {key!r}"),
    "invalid_config.reds": _config("reds deve ser 6, 10 ou 15 (Art. 1)", "reds must be 6, 10 or 15 (Art. 1)"),
    "invalid_config.frames_to_win": _config("frames_to_win deve ser um inteiro >= 1 (Art. 54.1)",
                                            "frames_to_win must be an integer >= 1 (Art. 54.1)"),
    "invalid_config.players": _config(
        "players deve ser uma lista de dois nomes, ou de dois lados de 1 a 4 nomes: um jogo tem dois lados (Art. 1)",
        "players must be a list of two names, or of two sides of 1 to 4 names: a match has two sides (Art. 1)"),
    "invalid_config.first_breaker": _config("first_breaker deve ser 0 ou 1 (Art. 17)",
                                            "first_breaker must be 0 or 1 (Art. 17)"),
    "invalid_config.retorno": _config("retorno deve ser true ou false (Art. 29)",
                                      "retorno must be true or false (Art. 29)"),
    "invalid_config.position": _config("position deve ser um objeto", "position must be an object"),
    "invalid_config.position_key": _config("chave desconhecida em position: {key!r}",
                                           "unknown key in position: {key!r}"),
    "invalid_config.reds_remaining": _config("reds_remaining deve estar entre 0 e {reds}",
                                             "reds_remaining must be 0 to {reds}"),
    "invalid_config.colours_remaining": _config("colours_remaining deve ser n..7 em ordem crescente (Art. 11.2)",
                                                "colours_remaining must be n..7 ascending (Art. 11.2)"),
    "invalid_config.colours_with_reds": _config(
        "com vermelhas na mesa todas as coloridas estão em jogo (Art. 12.1)",
        "while reds remain every colour is on the table (Art. 12.1)"),
    "invalid_config.scores": _config("scores deve ser [int, int] >= 0", "scores must be [int, int] >= 0"),
    "invalid_config.striker": _config("position.striker (0 ou 1) é obrigatório",
                                      "position.striker (0 or 1) is required"),
    "invalid_config.frames": _config("frames deve ser [int, int] entre 0 e {most}",
                                     "frames must be [int, int] from 0 to {most}"),
    # Event fields (contract section 3)
    "invalid_config.sides": _config("sides deve ser duas listas de nomes, com players os nomes dos dois lados (Art. 1)",
                                    "sides must be two lists of names, with players the two sides' names (Art. 1)"),
    "invalid_config.side_empty": _config("o lado {side} não tem jogadores (Art. 1)",
                                         "side {side} has no players (Art. 1)"),
    "invalid_config.side_too_big": _config("o lado {side} tem {count} jogadores; o máximo é {most} (Art. 1)",
                                           "side {side} has {count} players; at most {most} (Art. 1)"),
    "invalid_config.sides_count": _config(
        "um jogo tem exatamente dois lados, não {count}: cada penalidade vai a um só adversário (Art. 1, 35.1)",
        "a match has exactly two sides, not {count}: each penalty goes to one opponent (Art. 1, 35.1)"),
    "invalid_config.side_name": _config("o jogador {number} do lado {side} não tem nome (Art. 1)",
                                        "player {number} of side {side} has no name (Art. 1)"),
    "invalid_config.player_twice": _config("{name!r} aparece mais de uma vez; um jogador joga por um só lado (Art. 1)",
                                           "{name!r} is listed more than once; a player plays for one side only (Art. 1)"),
    "invalid_event.not_object": _event("esperado um objeto JSON", "expected a JSON object"),
    "invalid_event.unknown_type": _event("tipo desconhecido {type!r}", "unknown type {type!r}"),
    "invalid_event.unknown_field": _event("campo desconhecido {field!r} em {type}",
                                          "unknown field {field!r} in {type}"),
    "invalid_event.ball": _event("{field} deve ser uma bola de {lowest} a 7", "{field} must be a ball from {lowest} to 7"),
    "invalid_event.bool": _event("{field} deve ser true ou false", "{field} must be true or false"),
    "invalid_event.player": _event("{field} deve ser 0 ou 1", "{field} must be 0 or 1"),
    "invalid_event.balls": _event("{field} deve ser uma lista de bolas de 1 a 7",
                                  "{field} must be a list of balls 1 to 7"),
    "invalid_event.balls_empty": _event("{field} deve ser uma lista não vazia de bolas de 1 a 7",
                                        "{field} must be a non-empty list of balls 1 to 7"),
    "invalid_event.foul_kind": _event("tipo de falta desconhecido {kind!r}", "unknown foul kind {kind!r}"),
    "invalid_event.choice": _event("choice deve ser 'play', 'pass' ou 'retorno'",
                                   "choice must be 'play', 'pass' or 'retorno'"),
    "invalid_event.order": _event(
        "order deve dar, para cada lado, cada um de seus jogadores uma vez, sem pular nenhum"
        " (lados de {a} e {b} jogadores, Art. 1)",
        "order must give, for each side, each of its players once, skipping none"
        " (sides of {a} and {b} players, Art. 1)"),
    "invalid_event.person": _event("person deve ser o número (0, 1, …) de um jogador do lado",
                                   "person must be the number (0, 1, …) of a player of the side"),
    "wrong_phase.order_started": (
        "A ordem de jogo é fixa depois da primeira tacada da partida (Art. 1)",
        "The order of play is fixed once the frame's first stroke is played (Art. 1)"),
    "illegal_foul.person_not_in_match": (
        "O lado {side} não tem jogador {person}: a falta deve nomear um jogador do jogo (Art. 35)",
        "Side {side} has no player {person}: the foul must name a player of the match (Art. 35)"),
    "illegal_foul.person_required": (
        "Falta de quem não está na mesa: diga qual jogador do lado {side} a cometeu (Art. 42, 49)",
        "A foul by a player not at the table: say which player of side {side} committed it (Art. 42, 49)"),
    "illegal_foul.player_required": (
        "Ninguém está na mesa (sorteio ou entre partidas): diga quem cometeu a falta disciplinar (Art. 42)",
        "Nobody is at the table (a lot, or between frames): say who committed the disciplinary foul (Art. 42)"),
    "illegal_foul.person_required_off_table": (
        "Ninguém está na mesa: diga qual jogador do lado {side} cometeu a falta disciplinar (Art. 42)",
        "Nobody is at the table: say which player of side {side} committed the disciplinary foul (Art. 42)"),
    "invalid_event.players": _event("players deve ser [0], [1] ou [0, 1]", "players must be [0], [1] or [0, 1]"),
    "invalid_event.persons": _event(
        "persons deve dar, para cada lado em players, o número (0, 1, …) do jogador desclassificado"
        " (lados de {a} e {b} jogadores, Art. 54.4)",
        "persons must give, for each side in players, the number (0, 1, …) of the player disqualified"
        " (sides of {a} and {b} players, Art. 54.4)"),
    # When events can happen
    **{f"wrong_phase.{p}": (f"'{{event}}' não é permitido agora ({p.label['pt']}) (Art. {{article}})",
                            f"'{{event}}' is not allowed now ({p.label['en']}) (Art. {{article}})")
       for p in Phase if p is not Phase.MATCH_OVER},
    "wrong_phase.decision_pending": (
        "Aguardando a decisão do beneficiado; só uma falta disciplinar do outro jogador cabe agora (Art. 35)",
        "Waiting for the beneficiary's decision; only a disciplinary foul by the other player fits now (Art. 35)"),
    "match_over.only_undo": ("O jogo terminou: só é possível desfazer (Art. 54)",
                             "The match is over: only undo is possible (Art. 54)"),
    "nothing_to_undo.empty": ("Nada a desfazer", "Nothing to undo"),
    # Pots (Art. 11-14, 37, 50.1)
    "illegal_pot.not_on": ("Encaçapada ilegal: a bola da vez é {ball_on}; registre uma falta (Art. 11, 47.12)",
                           "Illegal pot: the ball on is {ball_on}; record a foul instead (Art. 11, 47.12)"),
    "illegal_pot.bonus_seven": ("Após a bola 6 que encerrou a partida só a 7 pode ser encaçapada (Art. 6.1, 50.1)",
                                "After the 6 that ended the frame only the 7 may be potted (Art. 6.1, 50.1)"),
    "illegal_pot.free_ball_with_red": (
        "Com bola livre {free_ball} e vermelha da vez só valem vermelhas e a {free_ball} (Art. 14, 47.12)",
        "With free ball {free_ball} and red on only reds and the {free_ball} count (Art. 14, 47.12)"),
    "illegal_pot.free_ball_with_colour": (
        "Com bola livre {free_ball} e bola da vez {ball_on} só valem essas duas (Art. 14, 47.12)",
        "With free ball {free_ball} and ball on {ball_on} only those two count (Art. 14, 47.12)"),
    "illegal_pot.one_colour": ("Após a vermelha encaçapa-se uma só colorida (Art. 11.1, 47.12)",
                               "After a red exactly one colour may be potted (Art. 11.1, 47.12)"),
    "illegal_pot.not_nominated": ("Foi cantada a {nominated}, não a {ball} (Art. 19, 47.17)",
                                  "The {nominated} was nominated, not the {ball} (Art. 19, 47.17)"),
    **_balls_listed("illegal_pot", "Encaçapada ilegal", "Illegal pot"),
    # Free ball (Art. 4, 36)
    "illegal_free_ball.not_offered": (
        "Bola livre não concedida: só após falta que deixa sinuca, com 'jogar' (Art. 4, 36)",
        "No free ball: only after a foul that leaves a snooker, on 'play' (Art. 4, 36)"),
    "illegal_free_ball.not_nominable": (
        "A bola {ball} não pode ser bola livre: deve ser uma colorida na mesa que não a bola da vez (Art. 4)",
        "Ball {ball} cannot be the free ball: it must be a colour on the table other than the ball on (Art. 4)"),
    # Fouls (Art. 35-49)
    "illegal_foul.seated_not_disciplinary": (
        "Só uma falta disciplinar pode ser do jogador fora da mesa (Art. 42, 49)",
        "Only a disciplinary foul can be committed by the seated player (Art. 42, 49)"),
    "illegal_foul.grave_not_disciplinary": ("Falta grave só para faltas disciplinares (Art. 43)",
                                            "A grave foul must be of a disciplinary kind (Art. 43)"),
    "illegal_foul.seated_with_balls": ("Falta do jogador fora da mesa não envolve bolas (Art. 49)",
                                       "A foul by the seated player involves no ball (Art. 49)"),
    "illegal_foul.free_ball_snooker_needs_free_ball": (
        "Sinuca com bola livre exige uma jogada de bola livre (Art. 47.16)",
        "A free-ball snooker needs a free-ball stroke (Art. 47.16)"),
    "illegal_foul.free_ball_snooker_six_seven": (
        "Com só as bolas 6 e 7 na mesa a bola livre pode ser o primeiro obstáculo (Art. 38)",
        "With only the 6 and 7 on the table the free ball may be the first obstacle (Art. 38)"),
    "illegal_foul.ball_not_on_table": ("A bola {ball} não está na mesa (Art. 45)",
                                       "Ball {ball} is not on the table (Art. 45)"),
    **_balls_listed("illegal_foul", "Falta", "Foul"),
    # Retorno (Art. 25, 26, 29)
    "retorno_not_allowed.seated": ("Não há retorno para falta de quem não está jogando (Art. 25)",
                                   "No replay for a foul by the player not at the table (Art. 25)"),
    "retorno_not_allowed.regulation": ("O regulamento do evento não concede retorno (Art. 29)",
                                       "The event regulation grants no replay (Art. 29)"),
    "retorno_not_allowed.only_seven": ("Sem retorno com só a tacadeira e a bola 7 em jogo (Art. 26.1)",
                                       "No replay with only the cue ball and the 7 left (Art. 26.1)"),
    "retorno_not_allowed.compulsory": ("Sem retorno em falta compulsória (Art. 26.4)",
                                       "No replay on a compulsory foul (Art. 26.4)"),
    "retorno_not_allowed.cannot_catch_up": (
        "Sem retorno: o beneficiado está {deficit} pontos atrás e só restam {points} possíveis (Art. 26.2)",
        "No replay: the beneficiary is {deficit} behind with only {points} points left (Art. 26.2)"),
    "retorno_not_allowed.not_called": (
        "O árbitro não anunciou 'falta e retorno' nesta falta (Art. 25.1)",
        "The referee did not call 'foul and replay' on this foul (Art. 25.1)"),
}
"""Message id -> (Portuguese template, English template); parameters by name, as in :meth:`str.format`."""


def texts(msg_id: str, **params) -> dict:
    """The message ``msg_id`` with ``params`` filled in: ``{"pt": str, "en": str}``.

    Raises:
        KeyError: no such message id, or a parameter the template names is missing.
    """
    pt, en = MESSAGES[msg_id]
    return {"pt": pt.format(**params), "en": en.format(**params)}
