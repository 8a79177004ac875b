"""Whether octui can draw here: Textual draws on standard error and reads keys from standard
input, so both must be a terminal, and one that can draw a full screen.

QA: with ``TERM=dumb`` (an editor's shell buffer), or its output sent to a file, octui wrote the
whole interface as escape codes and ran until it was killed. It says why and stops instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol


class _Stream(Protocol):
    def isatty(self) -> bool: ...


def terminal_problem(stdin: _Stream | None, stderr: _Stream | None, env: Mapping[str, str]) -> str | None:
    """Why octui cannot run its interface with these streams and environment; None: it can."""
    missing = [name for name, stream in (("standard input", stdin), ("standard error", stderr))
               if stream is None or not _is_terminal(stream)]
    if missing:
        return (f"no terminal to draw on: {' and '.join(missing)} "
                f"{'is not a terminal' if len(missing) == 1 else 'are not terminals'} (octui draws on "
                "standard error and reads keys from standard input). `octui export SESSION` prints "
                "a session without one.")
    if env.get("TERM", "") == "dumb":
        return ("TERM is 'dumb': this terminal cannot draw a full screen. Run octui in a terminal "
                "emulator, or `octui export SESSION` to print a session.")
    return None


def _is_terminal(stream: _Stream) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError):  # closed, or detached
        return False
