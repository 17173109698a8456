"""Where a match stands in its competition, as data: the competition's name, the match's number in
it, the stage, the round and the group, each in Portuguese and English.

``Match.competition`` is a text written once when the match is made ("Etapa de Santos · J1 ·
Grupo A · Jogo de abertura"), in Portuguese: fine for a list in the admin, wrong for an English
feed or súmula, and useless to a tool that wants the group alone. The feeds and the súmula read
these fields instead, from the competition's plan (``tournament``), in the output's language.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from tournament.labels import group_label, round_label, stage_label

from . import competitions, teams
from .models import Fixture, Match

EMPTY = {"pt": "", "en": ""}


@dataclass(frozen=True)
class Placement:
    """A match's place in its competition. ``competition`` the competition's name (a match of no
    competition: its own ``Match.competition`` text); ``fixture`` its number in the competition
    (``J3`` / ``M3``; a team rubber ``C1 · Jogo 2 (duplas): Home × Away``); ``stage`` (``Fase de
    grupos`` / ``Group stage``, ``Mata-mata`` / ``Knockout``), ``round`` (``Rodada 1``,
    ``Semifinal`` / ``Semi-final``, ``Jogo de abertura`` / ``Opening match``) and ``group``
    (``Grupo A`` / ``Group A``): ``{"pt", "en"}``, empty strings when the match has none."""

    competition: str
    fixture: dict = field(default_factory=lambda: EMPTY)
    stage: dict = field(default_factory=lambda: EMPTY)
    round: dict = field(default_factory=lambda: EMPTY)
    group: dict = field(default_factory=lambda: EMPTY)
    venue: str = ""  # the competition file's "venue" (venue and city), empty when none

    def texts(self, lang: str) -> dict[str, str]:
        """``{"competition", "fixture", "stage", "round", "group"}`` in ``lang`` (``pt``/``en``)."""
        return {"competition": self.competition, "fixture": self.fixture[lang], "stage": self.stage[lang],
                "round": self.round[lang], "group": self.group[lang]}


def of_match(match: Match) -> Placement:
    """The :class:`Placement` of ``match`` (one query for its fixture; the plan is cached)."""
    fx = Fixture.objects.select_related("competition").filter(match_id=match.pk).first()
    if fx is None:
        return Placement(match.competition or "")
    comp = fx.competition
    venue = str((comp.spec or {}).get("venue") or "")
    return _PLACES[competitions.format_of(comp).kind](comp, fx, venue)


def _team_place(comp, fx: Fixture, venue: str) -> Placement:
    plan = teams.plan_of(comp)
    tie, index = plan.rubber(fx.number)
    home, away = plan.comp.team(tie.home).name, plan.comp.team(tie.away).name
    return Placement(comp.name, fixture={lang: f"{teams.rubber_label(plan, tie, index, lang)}: {home} × {away}"
                                          for lang in ("pt", "en")},
                     round=round_label(f"round_{tie.round}"), venue=venue)


def _individual_place(comp, fx: Fixture, venue: str) -> Placement:
    plan = competitions.plan_of(comp)
    f = next((f for f in plan.fixtures if f.id == fx.number), None)
    if f is None:
        return Placement(comp.name, venue=venue)
    return Placement(comp.name, fixture={"pt": f"J{f.id}", "en": f"M{f.id}"},
                     stage=stage_label(competitions.spec_of(comp).stages, f.stage),
                     round=round_label(f.round_name), group=group_label(f.group), venue=venue)


_PLACES = {"individual": _individual_place, "team": _team_place}
"""Where a match stands in its competition, for each format (``competitions.Format.kind``)."""
