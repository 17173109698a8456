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
# in one process and runs beside the set-up's tail and pass 1: it needs only the venv,
# PostgreSQL and Redis, and starts as soon as they are there, while Pyodide's files are built
# (brotli on the wasm is the set-up's longest step) and pass 1 drives the browser on SQLite
# (Redis database 8 and its own PostgreSQL database: nothing of pass 1's). Its output is printed
# when pass 1 is over. No test is run twice: a failure fails the suite (an async test's tasks are
# ended before its event loop closes, tests/web/conftest.py, so a teardown cannot hang).
# Extra arguments go to both pytest runs (e.g. -x, -k). Fails, never skips, if a piece is missing.
# Prints the time of each pass and of the whole command at the end. A test still running at 300 s
# fails with every thread's stack (pytest-timeout, pyproject.toml); a pass still running at its
# limit (pass 1: 2400 s, pass 2: 900 s, about five and seven times their time here) is
# interrupted and fails, so a hang can never eat CI's 90 minutes.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
T0=$(date +%s)
# The bytecode of the project's modules is kept (__pycache__, git-ignored): the fault tests' and
# reports' processes (three Daphne processes a test, manage.py, PDF renders) each compiled
# them again where the environment says not to write it (PYTHONDONTWRITEBYTECODE=1 here).
unset PYTHONDONTWRITEBYTECODE
LOGS=$(mktemp -d)
trap 'rm -rf "$LOGS"' EXIT

# The set-up in two lines at once: pip (the venv) beside the system packages and Pyodide's build
# (npm, binaryen, node). apt stays on this line alone (dpkg's lock).
ensure_venv test &
venv_pid=$!
ensure_chromium
ensure_redis
ensure_postgres_running
ensure_pyodide &
pyodide_pid=$!
wait "$venv_pid" || die "setting up the venv failed"
ensure_postgres_database

# One test at a time to each worker as it frees up (--maxschedchunk 1): xdist's default hands
# each worker a quarter of its share in consecutive tests at the start, and the first quarter
# is every browser and fault test (they run first, see tests/web/conftest.py), so one worker
# ran them all in a row (about 500 s) while the other ran the short tests and then waited.
# Handed out in order, each worker still runs its browser tests before anything else.
WORKERS=(-n "${TEST_WORKERS:-2}" --maxschedchunk 1)
status=0
run_pass() {  # id, name, limit in s, then the command; returns the command's exit code
  local id=$1 name=$2 limit=$3 start rc=0
  shift 3
  start=$(date +%s)
  # SIGINT first: pytest prints what ran and what hung, then exits; SIGKILL a minute later.
  timeout --signal=INT --kill-after=60 "$limit" "$@" || rc=$?
  printf '%-52s %4ds  (exit %d)\n' "$name" $(( $(date +%s) - start )) "$rc" > "$LOGS/time-$id"
  return "$rc"
}

pass2_pid=
if [ -d tests/web ]; then
  say "pass 2 (beside the rest): the tests marked pg on PostgreSQL + Redis, output at the end"
  ( run_pass 2 "pass 2 (PostgreSQL + Redis, -m pg)" 900 \
      env DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}" \
          REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379/8}" \
          SINUCA_REQUIRE_SERVICES=1 \
      "$PY" -m pytest tests/web -m "pg and not services and not browser" --timeout=90 "$@" ) \
    > "$LOGS/pass2.log" 2>&1 &
  pass2_pid=$!
fi

wait "$pyodide_pid" || die "building Pyodide's files failed"
say "set-up done in $(( $(date +%s) - T0 )) s"
say "pass 1: everything on SQLite + in-memory channel layer (browser and fault tests included)"
run_pass 1 "pass 1 (SQLite + in-memory layer, all tests)" 2400 \
  env -u DATABASE_URL -u REDIS_URL "$PY" -m pytest "${WORKERS[@]}" "$@" || status=$?

if [ -n "$pass2_pid" ]; then
  rc=0
  wait "$pass2_pid" || rc=$?
  say "pass 2: the tests marked pg on PostgreSQL + Redis (it ran beside pass 1)"
  cat "$LOGS/pass2.log"
  [ "$rc" -eq 0 ] || status=$rc
fi

say "time per pass"
sed 's/^/  /' "$LOGS"/time-* >&2
printf '  %-50s %4ds\n' "the whole command (set-up included)" $(( $(date +%s) - T0 )) >&2
exit "$status"
