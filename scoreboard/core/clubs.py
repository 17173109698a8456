"""Clubs registered at the federation, each with a stable id of its own (``federation_id``).

A club is registered alone (:func:`register_club`, ``manage.py federation register-clubs``) or
with a player of it (``federation.register``: the player's club is registered when new); venues
pull the clubs with the players (``federation.registry``/``apply_registry``) and upsert them by
that id. A player's club stays the text of his ``club`` field; which club it is goes by the name
as names are compared for clashes (``names.identity``: NFC, trimmed, spaces collapsed,
case-folded), so "Clube A" and " clube  a" are one club and cannot be registered twice. A
rename (:func:`rename_club`, or a pull of a club renamed at the federation) renames the club and
writes the new name into the ``club`` of each of its players.

Refusals are :class:`ClubRefused`, in Portuguese and English, and store nothing.
"""
from __future__ import annotations

from django.db import IntegrityError, transaction

from . import names
from .models import Club, MatchRecord, Player

ID_MAX = 40  # the federation id's field


class ClubRefused(ValueError):
    """A club that cannot be registered or renamed as asked: ``pt`` and ``en`` the reason;
    ``str()`` is ``"<pt> / <en>"``."""

    def __init__(self, pt: str, en: str) -> None:
        super().__init__(f"{pt} / {en}")
        self.pt, self.en = pt, en


def clean_name(value) -> str:
    """The club name to store for ``value`` (``names.clean``, at most 60 characters); raises
    :class:`ClubRefused` for one that is empty, too long, not text or holds a control or
    invisible character."""
    try:
        return names.clean(value, names.CLUB, ("nome do clube", "club name"))
    except names.NameRefused as e:
        raise ClubRefused(e.pt, e.en) from e


def clean_id(value) -> str | None:
    """The federation id to store for ``value`` (a club's or a player's), trimmed; None for None
    or "" (one is made). Raises :class:`ClubRefused` for one that is not text, longer than
    :data:`ID_MAX`, or holds a space or an unprintable character."""
    if value is None or value == "":
        return None
    text = value.strip() if isinstance(value, str) else ""
    if not text or len(text) > ID_MAX or not text.isprintable() or any(c.isspace() for c in text):
        raise ClubRefused(f"Id na federação inválido: {value!r} (1 a {ID_MAX} caracteres, sem espaços)",
                          f"Invalid federation id: {value!r} (1 to {ID_MAX} characters, no spaces)")
    return text


def of_name(name) -> Club | None:
    """The club whose name is ``name`` as names are compared for clashes, or None."""
    key = names.identity(name)
    return Club.objects.filter(key=key).first() if key else None


def _new_id(club: Club) -> str:
    """``C`` and six digits of the club's pk; a suffix when a given id took that one already."""
    fid, n = f"C{club.pk:06d}", 1
    while Club.objects.filter(federation_id=fid).exists():
        n += 1
        fid = f"C{club.pk:06d}-{n}"
    return fid


def _taken(federation_id: str, but: Club | None = None) -> None:
    other = Club.objects.filter(federation_id=federation_id).exclude(pk=getattr(but, "pk", None)).first()
    if other is not None:
        raise ClubRefused(f"O id {federation_id} já é do clube {other.name}",
                          f"The id {federation_id} belongs to the club {other.name} already")


def register_club(name, federation_id=None) -> Club:
    """Register the club ``name`` at the federation with ``federation_id`` (default ``C`` and six
    digits of its pk) and return it; a club of that name without an id (none is made so here,
    but a row may be) gets the id. Raises :class:`ClubRefused`, nothing stored, for a bad name
    (:func:`clean_name`), a name registered already (case, spaces and Unicode form aside:
    "Clube A" and " clube  a" are one club), and a bad id or one another club has."""
    name, fid = clean_name(name), clean_id(federation_id)
    try:
        with transaction.atomic():
            club = of_name(name)
            if club is not None and club.federation_id:
                raise ClubRefused(f"Clube já registrado: {club.name} ({club.federation_id})",
                                  f"Club registered already: {club.name} ({club.federation_id})")
            if fid:
                _taken(fid, club)
            if club is None:
                club = Club.objects.create(name=name)
            club.federation_id = fid or _new_id(club)
            club.save(update_fields=["federation_id"])
    except IntegrityError as e:  # registered by another request meanwhile
        raise ClubRefused(f"Clube já registrado: {name}", f"Club registered already: {name}") from e
    return club


def club_for(name) -> Club:
    """The registered club of ``name`` (as names are compared), registered now when new: a
    player's registration (``federation.register``). Raises :class:`ClubRefused` for a bad name."""
    club = of_name(clean_name(name))
    if club is not None and club.federation_id:
        return club
    return register_club(name)


def follow_renames(renamed: dict[str, str]) -> int:
    """Write each renamed club's new name into its players' ``club``: ``renamed`` maps a club's
    old key (``names.identity`` of its old name) to its new name; every player whose club text
    has that key gets the new name (one pass, so two clubs swapping names swap their players
    too). Returns the players changed."""
    if not renamed:
        return 0
    changed: dict[str, list[int]] = {}
    for pk, club in Player.objects.exclude(club="").values_list("pk", "club").iterator():
        new = renamed.get(names.identity(club))
        if new is not None and new != club:
            changed.setdefault(new, []).append(pk)
    return sum(Player.objects.filter(pk__in=pks).update(club=new) for new, pks in changed.items())


def rename_club(federation_id, name, by: str = "cmd") -> Club:
    """Rename the registered club ``federation_id`` to ``name``; its players' ``club`` follows
    (:func:`follow_renames`) and the act is audited (a ``rename`` record ``{"club", "from",
    "to"}`` by ``by``). Raises :class:`ClubRefused`, nothing stored, for an unknown id, a bad
    name, or the name of another club (as names are compared)."""
    fid, name = clean_id(federation_id), clean_name(name)
    with transaction.atomic():
        club = Club.objects.select_for_update().filter(federation_id=fid).first() if fid else None
        if club is None:
            raise ClubRefused(f"Clube desconhecido: {federation_id}", f"Unknown club: {federation_id}")
        other = of_name(name)
        if other is not None and other.pk != club.pk:
            raise ClubRefused(f"Já existe o clube {other.name} ({other.federation_id or '—'})",
                              f"There is a club {other.name} ({other.federation_id or '—'}) already")
        old_name, old_key = club.name, club.key
        if name == old_name:
            return club
        club.name = name
        club.save(update_fields=["name"])
        follow_renames({old_key: name})
        MatchRecord.objects.create(match=None, kind="rename", by=by[:80],
                                   data={"club": fid, "from": old_name, "to": name})
    return club


__all__ = ["ClubRefused", "clean_id", "clean_name", "club_for", "follow_renames", "of_name", "register_club", "rename_club"]
