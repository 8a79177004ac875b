#!/usr/bin/env bash
# Compile octui's own modules to bytecode (scripts/setup.sh runs it; so does its test).
#   scripts/compile.sh [--quiet]
# pip compiles what it installs; an editable install leaves octui's modules as source. Where
# PYTHONDONTWRITEBYTECODE is set, every launch then compiled all of them again (about half a second
# of a 2-core machine's start-up, and each lazily loaded screen when first opened). Done when a
# source is newer than the last compile (a checkout, an edit), all of them (-f). The bytecode is
# checked against a hash of its source at each import, so an edit that keeps a file's size and
# second (which a timestamp check cannot see) is never run from old bytecode.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0" 2>/dev/null || echo "$0")")/.."
quiet=0
[ "${1:-}" = "--quiet" ] && quiet=1

stamp=.venv/.octui-compiled
if [ -f "$stamp" ] && [ -d tui/__pycache__ ] \
    && [ -z "$(find tui widgets styles -name '*.py' -newer "$stamp" -print -quit)" ]; then
  [ "$quiet" = 1 ] || echo "setup: octui's modules are compiled" >&2
  exit 0
fi
echo "setup: compiling octui's modules" >&2
next="$(mktemp .venv/.octui-compiled.XXXXXX)"  # (a file changed while compiling is compiled again next time)
# Beside the sources, whatever cache prefix the caller has; errors only, on stderr (a module that
# does not compile fails again, and says why, when octui loads it).
if ! env -u PYTHONPYCACHEPREFIX .venv/bin/python -m compileall -q -f --invalidation-mode checked-hash \
    tui widgets styles >&2; then
  echo "setup: warning: some of octui's modules did not compile" >&2
fi
mv -f "$next" "$stamp"
