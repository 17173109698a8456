"""What the desk does to a match outside the referee's log: start it, move it to another table,
record a W.O., issue a referee token. Every path (admin, API, commands) goes through here, so
the rules of the venue are enforced once:

- **one match in progress per table**: starting a match (or its first event, or ``creatematch``
  with a table) while another match is in progress on that table is refused
  (:class:`TableBusy`), and so is moving a match onto a busy table;
- **moving a match in progress asks first** (:class:`NeedsConfirmation` unless ``confirm``) and
  its tablet follows it: the credentials the old table's tablet scored it with are revoked, and
  the table's tablet (logged in with the table PIN) follows whatever match its table has now;
- **a W.O. is a result of its own** (:func:`walkover`): written on the match row and audited in
  :class:`~.models.MatchRecord`, never an engine event (the engine scores what is played);
  the state every screen reads (``log.snapshot``) then says ``match_over`` with the present
  player winning by the frames needed and ``walkover`` set.

Each refusal is an :class:`OperationRefused` (a ``SinucaError``, so every caller that already
answers the engine's refusals in Portuguese and English answers these too) and changes nothing.
"""
from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from sinuca import Phase

from . import log, outbox
from .models import Fixture, Match, MatchMember, MatchRecord, Player, RefereeCredential, Table
from .venue_rules import (  # noqa: F401 - the refusals and checks, re-exported for the desk's callers
    DOUBLE_WALKOVER, WALKOVER, NeedsConfirmation, OperationRefused, PlayerBusy, ReopenRefused, TableBusy, TableHeld,
    TableOutOfService, busy_with, check_in_service, check_may_start, check_players_free, check_table_free, is_in_progress, result_text, walkover_sentence,
    walkover_state)


def record(match: Match, kind: str, by: str, data: dict | None = None, reason: str = "") -> MatchRecord:
    """Audit one desk action on a match."""
    return MatchRecord.objects.create(match=match, kind=kind, data=data or {}, reason=reason[:300],
                                      by=by[:80])


def start_match(match: Match, lot_winner: int | None, by: str) -> None:
    """Start a match: mark it started and, when it waits for the lot (Art. 17), record the lot's
    winner (drawn here when ``lot_winner`` is None) as its first event, broadcast like a tap.
    Raises :class:`TableBusy` (nothing changed) when another match is in progress on its table,
    :class:`PlayerBusy` when one of its players is in another; starting a match already started
    changes nothing."""
    import secrets

    with transaction.atomic():
        locked = Match.objects.select_for_update().get(pk=match.pk)
        if locked.started_at is None and locked.seq == 0:
            check_may_start(locked)
            check_players_free(locked)
            Match.objects.filter(pk=match.pk).update(started_at=timezone.now())
            record(locked, "start", by)
    snap = log.snapshot(match.pk)
    if snap.state["phase"] == Phase.LOT and snap.seq == 0:
        winner = secrets.randbelow(2) if lot_winner is None else lot_winner
        log.append_event(match.pk, {"type": "lot", "player": winner}, expected_seq=0, entered_by=by)


def move_match(match: Match, table: Table | None, by: str, *, confirm: bool = False) -> Match:
    """Put ``match`` on ``table`` (None: on no table). A match in progress moves only with
    ``confirm`` (:class:`NeedsConfirmation`; not asked off a table out of service) and only to a
    free table (:class:`TableBusy`); never onto a table out of service (:class:`TableOutOfService`); the
    old table's tablet credentials for it are revoked, so the old table's tablet stops scoring
    it and, following its table, goes on to that table's next match, while the new table's
    tablet is sent to it. Audited (``move``). Returns the row as saved."""
    from .tables import TABLE_CREDENTIAL

    with transaction.atomic():
        locked = Match.objects.select_for_update(of=("self",)).select_related("table").get(pk=match.pk)
        if locked.table_id == (table.pk if table else None):
            return locked
        check_in_service(table)  # nothing goes onto a table out of service, in progress or not
        running = is_in_progress(locked)
        if running:
            # off a table out of service the move is the way on: asked for in one step
            if not confirm and not (locked.table is not None and locked.table.out_of_service):
                raise NeedsConfirmation(locked)
            check_table_free(table, locked.pk)
        old = locked.table
        Match.objects.filter(pk=locked.pk).update(table=table)
        RefereeCredential.objects.filter(match=locked, label__startswith=TABLE_CREDENTIAL,
                                         revoked=False).update(revoked=True)
        record(locked, "move", by, {"from": old.pk if old else None, "to": table.pk if table else None,
                                    "in_progress": running})
        locked.table = table
    _touch_boards(locked)
    return locked


def walkover(match: Match, absent: list[int], by: str, reason: str = "") -> Match:
    """Record a W.O.: ``absent`` is ``[0]``, ``[1]`` (that player did not show up: the other wins
    by the frames needed) or ``[0, 1]`` (both absent: nobody wins). Allowed until a frame has been
    played (after the lot, with no point scored); afterwards the referee's concession is the way
    (Art. 54.2), and a finished match is refused. ``reason`` is required (``reason_required``):
    the súmula prints it, with the time the match was called and the competition's W.O.
    tolerance, which the audit record (``walkover``: ``absent``, ``winner``, and ``called_at``,
    ``tolerance_minutes`` for a competition's match) keeps as they were when it was given. The
    screens and feeds are pushed. Raises :class:`OperationRefused`; nothing changed then."""
    absent = sorted(set(absent)) if isinstance(absent, (list, tuple)) else []
    if not absent or any(a not in (0, 1) for a in absent):
        raise OperationRefused("bad_request", "Ausente deve ser [0], [1] ou [0, 1]",
                               "Absent must be [0], [1] or [0, 1]")
    reason = " ".join(str(reason or "").split())
    if not reason:
        raise OperationRefused("reason_required", "Informe o motivo do W.O. (ex.: não compareceu no prazo de tolerância)",
                               "Give the reason for the walkover (e.g. did not appear within the tolerance)")
    # No match lock (issue 15's one lock order: the caller holds a connection, and may be inside
    # a transaction that cannot give it back): the row lock orders the W.O. with the referee's
    # appends, which take it too and refuse a match with a W.O. The cached engine stays right:
    # a W.O. changes neither the log nor the config, and ``log.snapshot`` shows it over the state.
    with transaction.atomic():
        locked = Match.objects.select_for_update().get(pk=match.pk)
        if locked.walkover is not None:
            raise OperationRefused("match_over", f"O jogo {locked.pk} já terminou por W.O.",
                                   f"Match {locked.pk} already ended by a walkover")
        state = log.snapshot(locked.pk).state
        if state["phase"] == Phase.MATCH_OVER:
            raise OperationRefused("match_over", f"O jogo {locked.pk} já terminou",
                                   f"Match {locked.pk} is already over")
        played = any(state["frames"]) or any(state["scores"]) or state.get("history")
        if played:
            raise OperationRefused(
                "walkover_after_play",
                "W.O. só antes de o jogo começar; com o jogo em andamento, o árbitro registra a desistência (Art. 54.2)",
                "A walkover only before play; once play has started the referee records a concession (Art. 54.2)")
        winner = (1 - absent[0]) if len(absent) == 1 else None
        wo = {"absent": absent, "winner": winner}
        Match.objects.filter(pk=locked.pk).update(walkover=wo, started_at=locked.started_at or timezone.now())
        data = {**wo, **_call_of(locked)}
        record(locked, "walkover", by, data, reason)
        locked.walkover = wo
        outbox.record_walkover(locked, data, reason)
    locked.refresh_from_db()
    transaction.on_commit(lambda: log.publish_again(locked.pk))
    return locked


def _call_of(match: Match) -> dict:
    """When a competition's match was called (``called_at``, ISO) and the W.O. tolerance its
    file gives (``tolerance_minutes``), for the W.O.'s record; ``{}`` for a match of no
    competition."""
    fx = Fixture.objects.filter(match_id=match.pk).select_related("competition").first()
    if fx is None:
        return {}
    out = {"tolerance_minutes": (fx.competition.spec or {}).get("wo_tolerance_minutes")}
    if fx.called_at is not None:
        out["called_at"] = fx.called_at.isoformat()
    return {k: v for k, v in out.items() if v is not None}


def _renamed_config(match: Match, player: Player, old: str, new: str) -> tuple[dict, list]:
    """``(config, renamed sides)`` of ``match`` with ``player`` renamed ``old`` → ``new``: his
    side's name where he is the side; in a doubles match (:class:`MatchMember`) his place in
    ``sides``, and the side's name when it is its persons' names joined ("Ana / Carla"), joined
    again. ``renamed sides``: ``[(side, old side name, new side name)]``."""
    import copy

    cfg = copy.deepcopy(match.config)
    for i, side in enumerate((match.player_a_id, match.player_b_id)):
        if side == player.pk and cfg["players"][i] == old:
            cfg["players"][i] = new
            if cfg.get("sides") and list(cfg["sides"][i]) == [old]:
                cfg["sides"][i] = [new]
    renamed_sides = []
    for m in MatchMember.objects.filter(match_id=match.pk, player=player):
        people = cfg.get("sides") or ()
        if m.side < len(people) and m.order < len(people[m.side]) and people[m.side][m.order] == old:
            joined = " / ".join(people[m.side])
            people[m.side][m.order] = new
            if cfg["players"][m.side] == joined:
                cfg["players"][m.side] = " / ".join(people[m.side])
                renamed_sides.append((m.side, joined, cfg["players"][m.side]))
    return cfg, renamed_sides


def _unfinished_matches_of(player: Player):
    """The pks of the matches ``player`` plays in (as a side or a person of one), no W.O."""
    return (Match.objects.filter(Q(player_a=player) | Q(player_b=player) | Q(members__player=player),
                                 walkover__isnull=True)
            .distinct().order_by("pk").values_list("pk", flat=True))


def rename_refusal(player: Player, new: str) -> str | None:
    """Why ``player`` (stored, with his current name) cannot be renamed ``new``, or None: the
    name holds the sides' separator " / ", or one of his unfinished matches would no longer be
    a match the engine takes (both sides, or two persons of a side, of the same name: Art. 1's
    two sides must be told apart). Translated by the active language."""
    import sinuca
    from django.utils.translation import gettext as _

    old = Player.objects.filter(pk=player.pk).values_list("name", flat=True).first()
    if not old or old == new:
        return None  # a doubles side's own row keeps its "Ana / Carla"
    if "/" in new:
        return _("O nome não pode ter “/”: é o que separa os jogadores de uma dupla.")
    for pk in _unfinished_matches_of(player):
        match = Match.objects.get(pk=pk)
        if log.snapshot(pk).state["phase"] == Phase.MATCH_OVER:
            continue
        cfg, _sides = _renamed_config(match, player, old, new)
        try:
            sinuca.Match(cfg)
        except sinuca.SinucaError:
            return _("Com esse nome o jogo nº %(pk)s (%(a)s × %(b)s) teria dois jogadores iguais.") % {
                "pk": pk, "a": match.config["players"][0], "b": match.config["players"][1]}
    return None


def player_renamed(player: Player, old: str, by: str) -> list[int]:
    """A player's name changed (the admin): each of his unfinished matches takes the new name in
    its config (:func:`_renamed_config`), which the screens, feeds and descriptions read the
    names from, the logged events' descriptions written again with it (:func:`log.redescribe`)
    (a finished match keeps the name it was played under, as its súmula does); a
    doubles side's row named as the side is renamed with it. Audited (``rename``); after
    commit each is rendered again and pushed as new (:func:`log.publish_again`), with no event.
    A match whose config the engine would refuse with the new name is left as it was (the admin
    refuses such a rename first: :func:`rename_refusal`). Returns the pks of the matches changed."""
    import sinuca

    new = player.name
    if not old or old == new:
        return []
    changed = []
    for pk in _unfinished_matches_of(player):
        # Inside the admin's transaction, which holds its connection to the end: no match lock
        # here (issue 15's one lock order). The row lock orders the rename with the referee's
        # appends; an engine cached with the old names (here or in another worker) is used no
        # more once the row's config changed (``log`` keys its cache on the config too).
        with transaction.atomic():
            locked = Match.objects.select_for_update().get(pk=pk)
            if log.snapshot(pk).state["phase"] == Phase.MATCH_OVER:
                continue
            cfg, renamed_sides = _renamed_config(locked, player, old, new)
            if cfg == locked.config:
                continue
            try:
                sinuca.Match(cfg)
            except sinuca.SinucaError:
                continue
            Match.objects.filter(pk=pk).update(config=cfg)
            locked.config = cfg
            log.redescribe(locked)  # the events' words name him as he is now called
            for side, was, now in renamed_sides:  # the side's row, named as the side
                Player.objects.filter(pk=(locked.player_a_id, locked.player_b_id)[side], name=was[:80]) \
                    .update(name=now[:80])
            record(locked, "rename", by, {"player": player.pk, "from": old, "to": new})
        log.forget(pk)  # memory only: the engine with the old names would not be used again
        transaction.on_commit(lambda pk=pk: log.publish_again(pk))
        changed.append(pk)
    return changed


def issue_token(match: Match, by: str, label: str = "token") -> str:
    """A new referee API token for ``match`` (older ones keep working until revoked in the
    admin); returned once, only its hash is kept. Audited (``token``)."""
    cred, token, _pin = RefereeCredential.issue(match, label=label)
    record(match, "token", by, {"credential": cred.pk})
    return token


def _touch_boards(match: Match) -> None:
    """A move changes what the boards show: the boards' fingerprint notices the table change by
    itself (``live.boards.fingerprint`` sums the table ids)."""
