"""LocalServer with fake ``opencode`` scripts: discovery order, start/stop by PID, failures."""

from __future__ import annotations

import asyncio
import os
import stat
import sys
import time
from pathlib import Path

import pytest

from tui.client.local import (
    READY_TIMEOUT_S,
    BinaryNotFound,
    LocalServer,
    ServerStartFailed,
    find_binary,
    local_candidates,
    repo_root,
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")

LISTEN = 'echo "opencode server listening on http://127.0.0.1:45678"'


def script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def group_alive(pgid: int) -> bool:
    """Any non-zombie process left in the group (zombies may wait for a lazy init to reap them)."""
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat_line = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat_line.rsplit(")", 1)[1].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            return True
    return False


async def gone(pgid: int, timeout: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not group_alive(pgid):
            return True
        await asyncio.sleep(0.02)
    return False


# Discovery -------------------------------------------------------------------------------------


def test_discovery_order(tmp_path: Path) -> None:
    explicit = script(tmp_path / "explicit" / "opencode", "exit 0")
    on_path = script(tmp_path / "bin" / "opencode", "exit 0")
    root = tmp_path / "repo"
    local = script(local_candidates([root])[0], "exit 0")
    env = {"OPENCODE_BIN": str(explicit), "PATH": str(on_path.parent)}
    assert find_binary(env, [root]) == explicit
    assert find_binary({"PATH": str(on_path.parent)}, [root]) == on_path
    assert find_binary({"PATH": str(tmp_path / "empty")}, [root]) == local
    local.unlink()
    exe = script(root / ".opencode" / "node_modules" / "opencode-ai" / "bin" / "opencode.exe", "exit 0")
    assert find_binary({"PATH": ""}, [tmp_path / "elsewhere", root]) == exe


def test_local_candidates_cover_variants(tmp_path: Path) -> None:
    names = {str(p.relative_to(tmp_path)) for p in local_candidates([tmp_path])}
    modules = ".opencode/node_modules/"
    for name in ("opencode-linux-x64", "opencode-linux-x64-baseline", "opencode-linux-arm64"):
        if sys.platform.startswith("linux"):
            assert f"{modules}{name}/bin/opencode" in names
    assert f"{modules}opencode-ai/bin/opencode.exe" in names


def test_default_roots_include_repo_root() -> None:
    assert (repo_root() / "tui" / "client" / "local.py").is_file()


def test_missing_binary_says_how_to_get_one(tmp_path: Path) -> None:
    with pytest.raises(BinaryNotFound) as info:
        find_binary({"PATH": str(tmp_path)}, [tmp_path])
    text = str(info.value)
    assert "npm install" in text and "opencode-ai@1.18.33" in text and ".opencode" in text
    assert "OPENCODE_BIN" in text and "--url" in text
    # What a pip/pipx user can do: no README command they do not have.
    assert "npm install -g opencode-ai" in text and "README" not in text


def test_bad_opencode_bin_is_reported(tmp_path: Path) -> None:
    with pytest.raises(BinaryNotFound, match="OPENCODE_BIN="):
        find_binary({"OPENCODE_BIN": str(tmp_path / "nope"), "PATH": ""}, [tmp_path])


# Start / stop ----------------------------------------------------------------------------------


async def test_start_and_stop_by_pid(tmp_path: Path) -> None:
    out = tmp_path / "out"
    fake = script(
        tmp_path / "opencode",
        f'echo "$@" > "{out}.args"\n'
        f'printf %s "$OPENCODE_SERVER_PASSWORD" > "{out}.pw"\n'
        f'printf %s "$OPENCODE_SERVER_USERNAME" > "{out}.user"\n'
        f'pwd > "{out}.cwd"\n'
        'echo "booting; pw=$OPENCODE_SERVER_PASSWORD"\n'
        f"{LISTEN}\n"
        "sleep 30 &\n"  # a helper in the same process group
        "exec sleep 30",
    )
    work = tmp_path / "proj"
    work.mkdir()
    server = LocalServer(fake)
    info = await server.start(work, timeout=10)
    pid = server.pid
    assert pid is not None and server.running
    assert info.url == "http://127.0.0.1:45678" and info.username == "opencode"
    assert len(info.password) >= 24
    assert Path(f"{out}.pw").read_text() == info.password
    assert Path(f"{out}.user").read_text() == "opencode"
    assert Path(f"{out}.args").read_text().split() == ["serve", "--hostname", "127.0.0.1", "--port", "0"]
    assert Path(f"{out}.cwd").read_text().strip() == str(work.resolve())
    assert info.password not in repr(info) and info.password not in repr(server)
    assert any("pw=***" in line for line in server.recent_output())
    assert not any(info.password in line for line in server.recent_output())
    await asyncio.wait_for(server.stop(), 10)
    assert not server.running
    assert await gone(pid), "process group survived stop()"
    await server.stop()  # idempotent


async def test_stop_escalates_to_sigkill(tmp_path: Path) -> None:
    fake = script(tmp_path / "opencode", f"trap '' TERM\n{LISTEN}\nwhile true; do sleep 0.1; done")
    server = LocalServer(fake)
    await server.start(tmp_path, timeout=10)
    pid = server.pid
    assert pid is not None
    started = time.monotonic()
    await asyncio.wait_for(server.stop(grace=0.3), 10)
    assert time.monotonic() - started < 5
    assert await gone(pid)


async def test_stop_sync(tmp_path: Path) -> None:
    fake = script(tmp_path / "opencode", f"{LISTEN}\nexec sleep 30")
    server = LocalServer(fake)
    await server.start(tmp_path, timeout=10)
    pid = server.pid
    assert pid is not None
    server.stop_sync(grace=3)
    assert await gone(pid)
    server.stop_sync()
    await server.stop()  # both idempotent


async def test_early_exit_reports_output(tmp_path: Path) -> None:
    fake = script(
        tmp_path / "opencode",
        'echo "loading config"\necho "error: port is busy (pw=$OPENCODE_SERVER_PASSWORD)" >&2\nexit 3',
    )
    server = LocalServer(fake)
    with pytest.raises(ServerStartFailed) as info:
        await server.start(tmp_path, timeout=10)
    text = str(info.value)
    assert "code 3" in text and "port is busy" in text and "loading config" in text
    assert "pw=***" in text
    assert not server.running


async def test_never_ready_times_out_and_cleans_up(tmp_path: Path) -> None:
    fake = script(tmp_path / "opencode", 'echo "still warming up"\nexec sleep 30')
    server = LocalServer(fake)
    started = time.monotonic()
    with pytest.raises(ServerStartFailed) as info:
        await server.start(tmp_path, timeout=0.5)
    text = str(info.value)
    assert "still running but printed no 'listening on <url>' line" in text
    assert "still warming up" in text and "after 0." in text
    assert time.monotonic() - started >= 0.5  # a timeout only after the time it names
    assert server.pid is not None and await gone(server.pid)


def test_default_wait_has_headroom_for_a_loaded_2x_server() -> None:
    """2.x listens after 6-12 s, up to a minute on a loaded machine (traces-2.0/README.md)."""
    assert READY_TIMEOUT_S >= 90


@pytest.mark.parametrize(
    ("line", "url"),
    [
        ("opencode server listening on http://127.0.0.1:45678", "http://127.0.0.1:45678"),  # 1.18
        ("server listening on http://127.0.0.1:4096", "http://127.0.0.1:4096"),  # 2.x
        ("INFO  Server listening on: http://127.0.0.1:5000/", "http://127.0.0.1:5000"),
    ],
)
async def test_both_generations_start_up_lines(tmp_path: Path, line: str, url: str) -> None:
    fake = script(tmp_path / "opencode", f'echo "warming up"\necho "{line}"\nexec sleep 30')
    server = LocalServer(fake)
    info = await server.start(tmp_path, timeout=10)
    try:
        assert info.url == url
        assert server.startup_line == line
    finally:
        await server.stop()


async def test_start_up_line_on_stderr_counts(tmp_path: Path) -> None:
    line = 'echo "server listening on http://127.0.0.1:4097" >&2'
    fake = script(tmp_path / "opencode", f"{line}\nexec sleep 30")
    server = LocalServer(fake)
    info = await server.start(tmp_path, timeout=10)
    assert info.url == "http://127.0.0.1:4097"
    await server.stop()


async def test_unrelated_urls_are_not_the_start_up_line(tmp_path: Path) -> None:
    fake = script(
        tmp_path / "opencode",
        'echo "fetching http://127.0.0.1:9/models"\necho "docs at https://opencode.ai"\nexec sleep 30',
    )
    with pytest.raises(ServerStartFailed, match="printed no 'listening on <url>' line"):
        await LocalServer(fake).start(tmp_path, timeout=0.5)


async def test_launcher_exit_is_seen_although_a_helper_holds_the_pipes(tmp_path: Path) -> None:
    """asyncio's wait() waits for the pipes too: an exit must be noticed from the exit status."""
    fake = script(tmp_path / "opencode", 'echo "launching"\nsleep 30 &\nexit 7')
    server = LocalServer(fake)
    started = time.monotonic()
    with pytest.raises(ServerStartFailed) as info:
        await server.start(tmp_path, timeout=20)
    assert time.monotonic() - started < 10, "the exit was noticed only at the timeout"
    text = str(info.value)
    assert "exited with code 7 before it printed its 'listening on' line" in text
    assert "launching" in text
    assert server.pid is not None and await gone(server.pid)


async def test_closed_output_without_start_up_line_is_said_at_once(tmp_path: Path) -> None:
    fake = script(tmp_path / "opencode", 'echo "no address for you"\nexec sleep 30 >/dev/null 2>&1')
    server = LocalServer(fake)
    started = time.monotonic()
    with pytest.raises(ServerStartFailed, match="closed its output without printing a 'listening on' line"):
        await server.start(tmp_path, timeout=20)
    assert time.monotonic() - started < 10
    assert server.pid is not None and await gone(server.pid)


async def test_unrunnable_binary(tmp_path: Path) -> None:
    bogus = tmp_path / "opencode"
    bogus.write_text("not a program")
    bogus.chmod(0o755)
    with pytest.raises(ServerStartFailed, match="cannot run"):
        await LocalServer(bogus).start(tmp_path, timeout=5)


async def test_output_flood_does_not_block(tmp_path: Path) -> None:
    """Lots of output after the listening line must not fill the pipe and stall the server."""
    done = tmp_path / "done"
    fake = script(
        tmp_path / "opencode",
        f"{LISTEN}\n"
        "i=0; while [ $i -lt 3000 ]; do echo 'log line log line log line log line log line log line'; "
        "echo 'err line err line err line err line' >&2; i=$((i+1)); done\n"
        f'touch "{done}"\nexec sleep 30',
    )
    server = LocalServer(fake)
    await server.start(tmp_path, timeout=10)
    deadline = time.monotonic() + 10
    while not done.exists() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert done.exists()
    assert len(server.recent_output(1000)) <= 200
    await server.stop()


async def test_interpreter_exit_stops_the_server(tmp_path: Path) -> None:
    """start() registers stop_sync with atexit: forgetting stop() must not leak a server."""
    fake = script(tmp_path / "opencode", f"{LISTEN}\nexec sleep 30")
    code = (
        "import asyncio\n"
        "from tui.client.local import LocalServer\n"
        f"server = LocalServer({str(fake)!r})\n"
        f"asyncio.run(server.start({str(tmp_path)!r}, timeout=10))\n"
        "print(server.pid, flush=True)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(repo_root())}
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, env=env, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await asyncio.wait_for(child.communicate(), 20)
    assert child.returncode == 0
    assert await gone(int(out.split()[0]))
