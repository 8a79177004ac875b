"""Run the real ``octui`` program under a pseudo-terminal, type into it, and watch it (bounded).

For fault tests that need the whole process: its exit, its children, signals. The output is
read by a background thread into one buffer; ``wait_output`` searches it with escape sequences
removed, so a test can wait for words the app drew.
"""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

OCTUI = Path(sys.executable).parent / "octui"
_ESCAPES = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
                      r"|\x1b[PX^_].*?\x1b\\|\x1b.")


def base_env(state: Path) -> dict[str, str]:
    """The environment of a test octui: its own state and config dirs, a known terminal size."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OCTUI_", "PYTEST"))}
    env.update({"OCTUI_STATE_DIR": str(state / "state"), "OCTUI_CONFIG": str(state / "config.toml"),
                "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"})
    return env


class PtyApp:
    """One ``octui`` process on a pty. Always ``close()`` it (kills it if still running)."""

    def __init__(self, args: Sequence[str], env: Mapping[str, str], cwd: Path,
                 program: Sequence[str] = (str(OCTUI),)) -> None:
        command = [*program, *args]
        pid, fd = pty.fork()
        if pid == 0:  # the child: never return into pytest
            try:
                os.chdir(cwd)
                os.execve(command[0], command, dict(env))
            finally:
                os._exit(127)
        self.pid = pid
        self.fd = fd
        self.exit_status: int | None = None
        self._out = bytearray()
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, name="pty-reader", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.1)
                if not ready:
                    continue
                chunk = os.read(self.fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            with self._lock:
                self._out += chunk

    @property
    def raw(self) -> bytes:
        with self._lock:
            return bytes(self._out)

    def text(self) -> str:
        """Everything written so far, escape sequences removed."""
        return _ESCAPES.sub("", self.raw.decode("utf-8", "replace"))

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    def type(self, text: str, gap: float = 0.01) -> None:
        """Key by key, as a person types (a paste would arrive as one bracketed paste)."""
        for char in text:
            self.write(char.encode())
            time.sleep(gap)

    def wait_for(self, predicate: Callable[[], object], what: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() >= deadline:
                tail = self.text()[-1500:]
                raise AssertionError(f"timed out after {timeout} s waiting for {what}; screen tail:\n{tail}")
            time.sleep(0.05)

    def wait_output(self, needle: str, timeout: float) -> None:
        self.wait_for(lambda: needle in self.text(), repr(needle), timeout)

    def poll(self) -> int | None:
        """The exit status once the process has exited (reaped here), else None."""
        if self.exit_status is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                return self.exit_status
            if pid:
                self.exit_status = status
        return self.exit_status

    def wait_exit(self, timeout: float) -> int | None:
        """The exit status, or None if it was still running after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while self.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.poll()

    def close(self) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.wait_exit(5.0)
        try:
            os.close(self.fd)
        except OSError:
            pass
        self._reader.join(2.0)
