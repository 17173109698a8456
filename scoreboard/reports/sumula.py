"""The official score sheet (súmula) of a match, as CSV and as PDF (reportlab), from its log.

Both are built from :func:`sheet`, which reads the statistics fold (``stats.py``): players,
referee, table, frame scores, the winner, every foul with its article, warnings and
disqualifications, and the full event list with the time each event was entered. Texts follow the
active language (Portuguese by default); the engine's descriptions come in both.
"""
from __future__ import annotations

import csv
import io
import threading
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

import sinuca
from presentation import labels
from sinuca import rulebook

from ..core import overrulings, stages
from ..core.i18n import engine_lang, pick
from ..core.venue_rules import result_text, walkover_sentence
from ..core.models import Match
from . import stats as stats_mod


def ended_by_label(code: str | None) -> str:
    """How a frame ended (engine ``history.ended_by``), in the engine's words with the article;
    "—" for a frame still in play."""
    return "—" if code is None else pick(labels.frame_end_text(code))


def result_label(code: str | None) -> str:
    """How the match ended (engine ``match_result``), in the engine's words with the article."""
    return pick(result_text(code))


def sanction_label(what: str) -> str:
    """A sanction of the engine (warning, disqualification) or a withdrawal, in words."""
    if what == "concede_match":
        return _("abandono do jogo")
    return pick(sinuca.Sanction(what).label)


def event_type_label(code: str) -> str:
    """An event's type (contract section 3) in words, for the súmula's event list."""
    return {
        "lot": _("sorteio"),
        "pot": _("encaçapada"),
        "no_pot": _("sem ponto"),
        "foul": _("falta"),
        "decision": _("decisão"),
        "stalemate_warning": _("aviso de impasse"),
        "restart_frame": _("bolas recolocadas"),
        "concede": _("desistência da partida"),
        "next_frame": _("próxima partida"),
        "concede_match": _("abandono do jogo"),
        "disqualify": _("desclassificação"),
        "undo": _("desfazer"),
        "order": _("ordem de jogo"),  # doubles (Art. 1)
    }.get(code, code)


def clock(at) -> str:
    """``HH:MM:SS`` in the event's local time zone."""
    return timezone.localtime(at).strftime("%H:%M:%S") if at else ""


def day(at, lang: str) -> str:
    """The date in the sheet's language: ``01/12/2026`` (pt), ``2026-12-01`` (en); local time zone."""
    if not at:
        return "—"
    t = timezone.localtime(at)
    return t.strftime("%d/%m/%Y") if lang == "pt" else t.strftime("%Y-%m-%d")


def time_with_zone(at) -> str:
    """``14:05 (UTC-03:00, America/Sao_Paulo)``: a local time a federation can place."""
    if not at:
        return "—"
    t = timezone.localtime(at)
    z = t.strftime("%z")
    return f"{t:%H:%M} (UTC{z[:3]}:{z[3:]}, {timezone.get_current_timezone_name()})"


def moment(at, lang: str) -> str:
    """The date and the time with its zone: ``21/03/2027 14:05 (UTC-03:00, America/Sao_Paulo)``
    (pt), ``2027-03-21 14:05 (…)`` (en); "—" without one."""
    return f"{day(at, lang)} {time_with_zone(at)}" if at else "—"


@dataclass
class Sheet:
    """Everything on the súmula, already in the active language."""

    match: Match
    st: stats_mod.MatchStats
    lang: str

    @property
    def names(self) -> list[str]:
        return self.st.names

    @property
    def winner(self) -> str:
        w = self.st.state["match_winner"]
        return self.names[w] if w is not None else ""

    @property
    def referee(self) -> str:
        """The referee's name as the organiser entered it (never a credential's id)."""
        return self.match.referee_name or _("não informado")

    def entered_by(self, code: str) -> str:
        """Who entered an event, in words: the log keeps how it came in (``referee:<credential>``
        from a tablet, ``api:<credential>``, ``user:<login>`` from the admin, ``import``…)."""
        kind, _sep, who = code.partition(":")
        name = self.match.referee_name or _("árbitro")
        if kind == "referee":
            return _("%(name)s (tablet)") % {"name": name}
        if kind == "api":
            return _("%(name)s (API)") % {"name": name}
        if kind == "user":
            return _("%(name)s (organização)") % {"name": who}
        if kind == "import":
            return _("importação") + (f" ({who})" if who else "")
        if kind == "replaymatch":
            return _("ensaio (replaymatch)")
        return code or "—"

    @property
    def best_of(self) -> int:
        """The engine's best-of (Art. 54.1)."""
        return self.st.best_of

    def walkover_record(self):
        """The desk's record of the W.O. (who, when, why), or None."""
        if not self.match.walkover:
            return None
        return self.match.records.filter(kind="walkover").order_by("-pk").first()

    def recorded_by(self, code: str) -> str:
        """Who recorded a desk action, in words: ``user:<login>`` (the admin or the desk page),
        ``desk:<competition>`` (the desk's API token), a command."""
        kind, _sep, who = (code or "").partition(":")
        if kind == "user":
            return _("%(name)s (organização)") % {"name": who}
        if kind == "desk":
            return _("mesa de controle (API)")
        return code or _("não informado")

    def correction_rows(self) -> list[tuple[str, str]]:
        """The desk's correction of the result (``Match.correction``): when, by whom and why."""
        rec = self.match.records.filter(kind="correction").order_by("-pk").first()
        return [
            (_("Resultado corrigido em"), time_with_zone(rec.at) if rec else "—"),
            (_("Corrigido por"), self.recorded_by(rec.by) if rec else "—"),
            (_("Motivo da correção"), (rec.reason if rec else "") or _("não informado")),
        ]

    def walkover_rows(self) -> list[tuple[str, str]]:
        """The W.O. on the sheet: what it says, who was absent, when the match was called and
        the tolerance the competition gives (a match of no competition: "—"), when the desk gave
        it, by whom and why."""
        from datetime import datetime

        m = self.match
        rec = self.walkover_record()
        absent = [self.names[i] for i in (m.walkover.get("absent") or []) if i in (0, 1)]
        data = (rec.data if rec else None) or {}
        called = data.get("called_at")
        tolerance = data.get("tolerance_minutes")
        return [
            (_("W.O."), pick(walkover_sentence(m.walkover, self.names))),
            (_("Ausente") if len(absent) == 1 else _("Ausentes"), ", ".join(absent) or "—"),
            (_("Chamado em"), time_with_zone(datetime.fromisoformat(called)) if called else "—"),
            (_("Tolerância do W.O."), (_("%(n)s min") % {"n": tolerance}) if tolerance is not None else "—"),
            (_("W.O. registrado em"), time_with_zone(rec.at) if rec else "—"),
            (_("W.O. registrado por"), self.recorded_by(rec.by) if rec else "—"),
            (_("Motivo do W.O."), (rec.reason if rec else "") or _("não informado")),
        ]

    def overruling_record(self):
        """The federation's latest overruling of the match (``core.overrulings``: a protest
        upheld, a result of its own beside the venue's record), or None. Only a venue's match,
        at its federation, has one."""
        if self.match.origin_venue_id is None:
            return None
        return self.match.records.filter(kind=overrulings.KIND).order_by("-pk").first()

    def overruling_sentence(self) -> str:
        """"Resultado alterado pela federação (recurso): vencedor Bia Lima, placar 0–1; motivo:
        …", or "" when the federation has not overruled the match."""
        rec = self.overruling_record()
        if rec is None:
            return ""
        return f"{_('Resultado alterado pela federação (recurso)')}: {self._overruling_value(rec)}"

    def _overruling_value(self, rec) -> str:
        a, b = rec.data["frames"]
        return _("vencedor %(winner)s, placar %(a)s–%(b)s; motivo: %(reason)s") % {
            "winner": self.names[rec.data["winner"]], "a": a, "b": b, "reason": rec.reason}

    def overruling_rows(self, rec) -> list[tuple[str, str]]:
        """The overruling on the sheet's head: what the federation decided, when (the date too:
        a protest is decided days after the match) and by whom."""
        kind, _sep, who = (rec.by or "").partition(":")
        by = _("%(name)s (federação)") % {"name": who} if kind == "user" else (rec.by or _("não informado"))
        return [
            (_("Resultado alterado pela federação (recurso)"), self._overruling_value(rec)),
            (_("Alterado pela federação em"), moment(rec.at, self.lang)),
            (_("Alterado por"), by),
        ]

    def header(self, overruling: bool = True) -> list[tuple[str, str]]:
        """The sheet's head as (label, value) rows; the federation's overruling among them
        unless ``overruling`` is False (the CSV writes it first)."""
        m, s = self.match, self.st.state
        log_ = self.st.log
        # the start is when play began (the desk's start or the first stroke); a match never
        # played has none: a W.O. (its started_at is only when the desk recorded it), or a
        # match not started yet, which used to show its creation time
        start = None if m.walkover else (m.started_at or (log_[0].at if log_ else None))
        end = log_[-1].at if log_ else None
        rec = self.walkover_record()
        if m.walkover:  # the desk's W.O. ended the match when it was recorded
            end = (rec.at if rec else None) or end or m.started_at
        # the competition's name, then the match's place in it, each on a line of its own and
        # in the sheet's language (the match's stored text is a Portuguese summary of them)
        placement = stages.of_match(m)
        place = placement.texts(self.lang)
        frames = f"{s['frames'][0]} × {s['frames'][1]}" + (" (W.O.)" if m.walkover and not m.correction else "")
        overruled = self.overruling_record()
        return [
            (_("Competição"), place["competition"] or "—"),
            (_("Jogo"), f"#{m.pk}" + (f" · {place['fixture']}" if place["fixture"] else "")),
            (_("Fase"), place["stage"] or "—"),
            (_("Rodada"), place["round"] or "—"),
            (_("Grupo"), place["group"] or "—"),
            (_("Data"), day(start or end or m.scheduled_at or m.created_at, self.lang)),
            # the venue and city (the competition file's "venue", else settings.VENUE): the
            # competition and the table have lines of their own (a tester read the competition's
            # name twice); the table without its stored "Mesa " (the English sheet read
            # "Table: Mesa 3")
            (_("Local"), placement.venue or settings.VENUE or "—"),
            (_("Mesa"), m.table.short_name if m.table else "—"),
            (_("Início"), time_with_zone(start)),
            (_("Fim"), time_with_zone(end) if s["phase"] == "match_over" else "—"),
            (_("Árbitro"), self.referee),
            (_("Jogador A"), self.names[0] + (f" ({m.player_a.club})" if getattr(m.player_a, "club", "") else "")),
            (_("Jogador B"), self.names[1] + (f" ({m.player_b.club})" if getattr(m.player_b, "club", "") else "")),
            (_("Vermelhas"), str(self.st.config["reds"])),
            (_("Melhor de"), str(self.best_of)),
            (_("Retorno permitido (Art. 29)"), _("sim") if self.st.config.get("retorno", True) else _("não")),
        ] + ([
            # overruled: the venue's result stays on the sheet as it was recorded, named so
            (_("Partidas (registro da sede)"), frames),
            (_("Vencedor (registro da sede)"), self.winner or "—"),
            (_("Resultado (registro da sede)"), result_label(s["match_result"])),
            *(self.overruling_rows(overruled) if overruling else []),
        ] if overruled else [
            (_("Partidas"), frames),
            (_("Vencedor"), self.winner or "—"),
            (_("Resultado"), result_label(s["match_result"])),
        ]) + (self.walkover_rows() if m.walkover and not m.correction else []) + (
            self.correction_rows() if m.correction else []) + (
            [(_("Ensaio"), _("sim — não é um resultado oficial"))] if m.rehearsal else [])

    def frame_rows(self) -> list[list]:
        """The frame-by-frame summary: scores, winner, how it ended, each player's highest break
        and fouls in the frame, and when its first and last strokes were entered. A W.O. played
        no frame: the rack the engine had opened is not a frame "em jogo"."""
        if self.match.walkover:
            return []
        return [[f.frame, f.scores[0], f.scores[1],
                 self.names[f.winner] if f.winner is not None else _("em jogo"), ended_by_label(f.ended_by),
                 f.high[0], f.high[1], f.fouls[0], f.fouls[1], clock(f.started) or "—",
                 # a frame still in play has no end yet (its latest stroke is not one)
                 (clock(f.ended) or "—") if f.winner is not None or f.ended_by else "—"]
                for f in self.st.frames]

    def foul_rows(self) -> list[list]:
        out = []
        for f in self.st.fouls:
            kind = sinuca.FoulKind(f.kind)
            label = f"{pick(kind.label)} (Art. {kind.article})"
            offender = self.names[f.offender]
            sides = self.st.config.get("sides")
            if sides and f.person is not None:  # doubles: the person who fouled, and his side
                offender = f"{sides[f.offender][f.person]} ({offender})"
            # "Bola livre": the foul left the receiver snookered, so he may nominate a free ball
            # (Art. 36); the referee's call is the event's ``snooker`` flag, checked by the engine
            out.append([f.seq, clock(f.at), f.frame, offender, label, f.article, f.penalty,
                        self.names[f.receiver], _("sim") if f.retorno else _("não"),
                        _("sim") if f.free_ball else _("não")])
        return out

    def sanction_rows(self) -> list[list]:
        sides = self.st.config.get("sides")

        def who(x, k: int) -> str:
            p = x.players[k]
            person = x.persons[k] if sides and x.persons else None
            # doubles: the person sanctioned, and his side (as the foul rows)
            return self.names[p] if person is None else f"{sides[p][person]} ({self.names[p]})"

        return [[x.seq, clock(x.at), x.frame, ", ".join(who(x, k) for k in range(len(x.players))),
                 sanction_label(x.what), x.article, (x.description or {}).get(self.lang, "")]
                for x in self.st.sanctions]

    def event_text(self, e) -> str:
        """An event's line: the engine's description; an event the referee took back says so and
        by which entry ("Anulada: … (desfeita no lance 45)"), and an undo says what it took back."""
        desc = (e.description or {}).get(self.lang, "")
        st = self.st
        if e.seq in st.undone:
            return _("Anulada: %(desc)s (desfeita no lance %(n)s)") % {"desc": desc, "n": st.undone[e.seq]}
        if e.seq in st.undid:
            taken = st.log_by_seq(st.undid[e.seq])
            what = (taken.description or {}).get(self.lang, "") if taken else ""
            return labels.undo_line(st.undid[e.seq], what)[self.lang]
        return desc

    def event_rows(self, codes: bool = False) -> list[list]:
        """Every event; its type in words (the PDF's "encaçapada", as the sheet's reader reads
        it) and, with ``codes``, the contract's code after it (the CSV's, for programs: ``pot``);
        then whether the event was taken back, and the articles its line cites ("25.5", "—")."""
        return [[e.seq, clock(e.at), self.entered_by(e.entered_by), self.event_text(e),
                 event_type_label(e.event.get("type", "")),
                 *([e.event.get("type", "")] if codes else []),
                 _("sim") if e.seq in self.st.undone else _("não"),
                 ", ".join(dict.fromkeys(rulebook.citations((e.description or {}).get("pt", "")))) or "—"]
                for e in self.st.log]

    def cited(self) -> list[str]:
        """Every article or item the match's record cites, in the rulebook's order: its events'
        lines (fouls, decisions, warnings, frame and match ends), its fouls' kinds and its
        sanctions, and how its frames and the match ended."""
        texts = [(e.description or {}).get("pt", "") for e in self.st.log]
        texts += [f"Art. {f.article}" for f in self.st.fouls] + [f"Art. {x.article}" for x in self.st.sanctions]
        texts += [ended_by_label(f.ended_by) for f in self.st.frames if f.ended_by]
        if self.st.state.get("match_result"):
            texts.append(result_label(self.st.state["match_result"]))
        refs = {r for t in texts for r in rulebook.citations(t) if rulebook.load().find(r)}
        order = {ref: n for n, ref in enumerate(
            [str(a.number) for a in rulebook.load().articles] + [i.id for a in rulebook.load().articles for i in a.items])}
        return sorted(refs, key=lambda r: (int(r.split(".")[0]), order[r]))

    def annex(self) -> list[tuple[str, list[tuple[str, str, bool]]]]:
        """The annex: for each article cited (:meth:`cited`), ``("Art. N – <its sentence>",
        [(item id, item text verbatim, cited or not)])``."""
        cited = self.cited()
        book = rulebook.load()
        out = []
        for n in dict.fromkeys(int(r.split(".")[0]) for r in cited):
            art = book.article(n)
            out.append((f"Art. {n} – {art.text}", [(i.id, i.text, i.id in cited) for i in art.items]))
        return out

    def undone_seqs(self) -> set[int]:
        """Seqs of the events an undo took back (struck through on the PDF)."""
        return set(self.st.undone)

    def player_rows(self) -> list[list]:
        """One row per player; in doubles each person's row (breaks, balls, fouls and warnings
        are the person's; frames and points from fouls the side's, left blank), then the side's
        total ("Ana / Carla (total)")."""
        rows = []
        for i, p in enumerate(self.st.players):
            people = self.st.people[i] if self.st.people else []
            for q in people:
                rows.append([q.name, "", q.highest_break, q.big_breaks_text, q.pots,
                             q.fouls_total, "", q.warnings])
            name = _("%(side)s (total)") % {"side": p.name} if people else p.name
            rows.append([name, p.frames, p.highest_break, p.big_breaks_text, p.pots,
                         p.fouls_total, p.points_from_fouls, p.warnings])
        return rows


def sheet(match: Match) -> Sheet:
    """The súmula's content for a match at its current seq."""
    match.refresh_from_db(fields=["seq"])
    return Sheet(match, stats_mod.with_log(match, stats_mod.for_match(match)), engine_lang())


def FRAME_HEAD(s: Sheet, names: list[str] | None = None) -> list[str]:  # noqa: N802
    """The frame table's head; ``names``: the players as the columns name them (the PDF's
    :func:`short_names`), else their full names (the CSV's)."""
    a, b = names or s.names
    return [_("Partida"), a, b, _("Vencedor"), _("Encerrada por"),
            _("Maior tacada — %(name)s") % {"name": a}, _("Maior tacada — %(name)s") % {"name": b},
            _("Faltas — %(name)s") % {"name": a}, _("Faltas — %(name)s") % {"name": b},
            _("Início"), _("Fim")]


def short_names(names: list[str]) -> list[str]:
    """The players as the PDF's frame table heads its columns (the sheet's head and the winner
    column name them in full): each one's first name, a doubles side's first names ("Ana Souza /
    Carla Dias" → "Ana / Carla"); the full names when the short ones would be the same."""
    short = [" / ".join((part.split() or [""])[0] for part in str(n).split(" / ")) for n in names]
    return short if len(set(short)) == len(short) and all(short) else list(names)


FOUL_HEAD = lambda: [_("Seq"), _("Hora"), _("Partida"), _("Infrator"), _("Tipo"), _("Art."), _("Pontos"),  # noqa: E731
                     _("Beneficiado"), _("Retorno"), _("Bola livre")]
SANCTION_HEAD = lambda: [_("Seq"), _("Hora"), _("Partida"), _("Jogador"), _("Sanção"), _("Art."),  # noqa: E731
                         _("Descrição")]
EVENT_HEAD = lambda codes=False: [_("Seq"), _("Hora"), _("Registrado por"), _("Descrição"), _("Tipo"),  # noqa: E731
                                  *([_("Código")] if codes else []), _("Anulada"), _("Art.")]
PLAYER_HEAD = lambda: [_("Jogador"), _("Partidas"), _("Maior tacada"), _("Tacadas de 20+"),  # noqa: E731
                       _("Bolas"), _("Faltas"), _("Pontos de faltas"), _("Advertências")]


class _SafeWriter:
    """A csv writer that defuses spreadsheet formulas: a text cell starting with = + - @ (a
    player named ``=HYPERLINK(...)``, say) is written with a leading apostrophe (OWASP CSV
    injection), so a spreadsheet shows it instead of running it."""

    def __init__(self, buf) -> None:
        self._w = csv.writer(buf)

    @staticmethod
    def _cell(v):
        return "'" + v if isinstance(v, str) and v[:1] in ("=", "+", "-", "@", "\t", "\r") else v

    def writerow(self, row) -> None:
        self._w.writerow([self._cell(v) for v in row])

    def writerows(self, rows) -> None:
        for row in rows:
            self.writerow(row)


def as_csv(s: Sheet) -> str:
    """The súmula as CSV: a key/value header (the federation's overruling, when there is one,
    first, as the PDF says it above everything), then one titled section per table."""
    buf = io.StringIO()
    w = _SafeWriter(buf)
    w.writerow([_("Súmula oficial — sinuca brasileira (CBBS 2008)")])
    overruled = s.overruling_record()
    for k, v in [*(s.overruling_rows(overruled) if overruled else []), *s.header(overruling=False)]:
        w.writerow([k, v])
    for title, head, rows in ((_("Partidas"), FRAME_HEAD(s), s.frame_rows()),
                              (_("Estatísticas"), PLAYER_HEAD(), s.player_rows()),
                              (_("Faltas"), FOUL_HEAD(), s.foul_rows()),
                              (_("Advertências e desclassificações"), SANCTION_HEAD(), s.sanction_rows()),
                              (_("Eventos"), EVENT_HEAD(codes=True), s.event_rows(codes=True))):
        w.writerow([])
        w.writerow([title])
        w.writerow(head)
        w.writerows(rows)
    return buf.getvalue()


_font_lock = threading.Lock()
# reportlab is not thread-safe (a font object keeps each document's subsets): 1 of 16 renders in
# threads at once, on a busy machine, failed with an IndexError. A worker renders in a process of
# its own one at a time (PDF_PROCESS, PDF_SLOTS), so the lock costs nothing there.
_build_lock = threading.Lock()
_fonts: tuple[str, str] | None = None


def _font() -> tuple[str, str]:
    """DejaVu Sans when the system has it (any name prints), else the built-in Helvetica.

    Registered once per process, under a lock: two first PDFs rendering together used to see the
    regular face registered and the bold one not yet, and one of them answered 500. The app
    registers them at start-up (``ScoreboardConfig.ready``); the lock covers any other caller.
    """
    global _fonts
    if _fonts is not None:
        return _fonts
    with _font_lock:
        if _fonts is None:
            from reportlab.pdfbase import pdfmetrics
            from reportlab.pdfbase.ttfonts import TTFont

            base = Path("/usr/share/fonts/truetype/dejavu")
            try:
                regular = TTFont("DejaVuSans", str(base / "DejaVuSans.ttf"))
                bold_face = TTFont("DejaVuSans-Bold", str(base / "DejaVuSans-Bold.ttf"))
                pdfmetrics.registerFont(regular)
                pdfmetrics.registerFont(bold_face)
                _fonts = ("DejaVuSans", "DejaVuSans-Bold")
            except Exception:  # noqa: BLE001 - no TTF on this machine
                _fonts = ("Helvetica", "Helvetica-Bold")
    return _fonts


def register_fonts() -> None:
    """Register the súmula's fonts now (at start-up), so no request pays for it or races on it."""
    _font()


CHUNK = 60  # rows per PDF Table (about a page): see as_pdf
PAD = 3  # a PDF table cell's left and right padding, in points


def col_widths(head: list, rows: list[list], total: float, font: str, bold: str, size: float) -> list[float]:
    """Column widths (points) that fit ``total``: each column at least as wide as its longest word
    (so no word or time is broken, "Partid/a", "13:44:/39"), and the room left shared in
    proportion to how much each column's longest line still wants. When the longest words cannot
    all fit (long names in many columns), only the widest columns give up room, down to one
    width for all of them: the narrow ones (numbers, times, short heads) keep theirs, and a word
    wider than its column is printed smaller (:func:`fit_style`), never split."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    n = len(head)
    want, least = [0.0] * n, [0.0] * n
    for r, row in enumerate([head] + list(rows)):
        f = bold if r == 0 else font
        for i, cell in enumerate(row[:n]):
            text = str(cell)
            want[i] = max(want[i], stringWidth(text, f, size))
            least[i] = max([least[i]] + [stringWidth(w, f, size) for w in text.split()])
    extra = 2 * PAD + 1
    want = [w + extra for w in want]
    least = [w + extra for w in least]
    if sum(want) <= total:
        return [w * total / sum(want) for w in want]
    if sum(least) >= total:  # cannot fit every whole word: cap the widest columns alike
        room, cap = total, total / n
        for k, w in enumerate(sorted(least)):  # the columns under the cap keep their width
            if w > cap:
                break
            room -= w
            cap = room / (n - k - 1) if k < n - 1 else cap
        return [min(w, cap) for w in least]
    room, more = total - sum(least), [w - m for w, m in zip(want, least)]
    return [m + room * x / sum(more) for m, x in zip(least, more)]


def fit_style(style, text: str, width: float, pad: float = PAD):
    """``style``, or the same at a smaller size, so that the longest word of ``text`` fits a
    ``width`` wide cell (``pad`` each side included): reportlab's Paragraph wraps between words
    but splits a word wider than its column ("Bartholom/eu", "desistênc/ia"), so such a cell is
    printed smaller instead (a long name in a narrow column)."""
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.pdfbase.pdfmetrics import stringWidth

    room = width - 2 * pad - 0.5
    word = max((stringWidth(w, style.fontName, style.fontSize) for w in str(text).split()), default=0)
    if word <= room:
        return style
    size = int(style.fontSize * room / word * 10) / 10  # rounded down: the word fits
    return ParagraphStyle(f"{style.name}-{size}", parent=style, fontSize=size,
                          leading=style.leading * size / style.fontSize)


ANNEX_TITLE = {"pt": "Anexo: texto dos artigos citados (Regras da Sinuca Brasileira, CBBS 2008)",
               "en": "Annex: the articles cited, in the words of the rules (CBBS 2008, Portuguese)"}
ANNEX_NOTE = {"pt": "Texto integral de cada artigo citado por esta súmula; os itens citados em negrito.",
              "en": "Each article this sheet cites, verbatim in Portuguese (the authority); the items cited in bold."}


def annex(s: Sheet, h2, body, bold) -> list:
    """The PDF's annex (reportlab flowables, on a page of its own): every article the match
    cites (:meth:`Sheet.annex`), its sentence and its items verbatim, the cited items in bold."""
    from django.utils.html import escape

    from reportlab.platypus import PageBreak, Paragraph

    rows = s.annex()
    if not rows:
        return []
    lang = engine_lang()
    out = [PageBreak(), Paragraph(escape(ANNEX_TITLE[lang]), h2), Paragraph(escape(ANNEX_NOTE[lang]), body)]
    for head, items in rows:
        out.append(Paragraph(escape(head), bold))
        for ref, text, cited in items:
            line = f"{ref} {text}"
            out.append(Paragraph(f"<b>{escape(line)}</b>" if cited else escape(line), body))
    return out


def as_pdf(s: Sheet) -> bytes:
    """The súmula as an A4 PDF (reportlab's platypus)."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import mm
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle
    from django.utils.html import escape

    font, bold = _font()
    size = 8
    body = ParagraphStyle("b", fontName=font, fontSize=size, leading=10)
    th = ParagraphStyle("th", fontName=bold, fontSize=size, leading=10)
    h1 = ParagraphStyle("h1", fontName=bold, fontSize=15, leading=19, spaceAfter=4)
    h2 = ParagraphStyle("h2", fontName=bold, fontSize=11, leading=14, spaceBefore=8, spaceAfter=3)
    margin = 14 * mm
    width = A4[0] - 2 * margin

    style = TableStyle([
        ("GRID", (0, 0), (-1, -1), 0.4, colors.grey),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e6efe9")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), 2), ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
        ("LEFTPADDING", (0, 0), (-1, -1), PAD), ("RIGHTPADDING", (0, 0), (-1, -1), PAD),
    ])

    struck_style = ParagraphStyle("s", parent=body, textColor=colors.HexColor("#666666"))

    def para(value, st, w: float, pad: float = PAD):
        # wrapped between words only: a word wider than the cell is printed smaller (fit_style)
        return Paragraph(escape(str(value)), fit_style(st, str(value), w, pad))

    def cell(value, struck: bool, w: float):
        # An event the referee took back stays on the record, struck through (not erased).
        if not struck:
            return para(value, body, w)
        return Paragraph(f"<strike>{escape(str(value))}</strike>", fit_style(struck_style, str(value), w))

    def table(head, rows, struck: set | frozenset = frozenset()):
        # One Table per CHUNK rows, each with the header, at the same column widths: platypus
        # splits a long table across pages by re-measuring the rest of it at every page break, so
        # a 3,000-row event list as one Table took seconds and hundreds of MB (issue finding 5).
        # ``struck``: the first cells (seqs) of the rows to strike through.
        widths = col_widths(head, rows, width, font, bold, size)
        header = [para(h, th, w) for h, w in zip(head, widths)]
        if not rows:
            data = [header, [Paragraph("—", body)] + [""] * (len(head) - 1)]
            return [Table(data, colWidths=widths, repeatRows=1, hAlign="LEFT", style=style)]
        return [Table([header] + [[cell(c, r[0] in struck, w) for c, w in zip(r, widths)]
                                  for r in rows[i:i + CHUNK]],
                      colWidths=widths, repeatRows=1, hAlign="LEFT", style=style)
                for i in range(0, len(rows), CHUNK)]

    buf = io.BytesIO()
    title = _("Súmula oficial — sinuca brasileira (CBBS 2008)")
    doc = SimpleDocTemplate(buf, pagesize=A4, leftMargin=margin, rightMargin=margin, topMargin=margin,
                            bottomMargin=margin, title=title, author="sinuca-scoreboard",
                            subject=f"{s.names[0]} × {s.names[1]}")
    story = [Paragraph(escape(title), h1),
             Paragraph(escape(f"{s.names[0]} × {s.names[1]}"), h2)]
    overruled = s.overruling_sentence()
    if overruled:
        # above everything the venue recorded: the result that counts is the federation's
        mark = ParagraphStyle("overruled", fontName=bold, fontSize=10, leading=13, textColor=colors.HexColor("#8a1c1c"))
        box = Table([[Paragraph(escape(overruled), mark)],
                     [Paragraph(escape(_("O resultado registrado pela sede segue nesta súmula como foi registrado.")),
                                body)]],
                    colWidths=[width], hAlign="LEFT")
        box.setStyle(TableStyle([("BOX", (0, 0), (-1, -1), 1.2, colors.HexColor("#8a1c1c")),
                                 ("BACKGROUND", (0, 0), (-1, -1), colors.HexColor("#fbeeee")),
                                 ("LEFTPADDING", (0, 0), (-1, -1), 6), ("RIGHTPADDING", (0, 0), (-1, -1), 6),
                                 ("TOPPADDING", (0, 0), (-1, -1), 4), ("BOTTOMPADDING", (0, 0), (-1, -1), 4)]))
        story += [box, Spacer(1, 3 * mm)]
    head = s.header()
    half = (len(head) + 1) // 2
    pairs = [[para(k, th, 34 * mm, 6), para(v, body, 55 * mm, 6)] for k, v in head]  # reportlab's padding
    grid = [pairs[i] + (pairs[i + half] if i + half < len(pairs) else ["", ""]) for i in range(half)]
    t = Table(grid, colWidths=[34 * mm, 55 * mm, 34 * mm, 55 * mm], hAlign="LEFT")
    t.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.4, colors.grey), ("VALIGN", (0, 0), (-1, -1), "TOP")]))
    # the frame table heads its players' columns by their first names (the winner column and the
    # sheet's head name them in full): eleven columns with a long name in six of them left no
    # room for a whole word ("Bartholom/eu")
    story += [t, Paragraph(escape(_("Partidas")), h2), *table(FRAME_HEAD(s, short_names(s.names)), s.frame_rows()),
              Paragraph(escape(_("Estatísticas")), h2), *table(PLAYER_HEAD(), s.player_rows()),
              Paragraph(escape(_("Faltas")), h2), *table(FOUL_HEAD(), s.foul_rows()),
              Paragraph(escape(_("Advertências e desclassificações")), h2),
              *table(SANCTION_HEAD(), s.sanction_rows()),
              Paragraph(escape(_("Eventos")), h2), *table(EVENT_HEAD(), s.event_rows(), s.undone_seqs()),
              # written by hand when the sheet is signed: observations and protests, then the signatures
              Paragraph(escape(_("Observações e protestos")), h2)]
    obs = Table([[""]], colWidths=[180 * mm], rowHeights=[32 * mm], hAlign="LEFT")
    obs.setStyle(TableStyle([("BOX", (0, 0), (-1, -1), 0.6, colors.black)]))
    story += [obs, Spacer(1, 14 * mm)]
    # the names under the lines wrap between words (as plain strings a long name ran into the next)
    sig = Table([["_" * 24] * 4,
                 [para(v, body, 45 * mm, 6) for v in (f"{_('Árbitro')}: {s.referee}", s.names[0], s.names[1],
                                                   _("Organizador"))]],
                colWidths=[45 * mm] * 4, hAlign="LEFT")
    sig.setStyle(TableStyle([("FONTNAME", (0, 0), (-1, -1), font), ("FONTSIZE", (0, 0), (-1, -1), 8),
                             ("VALIGN", (0, 1), (-1, 1), "TOP")]))
    story.append(sig)
    story += annex(s, h2, body, th)

    def footer(canvas, doc_):
        canvas.saveState()
        canvas.setFont(font, 7)
        page = _("página %(n)s") % {"n": doc_.page}
        canvas.drawString(margin, 8 * mm, f"{title} · #{s.match.pk} · {page}")
        canvas.restoreState()

    with _build_lock:
        doc.build(story, onFirstPage=footer, onLaterPages=footer)
    return buf.getvalue()
