"""The statistics as one fold of the whole log, written the plain way: replay the log, keep every
event still in effect with the engine's states around it, and add them up in order. The oracle
that ``reports.stats.Fold`` (which adds event by event and takes an undo's share back) must
agree with at every seq."""
from __future__ import annotations

import sinuca
from sinuca import Phase

from scoreboard.reports.stats import Break, Foul, FrameLine, MatchStats, PlayerStats, Sanction


def reference(config: dict, log: list) -> MatchStats:
    """The statistics of ``log`` (``stats.LogEntry`` items in seq order) under ``config``."""
    engine = sinuca.Match(config)
    records = []
    for entry in log:
        before = engine.state()
        step = engine.apply(entry.event)
        records.append(None if step.event["type"] == "undo" else
                       (entry, before, step.state, entry.description or step.description,
                        step.foul, step.match_end))
    effect = [records[i] for i in engine.in_effect()]
    out = _summarise(engine.config, effect, engine.state(), log[-1].seq if log else 0)
    seq = [e.seq for e in log]
    out.undone = {seq[e]: seq[u] for e, u in engine.undone().items()}
    out.undid = {seq[u]: seq[e] for u, e in engine.undid().items()}
    out.best_of = engine.best_of
    return out


def _close(visit, breaks):
    if visit and visit[2] > 0:
        breaks.append(Break(player=visit[0], frame=visit[1], points=visit[2], seq=visit[3], person=visit[4]))


def _summarise(config, records, state, last_seq) -> MatchStats:
    players = [PlayerStats(name=n) for n in config["players"]]
    people = [[PlayerStats(name=n) for n in side] for side in config.get("sides") or []]
    breaks, fouls, sanctions, worms, visit = [], [], [], {}, None
    for entry, b, a, description, foul, match_end in records:
        ev = entry.event
        kind, frame = ev["type"], b["frame_number"]
        if kind == "pot":
            p, who = b["striker"], b.get("striker_player")
            gained = a["scores"][p] - b["scores"][p]
            if visit and visit[0] == p and visit[1] == frame and b["break"] == visit[2] and visit[4] == who:
                visit[2], visit[3] = visit[2] + gained, entry.seq
            else:
                _close(visit, breaks)
                visit = [p, frame, b["break"] + gained, entry.seq, who]
            for ps in [players[p]] + ([people[p][who]] if people and who is not None else []):
                ps.pots += len(ev["balls"])
                ps.reds_potted += sum(1 for x in ev["balls"] if x == 1)
                ps.colours_potted += sum(1 for x in ev["balls"] if x != 1)
        else:
            _close(visit, breaks)
            visit = None
        if foul is not None:
            by = [players[foul["offender"]]]
            if people and foul.get("person") is not None:
                by.append(people[foul["offender"]][foul["person"]])
            for ps in by:
                ps.fouls[foul["kind"]] = ps.fouls.get(foul["kind"], 0) + 1
                ps.foul_points_given += foul["penalty"]
            players[foul["receiver"]].points_from_fouls += foul["penalty"]
            fouls.append(Foul(entry.seq, entry.at, frame, foul["offender"], foul["receiver"], foul["kind"],
                              foul["article"], foul["penalty"], foul["retorno"], description,
                              ev.get("snooker") is True, foul.get("person")))
            if foul["sanction"] is not None:
                sanctions.append(Sanction(entry.seq, entry.at, frame, [foul["offender"]], foul["sanction"],
                                          foul["sanction_article"], description,
                                          [foul["person"]] if foul.get("person") is not None else None))
        elif kind in ("disqualify", "concede_match") and match_end is not None:
            named = dict(zip(ev["players"], ev["persons"])) if kind == "disqualify" and "persons" in ev else {}
            losers = match_end["losers"]
            sanctions.append(Sanction(entry.seq, entry.at, frame, losers,
                                      "disqualification" if kind == "disqualify" else "concede_match",
                                      match_end["article"], description,
                                      [named.get(p) for p in losers] if named and people else None))
        if kind != "lot":
            worm = worms.setdefault(a["frame_number"] if kind == "next_frame" else frame, [(0, 0)])
            if kind != "next_frame":
                worm.append(tuple(a["scores"]))
    _close(visit, breaks)
    for br in breaks:
        players[br.player].breaks.append(br.points)
        if people and br.person is not None:
            people[br.player][br.person].breaks.append(br.points)
    for i, p in enumerate(players):
        p.highest_break, p.warnings, p.frames = max(p.breaks, default=0), state["warnings"][i], state["frames"][i]
    for i, side in enumerate(people):
        for k, p in enumerate(side):
            p.highest_break, p.warnings = max(p.breaks, default=0), state["player_warnings"][i][k]
    frames = [FrameLine(h["frame"], list(h["scores"]), h["winner"], h["ended_by"], worms.get(h["frame"], [(0, 0)]))
              for h in state["history"]]
    if state["frame_number"] not in {h["frame"] for h in state["history"]} and (records or state["phase"] != Phase.LOT):
        winner = state["frame_winner"] if state["phase"] in (Phase.FRAME_OVER, Phase.MATCH_OVER) else None
        frames.append(FrameLine(state["frame_number"], list(state["scores"]), winner, None,
                                worms.get(state["frame_number"], [(0, 0)])))
    by_frame = {f.frame: f for f in frames}
    for br in breaks:
        if br.frame in by_frame:
            by_frame[br.frame].high[br.player] = max(by_frame[br.frame].high[br.player], br.points)
    for fl in fouls:
        if fl.frame in by_frame:
            by_frame[fl.frame].fouls[fl.offender] += 1
    for entry, b, _a, _d, _f, _m in records:
        line = by_frame.get(b["frame_number"])
        if line is not None and entry.event["type"] not in ("lot", "next_frame") and entry.at:
            line.started = line.started or entry.at
            line.ended = entry.at
    return MatchStats(config, players, frames, breaks, fouls, sanctions, state, last_seq, people=people)
