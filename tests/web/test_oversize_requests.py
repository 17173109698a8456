"""A request line or a cookie over 16 KB is answered (414, 431) in both languages, not closed
without a word, on the HTTP channel Daphne serves with (Twisted's)."""
from __future__ import annotations

from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport
from twisted.web import http

from scoreboard.http import oversize


def _answer(raw: bytes) -> bytes:
    oversize.install()
    channel = http.HTTPFactory().buildProtocol(IPv4Address("TCP", "127.0.0.1", 5555))
    transport = StringTransport()
    channel.makeConnection(transport)
    channel.dataReceived(raw)
    return transport.value()


def test_a_20_kb_url_is_a_414_with_a_bilingual_body():
    out = _answer(b"GET /?q=" + b"a" * 20_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    head, _, body = out.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 414 URI Too Long\r\n")
    assert body.decode() == "Endereço (URL) longo demais: no máximo 16 KB.\nURL too long: at most 16 KB.\n"


def test_a_20_kb_cookie_and_17_kb_of_headers_are_431():
    for raw in (b"GET / HTTP/1.1\r\nHost: x\r\nCookie: a=" + b"b" * 20_000 + b"\r\n\r\n",
                b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: %s\r\n" % (i, b"c" * 1000) for i in range(17)) + b"\r\n"):
        head, _, body = _answer(raw).partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n"), head[:60]
        assert b"Content-Length: %d" % len(body) in head
        assert "Apague os cookies deste site" in body.decode() and "Clear this site's cookies" in body.decode()


def test_an_ordinary_request_is_not_refused():
    out = _answer(b"GET / HTTP/1.1\r\nHost: x\r\nCookie: a=" + b"b" * 4000 + b"\r\n\r\n")
    assert not out.startswith((b"HTTP/1.1 4",))
