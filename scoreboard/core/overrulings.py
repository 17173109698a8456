"""A protest's overruling at the federation: a result of its own beside the venue's record.

A match belongs to the venue that scored it; the federation never rewrites it (its events, W.O.
and correction stay as the venue sent them). When a protest is upheld at the federation, its
staff (``access`` rule ``match.overrule``) records ``{winner, frames, reason}`` for the match as a
``MatchRecord`` of kind ``overruling`` (append-only: the latest one counts). The careers, the
head-to-heads and the competitions' results, hence the season's ranking, read the overruling
result where one exists (:func:`of_matches`), and the player's page marks the match. Webhook
subscribers get it as a ``result`` news (key ``overruling:<match>:<record>``, its data with
``overruled``: the reason).

Refusals are ``TournamentError`` with a Portuguese and an English message, and store nothing.
"""
from __future__ import annotations

from django.db.models import Max

from sinuca import Phase
from tournament import TournamentError

from . import names
from .models import Match, MatchRecord

KIND = "overruling"
REASON_MAX = 300


def _refuse(code: str, pt: str, en: str) -> TournamentError:
    return TournamentError(code, pt, en)


def _decided(match: Match) -> bool:
    if match.walkover or match.correction:
        return True
    if not match.seq:
        return False
    from . import log

    return log.snapshot(match.pk).state.get("phase") == Phase.MATCH_OVER.value


def check(match_id, data) -> tuple[Match, dict, str]:
    """The match and the overruling ``{"winner", "frames"}`` and reason ``data`` asks for, or a
    ``TournamentError``: ``unknown_match``, ``not_a_venue_match`` (the federation's own matches
    are corrected at its desk), ``not_decided``, ``invalid_winner`` (not 0 or 1),
    ``invalid_frames`` (the winner must have the frames to win the match, the loser fewer),
    ``reason_required``, ``reason_too_long``, ``invalid_reason`` (a character a name may not
    hold either, ``names.REFUSED``: a control character, a line break included, or an invisible
    format character such as a bidi override)."""
    match = None
    if isinstance(match_id, int) and not isinstance(match_id, bool) and 0 < match_id < 2 ** 63:
        match = Match.objects.filter(pk=match_id, rehearsal=False).first()
    if match is None:
        raise _refuse("unknown_match", f"Jogo desconhecido: {match_id!r}", f"Unknown match: {match_id!r}")
    if match.origin_venue_id is None:
        raise _refuse("not_a_venue_match",
                      f"O jogo {match.pk} não veio de uma sede: corrija-o na mesa de controle",
                      f"Match {match.pk} was not scored by a venue: correct it at the desk")
    if not isinstance(data, dict):
        raise _refuse("bad_overruling", "Esperado {winner, frames, reason}", "Expected {winner, frames, reason}")
    if not _decided(match):
        raise _refuse("not_decided", f"O jogo {match.pk} ainda não tem resultado",
                      f"Match {match.pk} has no result yet")
    winner = data.get("winner")
    if isinstance(winner, bool) or winner not in (0, 1):
        raise _refuse("invalid_winner", f"Vencedor deve ser 0 (lado A) ou 1 (lado B), não {winner!r}",
                      f"The winner must be 0 (side A) or 1 (side B), not {winner!r}")
    k = int(match.config.get("frames_to_win") or 1)
    frames = data.get("frames")
    ok = (isinstance(frames, list) and len(frames) == 2
          and all(isinstance(f, int) and not isinstance(f, bool) for f in frames)
          and frames[winner] == k and 0 <= frames[1 - winner] < k)
    if not ok:
        raise _refuse("invalid_frames",
                      f"Placar impossível para um jogo de {k} partida(s) para vencer: {frames!r} "
                      f"(o vencedor tem {k}, o outro menos)",
                      f"Impossible frames for a match of {k} frame(s) to win: {frames!r} "
                      f"(the winner has {k}, the other fewer)")
    reason = data.get("reason")
    reason = reason.strip() if isinstance(reason, str) else ""
    if not reason:
        raise _refuse("reason_required", "Diga o motivo (a decisão do protesto)",
                      "Give the reason (the protest's decision)")
    if len(reason) > REASON_MAX:
        raise _refuse("reason_too_long", f"Motivo com mais de {REASON_MAX} caracteres",
                      f"Reason longer than {REASON_MAX} characters")
    try:
        # the reason is printed on the official súmula: no control character (a line break
        # included: it is one line there), no bidi override that would mirror the sheet's text
        names.refuse_characters(reason, ("motivo", "reason"))
    except names.NameRefused as e:
        raise _refuse("invalid_reason", e.pt, e.en) from e
    return match, {"winner": winner, "frames": list(frames)}, reason


def overrule(match_id, data, by: str) -> MatchRecord:
    """Store the overruling ``data`` (``{"winner", "frames", "reason"}``) of match ``match_id``
    by ``by`` (``user:<name>``), checked first (:func:`check`); the match's own row is not
    touched. Returns the record (its subscribers' news is ``webhooks.overruled``'s, which the
    caller asks for: the webhooks read the seasons, which read the competitions, which read this)."""
    match, result, reason = check(match_id, data)
    return MatchRecord.objects.create(match=match, kind=KIND, data=result, reason=reason, by=by[:80])


def of_matches(pks) -> dict[int, dict]:
    """match pk -> its latest overruling ``{"winner", "frames", "reason", "at"}``, for those of
    ``pks`` that have one (one query; none when ``pks`` is empty)."""
    pks = list(pks)
    if not pks:
        return {}
    latest = (MatchRecord.objects.filter(kind=KIND, match_id__in=pks).values("match_id")
              .annotate(last=Max("pk")).values_list("last", flat=True))
    return {r.match_id: {**r.data, "reason": r.reason, "at": r.at.isoformat()}
            for r in MatchRecord.objects.filter(pk__in=list(latest))}


__all__ = ["KIND", "check", "of_matches", "overrule"]
