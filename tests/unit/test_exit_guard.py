"""The exit guard: once armed, the process ends within the grace period whatever still runs."""

from __future__ import annotations

import subprocess
import sys
import time

# A process with a non-daemon thread blocked for ever: Python alone would wait for it at exit.
STUCK = """
import threading, time
from tui.app import exit_guard
exit_guard.enable()
threading.Thread(target=threading.Event().wait).start()
assert exit_guard.arm(0.5, lambda: 7)
assert not exit_guard.arm(0.1, lambda: 9), "only the first arm counts"
print("armed", flush=True)
"""


def test_a_stuck_thread_cannot_keep_the_process_alive() -> None:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", STUCK], capture_output=True, text=True, timeout=20)
    took = time.monotonic() - started
    assert done.stdout.strip() == "armed"
    assert done.returncode == 7, done.stderr
    assert took < 10, f"took {took:.1f} s"


def test_without_the_guard_it_would_hang() -> None:
    """Control: the same process with no guard is still running after 2 s."""
    unguarded = "\n".join(line for line in STUCK.splitlines() if "exit_guard" not in line)
    proc = subprocess.Popen([sys.executable, "-c", unguarded], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "armed"
        time.sleep(2.0)
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait(5)


def test_a_process_that_did_not_enable_the_guard_is_never_ended_by_it() -> None:
    """Tests and embedders run the CLI in-process: arming there must not end their process."""
    code = "from tui.app import exit_guard\nassert not exit_guard.arm(0.1, lambda: 7)\n" \
           "import time; time.sleep(0.5)\nprint('alive', flush=True)\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)
    assert (done.returncode, done.stdout.strip()) == (0, "alive"), done.stderr
