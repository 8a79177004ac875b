"""The watcher that ends a local server's tree when octui's end of its pipe closes."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tui.client.server_guard import ServerGuard, _alive, _processes, _stat, end_tree, tree_groups

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")

# A stand-in for ``opencode serve``: a group leader whose child runs in a session of its own, as
# the real binary runs each bash tool command.
FAKE_SERVER = ("import subprocess, sys, time; "
               "subprocess.Popen(['sleep', '60'], start_new_session=True); "
               "print('ready', flush=True); time.sleep(60)")


def _fake_server() -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-c", FAKE_SERVER], stdout=subprocess.PIPE,
                            start_new_session=True)
    assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
    return proc


def _gone(targets: dict[tuple[int, bool], int], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(_alive(pid, start) for (pid, _group), start in targets.items()):
            return True
        time.sleep(0.05)
    return False


def test_the_tree_is_every_process_and_group_under_the_server() -> None:
    proc = _fake_server()
    try:
        targets = tree_groups(proc.pid)
        groups = {pid for (pid, group) in targets if group}
        members = {pid for (pid, group) in targets if not group}
        assert proc.pid in groups and len(groups) == 2, "its own group and the tool's session"
        assert len(members) == 2
        assert tree_groups(999_999_999) == {}
    finally:
        end_tree(proc.pid, grace=1.0)
        proc.wait(5)


def test_closing_the_pipe_ends_the_whole_tree() -> None:
    proc = _fake_server()
    targets = tree_groups(proc.pid)
    guard = ServerGuard.start(proc.pid, grace=1.0)
    assert guard is not None
    try:
        time.sleep(0.3)
        assert all(_alive(pid, start) for (pid, _g), start in targets.items()), "nothing ends before"
        guard.close()
        assert _gone(targets, 5.0), "server and tool session ended"
        assert guard.reap(5.0), "the watcher exits once the tree is gone"
    finally:
        end_tree(proc.pid, grace=0.5)
        proc.wait(5)


def test_a_process_that_ignores_sigterm_is_killed_after_the_grace() -> None:
    stubborn = subprocess.Popen([sys.executable, "-c", "import signal, time; "
                                 "signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); "
                                 "time.sleep(60)"], stdout=subprocess.PIPE, start_new_session=True)
    assert stubborn.stdout is not None and stubborn.stdout.readline() == b"ready\n"
    started = time.monotonic()
    end_tree(stubborn.pid, grace=0.5)
    stubborn.wait(5)
    assert 0.4 < time.monotonic() - started < 3.0
    assert stubborn.returncode == -9


def test_a_reused_pid_is_never_signalled() -> None:
    me = _stat(_self_pid())
    assert me is not None
    assert _alive(_self_pid(), me[2])
    assert not _alive(_self_pid(), me[2] + 1), "another start time: another process"
    assert _self_pid() in _processes()


def _self_pid() -> int:
    import os

    return os.getpid()
