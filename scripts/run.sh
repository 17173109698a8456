#!/usr/bin/env bash
# One command from a fresh clone: venv, install, migrate, static files, a demo match, serve.
# Embedded default: SQLite under var/ and the in-memory channel layer (set DATABASE_URL / REDIS_URL
# for PostgreSQL / Redis). HOST and PORT choose where Daphne listens (127.0.0.1:8000).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
if [ ! -x .venv/bin/python ]; then
  PY=$(command -v python3.11 || true)
  [ -n "$PY" ] || { echo "python3.11 is needed (Django 5.2 LTS on 3.11)" >&2; exit 1; }
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e .
.venv/bin/python manage.py migrate --noinput -v 0
ensure_pyodide  # the tablet's in-browser engine runtime, before collectstatic picks it up
.venv/bin/python manage.py collectstatic --noinput -v 0
# The demo match is on table "Mesa 1" (the first table of a fresh database: /tables/1/…), so the
# table URLs of the README answer at once; each run puts a new demo match on it. A rehearsal:
# never an official result, waiting on Mesa 1 without holding it (a competition using Mesa 1
# calls over it), and replacing the earlier run's demo (a demo in progress made run.sh fail).
# Restarted during an event (a competition's match in play on Mesa 1), the demo is refused: the
# event is served as it is rather than not at all.
if demo=$(.venv/bin/python manage.py creatematch --player-a "Ana Souza" --player-b "Bia Lima" \
  --frames-to-win 2 --first-breaker 0 --table "Mesa 1" --referee "Carlos Mendes" --rehearsal \
  --competition "Demonstração" --base-url "http://$HOST:$PORT"); then
  echo "Demo match / jogo de demonstração:"
  echo "$demo" | .venv/bin/python -c 'import json,sys; d=json.load(sys.stdin); [print(f"  {k:17} {d[k]}") for k in ("referee_url","referee_pin","tv_url","overlay_url","table_tv_url","table_overlay_url","referee_token")]'
else
  echo "No demo match this time (the line above says why): serving what is there."
  echo "Sem jogo de demonstração desta vez (a linha acima diz por quê): servindo o que já existe."
fi
echo "  venue          http://$HOST:$PORT/   (admin: http://$HOST:$PORT/admin/ after"
echo "                 .venv/bin/python manage.py createsuperuser)"
echo "Serving on http://$HOST:$PORT/ (Ctrl-C stops)"
# A listen backlog of 4096 (daphne -b/-p keeps Twisted's 50: a burst of spectators connecting at
# once overflowed it and some waited over a minute for a handshake). The kernel caps it at
# net.core.somaxconn. Colons of an IPv6 HOST are escaped for the endpoint string.
exec .venv/bin/python -m daphne -e "tcp:port=$PORT:interface=${HOST//:/\\:}:backlog=${BACKLOG:-4096}" \
  scoreboard.asgi:application
