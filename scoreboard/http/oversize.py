"""Oversized requests get an answer: 414 for a request line over 16 KB, 431 for headers (a
cookie) over 16 KB, each with a body in Portuguese and English.

Daphne serves HTTP with Twisted's ``HTTPChannel``, which reads a request's line and headers with
a limit of 16 KB each line (``MAX_LENGTH``) and 16 KB in all (``totalHeadersSize``). Over the
first it closed the connection without a word; over the second it wrote a bare "400 Bad
Request" with no body. A browser showed an empty page or "connection reset", and a phone whose
cookies had grown could not tell what was wrong. :func:`install` gives the channel both answers
(Twisted's own limits kept); other malformed requests keep Twisted's 400, with a body.
"""
from __future__ import annotations

LIMIT_KB = 16


def _answer(status: bytes, text: str) -> bytes:
    body = text.encode("utf-8")
    return (b"HTTP/1.1 " + status + b"\r\nContent-Type: text/plain; charset=utf-8\r\n"
            b"Cache-Control: no-store\r\nConnection: close\r\nContent-Length: "
            + str(len(body)).encode() + b"\r\n\r\n" + body)


URI_TOO_LONG = _answer(b"414 URI Too Long",
                       f"Endereço (URL) longo demais: no máximo {LIMIT_KB} KB.\n"
                       f"URL too long: at most {LIMIT_KB} KB.\n")
HEADERS_TOO_LARGE = _answer(b"431 Request Header Fields Too Large",
                            f"Cabeçalhos grandes demais (cookies?): no máximo {LIMIT_KB} KB. "
                            "Apague os cookies deste site e tente de novo.\n"
                            f"Request headers too large (cookies?): at most {LIMIT_KB} KB. "
                            "Clear this site's cookies and try again.\n")
BAD_REQUEST = _answer(b"400 Bad Request", "Requisição malformada.\nMalformed request.\n")


def _in_request_line(channel) -> bool:
    # Twisted's HTTPChannel marks the request line to come with its private __first_line
    return bool(getattr(channel, "_HTTPChannel__first_line", 0))


def _line_too_long(self, line):
    """A line over ``MAX_LENGTH``: the request line (414) or a header (431)."""
    self.transport.write(URI_TOO_LONG if _in_request_line(self) else HEADERS_TOO_LARGE)
    self.loseConnection()


def _bad_request(self):
    """Twisted's bad request, with a body; headers over ``totalHeadersSize`` are a 431."""
    too_large = self._receivedHeaderSize > self.totalHeadersSize
    self.transport.write((URI_TOO_LONG if _in_request_line(self) else HEADERS_TOO_LARGE) if too_large
                         else BAD_REQUEST)
    self.loseConnection()


def install() -> None:
    """Give Twisted's ``HTTPChannel`` (Daphne's) the answers above, once per process."""
    from twisted.web import http

    http.HTTPChannel.lineLengthExceeded = _line_too_long
    http.HTTPChannel._respondToBadRequestAndDisconnect = _bad_request
