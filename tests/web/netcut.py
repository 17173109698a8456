"""A network cut that is real for every request: a TCP relay between the browser and the live
server that the test can cut and restore.

Playwright's ``context.set_offline`` is the browser's emulation: it makes ``navigator.onLine``
false and fails the requests it is told about, but not everything the browser sends (the service
worker's script update check on a reload reached the server "offline" in every run). A tablet
test that asserts "nothing reached the server" needs a cut no request can pass: the tablet opens
the relay's address (same host, another port: the same site for Django and the sockets) and
:meth:`NetCut.cut` closes every open connection and resets every new one until
:meth:`NetCut.restore`. Use :func:`offline` to do both (the emulation for the page's
``navigator.onLine``, the relay for the wire).
"""
from __future__ import annotations

import socket
import struct
import threading
from urllib.parse import urlsplit


class NetCut:
    """Relay ``127.0.0.1:<port>`` to the live server at ``target_url``; ``url`` is the relay's."""

    def __init__(self, target_url: str) -> None:
        parts = urlsplit(target_url)
        self.target = (parts.hostname, parts.port)
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self.port = self._listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._cut = False
        self._closed = False
        self.refused = 0  # connections tried while cut (none of them reached the server)
        threading.Thread(target=self._accept, daemon=True, name="netcut-accept").start()

    @property
    def is_cut(self) -> bool:
        return self._cut

    def cut(self) -> None:
        """From now on nothing reaches the server: open connections closed, new ones reset."""
        with self._lock:
            self._cut = True
            for s in list(self._open):
                _reset(s)
            self._open.clear()

    def restore(self) -> None:
        with self._lock:
            self._cut = False

    def close(self) -> None:
        self._closed = True
        self.cut()
        try:
            self._listener.close()
        except OSError:
            pass

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                if self._cut:
                    self.refused += 1
                    _reset(client)
                    continue
            try:
                upstream = socket.create_connection(self.target, timeout=10)
                upstream.settimeout(None)
            except OSError:
                _reset(client)
                continue
            with self._lock:
                if self._cut:  # cut while connecting
                    self.refused += 1
                    _reset(client)
                    _reset(upstream)
                    continue
                self._open.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True, name="netcut-pump").start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        finally:
            if not self._cut:  # the other side ended: pass its end on (a cut resets instead)
                try:
                    dst.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
            # both sockets stay in _open (a few per test) until cut() or close() ends them


def _reset(s: socket.socket) -> None:
    """Close with a TCP reset (as a dropped link looks to the browser), not a graceful close, at
    once. A close alone did not end a connection whose pump thread was waiting in ``recv``: the
    kernel keeps the socket until that call returns, so an open websocket or keep-alive
    connection lived on through a "cut" until the browser next sent on it. Shutting down the
    reading side first wakes that ``recv`` (it sends nothing); the close then resets."""
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    try:
        s.shutdown(socket.SHUT_RD)
    except OSError:
        pass
    try:
        s.close()
    except OSError:
        pass


def offline(ctx, cut: NetCut, on: bool) -> None:
    """Take the tablet off the network (``on``) or back: the browser's emulation, so that the
    page's ``navigator.onLine`` and its events say so, and the relay, so that no request of any
    kind (page, worker, service worker, the browser's own) reaches the server meanwhile."""
    if on:
        cut.cut()
        ctx.set_offline(True)
    else:
        cut.restore()  # first: the page's "online" event sends at once, through the relay
        ctx.set_offline(False)
