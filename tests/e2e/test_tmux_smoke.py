"""Smoke test of the real ``octui`` console script in a real terminal (tmux) against the real server.

A detached tmux server on its own ``-L`` socket runs ``<venv>/bin/octui --url URL`` in a 120x40
window, with ``OPENCODE_SERVER_PASSWORD`` in its environment. The test types a prompt with
``send-keys``, polls ``capture-pane`` (bounded) for the scripted answer, quits with ctrl+q and
checks that the process exited. The tmux server is killed by its socket in teardown.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.e2e.fake_llm import FakeLLM
from tests.e2e.server import RealServer, in_ci

pytestmark = [pytest.mark.e2e, pytest.mark.tmux]

WIDTH, HEIGHT = 120, 40
SCREEN_TIMEOUT = 20.0
EXIT_MARK = "octui-exit-code="


class Tmux:
    """One private tmux server (``tmux -L <socket>``); every call is bounded."""

    def __init__(self, socket_name: str, config: Path) -> None:
        self.socket_name = socket_name
        self.config = config
        self.binary = shutil.which("tmux") or "tmux"

    def run(self, *args: str, check: bool = True,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.binary, "-L", self.socket_name, "-f", str(self.config), *args],
            check=check,
            capture_output=True,
            text=True,
            timeout=10,
            stdin=subprocess.DEVNULL,
            env=None if env is None else {**os.environ, **env},
        )

    def capture(self, target: str) -> str:
        return self.run("capture-pane", "-p", "-t", target).stdout

    def kill_server(self) -> None:
        self.run("kill-server", check=False)


def _octui_script() -> Path:
    """The console script installed next to the running interpreter (the project's venv)."""
    return Path(sys.executable).parent / "octui"


def _argv_with(secret: str) -> list[str]:
    """The processes (pid and name, not their argv: it would print the secret) whose command
    line holds ``secret``: what ``ps`` shows any user."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if secret.encode() not in (entry / "cmdline").read_bytes():
                continue
        except OSError:  # gone meanwhile, or not ours to read
            continue
        try:
            name = (entry / "comm").read_text().strip()
        except OSError:
            name = "?"
        found.append(f"{entry.name} ({name})")
    return found


def _wait(predicate: Callable[[], bool], what: str, timeout: float, screen: Callable[[], str]) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}\n--- pane ---\n{screen()}")
        time.sleep(0.1)


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    if shutil.which("tmux") is None:
        if in_ci():
            pytest.fail("tmux is required under CI=true")
        pytest.skip("tmux not installed")
    # Our own config (never the user's): keep a dead pane for its exit status, no status line.
    config = tmp_path / "tmux.conf"
    config.write_text("set -g remain-on-exit on\nset -g status off\n")
    server = Tmux(f"octui-e2e-{os.getpid()}-{uuid.uuid4().hex[:8]}", config)
    try:
        yield server
    finally:
        server.kill_server()


def test_real_octui_in_tmux_answers_and_quits(
    tmux: Tmux, live_server: RealServer, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    script = _octui_script()
    if not script.is_file():
        if in_ci():
            pytest.fail(f"{script} missing: install the project into its venv (pip install -e .)")
        pytest.skip(f"{script} missing (install the project into its venv)")
    name = f"tmux-{uuid.uuid4().hex[:8]}"
    answer = f"Scripted tmux answer {name}"
    tag = fake_llm.add_scenario(name, [{"text": answer}])

    # The password reaches the pane through the environment of the tmux server the first
    # command starts (a private socket: a new server, whose panes get its environment), never
    # through ``-e``: the server keeps that command's argv, which every user's ``ps`` reads.
    # The pane's TERM is tmux's own (``default-terminal``), as in a user's tmux.
    env_args = [
        "-e", f"OCTUI_CONFIG={tmp_path / 'no-config.toml'}",
        "-e", f"OCTUI_STATE_DIR={tmp_path / 'state'}",
    ]
    # The pane's shell runs octui and then prints its exit status: a reaped, real exit code
    # (a pid poll would see the zombie tmux has not reaped yet as alive).
    command = f"{shlex.quote(str(script))} --url {shlex.quote(live_server.url)}; echo {EXIT_MARK}$?"
    tmux.run("new-session", "-d", "-s", "octui", "-x", str(WIDTH), "-y", str(HEIGHT),
             "-c", str(live_server.project_dir), *env_args, command,
             env={"OPENCODE_SERVER_PASSWORD": live_server.password})
    target = "octui:0.0"

    def screen() -> str:
        return tmux.capture(target)

    _wait(lambda: "connected" in screen() and "No session open." in screen(), "octui to connect",
          SCREEN_TIMEOUT, screen)
    if Path("/proc/self/cmdline").is_file():  # (Linux; elsewhere there is no /proc to read)
        shown = _argv_with(live_server.password)
        assert not shown, f"the server password is in the argv of {shown}"
    prompt = f"Answer me in tmux. {tag}"
    tmux.run("send-keys", "-t", target, "-l", prompt)
    _wait(lambda: prompt in screen(), "the typed prompt in the composer", SCREEN_TIMEOUT, screen)
    tmux.run("send-keys", "-t", target, "Enter")
    _wait(lambda: answer in screen(), "the scripted answer", SCREEN_TIMEOUT, screen)
    assert len(fake_llm.requests_for(name)) == 1

    tmux.run("send-keys", "-t", target, "C-q")

    def history() -> str:
        return tmux.run("capture-pane", "-p", "-S", "-200", "-t", target).stdout

    _wait(lambda: EXIT_MARK in history(), "octui to exit after ctrl+q", 10.0, history)
    after = history()
    code = after.split(EXIT_MARK, 1)[1].split()[0]
    assert code == "0", f"octui exited with {code}\n{after}"
    assert "Traceback" not in after and "Error" not in after, after


@pytest.mark.parametrize("signal_name", ["TERM", "HUP"])
def test_a_killed_octui_gives_the_terminal_back(tmux: Tmux, tmp_path: Path, signal_name: str) -> None:
    """QA: after ``kill -TERM`` the shell was left in the alternate screen with mouse reporting on,
    and each mouse move typed escape codes into it. (``--demo``: no server is needed for this.)"""
    script = _octui_script()
    if not script.is_file():
        if in_ci():
            pytest.fail(f"{script} missing: install the project into its venv (pip install -e .)")
        pytest.skip(f"{script} missing (install the project into its venv)")
    pid_file = tmp_path / "octui.pid"
    env_args = ["-e", f"OCTUI_CONFIG={tmp_path / 'no-config.toml'}",
                "-e", f"OCTUI_STATE_DIR={tmp_path / 'state'}"]
    command = (f"sh -c 'echo $$ > {shlex.quote(str(pid_file))}; exec {shlex.quote(str(script))} --demo'; "
               f"echo {EXIT_MARK}$?; sleep 30")
    tmux.run("new-session", "-d", "-s", "octui", "-x", str(WIDTH), "-y", str(HEIGHT), *env_args, command)
    target = "octui:0.0"

    def screen() -> str:
        return tmux.capture(target)

    def modes() -> str:
        return tmux.run("display", "-p", "-t", target,
                        "#{alternate_on} #{mouse_any_flag} #{mouse_sgr_flag} #{cursor_flag}").stdout.strip()

    _wait(lambda: "connected" in screen(), "octui --demo to start", SCREEN_TIMEOUT, screen)
    assert modes().split()[:2] == ["1", "1"]  # (the control: it took the terminal over)
    os.kill(int(pid_file.read_text()), getattr(signal, f"SIG{signal_name}"))
    _wait(lambda: EXIT_MARK in screen(), "octui to exit", 10.0, screen)
    assert modes() == "0 0 0 1", f"terminal modes after SIG{signal_name}: {modes()}\n{screen()}"
