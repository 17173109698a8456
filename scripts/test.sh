#!/usr/bin/env bash
# Set up everything the tests need and run the whole suite:
#   1. the Python 3.11 venv with the project and its test extras;
#   2. Debian's chromium (for Playwright), Redis and PostgreSQL: started, installed if missing;
#   3. pass 1: every test on the embedded default (SQLite, in-memory channel layer), the browser
#      tests and the fault tests (which start their own PostgreSQL database, Redis and workers)
#      included;
#   4. pass 2: the tests marked `pg` again, on PostgreSQL and Redis: those whose outcome depends on
#      the database, the channel layer or the cache (locking, the log, live sockets, rate limits,
#      cached reports). The browser tests run once, in pass 1: the pages are the same whatever
#      the database, and the live path under PostgreSQL + Redis is the fault tests' subject.
# Pass 1 runs on TEST_WORKERS pytest-xdist processes (default 2, the machine's cores; 0 runs it
# in this process): most of a browser or live-server test is waiting, not computing. Pass 2 stays
# in one process. No test is run twice: a failure fails the suite (an async test's tasks are
# ended before its event loop closes, tests/web/conftest.py, so a teardown cannot hang).
# Extra arguments go to both pytest runs (e.g. -x, -k). Fails, never skips, if a piece is missing.
# Prints the time of each pass at the end. A test still running at 300 s fails with every
# thread's stack (pytest-timeout, pyproject.toml); a pass still running at its limit (pass 1:
# 2400 s, pass 2: 900 s, about five and seven times their time here) is interrupted and fails,
# so a hang can never eat CI's 90 minutes.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

ensure_venv test
ensure_chromium
ensure_pyodide
ensure_redis
ensure_postgres

declare -a TIMES=()
WORKERS=(-n "${TEST_WORKERS:-2}")
status=0
run_pass() {  # name, limit in s, then the command; keeps its exit code, goes on to the next pass
  local name=$1 limit=$2 start rc=0
  shift 2
  start=$(date +%s)
  # SIGINT first: pytest prints what ran and what hung, then exits; SIGKILL a minute later.
  timeout --signal=INT --kill-after=60 "$limit" "$@" || rc=$?
  TIMES+=("$(printf '%-52s %4ds  (exit %d)' "$name" $(( $(date +%s) - start )) "$rc")")
  [ "$rc" -eq 0 ] || status=$rc
}

say "pass 1: everything on SQLite + in-memory channel layer (browser and fault tests included)"
run_pass "pass 1 (SQLite + in-memory layer, all tests)" 2400 \
  env -u DATABASE_URL -u REDIS_URL "$PY" -m pytest "${WORKERS[@]}" "$@"

if [ -d tests/web ]; then
  say "pass 2: the tests marked pg on PostgreSQL + Redis"
  run_pass "pass 2 (PostgreSQL + Redis, -m pg)" 900 \
    env DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}" \
        REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379/0}" \
        SINUCA_REQUIRE_SERVICES=1 \
    "$PY" -m pytest tests/web -m "pg and not services and not browser" --timeout=90 "$@"
fi

say "time per pass"
printf '  %s\n' "${TIMES[@]}" >&2
exit "$status"
