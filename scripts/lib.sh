# Shared setup steps for scripts/run.sh and scripts/test.sh (sourced, not run).
# Each step is idempotent: it does nothing when the piece is already there, installs it from
# PyPI or Debian's packages when it is not, and stops the script (set -e) when it cannot.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV="$ROOT/.venv"
PY="$VENV/bin/python"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# A Python 3.11 virtual environment with the project installed (extras: "" or "test").
ensure_venv() {
  local extras=${1:-}
  local stamp="$VENV/.installed${extras:+-$extras}"
  if [ ! -x "$PY" ]; then
    local base
    base=$(command -v python3.11 || true)
    if [ -z "$base" ] && python3 -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
      base=$(command -v python3)
    fi
    [ -n "$base" ] || die "Python 3.11 is needed (python3.11 not found)"
    say "creating .venv with $base"
    "$base" -m venv "$VENV"
  fi
  if [ ! -f "$stamp" ] || [ "$ROOT/pyproject.toml" -nt "$stamp" ]; then
    say "installing the project${extras:+ with [$extras]} into .venv"
    "$PY" -m pip install -q --disable-pip-version-check -e "$ROOT${extras:+[$extras]}" 2>&1 \
      | grep -v '^WARNING: Location' || true
    "$PY" -c 'import django, channels, sinuca' || die "pip install failed"
    touch "$stamp"
  fi
}

apt_install() {
  [ "$(id -u)" = 0 ] || die "installing $* needs root (apt-get)"
  if [ -z "${APT_UPDATED:-}" ]; then
    say "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    APT_UPDATED=1
  fi
  say "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() {
  for _ in $(seq 1 60); do port_open "$1" && return 0; sleep 0.5; done
  return 1
}

# Debian's chromium for the Playwright tests (Playwright's own browser download does not work here).
ensure_chromium() {
  if [ ! -x /usr/bin/chromium ]; then
    apt_install chromium
  fi
  [ -x /usr/bin/chromium ] || die "chromium is missing and could not be installed"
}

# Redis on 127.0.0.1:6379: started from Debian's package when not running.
ensure_redis() {
  port_open 6379 && return 0
  command -v redis-server >/dev/null || apt_install redis-server
  say "starting redis-server on 127.0.0.1:6379"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/sinuca-tests.log
  wait_port 6379 || die "Redis did not come up on 127.0.0.1:6379"
}

# PostgreSQL on 127.0.0.1:5432 with user postgres (trust) and a database "test".
ensure_postgres() {
  ensure_postgres_running
  ensure_postgres_database
}

# The server up (installed and started if need be); no Python needed.
ensure_postgres_running() {
  if ! port_open 5432; then
    if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
      apt_install postgresql
    fi
    local ver hba
    ver=$(ls /etc/postgresql | sort -V | tail -1)
    hba=/etc/postgresql/$ver/main/pg_hba.conf
    # The suite connects as postgres over TCP without a password, as on the project's machines.
    if ! grep -q '^host all postgres 127.0.0.1/32 trust' "$hba"; then
      sed -i '1i host all postgres 127.0.0.1/32 trust\nhost all postgres ::1/128 trust' "$hba"
    fi
    say "starting PostgreSQL $ver"
    pg_ctlcluster --skip-systemctl-redirect "$ver" main start || true
    wait_port 5432 || die "PostgreSQL did not come up on 127.0.0.1:5432"
  fi
}

# User postgres accepted and the database "test" there (psycopg, from the venv).
ensure_postgres_database() {
  "$PY" - <<'PYEOF' || die "PostgreSQL at 127.0.0.1:5432 does not accept user postgres"
import psycopg
with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=postgres", autocommit=True) as c:
    if not c.execute("select 1 from pg_database where datname = 'test'").fetchone():
        c.execute("create database test")
PYEOF
}

# Pyodide (the Python runtime the referee tablet runs sinuca/ in) from the npm registry, pinned by
# package-lock.json, copied into the git-ignored static/vendor/pyodide/ (served as static files,
# cached by the tablet's service worker). npm comes from Debian's packages when missing.
# (pyodide.mjs.map: pyodide.mjs names it, and collectstatic's manifest refuses a missing reference)
PYODIDE_FILES="pyodide.mjs pyodide.mjs.map pyodide.asm.mjs pyodide.asm.wasm python_stdlib.zip pyodide-lock.json"
ensure_pyodide() {
  local dest="$ROOT/static/vendor/pyodide" stamp
  local key cache
  key="$(cat "$ROOT/package-lock.json" <(echo "$PYODIDE_FILES") "$ROOT/scripts/compress_static.mjs" \
    "$ROOT/scripts/build_engine_stdlib.mjs" "$ROOT/scripts/pyc_tables.py" "$ROOT/scripts/trim_wasm.py" \
    "$ROOT/scripts/pyodide_boot_patches.py" "$ROOT/scripts/trim_wasm_data.py" \
    <(grep -hE '^\s*(import|from) ' "$ROOT"/sinuca/*.py "$ROOT"/presentation/*.py | sort -u) \
    | sha256sum | cut -c1-16)"
  stamp="$dest/.lock-$key"
  if [ -f "$stamp" ]; then ensure_engine_pyc; return 0; fi
  command -v npm >/dev/null || apt_install npm
  say "npm ci (pyodide for the referee tablet)"
  (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || die "npm ci failed"
  # A build made from the same inputs on this machine (another checkout, an earlier run) is
  # copied, not made again: the files are a function of package-lock.json and these scripts,
  # as npm's own cache serves the same package to every checkout (node_modules/ is installed
  # either way: the tests read Pyodide's own files). SINUCA_BUILD_CACHE=off builds.
  cache="${SINUCA_BUILD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sinuca-scoreboard}"
  if [ "$cache" != off ] && [ -f "$cache/pyodide-$key/.complete" ]; then
    say "Pyodide's built files from $cache (same inputs)"
    rm -rf "$dest" && mkdir -p "$dest"
    cp -p "$cache/pyodide-$key"/* "$dest/"
    touch "$stamp"
    ensure_engine_pyc
    return 0
  fi
  rm -rf "$dest" && mkdir -p "$dest"
  local f
  for f in $PYODIDE_FILES; do
    cp "$ROOT/node_modules/pyodide/$f" "$dest/" || die "node_modules/pyodide/$f is missing"
  done
  # Pyodide's JS glue minified (terser, pinned beside it): 28 kB less of the tablet's cold download
  say "minifying pyodide.asm.mjs (terser)"
  "$ROOT/node_modules/.bin/terser" "$ROOT/node_modules/pyodide/pyodide.asm.mjs" --module --compress --mangle \
    -o "$dest/pyodide.asm.mjs" || die "minifying pyodide.asm.mjs failed"
  local py="$ROOT/.venv/bin/python"; [ -x "$py" ] || py=python3
  # The wasm without the exports Pyodide's JS never calls and the code only they reached
  # (scripts/trim_wasm.py, then binaryen's wasm-opt, pinned beside it): 0.2 MB less on the wire.
  # Should binaryen refuse it (a new Pyodide using a wasm feature not listed here), the whole
  # wasm is kept.
  say "trimming pyodide.asm.wasm (binaryen)"
  if ! { "$py" "$ROOT/scripts/trim_wasm.py" "$ROOT/node_modules/pyodide/pyodide.asm.wasm" \
           "$ROOT/node_modules/pyodide/pyodide.asm.mjs" "$dest/pyodide.asm.exports.wasm" >/dev/null &&
         "$ROOT/node_modules/.bin/wasm-opt" "$dest/pyodide.asm.exports.wasm" --enable-sign-ext \
           --enable-mutable-globals --enable-nontrapping-float-to-int --enable-bulk-memory \
           --enable-bulk-memory-opt --enable-exception-handling --enable-reference-types --enable-multivalue \
           --enable-call-indirect-overlong --remove-unused-module-elements -o "$dest/pyodide.asm.wasm"; }; then
    say "trimming the wasm failed: the whole wasm is served"
    cp "$ROOT/node_modules/pyodide/pyodide.asm.wasm" "$dest/"
  fi
  rm -f "$dest/pyodide.asm.exports.wasm"
  # without the CJK codecs: their built-in modules unlisted, their maps zeroed (scripts/trim_wasm_data.py,
  # 0.16 MB less on the wire); should it not find them as it expects, the wasm stays as it is
  say "dropping the CJK codecs' tables from pyodide.asm.wasm"
  "$py" "$ROOT/scripts/trim_wasm_data.py" "$dest/pyodide.asm.wasm" >/dev/null \
    || say "the CJK codecs could not be dropped: the wasm keeps them"
  # the stdlib the tablet's engine uses, compiled (issue 20); the full one stays beside it
  say "building python_stdlib_engine.zip (node + pyodide)"
  node "$ROOT/scripts/build_engine_stdlib.mjs" "$dest" "$ROOT" "$dest/python_stdlib_engine.zip" >/dev/null \
    || die "building the engine's stdlib failed"
  # compressed siblings for WhiteNoise (brotli when the venv has it: the tablet's cold download)
  say "compressing pyodide's files (brotli, gzip)"
  (cd "$dest" && node "$ROOT/scripts/compress_static.mjs" pyodide.mjs pyodide.asm.mjs pyodide.asm.wasm \
     python_stdlib.zip python_stdlib_engine.zip pyodide-lock.json >/dev/null) || die "compressing pyodide failed"
  if [ "$cache" != off ] && mkdir -p "$cache" 2>/dev/null; then
    # written beside, then renamed: a run stopped half-way leaves no half cache; keep the newest 3
    local tmp
    tmp=$(mktemp -d "$cache/.pyodide-$key.XXXXXX")
    cp -p "$dest"/* "$tmp/" && touch "$tmp/.complete" && rm -rf "$cache/pyodide-$key" \
      && mv "$tmp" "$cache/pyodide-$key" || rm -rf "$tmp"
    ls -dt "$cache"/pyodide-* 2>/dev/null | tail -n +4 | xargs -r rm -rf
  fi
  touch "$stamp"
  ensure_engine_pyc
}

# The tablet's engine zip compiled by Pyodide's CPython (engine_pyc.zip beside Pyodide's files),
# again whenever sinuca/ (its rules text included) or presentation/ change (a few seconds). The server serves it only
# while it matches the sources on disk, the sources otherwise (scoreboard/pages/tablet.py).
# /home/pyodide/engine.zip: where the tablet's worker puts the zip (engine-worker.js, ENGINE_ZIP).
ensure_engine_pyc() {
  local dest="$ROOT/static/vendor/pyodide" stamp
  stamp="$dest/.engine-$( (cd "$ROOT" && for f in sinuca/*.py presentation/*.py sinuca/data/*.txt \
    scripts/build_engine_pyc.mjs scripts/pyc_tables.py; do echo "$f"; cat "$f"; done) | sha256sum | cut -c1-16)"
  [ -f "$stamp" ] && return 0
  say "compiling the tablet's engine (node + pyodide)"
  node "$ROOT/scripts/build_engine_pyc.mjs" "$dest" "$ROOT" /home/pyodide/engine.zip "$dest/engine_pyc.zip" >/dev/null \
    || die "compiling the tablet's engine failed"
  rm -f "$dest"/.engine-*
  touch "$stamp"
}
