"""The demo's 2.0-preview generation against the recorded 2.0 preview (traces-2.0 ``m01_*``).

A plain prompt, a steer and a queue-then-steer are driven through the demo over HTTP, the way
the recorded driver drove the real build (TRACES.md 1), and their event sequences are compared
with the recordings: event types in order (runs of one type collapsed), with the accounting
events (``usage.updated``, ``renamed``: asynchronous, their position differs between recordings
of the same thing) checked on their own; the field names of every event, envelope included; the
promotion order (steers before earlier queued inputs); and the ``/pending`` item shape.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tui.demo import DemoServer
from tui.demo.generation import DemoGeneration

Json = dict[str, Any]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "traces-2.0"
ACCOUNTING = ("session.usage.updated", "session.renamed")


def recorded(name: str) -> list[Json]:
    """The main session's events of a recording, up to its first finished execution."""
    frames = [json.loads(line).get("data") for line in (FIXTURES / "traces" / f"{name}.jsonl").open()]
    events = [f for f in frames if isinstance(f, dict) and f.get("type") != "server.connected"]
    sid = next(e["data"]["sessionID"] for e in events if e["type"] == "session.created")
    mine = [e for e in events if e["data"].get("sessionID") == sid]
    end = next(i for i, e in enumerate(mine) if e["type"] == "session.execution.succeeded")
    tail = [e for e in mine[end + 1:] if e["type"] in ACCOUNTING]  # title/usage may come just after
    return mine[: end + 1] + tail[:2]


def shape(events: list[Json]) -> list[str]:
    out: list[str] = []
    for event in events:
        kind = event["type"]
        if kind not in ACCOUNTING and (not out or out[-1] != kind):
            out.append(kind)
    return out


def keys(event: Json) -> Json:
    """Envelope and data field names (``input`` and ``input.data`` of admitted inputs too)."""
    data = event["data"]
    found: Json = {"envelope": sorted(event), "data": sorted(data)}
    if isinstance(data.get("input"), dict):
        found["input"] = sorted(data["input"])
        found["input.data"] = sorted(data["input"]["data"])
    return found


class Demo:
    def __init__(self) -> None:
        self.server = DemoServer(speed=0, generation=DemoGeneration.PREVIEW)
        self.http = httpx.AsyncClient(transport=self.server.transport, base_url=self.server.base_url)
        self.sid = ""

    async def start(self) -> Demo:
        self.sid = (await self.http.post("/api/session", json={})).json()["data"]["id"]
        return self

    async def prompt(self, text: str, **extra: Any) -> Json:
        response = await self.http.post(f"/api/session/{self.sid}/prompt", json={"text": text, **extra})
        assert response.status_code == 200, response.text
        data: Json = response.json()["data"]
        return data

    async def deltas(self, at_least: int) -> None:
        """Wait (bounded) until the running step streamed that many text deltas."""
        for _ in range(10_000):
            if sum(e["type"] == "session.text.delta" for e in self.server.emitted) >= at_least:
                return
            await asyncio.sleep(0)
        raise AssertionError("the demo never streamed")

    def events(self) -> list[Json]:
        return [e for e in self.server.emitted if e["data"].get("sessionID") == self.sid]

    async def aclose(self) -> None:
        await self.http.aclose()
        await self.server.aclose()


def same_shape(demo: list[Json], trace: list[Json]) -> None:
    assert shape(demo) == shape(trace)
    for kind in {e["type"] for e in trace}:
        mine = [keys(e) for e in demo if e["type"] == kind]
        theirs = [keys(e) for e in trace if e["type"] == kind]
        assert mine, f"the demo never sends {kind}"
        assert all(k == theirs[0] for k in mine), f"{kind}: demo {mine[0]} vs recorded {theirs[0]}"
    for events in (demo, trace):  # accounting: usage after every step, one title for the session
        types = [e["type"] for e in events]
        ended = [i for i, t in enumerate(types) if t == "session.step.ended"]
        assert ended and all(types[i + 1] == "session.usage.updated" for i in ended)
        assert types.count("session.renamed") == 1


def promotions(events: list[Json]) -> tuple[list[str], list[str]]:
    """(delivery of each admitted input in admission order, the order they were promoted in)."""
    admitted = {e["data"]["inputID"]: e["data"]["input"]["delivery"] for e in events
                if e["type"] == "session.input.admitted"}
    order = [e["data"]["inputID"] for e in events if e["type"] == "session.input.promoted"]
    return list(admitted.values()), [admitted[i] for i in order]


async def test_a_plain_prompt_like_m01_queue_idle() -> None:
    demo = await Demo().start()
    try:
        await demo.prompt("Write something long.", delivery="queue")
        await demo.server.idle()
        same_shape(demo.events(), recorded("m01_queue_idle"))
    finally:
        await demo.aclose()


@pytest.mark.parametrize("delivery", [None, "steer"])
async def test_a_steer_mid_stream_like_m01_steer_default(delivery: str | None) -> None:
    """Default and explicit steer are the same (TRACES.md 1): admitted mid-stream, promoted when
    the step ends, answered by a new step inside the same execution."""
    demo = await Demo().start()
    try:
        first = await demo.prompt("Write something long.")
        await demo.deltas(3)
        second = await demo.prompt("Steer: change course, write something long.",
                                   **({"delivery": delivery} if delivery else {}))
        assert first["delivery"] == second["delivery"] == "steer"
        await demo.server.idle()
        events = demo.events()
        same_shape(events, recorded("m01_steer_default"))
        assert sum(e["type"] == "session.execution.started" for e in events) == 1
        users = [m["id"] for m in demo.server.state.messages[demo.sid] if m["type"] == "user"]
        assert users == [first["id"], second["id"]]  # the user message id is the input id
    finally:
        await demo.aclose()


async def test_queue_then_steer_like_m01_queue() -> None:
    """The steer admitted after the queued input is promoted first; history follows promotion."""
    demo = await Demo().start()
    try:
        await demo.prompt("Write something long.")
        await demo.deltas(3)
        queued = await demo.prompt("Queued follow-up: write something long.", delivery="queue")
        pending = (await demo.http.get(f"/api/session/{demo.sid}/pending")).json()["data"]
        recorded_pending = json.loads((FIXTURES / "samples" / "m01_queue.extra.json").read_text())
        want = recorded_pending["pending_after_queue"]["data"]
        assert [sorted(i) for i in pending] == [sorted(i) for i in want]
        assert [(i["type"], i["delivery"], sorted(i["data"])) for i in pending] == [
            (i["type"], i["delivery"], sorted(i["data"])) for i in want]
        assert pending[0]["id"] == queued["id"]
        await demo.deltas(sum(e["type"] == "session.text.delta" for e in demo.server.emitted) + 1)
        steer = await demo.prompt("Steer after the queue: write something long.", delivery="steer")
        both = (await demo.http.get(f"/api/session/{demo.sid}/pending")).json()["data"]
        assert [i["id"] for i in both] == [queued["id"], steer["id"]]  # admission order
        await demo.server.idle()
        events = demo.events()
        trace = recorded("m01_queue")
        same_shape(events, trace)
        assert promotions(events) == promotions(trace) == (["steer", "queue", "steer"],
                                                           ["steer", "steer", "queue"])
        users = [m["id"] for m in demo.server.state.messages[demo.sid] if m["type"] == "user"]
        assert users[1:] == [steer["id"], queued["id"]]
        assert (await demo.http.get(f"/api/session/{demo.sid}/pending")).json()["data"] == []
    finally:
        await demo.aclose()
