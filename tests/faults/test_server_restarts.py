"""SIGKILL the real server during streaming turns and restart it on the same port and data dir.

The headless app stays attached the whole time. Each round: a turn streams, the server dies, the
app shows "reconnecting", the server comes back, and the app reconnects within 2 s of the server
being ready. At the end the app's transcript equals a fresh ``octui export`` of the session: every
user message once, in order. A pending permission that died with the server is dropped, not shown
stale. Rounds: ``OCTUI_FAULT_RESTARTS`` (default 1, plus the ask round); the long soak of the same
scenario is ``bench/soak_restarts.py`` (20 rounds by default, figures as JSON).
"""

from __future__ import annotations

import os

import pytest

from tests.e2e.fake_llm import FakeLLM
from tests.e2e.server import RealServer
from tests.faults.restarts import run_restarts

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
