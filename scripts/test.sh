#!/usr/bin/env bash
# Set up everything the tests need and run the whole suite:
#   1. the Python 3.11 venv with the project and its test extras;
#   2. Debian's chromium (for Playwright), Redis and PostgreSQL: started, installed if missing;
#   3. pass 1: every test on the embedded default (SQLite, in-memory channel layer);
#   4. pass 2: the web tests again on PostgreSQL and Redis.
# Extra arguments go to both pytest runs (e.g. -x, -k). Fails, never skips, if a piece is missing.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

ensure_venv test
ensure_chromium
ensure_pyodide
ensure_redis
ensure_postgres

say "pass 1: engine and web on SQLite + in-memory channel layer"
env -u DATABASE_URL -u REDIS_URL "$PY" -m pytest "$@"

if [ -d tests/web ]; then
  say "pass 2: web on PostgreSQL + Redis"
  DATABASE_URL=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test} \
  REDIS_URL=${TEST_REDIS_URL:-redis://127.0.0.1:6379/0} \
  SINUCA_REQUIRE_SERVICES=1 \
    "$PY" -m pytest tests/web -m "not services" "$@"
  # (-m "not services": the fault tests start their own PostgreSQL database, Redis and workers
  # whatever the environment says, so they ran in full in pass 1.)
fi
