"""The local ``opencode serve`` that octui starts dies with octui, even when octui is killed with
SIGKILL, and so do the shell tool commands it runs. Whatever process-group layout the server
uses: the real 1.18.33 binary puts each bash tool command in a session of its own and leaves it
running when it dies, even on SIGTERM; another server may keep it in its own group or elsewhere.

Real binary, real octui program under a pty, the scripted fake LLM running a long ``sleep``
through the shell tool (1.18 ``bash``, 2.x ``shell``: the fake fits the name). The tool's
processes are found by a unique marker in their command lines through ``/proc``, wherever they
are, and each must be gone, and so must every live process of their process groups and of the
server's tree. Every process is checked by pid and start time, every wait is bounded.
"""

from __future__ import annotations

import os
import random
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.fake_llm import FakeLLM
from tests.e2e.fixtures import SERVER_START_TIMEOUT_S, require_opencode_bin
from tests.e2e.server import make_workspace, needed_config_shape, served_generation, write_config
from tests.e2e.wire import Wire
from tests.faults.pty_app import OCTUI, PtyApp, base_env
from tui.client.local import LocalServer
from tui.client.server_guard import Targets, _alive, _processes, tree_groups

pytestmark = pytest.mark.e2e

GONE_BUDGET_S = 10.0  # the watcher's grace is 3 s; the rest is a busy machine


def _workspace(root: Path, llm: FakeLLM, binary: Path) -> tuple[Path, dict[str, str]]:
    """The e2e workspace with the config shape ``binary`` needs, the shell tool and edits allowed
    (no permission dialog to answer under the pty)."""
    project, env = make_workspace(root, llm.base_url)
    write_config(env, llm.base_url, needed_config_shape(binary, env), effect="allow")
    env.pop("OPENCODE_SERVER_PASSWORD")  # octui makes its own for the server it starts
    return project, env


def _sleep_scenario(llm: FakeLLM) -> tuple[str, str]:
    """(marker, tag): the marker is in the ``sleep`` process's own arguments (a unique duration),
    so it is found even when the shell execs the command, and in the shell's command line."""
    duration = f"300.{random.randrange(10**8):08d}"
    marker = f"sleep {duration}"
    call = {"name": "bash", "arguments": {"command": f"{marker} # octui-orphan", "description": "sleep"}}
    tag = llm.add_scenario(f"octui-orphan-{uuid.uuid4().hex[:8]}", [{"tool_calls": [call]}, {"text": "done"}])
    return marker, tag


def _cmdline(pid: int) -> str:
    try:
        raw = (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:
        return "?"
    return raw.replace(b"\0", b" ").decode(errors="replace")


def _children(pid: int, needle: str) -> list[int]:
    return [child for child, (parent, _group, _start, _state) in _processes().items()
            if parent == pid and needle in _cmdline(child)]


def _commands(targets: Targets) -> dict[int, str]:
    return {pid: _cmdline(pid) for pid, _group in targets}


def _wait(predicate: object, what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out after {timeout} s waiting for {what}"
        time.sleep(0.1)


Marked = dict[int, tuple[int, int]]  # pid -> (process group, start time)


def _marked(marker: str) -> Marked:
    """Every live process on this machine whose command line holds ``marker``."""
    return {pid: (group, start) for pid, (_parent, group, start, state) in _processes().items()
            if state != "Z" and pid != os.getpid() and marker in _cmdline(pid)}


def _tool_running(server_pid: int, marker: str) -> tuple[Targets, Marked]:
    """Once the tool's ``sleep`` runs: the server's tree, and the tool's processes wherever they are."""
    found: Marked = {}

    def ready() -> bool:
        nonlocal found
        found = _marked(marker)
        return any(_cmdline(pid).startswith(marker) for pid in found)  # the sleep itself

    _wait(ready, f"the shell tool's {marker!r} to run", 60.0)
    return tree_groups(server_pid), found


def _layout(server_pid: int, marked: Marked) -> str:
    """Where the tool runs, for failure messages."""
    server_group = (_processes().get(server_pid) or (0, 0, 0, ""))[1]
    return ", ".join(f"{pid} group {group} ({'the server' if group == server_group else 'own'}): "
                     f"{_cmdline(pid)}" for pid, (group, _start) in marked.items())


def _all_gone(targets: Targets, marked: Marked) -> bool:
    """No process of ``targets`` or ``marked`` alive, and no live (non-zombie) process left in
    their process groups (the groups led by the server's tree, and the tool's own)."""
    if any(_alive(pid, start) for (pid, _group), start in targets.items()):
        return False
    if any(_alive(pid, start) for pid, (_group, start) in marked.items()):
        return False
    groups = {pid for (pid, group) in targets if group} | {group for group, _start in marked.values()}
    return not any(group in groups and state != "Z"
                   for _parent, group, _start, state in _processes().values())


def _leave_nothing(targets: Targets, marked: Marked) -> None:
    """Whatever the outcome, nothing of the test is left running (by pid and start time)."""
    for (pid, group), start in targets.items():
        if _alive(pid, start):
            try:
                (os.killpg if group else os.kill)(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for pid, (_group, start) in marked.items():
        if _alive(pid, start):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeLLM]:
    with FakeLLM() as fake:
        yield fake


@pytest.mark.skipif(not OCTUI.exists(), reason="octui is not installed in this venv")
def test_sigkill_of_octui_leaves_no_server_and_no_tool_running(tmp_path: Path, llm: FakeLLM) -> None:
    binary = require_opencode_bin()
    project, server_env = _workspace(tmp_path / "ws", llm, binary)
    env = {**server_env, **base_env(tmp_path), "OPENCODE_BIN": str(binary)}
    marker, tag = _sleep_scenario(llm)
    app = PtyApp([], env, project)
    targets: Targets = {}
    marked: Marked = {}
    try:
        app.wait_output("Ask anything", SERVER_START_TIMEOUT_S)  # 2.x may need a minute
        servers: list[int] = []

        def found_server() -> list[int]:
            servers.extend(_children(app.pid, " serve "))
            return servers

        _wait(found_server, "octui's server", 30.0)
        time.sleep(2.0)  # the server is listening once the home screen has its model list
        app.type(f"Sleep for a while. {tag}")
        app.write(b"\r")
        targets, marked = _tool_running(servers[0], marker)
        assert (servers[0], False) in targets, "the server was found alive with the tool running"
        layout = _layout(servers[0], marked)

        os.kill(app.pid, signal.SIGKILL)
        assert app.wait_exit(5.0) is not None
        started = time.monotonic()
        _wait(lambda: _all_gone(targets, marked),
              f"every process of the server's tree and the tool to end: {_commands(targets)}; tool: {layout}",
              GONE_BUDGET_S)
        assert time.monotonic() - started < GONE_BUDGET_S
        assert not _marked(marker), f"the tool still runs: {_layout(servers[0], _marked(marker))}"
    finally:
        app.close()
        _leave_nothing(targets, marked)


async def test_stopping_the_local_server_ends_its_tool_commands(tmp_path: Path, llm: FakeLLM) -> None:
    binary = require_opencode_bin()
    project, env = _workspace(tmp_path / "ws", llm, binary)
    marker, tag = _sleep_scenario(llm)
    local = LocalServer(binary, env=env)
    info = await local.start(cwd=project, timeout=SERVER_START_TIMEOUT_S)
    targets: Targets = {}
    marked: Marked = {}
    try:
        assert local.pid is not None
        auth = (info.username, info.password)
        wire = Wire(served_generation(info.url, auth))  # the prompt body is the generation's
        async with httpx.AsyncClient(base_url=info.url, auth=auth, timeout=30.0) as http:  # a loaded machine
            deadline = time.monotonic() + 30.0
            while True:  # the catalog fills a moment after the listening line
                models = (await http.get("/api/model")).json().get("data") or []
                if any(m.get("id") == "fake-model" for m in models) or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            session = (await http.post("/api/session", json={})).json()["data"]
            response = await http.post(f"/api/session/{session['id']}/prompt",
                                       json=wire.prompt_body(f"Sleep. {tag}"))
            response.raise_for_status()
        targets, marked = _tool_running(local.pid, marker)
        layout = _layout(local.pid, marked)
        await local.stop()
        started = time.monotonic()
        _wait(lambda: _all_gone(targets, marked), f"the tool's processes to end: {_commands(targets)}; "
              f"tool: {layout}", GONE_BUDGET_S)
        assert time.monotonic() - started < GONE_BUDGET_S
        assert not _marked(marker), f"the tool still runs: {_layout(local.pid, _marked(marker))}"
    finally:
        await local.stop()
        _leave_nothing(targets, marked)
