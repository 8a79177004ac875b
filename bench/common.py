"""Shared helpers for the benchmarks: RSS and CPU from ``/proc``, timers, percentiles, JSON output.

Benchmarks are programs, not tests: each prints exactly one JSON object on stdout.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
TRACES = REPO_ROOT / "tests" / "fixtures" / "traces"
_PAGE = os.sysconf("SC_PAGE_SIZE")
_TICKS = os.sysconf("SC_CLK_TCK")


def exit_on_terminate() -> None:
    """End the bench on SIGTERM (``timeout``, a CI's stop) as on Ctrl+C: its ``finally`` blocks run
    and stop the servers it started. By default the signal killed it on the spot, and left a real
    server running with no one to stop it."""

    def _exit(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, _exit)


def ensure_repo_on_path() -> None:
    """Let ``python bench/x.py`` import ``tui`` and ``tests`` from the checkout."""
    root = str(REPO_ROOT)
    if root not in sys.path:
        sys.path.insert(0, root)


def peak_rss_mb() -> float:
    """Peak RSS of this process (``ru_maxrss`` is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_mb(pid: int | None = None) -> float:
    """Current RSS of ``pid`` (default: this process) from ``/proc/<pid>/statm``."""
    statm = Path(f"/proc/{pid or os.getpid()}/statm").read_text().split()
    return int(statm[1]) * _PAGE / (1024 * 1024)


def proc_status_mb(pid: int, field: str) -> float:
    """A ``kB`` field of ``/proc/<pid>/status`` (``VmHWM`` = peak RSS, ``VmRSS``) in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int) -> float:
    """utime + stime of ``pid`` (not its children) from ``/proc/<pid>/stat``."""
    raw = Path(f"/proc/{pid}/stat").read_text()
    fields = raw[raw.rindex(")") + 2:].split()  # the command name may hold spaces
    return (int(fields[11]) + int(fields[12])) / _TICKS


def tree_pids(pid: int) -> list[int]:
    """``pid`` and all its descendants (via ``/proc/*/stat`` parent ids)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(raw[raw.rindex(")") + 2:].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        todo.extend(parents.get(current, []))
    return out


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(pct / 100 * len(ordered) + 0.5) - 1))
    return ordered[rank]


@contextmanager
def private_user_dirs() -> Iterator[Path]:
    """A fresh config file and state directory for a headless app run (``OCTUI_CONFIG``,
    ``OCTUI_STATE_DIR``), removed after it. The app restores a session's draft from the state
    directory: a draft an earlier run typed into the demo session (whose id is the same every
    run) came back in the composer, which then showed a scrollbar the real client's does not;
    and a benchmark must not leave its drafts in the user's own state either."""
    saved = {name: os.environ.get(name) for name in ("OCTUI_CONFIG", "OCTUI_STATE_DIR")}
    with tempfile.TemporaryDirectory(prefix="octui-bench-") as root:
        os.environ["OCTUI_CONFIG"] = str(Path(root) / "config.toml")
        os.environ["OCTUI_STATE_DIR"] = str(Path(root) / "state")
        try:
            yield Path(root)
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


@contextmanager
def timer() -> Iterator[list[float]]:
    """``with timer() as t: ...`` then ``t[0]`` is the elapsed wall time in seconds."""
    box: list[float] = [0.0]
    start = time.perf_counter()
    try:
        yield box
    finally:
        box[0] = time.perf_counter() - start


def rounded(figures: dict[str, Any], digits: int = 4) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in figures.items():
        if isinstance(value, float):
            out[key] = round(value, digits)
        elif isinstance(value, dict):
            out[key] = rounded(value, digits)
        else:
            out[key] = value
    return out


def emit(figures: dict[str, Any]) -> None:
    """Print the one JSON object of a benchmark."""
    print(json.dumps(rounded(figures), sort_keys=False))
    sys.stdout.flush()
