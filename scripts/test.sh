#!/usr/bin/env bash
# Run every check: set-up, ruff, mypy, then the whole pytest suite (unit, contract, snapshots, e2e, tmux).
#   scripts/test.sh [extra pytest arguments...]
# All three checks always run; the exit code is pytest's when it failed, else 1 if ruff or mypy failed.
set -uo pipefail
cd "$(dirname "$(readlink -f "$0" 2>/dev/null || echo "$0")")/.." || exit 1

scripts/setup.sh || exit $?

lint_dirs=()
for dir in tui widgets tests bench; do
  [ -d "$dir" ] && lint_dirs+=("$dir")
done

failed=0
echo "== ruff check ${lint_dirs[*]}" >&2
.venv/bin/ruff check "${lint_dirs[@]}" || failed=1
echo "== mypy" >&2
.venv/bin/mypy || failed=1
echo "== pytest" >&2
.venv/bin/python -m pytest -q "$@"
rc=$?
if [ "$rc" -ne 0 ]; then
  exit "$rc"
fi
if [ "$failed" -ne 0 ]; then
  echo "tests passed, but ruff or mypy reported problems (see above)" >&2
  exit 1
fi
exit 0
