#!/usr/bin/env python3
"""Several Daphne workers behind one address, kept alive: the production server.

    .venv/bin/python scripts/serve.py --workers 2 --bind 127.0.0.1:8000

The supervisor opens one listening socket per worker on the same address (SO_REUSEPORT) and
starts each worker as ``daphne --fd N scoreboard.asgi:application`` on its socket, so the kernel
hands each new connection (HTTP or websocket) to one of the workers: one address, no proxy
needed on a single machine. A worker that dies (even ``kill -9``) is started again at once; SIGTERM or SIGINT stops
them all. With more than one worker the in-memory channel layer cannot carry a change from the
worker that stored it to the sockets held by the others, so ``REDIS_URL`` is required (and
``DATABASE_URL`` for PostgreSQL: SQLite does not take writers from several processes well).
For several machines, put nginx in front (see ``deploy/nginx.conf``) and list its address in
``TRUSTED_PROXIES``: forwarded headers from anyone else are ignored.
"""
from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BACKLOG = int(os.environ.get("BACKLOG", "4096"))


def listen(bind: str) -> socket.socket:
    """A listening TCP socket on ``host:port``, inheritable by a worker.

    Each worker gets its own socket on the same address (SO_REUSEPORT), so the kernel spreads
    new connections evenly over the workers; with one shared socket, whichever worker woke first
    took them, and one worker could end up holding every screen. The supervisor keeps each socket
    open, so connections that arrive while a worker restarts wait in its queue, not refused.
    """
    host, _, port = bind.rpartition(":")
    fam = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(fam, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host.strip("[]") or "127.0.0.1", int(port)))
    # A full queue for a burst of connections (2,000 spectators at once overflowed Twisted's
    # default of 50); the kernel caps it at net.core.somaxconn.
    sock.listen(BACKLOG)
    sock.set_inheritable(True)
    return sock


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=int(os.environ.get("WORKERS", "2")))
    ap.add_argument("--bind", default=os.environ.get("BIND", "127.0.0.1:8000"))
    ap.add_argument("--app", default="scoreboard.asgi:application")
    a = ap.parse_args(argv)
    if a.workers < 1:
        ap.error("--workers must be at least 1")
    if a.workers > 1 and not os.environ.get("REDIS_URL"):
        print("serve.py: com mais de um worker é preciso REDIS_URL / more than one worker needs "
              "REDIS_URL (the in-memory channel layer does not cross processes)", file=sys.stderr)
        return 2
    socks = [listen(a.bind) for _ in range(a.workers)]
    workers: dict[int, subprocess.Popen] = {}
    stopping = False

    def start(i: int) -> None:
        fd = socks[i].fileno()
        # No --proxy-headers: Daphne would believe the leftmost X-Forwarded-For of any client.
        # The app takes the address from TRUSTED_PROXIES only (scoreboard/http/clients.py), and
        # writes the access log itself (-v 0 silences Daphne's, which prints query strings).
        cmd = [sys.executable, "-m", "daphne", "--fd", str(fd), "-v", "0", a.app]
        workers[i] = subprocess.Popen(cmd, cwd=ROOT, pass_fds=[fd])
        print(f"serve.py: worker {i} pid {workers[i].pid} on {a.bind}", file=sys.stderr, flush=True)

    def stop(signum, frame) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for i in range(a.workers):
        start(i)
    while not stopping:
        time.sleep(0.2)
        for i, p in list(workers.items()):
            if p.poll() is not None and not stopping:
                print(f"serve.py: worker {i} exited ({p.returncode}); restarting", file=sys.stderr,
                      flush=True)
                start(i)
    for p in workers.values():
        if p.poll() is None:
            p.terminate()
    deadline = time.monotonic() + 10
    for p in workers.values():
        try:
            p.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
