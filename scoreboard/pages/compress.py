"""Public pages go out compressed.

A phone on a venue's Wi-Fi loads the event hub: its HTML (every tab of a 128-player event) is
tens of kilobytes of repeated markup that gzip shrinks about tenfold. Django's ``GZipMiddleware``
does it (with its BREACH mitigation), applied per view rather than for the whole site: only the
public, read-only pages, never the referee's, the desk's or the admin's, whose pages carry a
CSRF token or a session's secrets next to what a visitor can put in the address. Static files are
precompressed at ``collectstatic`` (``http.static``).
"""
from __future__ import annotations

from django.views.decorators.gzip import gzip_page

public_html = gzip_page
"""Decorate a public page's view: its answer is gzip-compressed for a client that accepts it
(``Content-Encoding: gzip``, ``Vary: Accept-Encoding``)."""
