"""SIGKILL the real server during streaming turns and restart it on the same port and data dir.

The headless app stays attached the whole time. Each round: a turn streams, the server dies, the
app shows "reconnecting", the server comes back, and the app reconnects within 2 s of the server
being ready. At the end the app's transcript equals a fresh ``octui export`` of the session: every
user message once, in order. A pending permission that died with the server is dropped, not shown
stale. Rounds: ``OCTUI_FAULT_RESTARTS`` (default 10).

Then what such a kill leaves behind: the real 1.18.33 server saves text only when a block ends
and keeps a killed turn's tool "running" in its history for ever. After the reconnect the tool row
is interrupted with its timer stopped, and the text that had streamed is still shown, marked as
text the server did not keep.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid

import pytest

from tests.e2e.app_driver import AppDriver, session_text
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.server import RealServer
from tests.faults.conftest import (
    attach,
    banner_visible,
    wait_reconnected,
    wait_same_transcript,
    wait_streamed,
)
from tui.state.interrupts import INTERRUPTED, TOOL_INTERRUPTED
from tui.state.transcript import ToolCall
from tui.tools import elapsed_ms
from widgets.tool_header import ToolHeader

pytestmark = pytest.mark.e2e

RESTARTS = max(1, int(os.environ.get("OCTUI_FAULT_RESTARTS", "10")))
RECONNECT_BUDGET_S = 2.0


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


async def _kill_and_restart(driver: AppDriver, server: RealServer) -> float:
    """Kill the server, see the app say so, start it again; seconds from ready to reconnected."""
    app = driver.app
    generation = app.stream_state.generation
    await asyncio.to_thread(server.kill)
    await driver.wait_until(
        lambda: app.stream_state.phase == "reconnecting" and banner_visible(driver),
        "the reconnecting banner", 10.0,
    )
    await asyncio.to_thread(server.start)  # READY_TIMEOUT: 2.x can need a minute to listen
    ready = time.monotonic()
    await wait_reconnected(driver, generation, 15.0)
    took = time.monotonic() - ready
    await driver.wait_until(lambda: not banner_visible(driver), "the banner to go away", 5.0)
    return took


async def test_sigkill_and_restart_during_streaming(running_server: RealServer, fault_llm: FakeLLM) -> None:
    server = running_server
    sid = server.create_session()["id"]
    prompts: list[str] = []
    reconnects: list[float] = []
    async with attach(server, session_id=sid, heartbeat_timeout=20.0) as driver:
        for round_ in range(RESTARTS):
            name = unique(f"kill{round_}")
            marker = f"r{round_}x "
            tag = fault_llm.add_scenario(name, [{"repeat_text": [marker, 400, 0.02]}])  # ~8 s of text
            prompt = f"Round {round_}: stream for a while. {tag}"
            prompts.append(prompt)
            await asyncio.to_thread(server.prompt, sid, prompt)
            await wait_streamed(driver, marker)
            reconnects.append(await _kill_and_restart(driver, server))

        # A permission ask that dies with the server must not stay on screen as if answerable.
        name = unique("kill-ask")
        tag = fault_llm.add_scenario(
            name, [{"tool_calls": [{"name": "bash", "arguments": {"command": "echo never",
                                                                  "description": "never runs"}}]}]
        )
        prompt = f"Run a command. {tag}"
        prompts.append(prompt)
        await asyncio.to_thread(server.prompt, sid, prompt)
        await driver.wait_until(lambda: driver.app.store.asks_for(sid), "the permission ask", 20.0)
        reconnects.append(await _kill_and_restart(driver, server))
        await driver.wait_until(lambda: not driver.app.store.asks_for(sid),
                                "the dead ask to be dropped after resync", 5.0)

        fresh = await wait_same_transcript(driver, server, sid)
    users = [m for m in fresh["messages"] if m["role"] == "user"]
    assert [m["text"] for m in users] == prompts, "every prompt once, in order"
    ids = [m["id"] for m in fresh["messages"]]
    assert len(ids) == len(set(ids)), "no duplicate message"
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


def _tool(driver: AppDriver) -> ToolCall | None:
    for message in driver.state.ordered_messages():
        for part in message.parts:
            if isinstance(part, ToolCall) and part.name == "bash":
                return part
    return None


async def _kill_restart_reconnect(driver: AppDriver, server: RealServer) -> None:
    generation = driver.app.stream_state.generation
    await asyncio.to_thread(server.kill)
    await driver.wait_until(lambda: driver.app.stream_state.phase == "reconnecting", "reconnecting", 10.0)
    await asyncio.to_thread(server.start, ready_timeout=60.0, model_timeout=60.0)
    await wait_reconnected(driver, generation, 20.0)


async def test_a_killed_turn_is_marked_interrupted_and_its_streamed_text_kept(
        running_server: RealServer, fault_llm: FakeLLM) -> None:
    server = running_server
    sid = server.create_session()["id"]
    marker = f"kept-{uuid.uuid4().hex[:6]} "
    streaming = fault_llm.add_scenario(f"marks-text-{uuid.uuid4().hex[:8]}",
                                       [{"repeat_text": [marker, 400, 0.02]}])  # ~8 s of text
    running = fault_llm.add_scenario(f"marks-tool-{uuid.uuid4().hex[:8]}", [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 20", "description": "long sleep"}}]},
    ])
    async with attach(server, session_id=sid, heartbeat_timeout=20.0) as driver:
        # 1. Killed while text streams: the server saved none of it (1.18 saves a block at its end).
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
        await driver.wait_until(lambda: _tool(driver) is not None, "the bash tool", 30.0)
        deadline = time.monotonic() + 20.0
        while not await asyncio.to_thread(_allow_once, server, sid):
            assert time.monotonic() < deadline, "no permission ask for the bash tool"
            await asyncio.sleep(0.2)
        await driver.wait_until(lambda: (t := _tool(driver)) is not None and t.status == "running",
                                "the tool to run", 20.0)
        await _kill_restart_reconnect(driver, server)
        tool = await driver.wait_until(
            lambda: (t := _tool(driver)) is not None and t.error is not None
            and t.error.message == TOOL_INTERRUPTED and t, "the tool marked interrupted", 10.0)
        assert tool.status == "error" and tool.finished
        frozen = elapsed_ms(tool, time.time() * 1000)
        await asyncio.sleep(1.5)
        assert elapsed_ms(tool, time.time() * 1000) == frozen, "the timer stopped"
        header = driver.main.query_one(ToolHeader)
        assert str(header.query_one(".-icon").render()) != "●", "not shown as running"
        assert TOOL_INTERRUPTED[:40] in driver.screen_text()
