#!/usr/bin/env bash
# Idempotent set-up for octui: Python venv + package, the OpenCode server from npm, and with --test
# the test tools.
#
#   scripts/setup.sh [--quiet] [--test]
#
# Does only what is missing or stale:
#   * .venv (python3 >= 3.11; override with PYTHON=/path/to/python3)
#   * `pip install -e .` (what running needs) when pyproject.toml changed since that install
#   * octui's own modules compiled to bytecode when a source changed since the last compile
#     (scripts/compile.sh)
#   * with --test: the `test` extras of pyproject.toml (pytest, ruff, mypy, ...) when pyproject.toml
#     changed since they were installed; a separate stamp, so neither install repeats the other
#   * opencode-ai@1.18.33 under .opencode/ (ignored by git) when its binary is missing or another version
#   * with --test: tmux via apt-get when missing and running as root (the terminal tests need it)
# scripts/octui.sh runs it with --quiet, scripts/test.sh with --test.
# With --quiet it prints one line per step that actually does work, and nothing when all is up to date.
# Under CI=true a missing prerequisite is an error; locally it is a warning (those tests then skip).
set -euo pipefail
cd "$(dirname "$(readlink -f "$0" 2>/dev/null || echo "$0")")/.."

OPENCODE_VERSION="1.18.33"
quiet=0
with_test=0
for arg in "$@"; do
  case "$arg" in
    --quiet) quiet=1 ;;
    --test) with_test=1 ;;
    *) echo "usage: scripts/setup.sh [--quiet] [--test]" >&2; exit 2 ;;
  esac
done
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

# Each stamp holds a sha256 of the pyproject.toml tables its install depends on: the run stamp of
# the build system, the project (less its extras) and the package layout (setup.py); the test stamp of the
# test extras. A change elsewhere (pytest, ruff or mypy settings) reinstalls nothing.
stamp_hash() {
  .venv/bin/python - "$1" <<'PY'
import hashlib, json, sys, tomllib
data = tomllib.load(open("pyproject.toml", "rb"))
project = dict(data["project"])
extras = project.pop("optional-dependencies", {})
if sys.argv[1] == "run":
    part = [data.get("build-system"), project, data.get("tool", {}).get("setuptools"),
            open("setup.py", encoding="utf-8").read()]
else:
    part = extras.get("test", [])
print(hashlib.sha256(json.dumps(part, sort_keys=True).encode()).hexdigest())
PY
}
run_stamp=.venv/.octui-run.sha256
test_stamp=.venv/.octui-test.sha256
rm -f .venv/.octui-pyproject.sha256  # the single stamp of earlier versions
want="$(stamp_hash run)"
if [ "$(cat "$run_stamp" 2>/dev/null || true)" != "$want" ] || [ ! -x .venv/bin/octui ]; then
  step "installing octui into .venv (pip install -e .)"
  run_logged .venv/bin/python -m pip install -q -e .
  echo "$want" >"$run_stamp"
else
  say ".venv has octui"
fi
if [ "$with_test" = 1 ]; then
  want="$(stamp_hash test)"
  if [ "$(cat "$test_stamp" 2>/dev/null || true)" != "$want" ]; then
    step "installing the test tools into .venv (the test extras of pyproject.toml)"
    # The extras by themselves: octui is installed already, so pip need not build it again.
    requirements=.venv/.octui-test-requirements.txt
    .venv/bin/python -c 'import tomllib
print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["test"]))' \
      >"$requirements"
    run_logged .venv/bin/python -m pip install -q -r "$requirements"
    echo "$want" >"$test_stamp"
  else
    say ".venv has the test tools"
  fi
fi

# --- octui's bytecode (scripts/compile.sh) --------------------------------------------------------
if [ "$quiet" = 1 ]; then scripts/compile.sh --quiet; else scripts/compile.sh; fi

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
if [ "$with_test" = 0 ]; then
  :
elif command -v tmux >/dev/null 2>&1; then
  say "tmux is installed"
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  step "installing tmux (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  run_logged apt-get update -qq
  run_logged apt-get install -y -qq tmux
else
  missing "tmux not found (install it; the tmux tests need it)"
fi
