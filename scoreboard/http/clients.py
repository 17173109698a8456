"""Who is asking: the client's address, taken from forwarding headers only when a trusted proxy
sent them, and an access log that never writes a query string.

Without ``TRUSTED_PROXIES`` every ``X-Forwarded-For`` is ignored: anyone can send one, and an
address chosen per request would make per-address limits worthless (the table PIN fell in 19 s
that way). With it, the address is the rightmost hop of ``X-Forwarded-For`` that is not a
trusted proxy: each trusted proxy appends the address it saw, so hops to the right of the first
untrusted one were written by our proxies and everything to its left by the client.

:class:`ClientAddressMiddleware` wraps the ASGI application, so Django (``REMOTE_ADDR``: rate
limits, django-axes), the websockets and the access log all see the same address.
"""
from __future__ import annotations

import functools
import ipaddress
import logging
import time

from django.conf import settings

access_log = logging.getLogger("scoreboard.access")


@functools.lru_cache(maxsize=8)
def _networks(spec: tuple[str, ...]) -> tuple:
    return tuple(ipaddress.ip_network(s.strip(), strict=False) for s in spec if s.strip())


def trusted_networks() -> tuple:
    """The networks of ``settings.TRUSTED_PROXIES`` (addresses or CIDR blocks)."""
    return _networks(tuple(getattr(settings, "TRUSTED_PROXIES", ()) or ()))


def _is_trusted(addr: str, networks) -> bool:
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        return False
    return any(ip in n for n in networks)


def client_address(peer: str | None, forwarded_for: str | None, networks=None) -> str | None:
    """The client's address: ``peer`` (the TCP peer), or, when ``peer`` is a trusted proxy, the
    rightmost hop of ``forwarded_for`` that is not one (a malformed hop stops the walk at the
    last trusted address)."""
    networks = trusted_networks() if networks is None else networks
    if not peer or not networks or not forwarded_for or not _is_trusted(peer, networks):
        return peer
    addr = peer
    for hop in reversed([h.strip() for h in forwarded_for.split(",")]):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return addr
        addr = hop
        if not _is_trusted(hop, networks):
            return addr
    return addr


def _header(scope: dict, name: bytes) -> str | None:
    values = [v.decode("latin-1") for k, v in scope.get("headers", ()) if k.lower() == name]
    return ",".join(values) if values else None


class ClientAddressMiddleware:
    """ASGI middleware: put the client's address (see :func:`client_address`) in
    ``scope["client"]``, and write one access-log line per HTTP response and websocket
    connection to the ``scoreboard.access`` logger: address, method, path (never the query
    string, which could hold a login code), status, milliseconds."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        peer = scope.get("client")
        addr = client_address(peer[0] if peer else None, _header(scope, b"x-forwarded-for"))
        if peer and addr != peer[0]:
            scope = dict(scope, client=(addr, 0))
        if not access_log.isEnabledFor(logging.INFO):
            return await self.app(scope, receive, send)
        if scope["type"] == "websocket":
            access_log.info('%s "WS %s"', addr, scope.get("path", ""))
            return await self.app(scope, receive, send)
        t0 = time.perf_counter()
        status = []

        async def logged_send(message):
            if message["type"] == "http.response.start":
                status.append(message.get("status"))
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                access_log.info('%s "%s %s" %s %.0fms', addr, scope.get("method", ""),
                                scope.get("path", ""), status[0] if status else "-",
                                (time.perf_counter() - t0) * 1000)

        return await self.app(scope, receive, logged_send)


DEFAULT_PORTS = {"http": "80", "https": "443"}


def origin_allowed(origin: str | None, host: str | None) -> bool:
    """Whether a websocket's ``Origin`` may open it: an http(s) origin whose host is in
    ``ALLOWED_HOSTS`` and whose host *and port* are those of the ``Host`` it connected to (the
    page that opens the socket was served from there). Channels' AllowedHostsOriginValidator
    compares host names only, so a page of another service on the same machine (another port)
    could open sockets in a viewer's name. Without a ``Host`` header (browsers always send one)
    only the host name is checked."""
    from urllib.parse import urlsplit

    from django.http.request import split_domain_port, validate_host

    if not origin:
        return False
    try:
        o = urlsplit(origin.strip())
        o_port = str(o.port) if o.port is not None else DEFAULT_PORTS.get(o.scheme)
    except ValueError:
        return False
    if o.scheme not in DEFAULT_PORTS or not o.hostname:
        return False
    if not validate_host(o.hostname, settings.ALLOWED_HOSTS):
        return False
    if host is None:
        return True
    h_name, h_port = split_domain_port(host.strip().lower())
    return h_name.strip("[]") == o.hostname.lower() and (h_port or DEFAULT_PORTS[o.scheme]) == o_port


class SameOriginMiddleware:
    """ASGI middleware for websockets: refuse (close before accepting) a socket whose
    ``Origin`` fails :func:`origin_allowed`."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not origin_allowed(_header(scope, b"origin"),
                                                              _header(scope, b"host")):
            message = await receive()
            if message["type"] == "websocket.connect":
                await send({"type": "websocket.close"})  # before accept: HTTP 403
            return None
        return await self.app(scope, receive, send)


def request_address(request) -> str | None:
    """The client's address of a Django request (``REMOTE_ADDR``, already resolved by
    :class:`ClientAddressMiddleware`): django-axes' ``AXES_CLIENT_IP_CALLABLE``."""
    return request.META.get("REMOTE_ADDR")
