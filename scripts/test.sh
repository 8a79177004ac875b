#!/usr/bin/env bash
# Run every check: set-up, ruff, mypy, then the whole pytest suite (unit, contract, snapshots, e2e, tmux).
#   scripts/test.sh [extra pytest arguments...]
# pytest runs on parallel workers (pytest-xdist): OCTUI_TEST_WORKERS of them (default: twice the
# cores, at least 4, at most 8; the e2e tests mostly wait on a paced fake LLM), the real-server tests
# on half of them (tests/README.md). OCTUI_TEST_WORKERS=0, or -n in the arguments, runs it your way;
# --snapshot-update always runs in one process.
# All three checks always run; the exit code is pytest's when it failed, else 1 if ruff or mypy failed.
set -uo pipefail
cd "$(dirname "$(readlink -f "$0" 2>/dev/null || echo "$0")")/.." || exit 1

scripts/setup.sh --test || exit $?

lint_dirs=()
for dir in tui widgets tests bench; do
  [ -d "$dir" ] && lint_dirs+=("$dir")
done

failed=0
echo "== ruff check ${lint_dirs[*]}" >&2
.venv/bin/ruff check "${lint_dirs[@]}" || failed=1
echo "== mypy" >&2
.venv/bin/mypy || failed=1

# Compiled test modules (and their assertion rewrites) are cached between runs, beside them, even
# where the environment turns bytecode writing off: every worker imports the whole suite. No
# PYTHONPYCACHEPREFIX: under one, Python ignores the bytecode pip wrote beside the packages (and
# scripts/compile.sh beside octui's modules), so each worker of a fresh clone compiled Textual,
# Rich, pydantic, Pygments and the rest again from source, ~8 CPU-s a process before any test ran.
unset PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX

cores="$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"
default_workers=$((cores * 2 < 4 ? 4 : (cores * 2 > 8 ? 8 : cores * 2)))
workers="${OCTUI_TEST_WORKERS:-$default_workers}"
parallel=(-n "$workers" --dist loadgroup)
for arg in "$@"; do
  case "$arg" in
    -n | -n* | --numprocesses* | no:xdist | --snapshot-update) parallel=() ;;
  esac
done
[ "$workers" = 0 ] && parallel=()

echo "== pytest ${parallel[*]}" >&2
.venv/bin/python -m pytest -q "${parallel[@]}" "$@"
rc=$?
if [ "$rc" -ne 0 ]; then
  exit "$rc"
fi
if [ "$failed" -ne 0 ]; then
  echo "tests passed, but ruff or mypy reported problems (see above)" >&2
  exit 1
fi
exit 0
