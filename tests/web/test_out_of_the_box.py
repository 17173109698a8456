"""Issue 11, finding 8: out of the box. The demo match of ``scripts/run.sh`` is on a table (so the
README's ``/tables/1/…`` answer), with a referee by name; ``/favicon.ico`` exists; and ``/display/``
shows each preview whole (a browser test measures it)."""
from __future__ import annotations

import io
import json
import pathlib
import re
import shlex

import pytest
from django.core.management import call_command

from ops_helpers import fresh_engines, fresh_stats  # noqa: F401  (forget cached engines: ids repeat)

ROOT = pathlib.Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db


def run_sh_demo_args() -> list[str]:
    """The creatematch arguments scripts/run.sh uses for its demo match."""
    text = (ROOT / "scripts" / "run.sh").read_text()
    cmd = re.search(r"manage\.py creatematch (.*?)\)(?:; then)?\n", text, re.S).group(1).replace("\\\n", " ")
    return [a for a in shlex.split(cmd.replace('"http://$HOST:$PORT"', "http://127.0.0.1:8000"))]


@pytest.mark.django_db(transaction=True, reset_sequences=True)  # a fresh database: table 1
@pytest.mark.pg
def test_the_run_sh_demo_match_is_on_table_1_with_a_referee(client):
    out = io.StringIO()
    call_command("creatematch", *run_sh_demo_args(), stdout=out)
    info = json.loads(out.getvalue())
    assert info["table_tv_url"] == "http://127.0.0.1:8000/tables/1/tv/"
    assert info["table_overlay_url"] == "http://127.0.0.1:8000/tables/1/overlay/"
    for path in ("/tables/1/tv/", "/tables/1/overlay/", "/tables/1/feed.json"):
        assert client.get(path).status_code == 200, path
    assert "Ana Souza" in client.get("/tables/1/overlay/").content.decode()
    head = client.get(f"/matches/{info['match']}/sumula.csv").content.decode()
    assert "Árbitro,Carlos Mendes" in head and "Mesa,1\r\n" in head


def test_creatematch_refuses_a_long_referee_name(db):
    from django.core.management import CommandError

    from scoreboard.core.models import Match

    with pytest.raises(CommandError, match=r"árbitro: .* / referee: more than 80 characters"):
        call_command("creatematch", "--player-a", "Ana", "--player-b", "Bia", "--referee", "x" * 81)
    assert Match.objects.count() == 0


def test_favicon(client):
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r["Content-Type"] == "image/vnd.microsoft.icon"
    assert r.content[:4] == b"\x00\x00\x01\x00"  # an ICO file
    assert 'rel="icon"' in client.get("/").content.decode()


def test_a_rehearsal_says_so_on_the_venue_and_the_sumula(client):
    from scoreboard.core.matches import new_match

    m = new_match({"players": ["Ana", "Bia"], "first_breaker": 0}, table="Mesa 1", rehearsal=True)
    assert re.search(r'class="mc-rehearsal">ensaio<', client.get("/").content.decode())
    assert "Ensaio,sim — não é um resultado oficial" in client.get(f"/matches/{m.pk}/sumula.csv").content.decode()


def test_a_match_waiting_for_the_lot_says_so_on_the_venue(client):
    """The venue card read ``ph`` from a context that did not pass it: a match waiting for its
    lot (Art. 17) showed "Na mesa: " with no name."""
    from scoreboard.core.matches import new_match

    new_match({"players": ["Ana", "Bia"]}, table="Mesa 1")  # no first breaker: the lot is due
    html = client.get("/").content.decode()
    assert "Aguardando sorteio (Art. 17)" in html and "Na mesa: \n" not in html
