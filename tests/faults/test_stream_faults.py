"""The event stream breaks while the real server stays up (a TCP proxy between app and server).

* cut: the proxy aborts the connection mid-turn; the app reconnects at once and, after the turn,
  its transcript equals a fresh export (nothing lost, nothing doubled);
* an ask raised while the stream was down is recovered by the resync, shown, and answerable;
* stall: the proxy stops forwarding but keeps the socket open; the heartbeat watchdog notices
  within two heartbeat periods and the app reconnects.
"""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from tests.e2e.app_driver import tools_of
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.server import RealServer
from tests.faults.conftest import (
    attach,
    banner_visible,
    wait_reconnected,
    wait_same_transcript,
    wait_streamed,
)
from tests.faults.proxy import FaultProxy
from tui.screens.main import MainScreen
from tui.screens.permission import PermissionScreen

pytestmark = pytest.mark.e2e

CUTS = 3
RECONNECT_BUDGET_S = 2.0
STALL_HEARTBEAT_S = 3.0


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def pending_permissions(server: RealServer, session_id: str) -> list[str]:
    with server.client() as http:
        response = http.get("/api/permission/request")
        response.raise_for_status()
        return [p["id"] for p in response.json()["data"] if p.get("sessionID") == session_id]


async def test_stream_cut_mid_turn_loses_nothing(
    running_server: RealServer, fault_llm: FakeLLM, proxy: FaultProxy
) -> None:
    server = running_server
    sid = server.create_session()["id"]
    prompts: list[str] = []
    async with attach(server, url=proxy.url, session_id=sid, heartbeat_timeout=20.0) as driver:
        app = driver.app
        for round_ in range(CUTS):
            marker = f"c{round_}y "
            tag = fault_llm.add_scenario(unique(f"cut{round_}"), [{"repeat_text": [marker, 150, 0.02]}])
            prompt = f"Cut round {round_}. {tag}"
            prompts.append(prompt)
            await asyncio.to_thread(server.prompt, sid, prompt)
            await wait_streamed(driver, marker)
            generation = app.stream_state.generation
            cut_at = time.monotonic()
            assert proxy.cut() >= 1, "the app's event stream went through the proxy"
            await wait_reconnected(driver, generation)
            assert time.monotonic() - cut_at <= RECONNECT_BUDGET_S
            await asyncio.to_thread(server.wait_idle, sid, 30.0)
            await driver.wait_until(lambda: not driver.state.busy, "the app to see the turn end", 10.0)
            fresh = await wait_same_transcript(driver, server, sid)
            assert marker * 150 in "".join(
                p["text"] for m in fresh["messages"] for p in m["parts"] if p["type"] == "text"
            ), "the whole answer, streamed across the cut"
    users = [m["text"] for m in fresh["messages"] if m["role"] == "user"]
    assert users == prompts
    ids = [m["id"] for m in fresh["messages"]]
    assert len(ids) == len(set(ids))


async def test_ask_raised_while_disconnected_is_shown_after_reconnect_and_answerable(
    running_server: RealServer, fault_llm: FakeLLM, proxy: FaultProxy
) -> None:
    server = running_server
    sid = server.create_session()["id"]
    name = unique("cut-ask")
    command = f"echo allowed-{name}"
    tag = fault_llm.add_scenario(name, [
        {"delay": 1.0, "tool_calls": [{"name": "bash", "arguments": {"command": command,
                                                                     "description": "echo"}}]},
        {"text": "The command ran."},
    ])
    async with attach(server, url=proxy.url, session_id=sid, heartbeat_timeout=20.0) as driver:
        app = driver.app
        generation = app.stream_state.generation
        proxy.stall()  # the app will miss permission.asked
        await asyncio.to_thread(server.prompt, sid, f"Run it. {tag}")
        deadline = time.monotonic() + 20.0
        while not await asyncio.to_thread(pending_permissions, server, sid):
            assert time.monotonic() < deadline, "the server never asked"
            await asyncio.sleep(0.1)
        assert not app.store.asks_for(sid), "the ask must not have reached the app yet"
        proxy.cut()
        await driver.wait_until(lambda: banner_visible(driver) or app.stream_state.generation > generation,
                                "the app to notice the cut", 5.0)
        await wait_reconnected(driver, generation)
        dialog = await driver.wait_for_screen(PermissionScreen, timeout=10.0)
        assert dialog.ask.resources == server.wire.shell_resources(command)
        await driver.wait_for_text("Allow once [o]")
        await driver.pilot.press("o")
        await driver.wait_until(lambda: isinstance(app.screen, MainScreen), "the dialog to close")
        (tool,) = await driver.wait_until(
            lambda: [t for t in tools_of(driver.state) if t.status == "completed"], "the tool to run", 20.0
        )
        assert f"allowed-{name}" in tool.output_text
        await asyncio.to_thread(server.wait_idle, sid, 30.0)
        await wait_same_transcript(driver, server, sid)
        assert not app.store.asks_for(sid)


async def test_heartbeat_stall_is_noticed_within_two_periods(
    running_server: RealServer, fault_llm: FakeLLM, proxy: FaultProxy
) -> None:
    server = running_server
    sid = server.create_session()["id"]
    marker = "st4ll "
    tag = fault_llm.add_scenario(unique("stall"), [{"repeat_text": [marker, 300, 0.02]}])
    async with attach(server, url=proxy.url, session_id=sid, heartbeat_timeout=STALL_HEARTBEAT_S) as driver:
        app = driver.app
        await asyncio.to_thread(server.prompt, sid, f"Stream, then the link stalls. {tag}")
        await wait_streamed(driver, marker)
        generation = app.stream_state.generation
        assert proxy.stall() >= 1
        stalled_at = time.monotonic()
        await driver.wait_until(lambda: app.stream_state.phase == "reconnecting", "the watchdog", 10.0)
        noticed = time.monotonic() - stalled_at
        assert noticed <= 2 * STALL_HEARTBEAT_S, f"noticed after {noticed:.1f}s"
        assert "no data" in (app.stream_state.error or ""), app.stream_state.error
        assert banner_visible(driver)
        await wait_reconnected(driver, generation)
        await asyncio.to_thread(server.wait_idle, sid, 30.0)
        fresh = await wait_same_transcript(driver, server, sid)
    text = "".join(p["text"] for m in fresh["messages"] for p in m["parts"] if p["type"] == "text")
    assert marker * 300 in text
