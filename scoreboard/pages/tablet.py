"""The referee tablet's in-browser engine: the ``sinuca/`` and ``presentation/`` packages served
as a zip, the service
worker that keeps it (and Pyodide, and the tablet's static files) for offline use, and the
settings the page hands to ``static/scoreboard/engine.js``.

The zip is the very package on disk (the same code the server runs, never a second
implementation), once per process, and its URL carries the content's hash, so a browser may cache
it for a year and a new engine is a new URL. It holds the package compiled by Pyodide's CPython
(``engine_pyc.zip``, built at setup by ``scripts/build_engine_pyc.mjs``) while every ``.pyc``
there was compiled from the source now on disk (each carries its source's hash), and the sources
otherwise; it is served brotli'd.
"""
from __future__ import annotations

import _imp  # source_hash: the hash a hash-based .pyc holds of its source
import gzip
import hashlib
import io
import json
import pathlib
import re
import zipfile
from functools import lru_cache

import brotli

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.http import require_safe

import presentation
import sinuca

from .referee import tablet_urls

# The packages the tablet runs: the rules and their words (the tablet's view).
ENGINE_DIRS = tuple(pathlib.Path(pkg.__file__).resolve().parent for pkg in (sinuca, presentation))
PYODIDE_DIR = "vendor/pyodide/"
# python_stdlib_engine.zip: only the stdlib modules the engine uses, compiled (scripts/lib.sh
# ensure_pyodide builds it); python_stdlib.zip, the whole, is the fallback and not kept.
STDLIB_ENGINE = "python_stdlib_engine.zip"
# the engine compiled (scripts/build_engine_pyc.mjs), beside the Pyodide it was compiled by
ENGINE_PYC = "engine_pyc.zip"
# Pyodide's files the tablet loads. Not pyodide-lock.json: the worker hands Pyodide a lock of no
# packages (``lock_info``), as the engine loads none (issue 20: 22 kB and a request less).
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", STDLIB_ENGINE)
# The tablet's own static files, kept by the service worker at its install (names resolved by the
# storage, so hashed in production): every file the referee page loads, as the page's first visit
# is not under the worker's control and what it fetched is not kept otherwise (an offline reload
# drew the board without the tap guard, referee-ui.js).
TABLET_STATIC = ("scoreboard/base.css", "scoreboard/favicon.svg", "scoreboard/live.js", "scoreboard/referee-ui.js",
                 "scoreboard/referee.js", "scoreboard/engine.js", "scoreboard/engine-worker.js",
                 "scoreboard/tablet-status.js", "scoreboard/follow.js", "django_htmx/htmx-2.min.js")
SW_SCOPE = "/matches/"


def _sources() -> dict[str, bytes]:
    """Every ``.py`` file of the ``sinuca`` and ``presentation`` packages, by ``"pkg/name.py"``."""
    return {f"{pkg.name}/{path.name}": path.read_bytes() for pkg in ENGINE_DIRS for path in sorted(pkg.glob("*.py"))}


def _data() -> dict[str, bytes]:
    """The packages' data the engine reads through its loader (the rules text,
    ``sinuca/rulebook.py``), by ``"sinuca/data/name.txt"``: in the zip as it is."""
    return {f"{pkg.name}/data/{path.name}": path.read_bytes()
            for pkg in ENGINE_DIRS for path in sorted(pkg.glob("data/*.txt"))}


def _vendor_file(name: str) -> pathlib.Path | None:
    """``name`` among Pyodide's files (collected or not), or None."""
    for base in [settings.STATIC_ROOT, *settings.STATICFILES_DIRS]:
        path = pathlib.Path(base) / PYODIDE_DIR / name
        if path.exists():
            return path
    return None


def _pyc_magic() -> bytes | None:
    """The bytecode magic of the Pyodide in use (its engine stdlib's first ``.pyc``)."""
    path = _vendor_file(STDLIB_ENGINE)
    if path is None:
        return None
    with zipfile.ZipFile(path) as z:
        first = next((n for n in z.namelist() if n.endswith(".pyc")), None)
        return z.read(first)[:4] if first else None


def _matches(data: bytes, sources: dict[str, bytes], magic: bytes) -> bool:
    """Whether the zip ``data`` holds exactly one ``.pyc`` per source, each an unchecked
    hash-based ``.pyc`` of bytecode ``magic`` whose hash is its source's, and the packages' data
    files (:func:`_data`) as they are on disk."""
    key = int.from_bytes(magic, "little")
    files = _data()
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            if sorted(z.namelist()) != sorted([n[:-3] + ".pyc" for n in sources] + list(files)):
                return False
            if any(z.read(name) != content for name, content in files.items()):
                return False
            for name, source in sources.items():
                head = z.read(name[:-3] + ".pyc")[:16]
                if head[:4] != magic or head[4:8] != b"\x01\0\0\0" or head[8:16] != _imp.source_hash(key, source):
                    return False
    except zipfile.BadZipFile:
        return False
    return True


def compiled_zip(sources: dict[str, bytes]) -> bytes | None:
    """The bytes of ``engine_pyc.zip`` (collected or not) compiled by the Pyodide in use from
    ``sources`` as they are now; None without one (not built, or built before the code changed:
    the sources are served then)."""
    magic = _pyc_magic()
    if magic is None:
        return None
    for base in [settings.STATIC_ROOT, *settings.STATICFILES_DIRS]:
        path = pathlib.Path(base) / PYODIDE_DIR / ENGINE_PYC
        if path.exists() and _matches(data := path.read_bytes(), sources, magic):
            return data
    return None


@lru_cache(maxsize=1)
def engine_zip() -> tuple[str, bytes]:
    """``(digest, bytes)``: the engine compiled (:func:`compiled_zip`), or every ``.py`` file of
    the ``sinuca`` and ``presentation`` packages and their data (the rules text) zipped (stored: the answer is brotli'd) under
    their names with fixed timestamps, so equal code gives equal bytes and an equal digest."""
    sources = _sources()
    data = compiled_zip(sources)
    if data is None:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
            for name, source in {**sources, **_data()}.items():
                z.writestr(zipfile.ZipInfo(name, date_time=(2008, 1, 1, 0, 0, 0)), source)
        data = buf.getvalue()
    return hashlib.sha256(data).hexdigest()[:16], data


@lru_cache(maxsize=4)
def _packed(digest: str, encoding: str) -> bytes:
    """The engine zip of ``digest`` brotli'd (quality 11: 0.4 s, once per process) or gzipped."""
    data = engine_zip()[1]
    return brotli.compress(data, quality=11) if encoding == "br" else gzip.compress(data, 9, mtime=0)


def snapshot_key() -> str:
    """The key of the tablet's memory snapshot: the Pyodide build and the engine zip's digest."""
    return f"{_pyodide_stamp()}-{engine_zip()[0]}"


def engine_zip_url() -> str:
    """The versioned URL of the engine zip."""
    return reverse("tablet_engine_zip", args=[engine_zip()[0]])


def pyodide_index() -> str:
    """Where Pyodide's files are served (unhashed names: Pyodide asks for them by name)."""
    return settings.STATIC_URL + PYODIDE_DIR


def _static(name: str) -> str:
    try:
        return static(name)
    except ValueError:  # a manifest without this file (collectstatic not run): its plain name
        return settings.STATIC_URL + name


def precache_urls() -> list[str]:
    """What the service worker stores on install: Pyodide, the engine zip, the tablet's files."""
    return ([pyodide_index() + f for f in PYODIDE_FILES] + [engine_zip_url()]
            + [_static(n) for n in TABLET_STATIC])


def client_settings(match, lang: str) -> dict:
    """What ``engine.js`` needs on the referee page (embedded as JSON by the template)."""
    return {
        "match": match.pk,
        "config": match.config,
        "lang": "en" if (lang or "").startswith("en") else "pt",
        "pyodide": pyodide_index(),
        "engine_zip": engine_zip_url(),
        "worker": _static("scoreboard/engine-worker.js"),
        # the tablet's memory snapshot of the started engine is kept under this key: a new engine
        # zip or a new Pyodide is a new key, so an old snapshot is never booted
        "snapshot_key": snapshot_key(),
        "stdlib": pyodide_index() + STDLIB_ENGINE,
        # Pyodide's lock file without its packages (the engine loads none): no download of it
        "lock_info": lock_info(),
        "service_worker": reverse("tablet_service_worker"),
        "events": reverse("api_events", args=[match.pk]),
        # where the controls the engine draws post: the same the server's page writes
        "urls": tablet_urls(match),
    }


@lru_cache(maxsize=1)
def lock_info() -> dict | None:
    """The ``info`` of Pyodide's lock file (its ABI, which Pyodide checks), or None without one."""
    path = _vendor_file("pyodide-lock.json")
    return json.loads(path.read_bytes())["info"] if path else None


_ACCEPTS = {enc: re.compile(rf"\b{enc}\b") for enc in ("br", "gzip")}


@require_safe
def engine_archive(request: HttpRequest, digest: str) -> HttpResponse:
    """The ``sinuca`` and ``presentation`` packages as a zip (compiled or sources, see
    :func:`engine_zip`), imported by the tablet's Pyodide from the zip itself; brotli'd or
    gzipped as the browser accepts; a stale digest is 404."""
    current, data = engine_zip()
    if digest != current:
        raise Http404
    accepts = request.headers.get("Accept-Encoding", "")
    encoding = next((enc for enc, pattern in _ACCEPTS.items() if pattern.search(accepts)), None)
    resp = HttpResponse(_packed(current, encoding) if encoding else data, content_type="application/zip")
    if encoding:
        resp["Content-Encoding"] = encoding
    resp["Vary"] = "Accept-Encoding"
    resp["Cache-Control"] = "public, max-age=31536000, immutable"
    return resp


SW_SOURCE = r"""/* The referee tablet's service worker (scope %(scope)s): keeps Pyodide, the engine zip and the
 * tablet's static files, so a tablet that loaded once has its rules offline and after a reload.
 * Static files and the engine are cache-first (their URLs change with their content, Pyodide's
 * with this worker's version); the referee page is network-first, the last copy offline. */
var VERSION = %(version)s;
var PRECACHE = %(precache)s;
var STATIC = %(static_url)s;
self.addEventListener("install", function (e) {
  e.waitUntil(caches.open(VERSION).then(function (c) { return c.addAll(PRECACHE); })
    .then(function () { return self.skipWaiting(); }));
});
self.addEventListener("activate", function (e) {
  e.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k.indexOf("sinuca-tablet-") === 0 && k !== VERSION; })
      .map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});
function cacheFirst(req) {
  return caches.open(VERSION).then(function (c) {
    return c.match(req, {ignoreSearch: true, ignoreVary: true}).then(function (hit) {
      return hit || fetch(req).then(function (r) {
        if (r.ok) c.put(req, r.clone());
        return r;
      });
    });
  });
}
// Only the page of a logged-in tablet is kept (the server marks it): an answer that is the PIN
// form, a refusal or a missing match drops the kept copy, so a tablet whose referee session
// ended shows no referee page offline. A 5xx (busy, restarting) keeps it.
// The answer of the latest request started decides: an older one that lands later (a slow
// "keep" fetch from before a logout) is ignored, or it brought back the copy just dropped.
var started = {};  // referee page path -> requests started for it
function start(path) { return (started[path] = (started[path] || 0) + 1); }
function isTablet(r) { return r.ok && !r.redirected && r.headers.get("X-Sinuca-Tablet") === "1"; }
function keepOrDrop(c, key, r, path, mine) {
  if (mine !== started[path]) return;
  if (isTablet(r)) return c.put(key, r);
  if (r.status < 500) return c.delete(key, {ignoreSearch: true, ignoreVary: true});
}
function networkFirst(req) {
  var path = new URL(req.url).pathname, mine = start(path);
  return fetch(req).then(function (r) {
    var copy = r.clone();
    caches.open(VERSION).then(function (c) { return keepOrDrop(c, req, copy, path, mine); });
    return r;
  }).catch(function () {
    return caches.open(VERSION).then(function (c) { return c.match(req, {ignoreSearch: true, ignoreVary: true}); })
      .then(function (hit) { if (hit) return hit; throw new Error("offline"); });
  });
}
// The page asks to keep its own copy (the first visit is not yet under this worker's control).
self.addEventListener("message", function (e) {
  var d = e.data || {};
  if (d.type !== "keep" || typeof d.url !== "string") return;
  var url = new URL(d.url, location.href);
  if (url.origin !== location.origin || !/^\/matches\/\d+\/referee\/$/.test(url.pathname)) return;
  var mine = start(url.pathname);
  e.waitUntil(fetch(url.pathname, {credentials: "same-origin"}).then(function (r) {
    return caches.open(VERSION).then(function (c) { return keepOrDrop(c, url.pathname, r, url.pathname, mine); });
  }).catch(function () {}));
});
self.addEventListener("fetch", function (e) {
  var req = e.request;
  if (req.method !== "GET") return;
  var url = new URL(req.url);
  if (url.origin !== location.origin) return;
  if (url.pathname.indexOf(STATIC) === 0 || url.pathname.indexOf("/tablet/engine/") === 0) {
    e.respondWith(cacheFirst(req));
  } else if (req.mode === "navigate" && /\/matches\/\d+\/referee\/$/.test(url.pathname) && !url.search) {
    e.respondWith(networkFirst(req));
  }
});
"""


@lru_cache(maxsize=1)
def _sw_source() -> str:
    urls = precache_urls()
    version = "sinuca-tablet-" + hashlib.sha256(json.dumps(
        [urls, _pyodide_stamp()]).encode()).hexdigest()[:16]
    return SW_SOURCE % {"scope": SW_SCOPE, "version": json.dumps(version),
                        "precache": json.dumps(urls), "static_url": json.dumps(settings.STATIC_URL)}


@lru_cache(maxsize=1)
def _pyodide_stamp() -> str:
    """The Pyodide build in use and the engine's stdlib (their files' hash), so a new Pyodide or a
    new stdlib is a new cache and a new snapshot key."""
    lock = _vendor_file("pyodide-lock.json")
    if lock is None:
        return "none"
    h = hashlib.sha256(lock.read_bytes())
    stdlib = lock.with_name(STDLIB_ENGINE)
    if stdlib.exists():
        h.update(stdlib.read_bytes())
    return h.hexdigest()[:16]


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    """The tablet's service worker, served under the scope of the referee pages."""
    resp = HttpResponse(_sw_source(), content_type="text/javascript; charset=utf-8")
    resp["Cache-Control"] = "no-cache"
    resp["Service-Worker-Allowed"] = SW_SCOPE
    return resp


def isolated(view):
    """Serve ``view`` cross-origin isolated (COOP/COEP), so the tablet's engine worker can answer a
    tap through shared memory within the tap's handler (see ``engine.js``). Every resource of the
    referee page is same-origin, so nothing else changes."""

    def wrapped(request: HttpRequest, *args, **kwargs):
        resp = view(request, *args, **kwargs)
        resp.setdefault("Cross-Origin-Opener-Policy", "same-origin")
        resp.setdefault("Cross-Origin-Embedder-Policy", "require-corp")
        return resp

    wrapped.__doc__ = view.__doc__
    wrapped.__name__ = view.__name__
    return wrapped
