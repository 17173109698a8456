"""The screens ask the engine (issue 16, item 3): which undo took back which event, what an undo
would take back, the free ball shown, who is at the table, who won and best-of come from
``sinuca.Match`` through ``core.log.screen_options``; nothing pairs undos outside ``sinuca/``."""
from __future__ import annotations

import json
import pathlib

import pytest

from scoreboard.core import log
from scoreboard.live import render
from scoreboard.pages import feeds

pytestmark = pytest.mark.django_db
ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_undo_pairs_and_the_undo_target_are_the_engines(created):
    mid = created.match.pk
    for seq, ev in enumerate([{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [7]}, {"type": "undo"},
                              {"type": "undo"}, {"type": "no_pot"}]):
        log.append_event(mid, ev, expected_seq=seq)
    snap = log.snapshot(mid)
    assert snap.options["undone"] == {2: 3, 1: 4}
    assert snap.options["undo_target"] == 5
    lines = render.log_lines(mid, snap.options, render.recent_events(mid, snap.seq))
    assert [(x["seq"], x["undone_by"], x["undid"]) for x in lines] == [
        (5, None, None), (4, None, 1), (3, None, 2), (2, 3, None), (1, 4, None)]
    assert lines[1]["description"]["pt"] == "Desfaz o lance 1: Ana Souza encaçapa uma vermelha: +1, tacada 1"
    # what an undo takes back is the no_pot; one more after it, the row of seq 5 only
    ctx = render.page_context(snap.match, snap.seq, snap.state, snap.options, [])
    assert ctx["undo_what"]["pt"].startswith("Ana Souza não encaçapa")


def test_a_new_match_has_nothing_to_undo_on_the_server_page_either(referee_client, created):
    html = referee_client.get(f"/matches/{created.match.pk}/referee/").content.decode()
    assert """value='{"type":"undo"}' disabled""" in html  # T1 on the server's page


def test_the_feed_asks_the_engine_who_is_at_the_table_and_the_free_ball(created):
    mid = created.match.pk
    log.append_event(mid, {"type": "foul", "snooker": True}, expected_seq=0)
    f = feeds.record(mid)
    assert f["free_ball"] is True and f["at_table"] == "b" and f["best_of"] == 1  # Bia decides
    log.append_event(mid, {"type": "concede", "player": 0}, expected_seq=1)
    f = feeds.record(mid)
    # the match is over: nobody is at the table (the state's striker stays on Bia), no free ball
    assert f["free_ball"] is False and f["at_table"] == "" and f["phase"] == "match_over"


def test_no_module_outside_the_engine_pairs_undos():
    for path in [*(ROOT / "scoreboard").rglob("*.py"), *(ROOT / "presentation").rglob("*.py")]:
        text = path.read_text()
        assert "pair_undos" not in text and "waiting.pop()" not in text, path
    assert not (ROOT / "scoreboard" / "core" / "undos.py").exists()


@pytest.mark.parametrize("seed", [3, 11])
def test_the_servers_log_lines_and_the_tablets_own_log_agree_after_every_event(seed):
    """The server's board (live.render.log_lines) and the tablet's offline board
    (presentation.tablet.TabletEngine.log) both ask the engine which undo took back which event:
    same lines, same undone marks, same "Desfaz o lance N" words, after every event."""
    from django.utils import translation

    from presentation.tablet import TabletEngine
    from scoreboard.core.matches import new_match
    from sinuca.simulate import play_match

    config = {"players": ["Ana", "Bia"], "first_breaker": 0, "frames_to_win": 2}
    events = play_match(config, seed=seed, max_events=70, undo_rate=0.25)
    assert sum(e["type"] == "undo" for e in events) >= 5
    m = new_match(config)
    tablet = TabletEngine(config)
    for seq, ev in enumerate(events, start=1):
        log.append_event(m.pk, ev, expected_seq=seq - 1)
        tablet.answer(json.dumps({"op": "apply", "event": ev}))
        snap = log.snapshot(m.pk)
        with translation.override("pt-br"):
            server = render.log_lines(m.pk, snap.options, render.recent_events(m.pk, seq))
        assert [(x["seq"], x["description"]["pt"], x["undone_by"], x["undid"]) for x in server] == [
            (x["seq"], x["description"], x["undone_by"], x["undid"]) for x in tablet.log()], seq


def test_the_tablet_the_tv_and_the_feeds_show_the_same_doubles_player_at_the_table_and_next():
    """Who of a side is at the table and who plays next is one engine fact
    (``Match.at_table_player``, ``Match.next_player``): the tablet (its own engine offline and the
    server's page), the TV/overlay render and the feeds show the same persons after every event.
    While the beneficiary decides nobody is next, as it hangs on the choice; the tablet and the
    feeds used to mark the offender's partner, the TV showed no one."""
    from presentation.tablet import TabletEngine
    from presentation.tablet_board import view_of
    from scoreboard.core.matches import create_match

    c = create_match(["Ana", "Carla"], ["Bia", "Duda"], first_breaker=0)
    mid, config = c.match.pk, c.match.config
    tablet = TabletEngine(config)

    def board(view) -> tuple[str, str]:
        members = [m for p in view["players"] for m in p["members"]]
        return (next((m["name"] for m in members if m["at_table"]), ""),
                next((m["name"] for m in members if m["next"]), ""))

    seen = []
    for seq, ev in enumerate([{"type": "no_pot"}, {"type": "foul", "ball": 5},
                              {"type": "decision", "choice": "pass"}, {"type": "no_pot"},
                              {"type": "foul", "ball": 4}, {"type": "decision", "choice": "play"}], start=1):
        log.append_event(mid, ev, expected_seq=seq - 1)
        tablet.answer(json.dumps({"op": "apply", "event": ev}))
        snap = log.snapshot(mid)
        offline = board(json.loads(tablet.answer(json.dumps({"op": "view"})))["view"])
        server = board(view_of(config, snap.state, snap.options))
        ctx = render.page_context(snap.match, snap.seq, snap.state, snap.options, [])
        tv = ("".join(p["member_at_table"] for p in ctx["players"]),
              "".join(p["member_next"] for p in ctx["players"]))
        f = feeds.record(mid)
        feed = (f["at_table_player"], f["next_player"])
        assert offline == server == tv == feed, (ev, offline, server, tv, feed)
        seen.append(feed)
    assert seen == [("Bia", "Carla"),
                    ("Carla", ""),      # Ana / Carla decide on Bia's foul: nobody is next yet
                    ("Bia", "Carla"),   # passar: Bia plays again
                    ("Carla", "Duda"),
                    ("Duda", ""),       # Bia / Duda decide on Carla's foul
                    ("Duda", "Ana")]    # jogar: Duda plays, Ana next


def test_best_of_is_the_engines_on_the_admin_list_and_the_tablet(admin_client, created, monkeypatch):
    """Best-of (Art. 54.1) is the engine's ``Match.best_of``: the admin's column and the tablet
    read it rather than working out ``2 * frames_to_win - 1`` again (the engine's answer is
    replaced here to see who asks it)."""
    import sinuca
    from presentation.tablet_board import tablet_view

    monkeypatch.setattr(sinuca.Match, "best_of", property(lambda self: 99))
    page = admin_client.get("/admin/scoreboard/match/").content.decode()
    assert '<td class="field-best_of_col">99</td>' in page
    assert tablet_view(sinuca.Match(created.match.config))["best_of"] == 99


def test_the_facts_beside_the_options_are_listed_once_by_the_engine():
    """``sinuca.Match.facts()`` is the one list: the server's ``screen_options`` and the tablet's
    view take what it answers (a match whose facts are marked shows the marks through both), and
    ``core`` imports nothing of the tablet's view for them."""
    import sinuca
    from presentation import tablet_board

    class Marked(sinuca.Match):
        def facts(self):
            return {k: ["marked", k] for k in sinuca.Match.FACTS}

    config = {"players": [["Ana", "Bia"], ["Caio"]], "frames_to_win": 2}
    marked = {k: ["marked", k] for k in sinuca.Match.FACTS}
    for got in (log.screen_options(Marked(config)), tablet_board.facts(Marked(config))):
        assert {k: got[k] for k in sinuca.Match.FACTS} == marked
    assert set(sinuca.Match.FACTS) <= tablet_board.FACTS
    m = sinuca.Match(config)
    m.apply({"type": "lot", "player": 0})
    m.apply({"type": "foul", "snooker": True})  # Ana fouls on a red (4, Art. 40): Caio decides, a free ball if he plays
    assert m.facts() == {"free_ball_shown": True, "at_table": 1, "at_table_player": [1, 0], "next_player": None,
                         "winner": None, "best_of": 3,
                         "pending_foul": {"offender": 0, "receiver": 1, "penalty": 4, "snooker": True,
                                          "retorno": False, "person": 0},
                         "frame_lost_on_foul": False}
    assert list(m.facts()) == list(sinuca.Match.FACTS)
    core = "\n".join(p.read_text() for p in (ROOT / "scoreboard" / "core").rglob("*.py"))
    assert "tablet" not in "".join(line for line in core.splitlines() if "import" in line and "presentation" in line)


def test_an_undos_line_is_worded_in_one_place():
    """"Desfaz o lance N: …" and its English twin: the same words on the tablet, the screens and
    the súmula, written once (``presentation.labels.undo_line``), in no template, script or
    catalogue."""
    from presentation.labels import undo_line

    assert undo_line(9, {"pt": "Bia encaçapa a azul", "en": "Bia pots the blue"}) == {
        "pt": "Desfaz o lance 9: Bia encaçapa a azul", "en": "Undoes entry 9: Bia pots the blue"}
    places = [p.relative_to(ROOT).as_posix() for d in ("scoreboard", "presentation", "sinuca", "templates", "static")
              for p in (ROOT / d).rglob("*") if p.suffix in (".py", ".js", ".html", ".po")
              and "vendor" not in p.parts and ("Desfaz o lance" in p.read_text() or "Undoes entry" in p.read_text())]
    assert places == ["presentation/labels.py"]
