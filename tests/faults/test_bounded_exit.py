"""Quitting is bounded: the real ``octui`` program under a pty, with a file that would block a
reader for ever (a FIFO) and with a worker stuck where nothing can cancel it; Ctrl+Q ends the
process within a few seconds either way, and the terminal is given back."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from tests.faults.pty_app import OCTUI, PtyApp, base_env

pytestmark = pytest.mark.skipif(not OCTUI.exists(), reason="octui is not installed in this venv")

QUIT_BUDGET_S = 8.0  # the exit guard fires after 3 s; the rest is start-up noise on a busy machine
# octui with the attachment reader replaced by one that never returns (a hung network mount, say):
# a worker thread stuck where no cancellation reaches it.
# ``import octui`` first, as the console script does: octui is installed under that one name.
STUCK = ("import sys, threading, octui; import widgets.composer.composer_panel as m; "
         "m.read_attachment = lambda *a, **k: threading.Event().wait(); "
         "from tui.app.entry import main; sys.argv[0] = 'octui'; raise SystemExit(main())")


def _attach_then_quit(app: PtyApp, path: Path) -> float:
    app.wait_output("Ask anything", 30.0)
    app.type(f"/attach {path}")
    time.sleep(0.5)  # the path completion menu closes on an exact name
    app.write(b"\r")
    time.sleep(1.0)
    started = time.monotonic()
    app.write(b"\x11")  # ctrl+q
    status = app.wait_exit(QUIT_BUDGET_S)
    took = time.monotonic() - started
    assert status is not None, f"octui still running {QUIT_BUDGET_S} s after Ctrl+Q"
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, f"exit status {status:#x}"
    return took


def test_attaching_a_fifo_is_refused_and_quit_is_prompt(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    app = PtyApp(["--demo"], base_env(tmp_path), tmp_path)
    try:
        app.wait_output("Ask anything", 30.0)
        app.type(f"/attach {fifo}")
        time.sleep(0.5)
        app.write(b"\r")
        app.wait_output("is a named pipe", 10.0)  # said at once: open() was never called on it
        started = time.monotonic()
        app.write(b"\x11")
        assert app.wait_exit(QUIT_BUDGET_S) is not None, "octui did not exit after Ctrl+Q"
        assert time.monotonic() - started < 2.5, "nothing was stuck: no need for the exit guard"
    finally:
        app.close()


def test_quit_with_a_worker_stuck_for_ever_still_exits(tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    target.write_text("hello\n")
    app = PtyApp(["--demo"], base_env(tmp_path), tmp_path, program=(sys.executable, "-c", STUCK))
    try:
        took = _attach_then_quit(app, target)
    finally:
        app.close()
    assert took < QUIT_BUDGET_S
    # The terminal was given back: the alternate screen was left and the cursor shown again.
    tail = app.raw[-4000:]
    assert b"\x1b[?1049l" in tail and b"\x1b[?25h" in tail
    # The draft (the /attach line still waiting) was saved before the exit was cut short.
    draft = tmp_path / "state" / "drafts" / "new.txt"
    assert draft.read_text("utf-8") == f"/attach {target}"
