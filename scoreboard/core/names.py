"""One check for every name a screen shows (player, club, table, competition, team, venue,
sponsor, referee), on every path that stores one: the admin's forms (through :class:`NameField`),
the desk's API, the management commands, the match and competition files.

A name is stored NFC-normalised, trimmed, with its runs of spaces made one space. Refused, with a
message in Portuguese and English and nothing stored: an empty name, a name longer than its
field, and any character that is a control (Cc: tab, newline, NUL), a format character (Cf: the
bidi overrides and isolates such as U+202E that mirror the text around them, the zero-width
U+200B/U+200C/U+200D/U+2060 and U+FEFF that make "Bia\u200b Lima" a second "Bia Lima"), a private-use
or surrogate code point (Co, Cs), an unassigned one (Cn) or a line or paragraph separator (Zl, Zp).
"""
from __future__ import annotations

import unicodedata

from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.db import models

REFUSED = {
    "Cc": ("caractere de controle", "control character"),
    "Cf": ("caractere invisível de formatação (direção do texto ou largura zero)",
           "invisible format character (text direction or zero width)"),
    "Co": ("caractere de uso privado", "private-use character"),
    "Cs": ("caractere substituto", "surrogate character"),
    "Cn": ("caractere não atribuído", "unassigned character"),
    "Zl": ("separador de linha", "line separator"),
    "Zp": ("separador de parágrafo", "paragraph separator"),
}
"""Unicode general categories a name may not contain: category -> (pt, en) of the refusal."""


class NameRefused(ValueError):
    """A name that cannot be stored: ``pt``, ``en`` the reason; ``str()`` is ``"<pt> / <en>"``."""

    def __init__(self, pt: str, en: str) -> None:
        self.pt, self.en = pt, en
        super().__init__(f"{pt} / {en}")


def normal(value: str) -> str:
    """``value`` NFC-normalised, trimmed, every run of spaces (U+0020, the no-break and the other
    Unicode spaces) one U+0020 (no check)."""
    return " ".join(unicodedata.normalize("NFC", value).split())


def identity(value) -> str:
    """The key two names are the same person (or table) by, for clash checks: :func:`normal`,
    then case-folded (``str.casefold``) and NFC again (folding may decompose): "José  Araújo",
    "jose araújo" in NFD and " JOSÉ ARAÚJO " are one key. "" for a value that is not text."""
    if not isinstance(value, str):
        return ""
    return unicodedata.normalize("NFC", normal(value).casefold())


def refuse_characters(value: str, what: tuple[str, str] = ("nome", "name")) -> None:
    """Raise :class:`NameRefused` for the first character of ``value`` in a :data:`REFUSED`
    category, named with its code point and its position (from 1): a name's check, and any
    other text an official sheet prints (an overruling's reason). ``what`` names the field."""
    for i, ch in enumerate(value, 1):
        cat = unicodedata.category(ch)
        if cat in REFUSED:
            why_pt, why_en = REFUSED[cat]
            raise NameRefused(f"{what[0]}: {why_pt} U+{ord(ch):04X} na posição {i} não é aceito",
                              f"{what[1]}: {why_en} U+{ord(ch):04X} at position {i} is not accepted")


def clean(value, max_length: int, what: tuple[str, str] = ("nome", "name")) -> str:
    """The name to store for ``value``: :func:`normal`, after refusing (:class:`NameRefused`) a
    value that is not text, has a character of a :data:`REFUSED` category (named with its code
    point and position), is empty, or is longer than ``max_length`` characters. ``what`` names
    the field (pt, en)."""
    pt, en = what
    if not isinstance(value, str):
        raise NameRefused(f"{pt}: deve ser um texto", f"{en}: must be text")
    if len(value) > 4 * max_length:  # refused before it is scanned or normalised
        raise NameRefused(f"{pt}: mais de {max_length} caracteres ({len(value)})",
                          f"{en}: more than {max_length} characters ({len(value)})")
    refuse_characters(value, what)
    name = normal(value)
    if not name:
        raise NameRefused(f"{pt}: vazio", f"{en}: empty")
    if len(name) > max_length:
        raise NameRefused(f"{pt}: mais de {max_length} caracteres ({len(name)})",
                          f"{en}: more than {max_length} characters ({len(name)})")
    return name


def check(value, max_length: int, what: tuple[str, str] = ("nome", "name")) -> str | None:
    """Why ``value`` cannot be stored as a name (:func:`clean`), or None when it can."""
    try:
        clean(value, max_length, what)
    except NameRefused as e:
        return str(e)
    return None


class NameField(models.CharField):
    """A ``CharField`` holding a name: a model's ``full_clean`` (every admin form) stores it
    :func:`normal` and refuses it as :func:`clean` does (``ValidationError``, code
    ``bad_name``). A blank field may stay empty."""

    def deconstruct(self):
        # to the database it is a CharField: no migration, no table rebuilt
        name, _path, args, kwargs = super().deconstruct()
        return name, "django.db.models.CharField", args, kwargs

    def formfield(self, **kwargs):
        # the length is refused by validate(), in both languages, with the other refusals
        field = super().formfield(**kwargs)
        field.validators = [v for v in field.validators if not isinstance(v, MaxLengthValidator)]
        return field

    def to_python(self, value):
        value = super().to_python(value)
        if not value:
            return value
        return value if check(value, self.max_length) else normal(value)  # else validate() says why

    def validate(self, value, model_instance) -> None:
        super().validate(value, model_instance)
        if value:
            try:
                clean(value, self.max_length, ("nome", "name"))
            except NameRefused as e:
                raise ValidationError(str(e), code="bad_name") from e


# the longest of each name a competition file holds (the fields they are stored in)
PLAYER, CLUB, TABLE, COMPETITION = 80, 60, 40, 120


def competition_file(data):
    """A competition file (``createcompetition``'s JSON, singles or teams) with every name in it
    :func:`clean`: the competition's and the venue's, each player's and club, each table's, each
    team's with its club and players. Raises :class:`NameRefused` naming the entry; anything
    that is not where a name goes is left for the file's own checks, and so is the length of the
    names ``core.competitions._fits`` measures (the competition's, the entries', the tables')."""
    if not isinstance(data, dict):
        return data
    out = dict(data)

    def one(value, limit, pt, en, fits_checked=False):
        if isinstance(value, str) and fits_checked and len(value.strip()) > limit:
            return value  # core.competitions._fits says it is too long, in its words
        return clean(value, limit, (pt, en)) if value is not None else value

    if "name" in out:
        out["name"] = one(out["name"], COMPETITION, "nome da competição", "competition name", True)
    if out.get("venue"):
        out["venue"] = one(out["venue"], COMPETITION, "local", "venue")

    def people(rows, where_pt, where_en, fits=False):
        if not isinstance(rows, list):
            return rows
        cleaned = []
        for i, p in enumerate(rows, 1):
            if isinstance(p, str):
                p = one(p, PLAYER, f"{where_pt}jogador {i}", f"{where_en}player {i}", fits)
            elif isinstance(p, dict):
                p = dict(p)
                if isinstance(p.get("name"), str):
                    p["name"] = one(p["name"], PLAYER, f"{where_pt}jogador {i}", f"{where_en}player {i}", fits)
                if p.get("club"):
                    p["club"] = one(p["club"], CLUB, f"{where_pt}clube do jogador {i}", f"{where_en}club of player {i}",
                                    fits)
            cleaned.append(p)
        return cleaned

    out["players"] = people(out.get("players"), "", "", True) if "players" in out else out.get("players")
    if "players" not in data:
        out.pop("players")
    if isinstance(out.get("tables"), list):
        tables = []
        for i, t in enumerate(out["tables"], 1):
            if isinstance(t, str):
                t = one(t, TABLE, f"mesa {i}", f"table {i}", True)
            elif isinstance(t, dict) and isinstance(t.get("name"), str):
                t = {**t, "name": one(t["name"], TABLE, f"mesa {i}", f"table {i}", True)}
            tables.append(t)
        out["tables"] = tables
    if isinstance(out.get("teams"), list):
        teams = []
        for i, t in enumerate(out["teams"], 1):
            if isinstance(t, dict):
                t = dict(t)
                if isinstance(t.get("name"), str):
                    t["name"] = one(t["name"], CLUB, f"equipe {i}", f"team {i}")
                if t.get("club"):
                    t["club"] = one(t["club"], CLUB, f"clube da equipe {i}", f"club of team {i}")
                if "players" in t:
                    t["players"] = people(t["players"], f"equipe {i}, ", f"team {i}, ")
            teams.append(t)
        out["teams"] = teams
    return out


def clean_instance(sender, instance, **kwargs) -> None:
    """``pre_save`` of a model with :class:`NameField` fields: each non-empty one stored
    :func:`clean` (raises :class:`NameRefused`, nothing stored), whatever path saves it."""
    for f in instance._meta.concrete_fields:
        if isinstance(f, NameField):
            value = getattr(instance, f.attname)
            if value:
                setattr(instance, f.attname, clean(value, f.max_length, (f"{f.name}", f"{f.name}")))
