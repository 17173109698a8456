"""The tablet's own drawing (``presentation.tablet``, run in the browser by Pyodide offline and before the
server answers) says what the server's page says, position by position of ``demo/final.json``:
the same controls (class, event, enabled, words), the same decision choices, the same endings'
confirmations, the same foul dialog (the colour aimed at first, nothing preselected) and the
same foul preview lines. On merge-trial's code the engine drew its own words ("Jogar", "Partida
de Ana Souza", a foul dialog whose "cor cantada" started at "nenhuma").
"""
from __future__ import annotations

import json
import pathlib
import re
from html.parser import HTMLParser

import pytest

from sinuca import Match, Phase
from presentation.tablet import TabletEngine, foul_event, foul_form, preview_texts
from scoreboard.core import log
from scoreboard.core.matches import create_match

pytestmark = pytest.mark.django_db

DEMO = json.loads((pathlib.Path(__file__).resolve().parents[2] / "demo" / "final.json").read_text())
VOID = {"input", "br", "img", "meta", "link", "hr"}


class Node:
    def __init__(self, tag, attrs, parent=None):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    @property
    def cls(self) -> str:
        return self.attrs.get("class") or ""

    def text(self) -> str:
        out = []
        for c in self.children:
            out.append(c if isinstance(c, str) else c.text())
        return re.sub(r"\s+", " ", " ".join(out)).strip()

    def find(self, pred) -> list["Node"]:
        found = []
        for c in self.children:
            if isinstance(c, Node):
                if pred(c):
                    found.append(c)
                found += c.find(pred)
        return found


class Tree(HTMLParser):
    """A small DOM of the server's HTML (the standard library's parser, nothing to install)."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.root = self.cur = Node("root", [])
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        if data.strip():
            self.cur.children.append(data)


def server_controls(html: str) -> list[tuple]:
    """What the server's rendered controls show, in order: every heading, line of text and button
    (its class, event, whether enabled, its words) inside ``form.ref-controls``."""
    form = Tree(html).root.find(lambda n: n.tag == "form" and "ref-controls" in n.cls)[0]
    out = []

    def walk(node):
        for c in node.children:
            if not isinstance(c, Node):
                continue
            if c.tag == "button":
                out.append(("button", c.cls, c.attrs.get("value"), "disabled" not in c.attrs, c.text()))
            elif c.tag in ("h2", "p", "summary") or c.cls in ("q", "confirm-what"):
                out.append((c.tag if c.tag != "span" else c.cls, c.cls, c.text()))
            elif not (c.tag == "a"):  # the next match's link of a table (not part of the engine's view)
                walk(c)
    walk(form)
    return out


def local_controls(view: dict) -> list[tuple]:
    """The same list from the engine's view, as referee.js draws it."""
    out = []

    def button(b):
        words = " ".join(x for x in (b["label"], b.get("explain") or b["small"]) if x)
        out.append(("button", b["cls"], b["event"], b["enabled"], words))

    def confirmable(r):
        button(r["buttons"][0])
        out.append(("confirm-what", "confirm-what", r["title"]))
        for b in r["buttons"][1:]:
            button(b)

    for row in view["controls"]:
        k = row["kind"]
        if k == "title":
            out.append(("h2", "ref-head", row["title"]))
        elif k == "penalty":
            out.append(("p", "penalty", row["title"]))
        elif k == "result":
            out += [(t["tag"], t["cls"], t["text"]) for t in row["texts"]]
        elif k == "undo":
            confirmable(row)
        elif k == "art28":
            out.append(("q", "q", row["title"]))
            for b in row["buttons"]:
                button(b)
        elif k == "freeball":
            out.append(("p", "fb-title", row["title"]))
            for b in row["buttons"]:
                button(b)
        elif k == "more":
            out.append(("summary", "", row["title"]))
            for r in row["rows"]:
                if r["kind"] == "confirm":
                    confirmable(r)
                else:
                    for b in r["buttons"]:
                        button(b)
        else:
            for b in row["buttons"]:
                button(b)
    return out


def positions() -> list[int]:
    """Prefixes of the demo's log worth comparing: every phase change and its next position, every
    position where a free ball is offered, every undo (its preview names what the next undo takes
    back) and every tenth."""
    m = Match(DEMO["config"])
    picked, last = {0}, None
    for k, ev in enumerate(DEMO["events"], start=1):
        m.apply(ev)
        s, o = m.state(), m.options()
        if ev["type"] == "undo" or s["phase"] != last or o["free_ball"] or o["free_ball_offered"] or k % 10 == 0 or s["aggravated_fouls"]:
            picked.add(k)
        last = s["phase"]
    return sorted(picked)


def the_servers_foul_fields(state: dict) -> dict:
    """A foul a referee enters: the blue aimed at when a colour is owed, a snooker left."""
    fields = {"snooker": "1", "expected_seq": ""}
    if state["phase"] == Phase.PLAY and len(state["ball_on"]) > 1:
        fields["nominated"] = "5" if 5 in state["colours_remaining"] else "none"
    return fields


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_the_engines_drawing_is_the_servers_page_at_every_kind_of_position_of_the_demo(lang):
    created = create_match("Ana Souza", "Bia Lima", reds=15, frames_to_win=2)
    mid = created.match.pk
    from django.test import Client

    client = Client()
    assert client.get(created.referee_url).status_code == 302
    wanted = positions()
    seen_phases, seen_banners, compared, previews = set(), set(), 0, 0
    for k, ev in enumerate([None] + DEMO["events"]):
        if ev is not None:
            log.append_event(mid, ev, expected_seq=k - 1)
        if k not in wanted:
            continue
        m = Match.replay(DEMO["config"], DEMO["events"][:k])
        q = "?lang=en" if lang == "en" else ""
        html = client.get(f"/matches/{mid}/referee/{q}").content.decode()
        # the engine's own undo preview (what an undo takes back), as the tablet's browser computes it
        view = TabletEngine(DEMO["config"], DEMO["events"][:k], lang).view()
        assert local_controls(view) == server_controls(html), (k, DEMO["events"][k - 1] if k else None)
        # the board: its banners, who is at the table (nobody once the frame is over) and the winner
        tree = Tree(html).root
        banners = tree.find(lambda n: "ref-banners" in n.cls)[0]
        assert [(b.cls, b.text()) for b in banners.children if isinstance(b, Node)] == \
            [(b["cls"], b["text"]) for b in view["banner_rows"]], k
        boxes = tree.find(lambda n: n.tag == "div" and "ref-player" in n.cls.split())
        assert [("at-table" in b.cls.split(), "winner" in b.cls.split()) for b in boxes] == \
            [(p["at_table"], view["winner"] == i) for i, p in enumerate(view["players"])], k
        seen_banners.update(b["cls"] for b in view["banner_rows"])
        compared += 1
        s = m.state()
        seen_phases.add(s["phase"])
        if "foul" in m.options()["events"] and s["phase"] == Phase.PLAY:
            # the foul dialog: the colour aimed at asked first, same choices, nothing preselected
            dialog = Tree(client.get(f"/matches/{mid}/referee/foul/{q}").content.decode()).root
            nom = dialog.find(lambda n: n.tag == "input" and n.attrs.get("name") == "nominated")
            form = foul_form(m, lang)
            local_nom = [c for f in form["fields"] for c in f["choices"] if c["name"] == "nominated"]
            assert [n.attrs["value"] for n in nom] == [c["value"] for c in local_nom], k
            assert not any("checked" in n.attrs for n in nom) and not any(c["checked"] for c in local_nom)
            assert form["needs_nomination"] is bool(nom)
            kinds = dialog.find(lambda n: n.tag == "input" and n.attrs.get("name") == "kind")
            assert [n.attrs["value"] for n in kinds] == [c["value"] for f in form["fields"] for c in f["choices"]
                                                         + [c for g in (f.get("more") or {}).get("groups", [])
                                                            for c in g["choices"]] if c["name"] == "kind"]
            # and the preview of the same foul, line by line, words and classes
            fields = the_servers_foul_fields(s)
            served = Tree(client.post(f"/matches/{mid}/referee/foul/preview/{q}", fields).content.decode()).root
            served_lines = [(p.cls, p.text()) for p in served.find(lambda n: n.tag == "p")]
            local = preview_texts(m, foul_event({k2: [v] for k2, v in fields.items()}), lang,
                                  fields.get("nominated", ""))
            assert [(x["cls"], x["text"]) for x in local["lines"]] == served_lines, k
            assert served_lines and served_lines[0][1]
            previews += 1
    print(f"{compared} positions compared, {previews} foul previews; phases {sorted(seen_phases)}, "
          f"banners {sorted(seen_banners)}")
    assert compared >= 30 and previews >= 10 and "banner fb" in seen_banners
    assert {Phase.LOT, Phase.PLAY, Phase.DECISION, Phase.FRAME_OVER, Phase.MATCH_OVER} <= seen_phases
