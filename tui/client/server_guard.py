"""A local server that dies with octui, even when octui is killed with SIGKILL.

``LocalServer`` starts ``opencode serve`` in its own process group. Nothing in octui runs after a
SIGKILL, so a small watcher process (this file, run by path with only the standard library) is
started beside the server: it holds the read end of a pipe whose only write end octui holds.
When that end closes (octui exits, however it exits, or ``close()`` is called) the watcher ends
the server's whole tree and then itself.

The tree is more than the server's process group: the real 1.18.33 binary runs each bash tool
command in a new session (its own process group) and leaves it running when it dies, even on
SIGTERM. So the watcher also ends the process groups of every descendant of the server, found
through ``/proc`` before the server dies (after, they are no longer its children). Each process
is checked by its start time before it is signalled, so a reused pid is never hit.

Why not ``PR_SET_PDEATHSIG``: it signals only the server (not the tool sessions it spawns), it
fires when the *thread* that forked exits, and ``preexec_fn`` is unsafe in a threaded process.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["ServerGuard", "any_alive", "end_tree", "signal_targets", "tree_groups"]

GRACE_S = 3.0  # SIGTERM, then SIGKILL after this long
_PROC = Path("/proc")


def _stat(pid: int) -> tuple[int, int, int, str] | None:
    """(ppid, pgid, start time, state) of ``pid`` from /proc, or None (gone, or no /proc)."""
    try:
        raw = (_PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after its last ")".
    fields = raw[raw.rfind(b")") + 2:].split()
    try:
        return int(fields[1]), int(fields[2]), int(fields[19]), fields[0].decode()
    except (IndexError, ValueError):
        return None


def _processes() -> dict[int, tuple[int, int, int, str]]:
    found: dict[int, tuple[int, int, int, str]] = {}
    try:
        names = os.listdir(_PROC)
    except OSError:
        return found
    for name in names:
        if name.isdigit():
            info = _stat(int(name))
            if info is not None:
                found[int(name)] = info
    return found


Targets = dict[tuple[int, bool], int]  # (pid, is a group leader: signal its group) -> start time


def tree_groups(pid: int) -> Targets:
    """What ends ``pid``'s tree: each process in it, and the process group of each group leader
    in it (the server's own, each tool session's: that reaches members that left the tree).
    Empty when /proc is not there or ``pid`` is gone."""
    table = _processes()
    if pid not in table:
        return {}
    children: dict[int, list[int]] = {}
    for child, (parent, _group, _start, _state) in table.items():
        children.setdefault(parent, []).append(child)
    tree: list[int] = [pid]
    for member in tree:  # grows while walked: breadth first
        tree.extend(children.get(member, []))
    members = set(tree)
    targets: Targets = {}
    for member in tree:
        targets[(member, False)] = table[member][2]
        group = table[member][1]
        if group in members:  # never a group whose leader is outside the tree (octui's own)
            targets[(group, True)] = table[group][2]
    return targets


def _alive(pid: int, start: int) -> bool:
    info = _stat(pid)
    return info is not None and info[2] == start and info[3] != "Z"


def _signal(targets: Targets, sig: signal.Signals) -> None:
    for (pid, group), start in targets.items():
        if _alive(pid, start):  # the same process as when it was found, not a reused pid
            with contextlib.suppress(ProcessLookupError, PermissionError):
                if group:
                    os.killpg(pid, sig)
                else:
                    os.kill(pid, sig)


def signal_targets(targets: Targets, sig: signal.Signals) -> None:
    """Signal what ``tree_groups`` found that is still the same process."""
    _signal(targets, sig)


def any_alive(targets: Targets) -> bool:
    return any(_alive(pid, start) for (pid, _group), start in targets.items())


def end_tree(pid: int, grace: float = GRACE_S) -> None:
    """SIGTERM ``pid``'s tree (its group and its descendants' groups), SIGKILL what is left after
    ``grace`` seconds. Blocking; bounded by about ``grace`` + 1 s."""
    targets = tree_groups(pid)
    if not targets:
        return
    _signal(targets, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(_alive(p, s) for (p, _g), s in targets.items()):
        time.sleep(0.05)
    targets.update(tree_groups(pid))  # anything it spawned meanwhile
    _signal(targets, signal.SIGKILL)


class ServerGuard:
    """The watcher of one server process; ``close()`` (or octui's exit) makes it end the tree."""

    def __init__(self, process: subprocess.Popen[bytes], pipe: int) -> None:
        self.process = process
        self._pipe: int | None = pipe

    @classmethod
    def start(cls, server_pid: int, grace: float = GRACE_S) -> ServerGuard | None:
        """Start the watcher of ``server_pid``; None where it cannot work (no /proc, no python)."""
        if not _PROC.is_dir() or not sys.executable:
            return None
        read_end, write_end = os.pipe()  # not inheritable (PEP 446): no other child holds it
        try:
            process = subprocess.Popen(
                [sys.executable, "-I", "-S", str(Path(__file__).resolve()), str(server_pid), str(grace)],
                stdin=read_end, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True,  # no terminal: a closing terminal's SIGHUP must not reach it
            )
        except OSError:
            os.close(write_end)
            return None
        finally:
            os.close(read_end)
        return cls(process, write_end)

    def close(self) -> None:
        """Let the watcher end the server's tree now (idempotent; it then exits by itself)."""
        pipe, self._pipe = self._pipe, None
        if pipe is not None:
            with contextlib.suppress(OSError):
                os.close(pipe)

    def reap(self, timeout: float = 0.0) -> bool:
        """Whether the watcher has exited (waits up to ``timeout`` s)."""
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return True


def _watch(server_pid: int, grace: float) -> int:
    for sig in (signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)
    server = _stat(server_pid)
    if server is None:
        return 0
    start = server[2]
    with contextlib.suppress(OSError):
        while os.read(0, 4096):  # until octui's end closes: EOF is the only message
            pass
    if _alive(server_pid, start):
        end_tree(server_pid, grace)
    return 0


if __name__ == "__main__":
    raise SystemExit(_watch(int(sys.argv[1]), float(sys.argv[2])))
