"""SIGKILL the real server during streaming turns and start it again: the scenario, in one place.

``tests/faults/test_server_restarts.py`` runs it for a few rounds and asserts on the result;
``bench/soak_restarts.py`` runs it for many rounds and prints the figures as JSON. Each round: a
turn streams, the server dies, the app shows "reconnecting", the server comes back on the same port
with the same data, the app reconnects. A last round kills the server while a permission ask is
pending. Every wait is bounded; a timeout raises with what the app showed.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from tests.e2e.app_driver import AppDriver
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.fixtures import SERVER_START_TIMEOUT_S
from tests.e2e.server import RealServer
from tests.faults.helpers import attach, banner_visible, wait_reconnected, wait_same_transcript, wait_streamed


@dataclass
class Kill:
    """One SIGKILL and restart, timed."""

    noticed_s: float  # kill -> the app says "reconnecting" (banner shown)
    start_s: float  # server start (spawn -> listening and the model listed)
    reconnect_s: float  # server ready -> the app connected again


@dataclass
class RestartRun:
    session_id: str = ""
    prompts: list[str] = field(default_factory=list)
    kills: list[Kill] = field(default_factory=list)
    dead_ask_dropped: bool = False
    transcript: dict[str, Any] = field(default_factory=dict)  # the export the app and server agree on


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


async def kill_and_restart(driver: AppDriver, server: RealServer) -> Kill:
    """Kill the server, see the app say so, start it again, wait for the app to reconnect."""
    app = driver.app
    generation = app.stream_state.generation
    killed = time.monotonic()
    await asyncio.to_thread(server.kill)
    await driver.wait_until(
        lambda: app.stream_state.phase == "reconnecting" and banner_visible(driver),
        "the reconnecting banner", 10.0,
    )
    noticed = time.monotonic() - killed
    spawned = time.monotonic()
    await asyncio.to_thread(server.start, ready_timeout=SERVER_START_TIMEOUT_S,
                            model_timeout=SERVER_START_TIMEOUT_S)
    ready = time.monotonic()
    await wait_reconnected(driver, generation, 15.0)
    took = time.monotonic() - ready
    await driver.wait_until(lambda: not banner_visible(driver), "the banner to go away", 5.0)
    return Kill(noticed_s=noticed, start_s=ready - spawned, reconnect_s=took)


async def run_restarts(server: RealServer, llm: FakeLLM, rounds: int,
                       run: RestartRun | None = None) -> RestartRun:
    """``rounds`` kills during streaming, then one with a pending ask; the transcripts must agree.

    ``run`` is filled in as the rounds go, so a caller that catches a failure still has the figures.
    """
    run = run or RestartRun()
    run.session_id = server.create_session()["id"]
    sid = run.session_id
    async with attach(server, session_id=sid, heartbeat_timeout=20.0) as driver:
        for round_ in range(rounds):
            marker = f"r{round_}x "
            tag = llm.add_scenario(unique(f"kill{round_}"), [{"repeat_text": [marker, 400, 0.02]}])  # ~8 s
            prompt = f"Round {round_}: stream for a while. {tag}"
            run.prompts.append(prompt)
            await asyncio.to_thread(server.prompt, sid, prompt)
            await wait_streamed(driver, marker)
            run.kills.append(await kill_and_restart(driver, server))

        # A permission ask that dies with the server must not stay on screen as if answerable.
        tag = llm.add_scenario(
            unique("kill-ask"),
            [{"tool_calls": [{"name": "bash", "arguments": {"command": "echo never",
                                                            "description": "never runs"}}]}],
        )
        prompt = f"Run a command. {tag}"
        run.prompts.append(prompt)
        await asyncio.to_thread(server.prompt, sid, prompt)
        await driver.wait_until(lambda: driver.app.store.asks_for(sid), "the permission ask", 20.0)
        run.kills.append(await kill_and_restart(driver, server))
        # Bounded, not a speed figure (that is the reconnect budget): the resync reads several
        # routes of a server that has just started, which a busy machine can stretch past 5 s
        # (CI: its read of the pending asks got no answer in 10 s; it is tried again 1 s later).
        await driver.wait_until(lambda: not driver.app.store.asks_for(sid),
                                "the dead ask to be dropped after resync", 30.0)
        run.dead_ask_dropped = True
        run.transcript = await wait_same_transcript(driver, server, sid)
    return run
