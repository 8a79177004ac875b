"""Start-up: ``octui --version`` wall time, and launch → first frame of ``octui --demo`` in tmux.

    python -m bench.startup [--runs 5]

The demo runs in a private tmux server (own socket, 120x40, started in a temporary directory);
the first frame is the first ``capture-pane`` that shows the composer's placeholder or the home
text. Every tmux server started here is killed by its socket, every wait is bounded.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench.common import emit, exit_on_terminate, private_user_dirs

TIMEOUT_S = 30.0
FIRST_FRAME_HINTS = ("octui", "ctrl+q", "Ask", "prompt")


def octui_command() -> list[str]:
    """The installed ``octui`` next to this interpreter, else ``python -m tui``."""
    script = Path(sys.executable).with_name("octui")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "tui.app.cli"]


def version_wall(runs: int) -> tuple[list[float], list[float]]:
    """Wall and CPU (user + system of the child) seconds of each ``octui --version``."""
    times, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([*octui_command(), "--version"], check=True, capture_output=True, timeout=TIMEOUT_S)
        times.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return times, cpu


class Tmux:
    """A private tmux server (``-L`` socket of its own), killed on exit."""

    def __init__(self, name: str) -> None:
        self.socket = name

    def run(self, *args: str, env: dict[str, str] | None = None, check: bool = False) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True,
                              timeout=TIMEOUT_S, env=None if env is None else {**os.environ, **env})
        if check and done.returncode:
            raise RuntimeError(f"tmux {args[0] if args else ''} failed: {done.stderr.strip()}")
        return done.stdout

    def start(self, command: list[str], cwd: str, env: dict[str, str] | None = None) -> None:
        """Start the server, with one window running ``command``.

        ``env`` reaches the pane through the environment of the tmux server this starts, which
        a new server hands to its panes; not through ``-e`` in its argv: the server keeps the
        argv of the command that started it, and any user's ``ps`` would read the server
        password there. So the socket must be new (a server already on it would keep its own
        environment and drop ``env`` without a word): checked. The pane's ``TERM`` is tmux's
        ``default-terminal`` (``tmux-256color`` where its terminfo is installed), as in every run
        of these benches: ``new-session -e TERM=…`` never reached the pane."""
        if subprocess.run(["tmux", "-L", self.socket, "has-session"], capture_output=True,
                          timeout=TIMEOUT_S).returncode == 0:
            raise RuntimeError(f"a tmux server already runs on socket {self.socket}")
        self.run("-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "40", "-c", cwd,
                 " ".join(_quote(part) for part in command), env=env, check=True)

    def capture(self) -> str:
        return self.run("capture-pane", "-p")

    def pane_pid(self) -> int:
        out = self.run("display-message", "-p", "#{pane_pid}").strip()
        return int(out) if out.isdigit() else 0

    def send(self, *keys: str) -> None:
        self.run("send-keys", *keys)

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=TIMEOUT_S)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def demo_first_frame() -> float:
    with tempfile.TemporaryDirectory(prefix="octui-bench-") as cwd:
        tmux = Tmux(f"octui-bench-{os.getpid()}-{uuid.uuid4().hex[:8]}")  # a new server each run
        try:
            start = time.perf_counter()
            tmux.start([*octui_command(), "--demo"], cwd)
            while time.perf_counter() - start < TIMEOUT_S:  # bounded
                screen = tmux.capture()
                if len(screen.strip()) > 0 and any(hint in screen for hint in FIRST_FRAME_HINTS):
                    return time.perf_counter() - start
                time.sleep(0.01)
            return float("nan")
        finally:
            tmux.send("C-q")
            time.sleep(0.3)
            tmux.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        emit({"benchmark": "startup", "error": "tmux not found"})
        return
    exit_on_terminate()  # a killed bench still stops its tmux server and octui (demo_first_frame's finally)
    with private_user_dirs():  # the demo (a tmux server started from here inherits them) reads no draft
        versions, version_cpu = version_wall(args.runs)
        frames = [demo_first_frame() for _ in range(args.runs)]
    figures: dict[str, Any] = {
        "benchmark": "startup",
        "version_wall_s_median": statistics.median(versions),
        "version_wall_s_min": min(versions),
        "version_cpu_s_median": statistics.median(version_cpu),
        "load_average_1m": os.getloadavg()[0],
        "first_frame_s_median": statistics.median(frames),
        "first_frame_s_min": min(frames),
        "runs": args.runs,
        "budgets": {"version_wall_s": 0.3, "first_frame_s": 1.0},
    }
    figures["ok"] = figures["version_wall_s_median"] <= 0.3 and figures["first_frame_s_median"] <= 1.0
    emit(figures)


if __name__ == "__main__":
    main()
