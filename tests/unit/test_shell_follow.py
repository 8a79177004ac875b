"""v2 shells: the session service follows live output via /api/shell/{id}/output until the tool ends."""

from __future__ import annotations

import asyncio

import pytest

from tui.client.http import OpenCodeClient
from tui.client.stream import StreamState
from tui.demo import DemoServer
from tui.session import intake as intake_module
from tui.session.service import SessionService
from tui.state.changes import Change, PartChanged
from tui.state.store import Store
from tui.state.transcript import ToolCall


async def wait_for(predicate: object, timeout: float = 15.0) -> None:
    # (15 s, not 5: the full suite runs 4 workers and real servers on 2 cores, and this wait once
    # timed out there while passing alone every time; it ends as soon as the condition holds)
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():  # type: ignore[operator]
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.01)


@pytest.fixture
def fast_poll(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(intake_module, "SHELL_POLL_S", 0.01)


async def test_running_shell_output_is_followed_then_polling_stops(fast_poll: None) -> None:
    server = DemoServer(speed=0, heartbeat=0)
    client = OpenCodeClient(server.base_url, transport=server.transport)
    await client.connect()
    store = Store()
    seen: list[Change] = []
    states: list[StreamState] = []
    ctl = SessionService(client, store, seen.extend, states.append)
    runner = asyncio.create_task(ctl.run())
    try:
        await wait_for(lambda: any(s.phase == "connected" for s in states))
        info = await ctl.create_session()
        sid = info.id
        base = {"sessionID": sid, "assistantMessageID": "msg_live1", "id": "call_live"}
        server.shells["sh_live1"] = "first line\n"
        server.emit("session.step.started", {"sessionID": sid, "assistantMessageID": "msg_live1",
                                             "agent": "build", "model": {"id": "m", "providerID": "p"}})
        server.emit("session.tool.input.started", base | {"name": "shell"})
        server.emit("session.tool.called", base | {"input": {"command": "make"}, "executed": True})
        progress = {"status": "running", "shellID": "sh_live1"}
        server.emit("session.tool.progress", base | {"metadata": progress})

        def call() -> ToolCall | None:
            msg = store.session(sid).messages.get("msg_live1")
            return msg.tool("call_live") if msg else None

        await wait_for(lambda: call() is not None and call().live_output == "first line\n")  # type: ignore[union-attr]
        server.shells["sh_live1"] += "second line\n"
        await wait_for(lambda: call().live_output == "first line\nsecond line\n")  # type: ignore[union-attr]
        assert any(isinstance(c, PartChanged) and c.part_key == "tool:call_live" for c in seen)

        server.emit("session.tool.success", base | {"content": [{"type": "text", "text": "done"}],
                                                    "metadata": {"exit": 0}, "executed": True})
        await wait_for(lambda: call().finished)  # type: ignore[union-attr]
        await wait_for(lambda: not ctl.intake._shells)
        server.shells["sh_live1"] += "after the end\n"
        await asyncio.sleep(0.1)
        assert "after the end" not in call().live_output  # type: ignore[union-attr]
    finally:
        ctl.stop()
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)
        await client.aclose()
        await server.aclose()
