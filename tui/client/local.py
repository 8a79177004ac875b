"""``LocalServer``: spawn ``opencode serve`` on 127.0.0.1 with a random password, and stop it.

Readiness is the server's start-up line, a URL after "listening on": 1.18 prints
``opencode server listening on http://...``, 2.x prints ``server listening on http://...``. No HTTP
request may be sent before it (a request in the gap between "port open" and that line hung;
REAL-SERVER.md gotcha 1). 2.x needs 6-12 s to get there, up to a minute on a loaded machine, hence
the generous default wait. The child runs in its own process group so stop() also ends its helpers.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import platform
import re
import secrets
import shutil
import signal
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tui.client.errors import OctuiError
from tui.client.server_guard import ServerGuard, Targets, any_alive, signal_targets, tree_groups

# Any line with a URL after "listening on", on stdout or stderr: the wording differs by generation.
_LISTENING = re.compile(rb"listening on:?\s+(https?://[^\s'\"<>]+)", re.IGNORECASE)
READY_TIMEOUT_S = 120.0  # 2.x listens after 6-12 s, up to a minute on a loaded machine
_POLL_S = 0.1  # how often start() looks at the child while it waits
_RING_LINES = 200
_LINE_MAX = 2000
_READ_CHUNK = 64 * 1024
USERNAME = "opencode"
SETUP_HINT = (
    "install one with `npm install -g opencode-ai@1.18.33`, set OPENCODE_BIN to an opencode binary, "
    "or attach to a running server with --url http://HOST:PORT "
    "(from a checkout, scripts/octui.sh installs opencode-ai into .opencode/ by itself)"
)


class LocalServerError(OctuiError):
    """The local server could not be found, started or stopped."""


class BinaryNotFound(LocalServerError):
    pass


class ServerStartFailed(LocalServerError):
    pass


@dataclass(frozen=True)
class LocalServerInfo:
    url: str
    username: str
    password: str = field(repr=False)


def repo_root() -> Path:
    """The directory that holds the ``tui`` package (the source checkout)."""
    return Path(__file__).resolve().parent.parent.parent


def _package_dirs() -> list[str]:
    machine = platform.machine().lower()
    system = "darwin" if platform.system() == "Darwin" else "linux"
    x64 = [f"opencode-{system}-x64", f"opencode-{system}-x64-baseline"]
    arm = [f"opencode-{system}-arm64"]
    if system == "linux":
        x64 += ["opencode-linux-x64-musl", "opencode-linux-x64-baseline-musl"]
        arm += ["opencode-linux-arm64-musl"]
    return arm + x64 if machine in ("aarch64", "arm64") else x64 + arm


def local_candidates(roots: Sequence[Path]) -> list[Path]:
    """Repo-local npm installs (``<root>/.opencode/node_modules/...``), best match first."""
    out: list[Path] = []
    for root in roots:
        modules = root / ".opencode" / "node_modules"
        out += [modules / name / "bin" / "opencode" for name in _package_dirs()]
        # opencode.exe is a hard link to the platform binary after npm's postinstall.
        out.append(modules / "opencode-ai" / "bin" / "opencode.exe")
    return out


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find_binary(
    env: Mapping[str, str] | None = None,
    roots: Sequence[Path] | None = None,
) -> Path:
    """OPENCODE_BIN, then ``opencode`` on PATH, then the repo-local npm install (repo root, cwd)."""
    env = os.environ if env is None else env
    explicit = env.get("OPENCODE_BIN", "").strip()
    if explicit:
        path = Path(explicit).expanduser()
        if _executable(path):
            return path
        raise BinaryNotFound(f"OPENCODE_BIN={explicit} is not an executable file; {SETUP_HINT}")
    on_path = shutil.which("opencode", path=env.get("PATH"))
    if on_path:
        return Path(on_path)
    if roots is None:
        roots = list(dict.fromkeys([repo_root(), Path.cwd()]))
    for candidate in local_candidates(roots):
        if _executable(candidate):
            return candidate
    raise BinaryNotFound(f"no opencode binary found: {SETUP_HINT}")


class LocalServer:
    """One ``opencode serve`` child. ``start()`` once; ``stop()``/``stop_sync()`` are idempotent."""

    def __init__(
        self,
        binary: str | Path | None = None,
        *,
        env: Mapping[str, str] | None = None,
        roots: Sequence[Path] | None = None,
    ) -> None:
        self._binary = Path(binary) if binary is not None else None
        self._extra_env = dict(env or {})
        self._roots = roots
        self._proc: asyncio.subprocess.Process | None = None
        self._readers: list[asyncio.Task[None]] = []
        self._ring: deque[str] = deque(maxlen=_RING_LINES)
        self._listening: asyncio.Future[str] | None = None
        self._startup_line: str | None = None
        self._password = ""
        self.url: str | None = None
        self._stopped = False
        self._guard: ServerGuard | None = None  # ends the server's tree when octui dies, even by SIGKILL

    def __repr__(self) -> str:
        return f"<LocalServer pid={self.pid} url={self.url}>"

    @property
    def binary(self) -> Path:
        if self._binary is None:
            self._binary = find_binary(roots=self._roots)
        return self._binary

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.returncode is None

    def recent_output(self, lines: int = 20) -> list[str]:
        """The last lines the server wrote (stdout and stderr), password scrubbed."""
        return list(self._ring)[-lines:]

    async def start(self, cwd: str | Path, timeout: float = READY_TIMEOUT_S) -> LocalServerInfo:
        """Spawn the server and wait (at most ``timeout`` s) for its start-up line.

        Every way this can fail says what happened: the child exited (with its code), it closed
        both output streams without a start-up line, or it kept running but printed none in time.
        """
        if self._proc is not None:
            raise LocalServerError("this LocalServer was already started")
        binary = self.binary
        self._password = secrets.token_urlsafe(24)
        env = {**os.environ, **self._extra_env}
        env["OPENCODE_SERVER_PASSWORD"] = self._password
        env["OPENCODE_SERVER_USERNAME"] = USERNAME
        try:
            self._proc = await asyncio.create_subprocess_exec(
                str(binary), "serve", "--hostname", "127.0.0.1", "--port", "0",
                cwd=str(cwd), env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,  # own process group: stop() ends helpers too
            )
        except OSError as exc:
            raise ServerStartFailed(f"cannot run {binary}: {exc.strerror or exc}") from exc
        proc = self._proc
        self._guard = ServerGuard.start(proc.pid)
        atexit.register(self.stop_sync)  # a normal interpreter exit never leaves the server behind
        loop = asyncio.get_running_loop()
        self._listening = loop.create_future()
        assert proc.stdout is not None and proc.stderr is not None
        self._readers = [
            asyncio.create_task(self._drain(proc.stdout)),
            asyncio.create_task(self._drain(proc.stderr)),
        ]
        started = loop.time()
        try:
            failure = await self._wait_ready(proc, started + timeout)
        except BaseException:
            await self.stop()
            raise
        if failure is None:
            self.url = self._listening.result()
            return LocalServerInfo(self.url, USERNAME, self._password)
        await self.stop()
        waited = loop.time() - started
        raise ServerStartFailed(f"{failure} (after {waited:.1f} s){self._tail()}")

    async def _wait_ready(self, proc: asyncio.subprocess.Process, deadline: float) -> str | None:
        """None once the start-up line came, else why it never will (bounded by ``deadline``).

        The exit is read from ``returncode`` rather than awaited with ``wait()``: asyncio's
        ``wait()`` also waits for the pipes to close, which never happens while a helper the
        server left behind still holds them.
        """
        loop = asyncio.get_running_loop()
        listening = self._listening
        assert listening is not None
        while not listening.done():
            if proc.returncode is not None:
                # Let the readers take the last output before quoting it.
                await asyncio.wait(self._readers, timeout=1.0)
                if listening.done():
                    break  # it printed the line, then exited: reported below by the caller
                return (f"opencode serve exited with code {proc.returncode} before it printed "
                        "its 'listening on' line")
            if all(task.done() for task in self._readers):
                return ("opencode serve closed its output without printing a 'listening on' line "
                        "(it is still running; octui cannot learn its address)")
            remaining = deadline - loop.time()
            if remaining <= 0:
                return ("opencode serve is still running but printed no 'listening on <url>' line "
                        "in the time octui waits for it")
            await asyncio.wait({listening}, timeout=min(_POLL_S, remaining))
        if proc.returncode is not None:
            return (f"opencode serve printed its 'listening on' line, then exited with code "
                    f"{proc.returncode}")
        return None

    @property
    def startup_line(self) -> str | None:
        """The start-up line the server printed (password scrubbed), e.g. to tell generations apart."""
        return self._startup_line

    def _tail(self) -> str:
        lines = self.recent_output(12)
        return (":\n  " + "\n  ".join(lines)) if lines else " (it printed nothing)"

    def _scrub(self, raw: bytes) -> str:
        text = raw.decode("utf-8", "replace").rstrip("\r")
        if self._password:
            text = text.replace(self._password, "***")
        return text[:_LINE_MAX]

    def _remember(self, raw: bytes) -> None:
        text = self._scrub(raw)
        if text.strip():
            self._ring.append(text)

    def _spot_listening(self, line: bytes) -> None:
        if self._listening is None or self._listening.done():
            return
        match = _LISTENING.search(line)
        if match:
            self._startup_line = self._scrub(line).strip()
            self._listening.set_result(match.group(1).decode("ascii", "replace").rstrip("/."))

    async def _drain(self, stream: asyncio.StreamReader) -> None:
        """Read until EOF so the pipe never fills; keep the tail; spot the start-up line."""
        partial = b""
        while True:
            chunk = await stream.read(_READ_CHUNK)
            if not chunk:
                break
            lines = (partial + chunk).split(b"\n")
            partial = lines.pop()[-_LINE_MAX * 4:]  # bounded even without newlines
            for line in lines:
                self._remember(line)
                self._spot_listening(line)
        if partial:
            self._remember(partial)
            self._spot_listening(partial)

    async def stop(self, grace: float = 5.0) -> None:
        """SIGTERM the process group, wait up to ``grace`` s, then SIGKILL. Idempotent."""
        proc = self._proc
        if proc is None or self._stopped:
            return
        self._stopped = True
        atexit.unregister(self.stop_sync)
        # The tool commands' own process groups, found while they are still the server's children:
        # once the server is gone they are orphans no /proc walk from it can find (and the watcher
        # below, woken by the closed pipe, can be too late to see them on a loaded machine).
        tools = tree_groups(proc.pid) if proc.returncode is None else {}
        if self._guard is not None:
            self._guard.close()  # the watcher ends the bash tools' own process groups too
        if proc.returncode is None:
            _killpg(proc.pid, signal.SIGTERM)
            signal_targets(tools, signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), grace)
            except TimeoutError:
                _killpg(proc.pid, signal.SIGKILL)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(proc.wait(), 5.0)
            await _end_survivors(tools)
        else:
            _killpg(proc.pid, signal.SIGTERM)  # leftover helpers of an exited server
        for task in self._readers:
            task.cancel()
        await asyncio.gather(*self._readers, return_exceptions=True)
        self._readers = []

    def stop_sync(self, grace: float = 5.0) -> None:
        """For atexit, when no event loop runs: same as stop(), with blocking waits."""
        proc = self._proc
        if proc is None or self._stopped:
            return
        self._stopped = True
        atexit.unregister(self.stop_sync)
        if self._guard is not None:
            self._guard.close()  # the watcher ends the bash tools' own process groups too
        pid = proc.pid
        if not _alive(pid):
            return
        tools = tree_groups(pid)  # as in stop(): before the server dies
        _killpg(pid, signal.SIGTERM)
        signal_targets(tools, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and (_alive(pid) or any_alive(tools)):
            time.sleep(0.05)
        if _alive(pid):
            _killpg(pid, signal.SIGKILL)
        signal_targets(tools, signal.SIGKILL)  # only those still the same processes
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.05)


async def _end_survivors(tools: Targets, grace: float = 2.0) -> None:
    """The tool processes the server left (1.18.33 runs each in a session of its own and does
    not end it): SIGTERM went with the server's; SIGKILL what is left after ``grace`` s."""
    deadline = time.monotonic() + grace
    while any_alive(tools) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    signal_targets(tools, signal.SIGKILL)


def _killpg(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def _alive(pid: int) -> bool:
    """True while ``pid`` (our child) has not exited; reaps it when it has."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False  # already reaped (by asyncio's watcher)
    return done == 0


__all__ = [
    "BinaryNotFound",
    "LocalServer",
    "LocalServerError",
    "LocalServerInfo",
    "READY_TIMEOUT_S",
    "ServerStartFailed",
    "find_binary",
    "local_candidates",
    "repo_root",
]
