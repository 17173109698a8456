"""``scripts/run.sh`` and ``scripts/serve.py`` listen with a full backlog: with Twisted's default
of 50 (``daphne -b -p``) a burst of 2,000 spectators overflowed the kernel's accept queue and some
waited over a minute for a handshake."""
from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import subprocess
import sys
import time

from live_harness import free_port

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOMAXCONN = int(pathlib.Path("/proc/sys/net/core/somaxconn").read_text())
WANT = min(4096, SOMAXCONN)


def listen_backlog(port: int, timeout: float = 30) -> int:
    """The backlog of the socket listening on 127.0.0.1:``port`` (``ss``'s Send-Q column)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        out = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True).stdout
        if out.strip():
            return int(out.split()[2])
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on {port}")


def test_run_sh_serves_with_a_listen_backlog_of_4096():
    text = (ROOT / "scripts" / "run.sh").read_text()
    cmd = re.search(r"^exec (.*?daphne(?:.*\\\n)*.*)$", text, re.M).group(1)
    cmd = cmd.replace(".venv/bin/python", sys.executable)
    port = free_port()
    env = dict(os.environ, HOST="127.0.0.1", PORT=str(port))
    env.pop("DATABASE_URL", None), env.pop("REDIS_URL", None)
    proc = subprocess.Popen(["bash", "-c", f"cd {ROOT} && exec {cmd}"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert listen_backlog(port) == WANT
    finally:
        proc.kill()
        proc.wait()


def test_serve_py_listens_with_a_backlog_of_4096():
    spec = importlib.util.spec_from_file_location("serve", ROOT / "scripts" / "serve.py")
    serve = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(serve)
    port = free_port()
    sock = serve.listen(f"127.0.0.1:{port}")
    try:
        assert listen_backlog(port) == WANT
    finally:
        sock.close()
