"""One clock for everything that shows time, so snapshot tests can freeze it."""

from __future__ import annotations

import time

_fixed: float | None = None


def now() -> float:
    """Seconds since the epoch (wall clock), or the frozen value in tests."""
    return time.time() if _fixed is None else _fixed


def now_ms() -> float:
    return now() * 1000.0


def freeze(at: float | None) -> None:
    """Freeze the clock at ``at`` seconds (``None`` thaws it)."""
    global _fixed
    _fixed = at
