"""SIGKILL the real server during streaming turns and restart it on the same port and data dir.

The headless app stays attached the whole time. Each round: a turn streams, the server dies, the
app shows "reconnecting", the server comes back, and the app reconnects within 2 s of the server
being ready. At the end the app's transcript equals a fresh ``octui export`` of the session: every
user message once, in order. A pending permission that died with the server is dropped, not shown
stale. Rounds: ``OCTUI_FAULT_RESTARTS`` (default 1, plus the ask round); the long soak of the same
scenario is ``bench/soak_restarts.py`` (20 rounds by default, figures as JSON).

Then what such a kill leaves behind: the server saves text only when a block ends (1.18.33; the
2.0 preview too, traces-2.0 m11: a running block reads as "" over REST), and 1.18.33 keeps a
killed turn's tool "running" in its history for ever. After the reconnect the tool row is
interrupted with its timer stopped, and the text that had streamed is still shown, marked as
text the server did not keep. The shell tool is the server's (``wire.shell_tool``).
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid

import pytest

from tests.e2e.app_driver import AppDriver, session_text
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.fixtures import SERVER_START_TIMEOUT_S
from tests.e2e.server import RealServer
from tests.faults.conftest import attach, wait_reconnected
from tests.faults.restarts import run_restarts
from tui.export import export_markdown
from tui.state.interrupts import INTERRUPTED, TOOL_INTERRUPTED
from tui.state.transcript import ToolCall
from tui.text.tools import elapsed_ms
from widgets.tools.tool_header import ToolHeader

pytestmark = pytest.mark.e2e

RESTARTS = max(1, int(os.environ.get("OCTUI_FAULT_RESTARTS", "1")))
RECONNECT_BUDGET_S = 2.0


async def test_sigkill_and_restart_during_streaming(running_server: RealServer, fault_llm: FakeLLM) -> None:
    run = await run_restarts(running_server, fault_llm, RESTARTS)
    assert run.dead_ask_dropped
    users = [m for m in run.transcript["messages"] if m["role"] == "user"]
    assert [m["text"] for m in users] == run.prompts, "every prompt once, in order"
    ids = [m["id"] for m in run.transcript["messages"]]
    assert len(ids) == len(set(ids)), "no duplicate message"
    reconnects = [kill.reconnect_s for kill in run.kills]
    assert len(reconnects) == RESTARTS + 1
    assert max(reconnects) <= RECONNECT_BUDGET_S, f"reconnect times after ready: {reconnects}"


# -- what the server no longer runs is marked (a killed turn, a tool left "running") ----------


def _allow_once(server: RealServer, session_id: str) -> bool:
    with server.client() as http:
        pending = http.get("/api/permission/request").json().get("data") or []
        for ask in pending:
            if ask.get("sessionID") == session_id:
                http.post(f"/api/session/{session_id}/permission/{ask['id']}/reply", json={"reply": "once"})
                return True
    return False


def _tool(driver: AppDriver, shell: str) -> ToolCall | None:
    """The first call of the server's shell tool (``wire.shell_tool``: 1.18 ``bash``, 2.x ``shell``)."""
    for message in driver.state.ordered_messages():
        for part in message.parts:
            if isinstance(part, ToolCall) and part.name == shell:
                return part
    return None


async def _kill_restart_reconnect(driver: AppDriver, server: RealServer) -> None:
    generation = driver.app.stream_state.generation
    await asyncio.to_thread(server.kill)
    await driver.wait_until(lambda: driver.app.stream_state.phase == "reconnecting", "reconnecting", 10.0)
    await asyncio.to_thread(server.start, ready_timeout=SERVER_START_TIMEOUT_S,
                            model_timeout=SERVER_START_TIMEOUT_S)  # 2.x may need a minute
    await wait_reconnected(driver, generation, 20.0)


async def test_a_killed_turn_is_marked_interrupted_and_its_streamed_text_kept(
        running_server: RealServer, fault_llm: FakeLLM) -> None:
    server = running_server
    sid = server.create_session()["id"]
    marker = f"kept-{uuid.uuid4().hex[:6]} "
    streaming = fault_llm.add_scenario(f"marks-text-{uuid.uuid4().hex[:8]}",
                                       [{"repeat_text": [marker, 400, 0.02]}])  # ~8 s of text
    shell = server.wire.shell_tool
    running = fault_llm.add_scenario(f"marks-tool-{uuid.uuid4().hex[:8]}", [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 20", "description": "long sleep"}}]},
    ])
    async with attach(server, session_id=sid, heartbeat_timeout=20.0) as driver:
        # 1. Killed while text streams: the server saved none of it (a block is saved at its end).
        await asyncio.to_thread(server.prompt, sid, f"Stream. {streaming}")
        await driver.wait_until(lambda: session_text(driver.state).count(marker) >= 20, "the text", 30.0)
        await _kill_restart_reconnect(driver, server)
        lost = await driver.wait_until(
            lambda: next((m for m in driver.state.ordered_messages() if marker in m.lost_text), None),
            "the streamed text kept as lost", 10.0)
        assert lost.interrupted == INTERRUPTED and not lost.streaming
        assert lost.lost_text.count(marker) >= 20
        assert marker not in session_text(driver.state), "the blocks hold the server's text"
        screen = await driver.wait_for_text("did not keep", 10.0)
        assert marker.strip() in screen and "interrupted" in screen

        # 2. Killed while a tool runs: the history says "running" for ever; the row must not.
        await asyncio.to_thread(server.prompt, sid, f"Run it. {running}")
        await driver.wait_until(lambda: _tool(driver, shell) is not None, f"the {shell} tool", 30.0)
        deadline = time.monotonic() + 20.0
        while not await asyncio.to_thread(_allow_once, server, sid):
            assert time.monotonic() < deadline, f"no permission ask for the {shell} tool"
            await asyncio.sleep(0.2)
        await driver.wait_until(lambda: (t := _tool(driver, shell)) is not None and t.status == "running",
                                "the tool to run", 20.0)
        await _kill_restart_reconnect(driver, server)

        def interrupted() -> ToolCall | None:
            t = _tool(driver, shell)
            marked = t is not None and t.error is not None and t.error.message == TOOL_INTERRUPTED
            return t if marked else None

        tool = await driver.wait_until(interrupted, "the tool marked interrupted", 10.0)
        assert tool.status == "error" and tool.finished
        frozen = elapsed_ms(tool, time.time() * 1000)
        await asyncio.sleep(1.5)
        assert elapsed_ms(tool, time.time() * 1000) == frozen, "the timer stopped"
        header = driver.main.query_one(ToolHeader)
        assert header.parts.icon != "●", "not shown as running"
        assert TOOL_INTERRUPTED[:40] in driver.screen_text()

        # 3. That later restart left turn 1 marked with its kept text (1.18.33 closed turn 1's
        # message when turn 2 started: no finish, still no text).
        first = driver.state.messages.get(lost.id)
        assert first is not None and first.interrupted == INTERRUPTED
        assert first.lost_text == lost.lost_text
        assert marker.strip() in export_markdown(driver.state), "copied and exported with the transcript"
