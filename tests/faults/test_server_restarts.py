"""SIGKILL the real server during streaming turns and restart it on the same port and data dir.

The headless app stays attached the whole time. Each round: a turn streams, the server dies, the
app shows "reconnecting", the server comes back, and the app reconnects within 2 s of the server
being ready. At the end the app's transcript equals a fresh ``octui export`` of the session: every
user message once, in order. A pending permission that died with the server is dropped, not shown
stale. Rounds: ``OCTUI_FAULT_RESTARTS`` (default 10).
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid

import pytest

from tests.e2e.app_driver import AppDriver
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.server import RealServer
from tests.faults.conftest import (
    attach,
    banner_visible,
    wait_reconnected,
    wait_same_transcript,
    wait_streamed,
)

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
