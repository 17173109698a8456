"""The public pages for everyone, in Chromium: WCAG 2.2 AA as axe-core checks it (0 violations)
on the phone hub and each of its tabs, a player's page, a match page, the match's TV, the table's
TV, the venue page and the jumbotron, the public site's pages (search, career, head-to-head,
calendar, in play, results, clubs, a season's ranking), in Portuguese and in English, at 390×844 and 1920×1080
(one browser context per size, the pages in turn); then what axe cannot see: the hub's tabs work
from the keyboard, a ball on the TV is named (its number inside, its name for a screen reader),
and each score change is said once, in words, by a polite live region on the match page and on
the hub's table cards.

axe-core comes from npm (package.json's devDependencies, installed by ``npm ci``); it is injected
as a script, which the pages' Content-Security-Policy (no inline script) would refuse, so the
test's contexts bypass the CSP."""
from __future__ import annotations

import pathlib
import time

import httpx
import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from scoreboard.core import federation, log
from scoreboard.core.competitions import create_competition
from scoreboard.core.models import Match, RefereeCredential, Season, SeasonEtapa, Table

from browser import ARGS, CHROMIUM, require_chromium

AXE = pathlib.Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
VIEWPORTS = [(390, 844), (1920, 1080)]
PLAYERS = ["Igor Martins de Albuquerque", {"name": "Bia Lima", "club": "Clube Santista"}, "Caio Rocha",
           "Davi Nunes", "Maria Eduarda Fonseca", "Fábio Reis", "Gil Matos", "Hugo Dias"]
EVENT = {"name": "Etapa Acessível", "reds": 6, "draw_seed": 2026, "players": PLAYERS,
         "tables": ["Mesa 1", "Mesa 2"],
         "stages": [{"format": "round_robin_groups", "groups": 2, "frames_to_win": 1, "qualify": 2},
                    {"format": "knockout", "frames_to_win": 1}]}
# each violation as one line: rule, impact, how many nodes, the first node's selector and summary
RUN_AXE = """async (tags) => {
  const r = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
  return r.violations.map(v => `${v.id} (${v.impact}) x${v.nodes.length}: ${v.nodes[0].target.join(' ')}`
    + ` — ${(v.nodes[0].failureSummary || '').replace(/\\s+/g, ' ').slice(0, 240)}`);
}"""


@pytest.mark.browser
# the static files as they are (the live server has no collectstatic manifest)
@override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                             "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}})
class PublicPagesA11yTest(ChannelsLiveServerTestCase):
    host = "127.0.0.1"

    def setUp(self):
        require_chromium()
        assert AXE.exists(), f"{AXE} is missing: npm ci installs axe-core (package.json devDependencies)"
        log._engines.clear()
        self.tokens = {}

    def tap(self, match_id: int, event: dict) -> None:
        if match_id not in self.tokens:
            self.tokens[match_id] = RefereeCredential.issue(Match.objects.get(pk=match_id), label="t")[1]
        r = httpx.post(f"{self.live_server_url}/api/matches/{match_id}/events/", json={"event": event},
                       headers={"Authorization": f"Bearer {self.tokens[match_id]}"}, timeout=15)
        assert r.status_code == 201, r.text

    def event(self):
        """The competition with J1 in play on its table (a break of red, black; a red on) and
        J2 finished."""
        comp = create_competition(EVENT).competition
        j = {n: Match.objects.select_related("table").get(fixture__competition=comp, fixture__number=n)
             for n in (1, 2)}
        self.tap(j[2].pk, {"type": "lot", "player": 0})
        self.tap(j[2].pk, {"type": "concede", "player": 1})
        self.tap(j[1].pk, {"type": "lot", "player": 0})
        self.tap(j[1].pk, {"type": "pot", "balls": [1]})
        self.tap(j[1].pk, {"type": "pot", "balls": [7]})
        return comp, j

    def test_axe_finds_no_violation_on_any_public_page_in_either_language_at_either_size(self):
        from playwright.sync_api import sync_playwright

        comp, j = self.event()
        season = Season.objects.create(name="Temporada 2026")
        SeasonEtapa.objects.create(season=season, competition=comp, weight=2)
        # the clubs page with a registered club of players (its federation id) and one of none
        federation.register(j[2].player_a.name, "Clube Centro")
        federation.register_club("Clube Sem Jogadores")
        base = self.live_server_url
        pages = [("hub", f"/competitions/{comp.pk}/?view=tables"),
                 ("player", f"/competitions/{comp.pk}/players/1/"),
                 ("match", f"/matches/{j[1].pk}/"), ("match over", f"/matches/{j[2].pk}/"),
                 ("tv", f"/matches/{j[1].pk}/tv/"),
                 ("table tv", f"/tables/{Table.objects.get(name='Mesa 2').pk}/tv/"), ("venue", "/"),
                 ("jumbotron", "/tv/"),
                 # the public site (a federation's, or a venue's own): search, career,
                 # head-to-head, calendar, matches in play, results, clubs, a season's ranking
                 ("players", "/players/?q=a"), ("career", f"/players/{j[2].player_a_id}/"),
                 ("head-to-head", f"/players/{j[2].player_a_id}/h2h/{j[2].player_b_id}/"),
                 ("calendar", "/calendar/"), ("in play", "/live/"), ("results", "/results/"),
                 ("clubs", "/clubs/"), ("season", f"/seasons/{season.pk}/")]
        found, counts, times = {}, {}, {}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                for w, h in VIEWPORTS:
                    ctx = browser.new_context(viewport={"width": w, "height": h}, locale="pt-BR")
                    # axe-core handed to the browser once and run in each page as it loads
                    # (add_script_tag sent its 0.5 MB over the driver's pipe for every page)
                    ctx.add_init_script(path=str(AXE))
                    page = ctx.new_page()
                    for lang in ("pt-br", "en"):
                        for name, path in pages:
                            r = page.goto(f"{base}{path}{'&' if '?' in path else '?'}lang={lang}", wait_until="load")
                            assert r.ok, (path, r.status)
                            if name == "hub":  # every tab's panel shown at once: one run checks them all
                                page.evaluate("() => { document.body.dataset.view = 'every'; }")
                            key = f"{name} {lang} {w}x{h}"
                            t0 = time.monotonic()
                            v = page.evaluate(RUN_AXE, TAGS)
                            times[key] = round(time.monotonic() - t0, 2)
                            counts[key] = len(v)
                            if v:
                                found[key] = v
                    ctx.close()
            finally:
                browser.close()
        print("axe-core violations per page:", counts)
        print("axe-core run (s):", times)
        assert found == {}, "\n".join(f"{k}:\n  " + "\n  ".join(v) for k, v in found.items())

    def test_tabs_by_keyboard_balls_named_and_each_score_change_said_once(self):
        from playwright.sync_api import sync_playwright

        comp, j = self.event()
        base = self.live_server_url
        m = j[1]
        names = [m.player_a.name, m.player_b.name]
        # every text the live region takes, in order (a MutationObserver, not a poll)
        watch = """() => { window.__said = []; const el = document.getElementById('score-say');
          new MutationObserver(() => window.__said.push(el.textContent)).observe(el, {childList: true,
            characterData: true, subtree: true}); }"""
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="pt-BR",
                                          has_touch=True, is_mobile=True)
                hub = ctx.new_page()
                hub.goto(f"{base}/competitions/{comp.pk}/?view=tables", wait_until="load")
                hub.wait_for_selector(".ev-table.st-in_play[data-say]")
                # the tabs: one in the Tab order, the arrow keys move and show, Enter on a link too
                tabs = hub.locator('.hub-tabs[role="tablist"] [role="tab"]')
                assert tabs.count() == 5
                assert hub.evaluate("() => [...document.querySelectorAll('[role=tab]')].map(t => t.tabIndex)") == [
                    0, -1, -1, -1, -1]
                hub.focus('[role="tab"][data-view="tables"]')
                hub.keyboard.press("ArrowRight")
                assert hub.evaluate("document.activeElement.dataset.view") == "schedule"
                assert hub.evaluate("document.body.dataset.view") == "schedule" and hub.url.endswith("view=schedule")
                assert hub.get_attribute('[data-view="schedule"][role="tab"]', "aria-selected") == "true"
                assert hub.get_attribute("#ev-schedule", "role") == "tabpanel"
                hub.keyboard.press("End")
                assert hub.evaluate("document.body.dataset.view") == "bracket"
                hub.keyboard.press("Home")
                hub.keyboard.press("Enter")
                assert hub.evaluate("document.body.dataset.view") == "tables"
                hub.evaluate(watch)

                match = ctx.new_page()
                match.goto(f"{base}/matches/{m.pk}/", wait_until="load")
                match.wait_for_function("() => document.body.hasAttribute('data-stats-live')")
                match.evaluate(watch)

                # two taps that score, one after the other: each said once on both pages, in words
                for n, (balls, score) in enumerate((([1], 9), ([6], 15)), 1):
                    self.tap(m.pk, {"type": "pot", "balls": balls})
                    for page in (hub, match):
                        page.wait_for_function(f"() => window.__said.length >= {n}", timeout=30000)
                    for page, words in ((hub, f"Mesa {m.table.short_name}: "), (match, "")):
                        said = page.evaluate("window.__said")
                        assert len(said) == n, said
                        assert said[-1] == f"{words}{names[0]} {score} pontos, {names[1]} 0 pontos; partidas 0 a 0", said
                # the table card's region does not speak for a push that changes no score
                hub.evaluate("() => document.dispatchEvent(new CustomEvent('board:swapped'))")
                assert len(hub.evaluate("window.__said")) == 2

                # the TV names each ball: its number inside, its name for a screen reader
                tv = ctx.new_page()
                tv.goto(f"{base}/matches/{m.pk}/tv/?lang=en", wait_until="load")
                balls = tv.evaluate("""() => [...document.querySelectorAll('#tv-breakballs .dot, #tv-ballon .dot')]
                  .map(d => [d.textContent.trim(), d.getAttribute('role'), d.getAttribute('aria-label')])""")
                assert balls == [["1", "img", "red"], ["7", "img", "black"], ["1", "img", "red"],
                                 ["6", "img", "pink"], ["1", "img", "red"]], balls
                ctx.close()
            finally:
                browser.close()
