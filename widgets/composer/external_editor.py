"""The draft in ``$EDITOR``: the command to run and the round trip through a temporary file."""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from tui.storage.bounded_read import read_bounded
from tui.storage.saved_state import DRAFT_MAX_BYTES

__all__ = ["edit_text", "editor_command"]


def editor_command(env: dict[str, str] | None = None) -> list[str]:
    """``$VISUAL``, else ``$EDITOR``, else ``vi``, split like a shell would."""
    env = dict(os.environ) if env is None else env
    return shlex.split(env.get("VISUAL") or env.get("EDITOR") or "vi")


def edit_text(text: str, command: list[str]) -> str:
    """Open ``text`` in an editor (``command`` + a temp ``.md`` file) and return what was saved.

    Raises ``OSError`` when the editor cannot start or what it saved cannot be read (the editor
    may leave anything at the path: a huge file, a FIFO) and ``RuntimeError`` when it exits
    non-zero or saved no UTF-8 text.
    """
    fd, name = tempfile.mkstemp(prefix="octui-draft-", suffix=".md")
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        done = subprocess.run([*command, str(path)], check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} exited with code {done.returncode}")
        try:
            return read_bounded(path, DRAFT_MAX_BYTES).decode("utf-8")
        except UnicodeDecodeError:
            raise RuntimeError("the saved file is not UTF-8 text") from None
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
