"""octui's interface needs a terminal: without one it says why and stops (QA: with TERM=dumb, or
its standard error sent to a file, it wrote the interface as escape codes and ran until killed)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tui.app.terminal_check import terminal_problem

REPO = Path(__file__).resolve().parents[2]


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


class Closed(io.StringIO):
    def isatty(self) -> bool:
        raise ValueError("I/O operation on closed file")


def test_a_terminal_that_can_draw_is_no_problem() -> None:
    assert terminal_problem(Tty(), Tty(), {"TERM": "xterm-256color"}) is None
    assert terminal_problem(Tty(), Tty(), {}) is None  # (no TERM: Textual's own default)


@pytest.mark.parametrize(("stdin", "stderr", "named"), [
    (io.StringIO(), Tty(), "standard input is not a terminal"),
    (Tty(), io.StringIO(), "standard error is not a terminal"),
    (None, Closed(), "standard input and standard error are not terminals"),
])
def test_streams_that_are_not_terminals_are_named(stdin: io.StringIO | None, stderr: io.StringIO,
                                                   named: str) -> None:
    problem = terminal_problem(stdin, stderr, {"TERM": "xterm"})
    assert problem is not None and named in problem and "octui export" in problem


def test_a_dumb_terminal_cannot_draw_a_full_screen() -> None:
    problem = terminal_problem(Tty(), Tty(), {"TERM": "dumb"})
    assert problem is not None and "TERM is 'dumb'" in problem


def test_the_program_without_a_terminal_says_why_and_exits_2(tmp_path: Path) -> None:
    """The console script's path, with no terminal at all: a usage error, at once, and no
    escape code written anywhere."""
    code = ("import sys; from tui.app.entry import main; sys.argv[0] = 'octui'; "
            "raise SystemExit(main(['--demo']))")
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "TERM": "xterm-256color"}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "no terminal to draw on" in done.stderr
    assert "\x1b" not in done.stdout + done.stderr
