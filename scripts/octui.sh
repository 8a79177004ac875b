#!/usr/bin/env bash
# Run octui from this checkout; the first run sets everything up (scripts/setup.sh).
#   scripts/octui.sh [octui arguments...]
# The current directory is kept: octui works on the project you run it from.
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "$0" 2>/dev/null || echo "$0")")/.." && pwd)"
"$root/scripts/setup.sh" --quiet
exec "$root/.venv/bin/octui" "$@"
