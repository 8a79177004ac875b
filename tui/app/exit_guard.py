"""Quitting is bounded: once octui starts to exit, the process is gone within a few seconds.

A worker thread can be stuck where no cancellation reaches it (a read from a dead network file
system, a library call that never returns). Python waits for such threads at exit: asyncio's
default executor is joined when the loop closes and again at interpreter exit, with no timeout,
so Ctrl+Q would leave a process that never ends. ``arm`` starts a daemon thread that, if the
process is still alive after the grace period, puts the terminal back as it was at start (when
it was not restored already), logs why and leaves with ``os._exit``. The local server still
dies with it (``tui/client/server_guard.py`` watches octui's end of a pipe). No Textual here.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["EXIT_GRACE_S", "arm", "enable", "remember_terminal"]

log = logging.getLogger("octui")

EXIT_GRACE_S = 3.0
# Modes a full-screen app turns on: mouse reporting, bracketed paste, focus events, the kitty
# keyboard protocol, the alternate screen, a hidden cursor. Each is turned off again.
_RESET = ("\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1015l\x1b[?2004l\x1b[?1004l"
          "\x1b[<u\x1b[?1049l\x1b[?25h")
_saved: tuple[int, list[Any]] | None = None
_armed = threading.Lock()
_enabled = False  # only the console script turns the guard on: code that runs octui in-process
                  # (tests, an embedding program) must never have its process ended for it


def enable() -> None:
    """This process is the ``octui`` program itself (``tui.app.entry.main``): ``arm`` may end it."""
    global _enabled
    _enabled = True


def remember_terminal() -> None:
    """Keep the terminal's settings as they are now (before the app takes it over)."""
    global _saved
    with contextlib.suppress(Exception):
        import termios

        fd = sys.stdin.fileno()
        if os.isatty(fd):
            _saved = (fd, termios.tcgetattr(fd))


def restore_terminal() -> None:
    """Put the terminal back as ``remember_terminal`` found it, if the app did not (a no-op then)."""
    if _saved is None:
        return
    with contextlib.suppress(Exception):
        import termios

        fd, attributes = _saved
        if termios.tcgetattr(fd) != attributes:  # the app did not get to restore it
            termios.tcsetattr(fd, termios.TCSANOW, attributes)
            if os.isatty(1):
                os.write(1, _RESET.encode())


def arm(seconds: float, code: Callable[[], int]) -> bool:
    """From now on the process lives at most ``seconds`` more; then it exits with ``code()``.

    Only the first call counts (True); later ones return False, and so does every call in a
    process that did not ``enable`` the guard.
    """
    if not _enabled or not _armed.acquire(blocking=False):
        return False
    threading.Thread(target=_expire, args=(seconds, code), name="octui-exit-guard", daemon=True).start()
    return True


def _expire(seconds: float, code: Callable[[], int]) -> None:
    time.sleep(seconds)
    status = 1
    with contextlib.suppress(Exception):
        status = int(code())
    # Logged from another thread, waited for briefly: a stuck thread may hold the log's lock.
    note = threading.Thread(target=_log_stuck, args=(seconds,), daemon=True)
    note.start()
    note.join(0.5)
    restore_terminal()
    os._exit(status)


def _log_stuck(seconds: float) -> None:
    with contextlib.suppress(Exception):
        stuck = [t.name for t in threading.enumerate()
                 if t is not threading.current_thread() and t.name != "octui-exit-guard"]
        log.warning("exit took over %.0f s; threads still running: %s; exiting now", seconds,
                    ", ".join(stuck) or "none")
        for handler in log.handlers:
            handler.flush()
