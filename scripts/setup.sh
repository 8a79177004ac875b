#!/usr/bin/env bash
# Idempotent set-up for octui: Python venv + package, the OpenCode server from npm, tmux.
#
#   scripts/setup.sh [--quiet]
#
# Does only what is missing or stale:
#   * .venv (python3 >= 3.11; override with PYTHON=/path/to/python3)
#   * `pip install -e '.[test]'` when pyproject.toml changed since the last install (stamp in .venv)
#   * opencode-ai@1.18.33 under .opencode/ (ignored by git) when its binary is missing or another version
#   * tmux via apt-get when missing and running as root
# With --quiet it prints one line per step that actually does work, and nothing when all is up to date.
# Under CI=true a missing prerequisite is an error; locally it is a warning (those tests then skip).
set -euo pipefail
cd "$(dirname "$(readlink -f "$0" 2>/dev/null || echo "$0")")/.."

OPENCODE_VERSION="1.18.33"
quiet=0
[ "${1:-}" = "--quiet" ] && quiet=1
in_ci=0
case "${CI:-}" in true | TRUE | True | 1 | yes) in_ci=1 ;; esac

say() { [ "$quiet" = 1 ] || echo "setup: $*" >&2; }
step() { echo "setup: $*" >&2; }
warn() { echo "setup: warning: $*" >&2; }
die() { echo "setup: error: $*" >&2; exit 1; }
missing() { if [ "$in_ci" = 1 ]; then die "$*"; else warn "$*"; fi; }

# Run a command with its output in a log; show the log only when it fails.
run_logged() {
  local log
  log="$(mktemp "${TMPDIR:-/tmp}/octui-setup.XXXXXX")"
  if "$@" >"$log" 2>&1; then
    [ "$quiet" = 1 ] || cat "$log" >&2
    rm -f "$log"
  else
    local rc=$?
    cat "$log" >&2
    rm -f "$log"
    die "failed (exit $rc): $*"
  fi
}

python_ok() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' >/dev/null 2>&1; }

# --- Python venv -------------------------------------------------------------------------------
if [ ! -x .venv/bin/python ] || ! python_ok .venv/bin/python; then
  py="${PYTHON:-}"
  if [ -z "$py" ]; then
    for candidate in python3 python3.13 python3.12 python3.11; do
      if command -v "$candidate" >/dev/null 2>&1 && python_ok "$candidate"; then
        py="$candidate"
        break
      fi
    done
  fi
  [ -n "$py" ] && python_ok "$py" || die "need python3 >= 3.11 (set PYTHON=...)"
  step "creating .venv with $("$py" -c 'import sys; print(sys.executable, sys.version.split()[0])')"
  rm -rf .venv
  run_logged "$py" -m venv .venv
fi

stamp=.venv/.octui-pyproject.sha256
want="$(.venv/bin/python -c 'import hashlib; print(hashlib.sha256(open("pyproject.toml", "rb").read()).hexdigest())')"
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ] || [ ! -x .venv/bin/octui ]; then
  step "installing octui and its test dependencies into .venv (pip install -e '.[test]')"
  run_logged .venv/bin/python -m pip install -q -e '.[test]'
  echo "$want" >"$stamp"
else
  say ".venv is up to date"
fi

# --- OpenCode server (npm) ---------------------------------------------------------------------
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform="linux-x64" ;;
  Linux-aarch64 | Linux-arm64) platform="linux-arm64" ;;
  Darwin-x86_64) platform="darwin-x64" ;;
  Darwin-arm64) platform="darwin-arm64" ;;
  *) platform="" ;;
esac
opencode_bin=".opencode/node_modules/opencode-${platform}/bin/opencode"
installed_version="$(
  .venv/bin/python -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' \
    .opencode/node_modules/opencode-ai/package.json 2>/dev/null || true
)"
if [ -z "$platform" ]; then
  missing "no opencode-ai binary package for $(uname -s)-$(uname -m); e2e tests cannot run"
elif [ -x "$opencode_bin" ] && [ "$installed_version" = "$OPENCODE_VERSION" ]; then
  say "opencode $OPENCODE_VERSION is installed"
elif ! command -v npm >/dev/null 2>&1; then
  missing "npm not found: cannot install opencode-ai@$OPENCODE_VERSION (e2e tests need it)"
else
  step "installing opencode-ai@$OPENCODE_VERSION into .opencode/ (npm)"
  mkdir -p .opencode
  # npm 11 warns that install scripts are not covered by allowScripts; the postinstall still runs.
  run_logged npm install --no-audit --no-fund --prefix .opencode "opencode-ai@$OPENCODE_VERSION"
  [ -f "$opencode_bin" ] || die "npm finished but $opencode_bin is missing"
  [ -x "$opencode_bin" ] || chmod +x "$opencode_bin"
  [ -x "$opencode_bin" ] || die "$opencode_bin is not executable"
fi

# --- tmux (for the terminal tests) -------------------------------------------------------------
if command -v tmux >/dev/null 2>&1; then
  say "tmux is installed"
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  step "installing tmux (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  run_logged apt-get update -qq
  run_logged apt-get install -y -qq tmux
else
  missing "tmux not found (install it; the tmux tests need it)"
fi
