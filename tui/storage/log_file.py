"""``octui.log``: user-only files (the rotated ones too), and repeated lines counted, not written.

A server that floods octui with unknown or malformed events would write one line each and
rotate the log away within seconds, taking the first, useful lines with it. So a line whose
gist (the text before its first ": ", or its first 60 characters) was written in the last 60 s
is only counted; when its window ends, one line says how many there were. Past
``MAX_LINES_PER_WINDOW`` lines in a window, every further line is counted the same way. Errors
and worse are always written. No Textual here.
"""

from __future__ import annotations

import io
import logging
import logging.handlers
import os
import time
from collections.abc import Callable
from typing import Any, cast

__all__ = ["PrivateRotatingLog"]

WINDOW_S = 60.0
MAX_LINES_PER_WINDOW = 100
MAX_KEYS = 1000
_ANY = "\x00any"  # the key that counts lines over the per-window budget


def gist(message: str) -> str:
    """What makes two log lines "the same": the part before the details."""
    head, sep, _ = message.partition(": ")
    return head if sep and len(head) <= 60 else message[:60]


class PrivateRotatingLog(logging.handlers.RotatingFileHandler):
    """A rotating log whose every file is 0600, with repeated lines rate-limited."""

    def __init__(self, filename: str | os.PathLike[str], *, max_bytes: int, backups: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._windows: dict[str, list[Any]] = {}  # gist -> [window start, suppressed count, sample]
        self._window_start = clock()
        self._lines = 0
        super().__init__(filename, maxBytes=max_bytes, backupCount=backups, encoding="utf-8")

    # ---------------------------------------------------------------- private files
    def _open(self) -> io.TextIOWrapper:
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        os.fchmod(fd, 0o600)  # a file an older version created with the umask's mode
        return cast(io.TextIOWrapper, open(fd, self.mode, encoding=self.encoding, errors=self.errors))  # noqa: SIM115

    def rotate(self, source: str, dest: str) -> None:
        super().rotate(source, dest)
        try:
            os.chmod(dest, 0o600)
        except OSError:
            pass

    # ---------------------------------------------------------------- rate limit
    def emit(self, record: logging.LogRecord) -> None:
        now = self._clock()
        self._summarise(now)
        if record.levelno >= logging.ERROR:
            super().emit(record)
            return
        key = gist(record.getMessage())
        window = self._windows.get(key)
        if window is not None:
            window[1] += 1  # the same line within its window: counted
            return
        if self._lines >= MAX_LINES_PER_WINDOW:
            budget = self._windows.setdefault(_ANY, [self._window_start, 0, ""])
            budget[1] += 1
            return
        if len(self._windows) < MAX_KEYS:
            self._windows[key] = [now, 0, key]
        self._lines += 1
        super().emit(record)

    def _summarise(self, now: float) -> None:
        """Write one line for each window that ended with lines counted in it."""
        if now - self._window_start >= WINDOW_S:
            self._window_start, self._lines = now, 0
        for key, (start, count, sample) in list(self._windows.items()):
            if now - start < WINDOW_S:
                continue
            del self._windows[key]
            if count:
                self._write_summary(key, sample, count, WINDOW_S)  # all counted within the window

    def _write_summary(self, key: str, sample: str, count: int, span: float) -> None:
        text = (f"… ({count:,} more log lines not written in the last {span:.0f} s)" if key == _ANY
                else f"{sample}… (repeated {count:,} times in the last {span:.0f} s)")
        summary = logging.LogRecord("octui", logging.WARNING, __file__, 0, "%s", (text,), None)
        super().emit(summary)

    def close(self) -> None:
        """At exit: what was counted but not said yet is said now."""
        now = self._clock()
        for key, (start, count, sample) in list(self._windows.items()):
            if count:
                self._write_summary(key, sample, count, max(1.0, now - start))
        self._windows.clear()
        super().close()
