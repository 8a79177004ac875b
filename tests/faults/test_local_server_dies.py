"""The local ``opencode serve`` that octui starts dies with octui, even when octui is killed with
SIGKILL, and so do the bash tool commands it runs (the real 1.18.33 binary puts each one in a
session of its own and leaves it running when it dies, even on SIGTERM).

Real binary, real octui program under a pty, the scripted fake LLM running ``sleep 300`` through
the bash tool. Every process is checked by pid and start time, every wait is bounded.
"""

from __future__ import annotations

import json
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.fake_llm import FakeLLM
from tests.e2e.fixtures import require_opencode_bin
from tests.e2e.server import make_workspace
from tests.faults.pty_app import OCTUI, PtyApp, base_env
from tui.client.local import LocalServer
from tui.client.server_guard import Targets, _alive, _processes, tree_groups

pytestmark = pytest.mark.e2e

GONE_BUDGET_S = 10.0  # the watcher's grace is 3 s; the rest is a busy machine


def _workspace(root: Path, llm: FakeLLM) -> tuple[Path, dict[str, str]]:
    """The e2e workspace, with bash allowed (no permission dialog to answer under the pty)."""
    project, env = make_workspace(root, llm.base_url)
    config_file = root / "xdg" / "config" / "opencode" / "opencode.json"
    config = json.loads(config_file.read_text())
    config["permission"] = {"bash": "allow", "edit": "allow"}
    config_file.write_text(json.dumps(config))
    env.pop("OPENCODE_SERVER_PASSWORD")  # octui makes its own for the server it starts
    return project, env


def _sleep_scenario(llm: FakeLLM) -> tuple[str, str]:
    marker = f"octui-orphan-{uuid.uuid4().hex[:8]}"
    tag = llm.add_scenario(marker, [{"tool_calls": [{"name": "bash", "arguments": {
        "command": f"sleep 300 # {marker}", "description": "sleep"}}]}, {"text": "done"}])
    return marker, tag


def _children(pid: int, needle: str) -> list[int]:
    found = []
    for child, (parent, _group, _start, _state) in _processes().items():
        if parent != pid:
            continue
        try:
            command = (Path("/proc") / str(child) / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if needle.encode() in command:
            found.append(child)
    return found


def _commands(targets: Targets) -> dict[int, str]:
    out = {}
    for pid, _group in targets:
        try:
            out[pid] = (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            out[pid] = "?"
    return out


def _wait(predicate: object, what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out after {timeout} s waiting for {what}"
        time.sleep(0.1)


def _tree_with_sleep(server_pid: int, marker: str) -> Targets:
    """The server's tree once the tool's ``sleep`` runs in it."""
    found: Targets = {}

    def ready() -> bool:
        nonlocal found
        found = tree_groups(server_pid)
        return any(marker in command for command in _commands(found).values())

    _wait(ready, f"the bash tool's {marker} under the server", 60.0)
    return found


def _all_gone(targets: Targets) -> bool:
    """No process of ``targets`` alive, and no live (non-zombie) process left in their groups."""
    if any(_alive(pid, start) for (pid, _group), start in targets.items()):
        return False
    groups = {pid for (pid, group) in targets if group}
    return not any(group in groups and state != "Z"
                   for _parent, group, _start, state in _processes().values())


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        yield fake


@pytest.mark.skipif(not OCTUI.exists(), reason="octui is not installed in this venv")
def test_sigkill_of_octui_leaves_no_server_and_no_tool_running(tmp_path: Path, llm: FakeLLM) -> None:
    binary = require_opencode_bin()
    project, server_env = _workspace(tmp_path / "ws", llm)
    env = {**server_env, **base_env(tmp_path), "OPENCODE_BIN": str(binary)}
    marker, tag = _sleep_scenario(llm)
    app = PtyApp([], env, project)
    targets: Targets = {}
    try:
        app.wait_output("Ask anything", 60.0)
        servers: list[int] = []
        _wait(lambda: servers.extend(_children(app.pid, " serve ")) or servers, "octui's server", 30.0)
        time.sleep(2.0)  # the server is listening once the home screen has its model list
        app.type(f"Sleep for a while. {tag}")
        app.write(b"\r")
        targets = _tree_with_sleep(servers[0], marker)
        assert len({pid for (pid, group) in targets if group}) >= 2, "the tool has a group of its own"

        os.kill(app.pid, signal.SIGKILL)
        assert app.wait_exit(5.0) is not None
        started = time.monotonic()
        _wait(lambda: _all_gone(targets), f"every process of the server's tree to end: {_commands(targets)}",
              GONE_BUDGET_S)
        assert time.monotonic() - started < GONE_BUDGET_S
    finally:
        app.close()
        for (pid, group), start in targets.items():  # whatever the outcome, leave nothing behind
            if _alive(pid, start):
                try:
                    (os.killpg if group else os.kill)(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


async def test_stopping_the_local_server_ends_its_tool_commands(tmp_path: Path, llm: FakeLLM) -> None:
    binary = require_opencode_bin()
    project, env = _workspace(tmp_path / "ws", llm)
    marker, tag = _sleep_scenario(llm)
    local = LocalServer(binary, env=env)
    info = await local.start(cwd=project, timeout=60.0)
    targets: Targets = {}
    try:
        assert local.pid is not None
        async with httpx.AsyncClient(base_url=info.url, auth=(info.username, info.password),
                                     timeout=10.0) as http:
            deadline = time.monotonic() + 30.0
            while True:  # the catalog fills a moment after the listening line
                models = (await http.get("/api/model")).json().get("data") or []
                if any(m.get("id") == "fake-model" for m in models) or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            session = (await http.post("/api/session", json={})).json()["data"]
            response = await http.post(f"/api/session/{session['id']}/prompt",
                                       json={"prompt": {"text": f"Sleep. {tag}"}})
            response.raise_for_status()
        targets = _tree_with_sleep(local.pid, marker)
        await local.stop()
        started = time.monotonic()
        _wait(lambda: _all_gone(targets), f"the tool's processes to end: {_commands(targets)}", GONE_BUDGET_S)
        assert time.monotonic() - started < GONE_BUDGET_S
    finally:
        await local.stop()
        for (pid, group), start in targets.items():
            if _alive(pid, start):
                try:
                    (os.killpg if group else os.kill)(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
