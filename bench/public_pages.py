"""Benchmark: the federation's public pages, a player's page above all (issue 35: ≤ 60 KB on the
wire, ≤ 10 s from the last tap to the page).

A scratch database gets a season's worth of one player's matches (``--matches``, default 200,
each of 3 frames with breaks of every size, against 20 opponents); then, in this process, through
Django's test client (no network, so the figures are the app's own work):

* the player's page: its bytes as HTML and gzipped (what a phone receives), the time of its first
  render (every match's statistics folded: a cold worker) and of a warm one (p50, p99 of
  ``--reps``), and of a 304 answer to ``If-None-Match`` (what a cache in front revalidates with);
* the same for ``/api/players/<id>/career/`` and a head-to-head page;
* the time from the tap that ends a match to the page's new text rendered (what the board socket
  pushes): the push's own share of the ≤ 10 s.

Run: .venv/bin/python bench/public_pages.py [--matches 200] [--reps 30]
(SQLite in a temporary directory unless DATABASE_URL is set.)
"""
from __future__ import annotations

import argparse
import gzip
import os
import pathlib
import statistics
import sys
import tempfile
import time
import uuid

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=200)
    ap.add_argument("--reps", type=int, default=30)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-public-")
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{tmp}/db.sqlite3")
    os.environ.update(DJANGO_SETTINGS_MODULE="scoreboard.settings", DJANGO_DEBUG="0",
                      DJANGO_SECRET_KEY="bench-" + uuid.uuid4().hex, DJANGO_ALLOWED_HOSTS="testserver")
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client

    from scoreboard.core import log
    from scoreboard.core.matches import match_config, new_match
    from scoreboard.core.models import Player
    from scoreboard.reports import stats

    from django.test import override_settings

    # the static files' plain names (no collectstatic run for a benchmark)
    override_settings(STORAGES={"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                                "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}).enable()
    call_command("migrate", verbosity=0)
    me = Player.objects.create(name="Igor Martins de Albuquerque", club="Clube Santista")
    rivals = [Player.objects.create(name=f"Adversário {i}", club=f"Clube {i % 7}") for i in range(20)]
    t0 = time.perf_counter()
    last = None
    for i in range(args.matches):
        other = rivals[i % len(rivals)]
        m = new_match(match_config([me.name, other.name], reds=6, frames_to_win=2), players=(me, other))
        log.append_event(m.pk, {"type": "lot", "player": i % 2})
        for frame in range(3):
            if frame:
                log.append_event(m.pk, {"type": "next_frame"})
            for _ in range(i % 7):  # breaks of 0 to 48
                log.append_event(m.pk, {"type": "pot", "balls": [1]})
                log.append_event(m.pk, {"type": "pot", "balls": [7]})
            loser = (frame + i) % 2 if frame < 2 else 1 - (i % 2)
            log.append_event(m.pk, {"type": "concede", "player": loser})
        last = m
    print(f"set-up: {args.matches} matches in {time.perf_counter() - t0:.1f} s")
    c = Client()

    def measure(url: str, label: str) -> None:
        stats._cache.clear()
        t = time.perf_counter()
        r = c.get(url, HTTP_ACCEPT_ENCODING="gzip")
        cold = (time.perf_counter() - t) * 1000
        assert r.status_code == 200, (url, r.status_code)
        raw = gzip.decompress(r.content) if r.get("Content-Encoding") == "gzip" else r.content
        warm = []
        for _ in range(args.reps):
            t = time.perf_counter()
            c.get(url, HTTP_ACCEPT_ENCODING="gzip")
            warm.append((time.perf_counter() - t) * 1000)
        nm = []
        for _ in range(args.reps):
            t = time.perf_counter()
            r2 = c.get(url, HTTP_ACCEPT_ENCODING="gzip", HTTP_IF_NONE_MATCH=r["ETag"])
            nm.append((time.perf_counter() - t) * 1000)
        assert r2.status_code == 304
        print(f"{label}: {len(raw):,} B HTML, {len(r.content):,} B on the wire (gzip); first render {cold:.0f} ms"
              f" (cold folds), warm p50 {statistics.median(warm):.1f} ms p99 {pct(warm, .99):.1f} ms;"
              f" 304 p50 {statistics.median(nm):.1f} ms")

    measure(f"/players/{me.pk}/", f"player page ({args.matches} matches)")
    measure(f"/api/players/{me.pk}/career/", "career JSON")
    measure(f"/players/{me.pk}/h2h/{rivals[0].pk}/", f"head-to-head page ({args.matches // 20} matches)")
    # a match ends: the page's new text (what the board socket pushes) rendered after the tap
    from scoreboard.pages import public

    m = new_match(match_config([me.name, rivals[1].name], reds=6), players=(me, rivals[1]))
    log.append_event(m.pk, {"type": "lot", "player": 0})
    public.render_career(me.pk, "pt-br")
    t = time.perf_counter()
    log.append_event(m.pk, {"type": "concede", "player": 1})
    text = public.render_career(me.pk, "pt-br")
    print(f"tap that ends a match -> the player's page re-rendered: {(time.perf_counter() - t) * 1000:.0f} ms"
          f" ({len(text):,} B pushed before the socket's compression)")
    del last


if __name__ == "__main__":
    main()
