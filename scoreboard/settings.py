"""Settings, read from the environment (django-environ).

Embedded default: SQLite under ``var/`` and the in-memory channel layer, so one command serves the
app on a fresh machine. ``DATABASE_URL`` switches to PostgreSQL, ``REDIS_URL`` to channels_redis.
"""
from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

from scoreboard.core.dbpool import regrow_if_waited_for

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()

DEBUG = env.bool("DJANGO_DEBUG", default=False)
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="")
if not SECRET_KEY:
    # No secret in the repository, not even a DEBUG one: an unset key gets a random one kept under
    # var/ (not in git), so sessions and signed referee links survive restarts of the embedded default.
    VAR_DIR.mkdir(exist_ok=True)
    key_file = VAR_DIR / "secret_key"
    if not key_file.exists():
        from django.core.management.utils import get_random_secret_key

        # Written whole under a private name, then linked into place: link() is atomic and fails
        # if the file exists, so two workers starting together keep one key and never read half of it.
        tmp = VAR_DIR / f".secret_key.{os.getpid()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(get_random_secret_key())
        try:
            os.link(tmp, key_file)
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
    SECRET_KEY = key_file.read_text().strip()

ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])
# a refused CSRF token is answered in Portuguese and English (JSON to a JSON request)
CSRF_FAILURE_VIEW = "scoreboard.http.errors.csrf_failure"

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "template_partials",
    "django_countries",  # players' flags: ISO codes, pt/en names, flag images
    "scoreboard",
    "axes",  # admin login limits (django-axes), after the apps whose login it guards
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "scoreboard.http.policy.PagePolicyMiddleware",  # CSP + framing; outside WhiteNoise, so static files too
    "scoreboard.pages.middleware.PrivateNoStoreMiddleware",  # referee pages and API: never stored
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "scoreboard.pages.middleware.LangQueryMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "scoreboard.http.guard.RouteRuleMiddleware",  # a route without a rule in core.access.ROUTES: 403
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "scoreboard.pages.errors.BusyMiddleware",
    "scoreboard.pages.errors.NotAllowedMiddleware",  # a bilingual body for an empty 405
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks: answers a locked-out login 429
]

# django-axes counts failed admin logins in the database (shared by every worker, kept across
# restarts): 10 failures from one client address lock that address out for 15 minutes; a success
# clears the count. The address is the one the ASGI layer resolved (http/clients.py), never a
# forwarded header of an untrusted client. `manage.py axes_reset` lifts a lock-out.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend",
                           "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=10)
AXES_COOLOFF_TIME = env.float("AXES_COOLOFF_HOURS", default=0.25)
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "scoreboard.http.clients.request_address"
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_VERBOSE = False

ROOT_URLCONF = "scoreboard.urls"
ASGI_APPLICATION = "scoreboard.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            # The pages' template tags live with the pages (no templatetags folder of their own).
            "libraries": {"scoreboard_tags": "scoreboard.pages.tags",
                          "ops_tags": "scoreboard.pages.ops_tags"},
        },
    },
]

DATABASES = {
    "default": env.db_url("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    if DATABASES["default"]["NAME"] not in ("", ":memory:"):
        Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    # Live-server tests need a file test database (stack notes): an in-memory one is not shared
    # between the test thread and the server thread.
    DATABASES["default"].setdefault("TEST", {})["NAME"] = str(VAR_DIR / "test-db.sqlite3")
    # Writers wait for the lock instead of failing at once when two requests append together.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("timeout", 20)
    # WAL: readers (the screens) never block the referee's write, and a commit is one fsync of
    # the log instead of two; synchronous=FULL keeps every acknowledged tap through a power cut.
    DATABASES["default"]["OPTIONS"].setdefault(
        "init_command", "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
    # A write transaction takes the write lock at BEGIN and waits for it (timeout above). In
    # SQLite's default deferred mode a reader that then writes fails at once with "database is
    # locked" when another writer got there first: a referee's tap answered 500 while the
    # organiser created a match.
    DATABASES["default"]["OPTIONS"].setdefault("transaction_mode", "IMMEDIATE")
else:
    # Named explicitly: the live-server test process derives its database from TEST.NAME, and
    # Django's "test_" + NAME would be computed again from an already renamed NAME there.
    DATABASES["default"].setdefault("TEST", {}).setdefault("NAME", "test_" + DATABASES["default"]["NAME"])
    # One bounded pool per worker (psycopg_pool): every request thread used to open its own
    # connection, so 200 taps at once met PostgreSQL's max_connections and answered 500. A thread
    # that finds the pool empty waits DB_POOL_TIMEOUT seconds, then the request answers 503 busy
    # (scoreboard/pages/errors.py). Workers × DB_POOL_MAX must stay under max_connections.
    # DB_POOL=0: plain connections (the PDF render processes, reports/pdfproc.py).
    DB_POOL_MAX = env.int("DB_POOL_MAX", default=20)
    # A dead server is found out fast: connecting gives up after DB_CONNECT_TIMEOUT seconds, and
    # a connection whose sent data goes unacknowledged for 5 s (a network cut) fails instead of
    # hanging for TCP's quarter of an hour; idle ones are probed by keepalives.
    options = DATABASES["default"].setdefault("OPTIONS", {})
    options.setdefault("connect_timeout", env.int("DB_CONNECT_TIMEOUT", default=3))
    for name, value in (("keepalives", 1), ("keepalives_idle", 10), ("keepalives_interval", 2),
                        ("keepalives_count", 3), ("tcp_user_timeout", 5000)):
        options.setdefault(name, value)
    if env.bool("DB_POOL", default=True):
        # A pool that heals (issue 15). CONN_HEALTH_CHECKS makes Django give the pool psycopg's
        # check_connection: every checkout is checked, so a connection a PostgreSQL restart
        # killed is replaced instead of being handed out once more (it answered 500 before).
        # A replacement that cannot connect is retried for DB_POOL_RECONNECT seconds and then its
        # slot is given back to be grown again on demand, so the pool is at full strength a
        # second or two after the server is back, whatever the length of the outage (psycopg's
        # default backs off for 5 minutes, doubling its delay).
        options["pool"] = {
            "min_size": env.int("DB_POOL_MIN", default=2), "max_size": DB_POOL_MAX,
            "timeout": env.float("DB_POOL_TIMEOUT", default=10.0),
            "reconnect_timeout": env.float("DB_POOL_RECONNECT", default=2.0),
            # ... but not while requests are queued for a connection: then a new attempt starts
            # at once, or an outage longer than that left them queued until the pool's time-out.
            "reconnect_failed": regrow_if_waited_for}
        DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps the connections, not the threads
        DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

# Anonymous reads (report downloads, the log, the statistics page, the spectators' pages) run at
# most READ_SLOTS at a time per worker and wait READ_WAIT seconds for a slot (then 503 busy), so
# they never hold more than that share of the pool: the rest is left to the referees' writes.
# PDF_SLOTS bounds a worker's concurrent súmula renders (each holds the whole document in
# memory); a request waits up to PDF_WAIT seconds for its sheet (then 503 busy). Waiting holds no
# slot and no connection, and renders run at idle priority, so a sheet can take a while when the
# machine is busy: 30 s rather than a 503 after 10.
# Three, not half the pool: a worker's request threads share one interpreter lock, so reads beyond
# a few at once add no throughput; they only lengthen every request, the event loop's included,
# and the referees' taps wait behind them. Under 200 taps and 150 TV loads of one match, another
# match's referee waited up to 4-9 s with 10 read slots per worker, 1.2 s with 3 (bench/flood.py).
READ_SLOTS = env.int("READ_SLOTS", default=min(3, max(1, env.int("DB_POOL_MAX", default=20) // 2)))
# Writers of one match that one worker takes on at once (scoreboard/core/limits.py: WRITERS):
# its appends are serialised by the match's lock anyway; beyond this a tap is answered 429
# match_busy at once (the tablet's queue sends it again with the same key), so one match's
# flood holds a few request threads and one connection at most, never the pool.
MATCH_WRITERS = env.int("MATCH_WRITERS", default=4)
READ_WAIT = env.float("READ_WAIT", default=5.0)
PDF_SLOTS = env.int("PDF_SLOTS", default=1)
PDF_WAIT = env.float("PDF_WAIT", default=30.0)
# Render PDFs in separate idle-priority processes (reports/pdfproc.py), replaced after so many renders.
PDF_PROCESS = env.bool("PDF_PROCESS", default=True)
PDF_TASKS_PER_CHILD = env.int("PDF_TASKS_PER_CHILD", default=10)
# Anonymous report endpoints, per client address (django-ratelimit, in the shared cache).
REPORT_RATE = env.str("REPORT_RATE", default="300/m")

LIVE_STATS = env.bool("SINUCA_LIVE_STATS", default=False)  # GET /api/live/ (scoreboard/api.py: live_stats)
# Live sockets per client address per worker process; more are closed with 4429 (0: no limit).
# Generous: a venue's phones may share one public address behind NAT, and one-machine load
# checks connect 1,000 spectators from 127.0.0.1 to one worker.
LIVE_SOCKETS_PER_CLIENT = env.int("LIVE_SOCKETS_PER_CLIENT", default=1000)

REDIS_URL = env.str("REDIS_URL", default="")
# Addresses (or CIDR blocks) of the reverse proxies whose X-Forwarded-For is believed; empty: the
# header is ignored and the TCP peer is the client (scoreboard/http/clients.py).
TRUSTED_PROXIES = env.list("TRUSTED_PROXIES", default=[])
# PIN tries (match and table, pages/referee.py): per client address, and per match or table from
# all addresses together. The README works out what the per-target rate means for a guesser.
PIN_RATE_PER_ADDRESS = env.str("PIN_RATE_PER_ADDRESS", default="10/m")
PIN_RATE_PER_TARGET = env.str("PIN_RATE_PER_TARGET", default="30/h")
# The channel layer carries one message per change per *process* (scoreboard/live/hub/): each
# process's hub is the only member of the group, and it writes to its own sockets. So the layer
# sees a handful of channels, never one per spectator, and its per-channel capacity only has to
# hold the few changes a busy hub has not read yet. Which Redis layer: see the README (measured).
CHANNEL_LAYER = env.str("CHANNEL_LAYER", default="pubsub")
# Redis pub/sub channels ignore the database number: deployments (or test runs) sharing one Redis
# keep apart by prefix.
CHANNEL_PREFIX = env.str("CHANNEL_PREFIX", default="asgi")
if REDIS_URL and CHANNEL_LAYER == "pubsub":
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "prefix": CHANNEL_PREFIX},
        }
    }
elif REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                # redis-py 8 caps its asyncio pool at 100 connections by default (stack notes).
                "hosts": [{"address": REDIS_URL,
                           "max_connections": env.int("REDIS_MAX_CONNECTIONS", 1000)}],
                # Full channels drop group messages silently: a hub that fell 1,000 changes
                # behind is stuck anyway, and its clients refetch on the next seq gap.
                "capacity": env.int("CHANNEL_CAPACITY", 1000),
                "expiry": 30,
                "group_expiry": 86400,  # the hub rejoins every hour (hub.REJOIN_SECONDS)
                "prefix": CHANNEL_PREFIX,
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer",
                                  "CONFIG": {"capacity": env.int("CHANNEL_CAPACITY", 1000)}}}

# The shared cache: rate limits (django-ratelimit) and rendered reports. Redis when there is
# one, so every worker sees the same counts and reports; this process's memory otherwise. Redis
# is a cache, not a dependency of the answer: while it is unreachable each process answers from
# its own memory (per-process limits, one warning per outage; scoreboard/core/sharedcache.py,
# docs/operations.md "When Redis is down").
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "scoreboard.core.sharedcache.RedisWithLocalFallback",
                          "LOCATION": REDIS_URL, "KEY_PREFIX": CHANNEL_PREFIX,
                          "OPTIONS": {"RETRY_SECONDS": env.float("REDIS_RETRY_SECONDS", default=1.0),
                                      "LOCAL_MAX_BYTES": env.int("LOCAL_CACHE_BYTES", default=64 << 20)}}}
else:
    CACHES = {"default": {"BACKEND": "scoreboard.core.sharedcache.BoundedLocMemCache",
                          "OPTIONS": {"MAX_ENTRIES": 10000,
                                      "MAX_BYTES": env.int("LOCAL_CACHE_BYTES", default=64 << 20)}}}

# A worker's own caches, each bounded by the bytes it holds (least recently used out first):
# the statistics folds (reports/stats.py), the engines and stories of the log (core/log.py), and
# the rendered live parts of pages (live/render.py). See docs/operations.md, "Memory".
STATS_CACHE_BYTES = env.int("STATS_CACHE_BYTES", default=32 << 20)
ENGINE_CACHE_BYTES = env.int("ENGINE_CACHE_BYTES", default=96 << 20)
PAGE_CACHE_BYTES = env.int("PAGE_CACHE_BYTES", default=16 << 20)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "pt-br"
LANGUAGES = [("pt-br", "Português (Brasil)"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "scoreboard" / "locale"]
TIME_ZONE = env.str("TIME_ZONE", default="America/Sao_Paulo")
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# Uploaded players' photos (admin); served by the app under MEDIA_URL (see urls.py).
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(env.str("MEDIA_ROOT", default=str(VAR_DIR / "media")))
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise warns on every request while it is missing
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        # Hashed, compressed files when deployed (reusing the .br/.gz made beside Pyodide: http/static.py);
        # plain files under DEBUG so no collectstatic is needed.
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage" if DEBUG
        else "scoreboard.http.static.PrecompressedManifestStorage",
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# A tap is a few hundred bytes: refuse big form bodies early (the API has its own 64 KB cap and
# answers 413; uploaded files, e.g. an imported match, do not count against this).
DATA_UPLOAD_MAX_MEMORY_SIZE = 256 * 1024
# Same-origin framing by default: the display-options guide previews the overlay and TV in iframes
# (scoreboard.http.policy opens the stream screens to any framer, closes the tablet, desk and admin).
X_FRAME_OPTIONS = "SAMEORIGIN"

# Content-Security-Policy (django-csp): no inline script, nothing from another origin.
# 'wasm-unsafe-eval': the tablet's engine is Pyodide (WebAssembly), in a worker started from a
# blob: URL (engine.js), which inherits the page's policy. Inline style attributes stay allowed
# (htmx injects its indicator <style>). connect-src 'self' covers the same origin's ws:/wss:.
# The one inline script (the referee page's tap guard in <head>, which must hold even when no
# script file arrives) is allowed by its hash: the template includes this file's exact text.
INLINE_SCRIPT_HASHES = [
    "'sha256-%s'" % base64.b64encode(hashlib.sha256((BASE_DIR / "templates" / name).read_bytes()).digest()).decode()
    for name in ("scoreboard/_referee_wait.js",)
]
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'", "'wasm-unsafe-eval'", *INLINE_SCRIPT_HASHES],
        "worker-src": ["'self'", "blob:"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "font-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'self'"],
    },
}

# HTTPS is opt-in: behind a TLS proxy set DJANGO_SECURE=1.
SECURE = env.bool("DJANGO_SECURE", default=False)
SECURE_SSL_REDIRECT = SECURE
SESSION_COOKIE_SECURE = SECURE
CSRF_COOKIE_SECURE = SECURE
if SECURE:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    # HSTS: browsers that saw the site over HTTPS never try plain HTTP for a year (a PIN typed
    # on a venue's Wi-Fi is never sent in clear after a downgrade); 0 turns it off.
    SECURE_HSTS_SECONDS = env.int("DJANGO_HSTS_SECONDS", default=365 * 24 * 3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_HSTS_SUBDOMAINS", default=False)

# A referee link / QR code carries a single-use login code valid this long (seconds); the tablet
# exchanges it for a session at once (core/credentials.py).
REFEREE_CODE_MAX_AGE = env.int("REFEREE_CODE_MAX_AGE", default=3600)
# Base URL printed by creatematch (empty: relative paths, which work on any port).
SITE_URL = env.str("SITE_URL", default="").rstrip("/")
# Where the event is played, as the súmula's "Local" line prints it ("Clube Paulistano, São
# Paulo – SP"); empty: "—" (the competition and the table have lines of their own).
VENUE = env.str("VENUE", default="")
# A venue of a federation (``core.federation``): the federation's base URL and this venue's token
# (``manage.py venuetoken NAME`` there). Both set: every event, W.O., correction and competition
# is kept in the outbox and sent by a background sender (and ``manage.py federation sync``).
FEDERATION_URL = env.str("FEDERATION_URL", default="").rstrip("/")
FEDERATION_TOKEN = env.str("FEDERATION_TOKEN", default="")
# The sender's HTTP timeout and its longest back-off after a failure (seconds).
FEDERATION_TIMEOUT = env.float("FEDERATION_TIMEOUT", default=10.0)
FEDERATION_BACKOFF_MAX = env.float("FEDERATION_BACKOFF_MAX", default=60.0)
FEDERATION_BATCH = env.int("FEDERATION_BATCH", default=200)  # records per POST (at most 200)
if SITE_URL and not SITE_URL.startswith(("http://", "https://")):
    raise ImproperlyConfigured("SITE_URL must start with http:// or https://")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="WARNING")},
    # One line per request (http/clients.py): the client's resolved address, never a query string.
    "loggers": {"scoreboard.access": {"handlers": ["console"], "propagate": False,
                                      "level": env.str("ACCESS_LOG_LEVEL", default="INFO")}},
}
