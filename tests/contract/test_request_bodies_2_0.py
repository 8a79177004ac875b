"""Requests octui sends to a 2.0-preview server validate against that server's own
``GET /openapi.json`` (vendored: ``tests/fixtures/traces-2.0/samples/more_server_openapi.json``).

The client finds the generation itself (``identify`` reads the served spec), then every call of the
v2 contract suite runs again; what this generation lacks (cancel / re-deliver a pending prompt)
must not be sent at all.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from tests.contract.test_request_bodies import (
    BASE,
    SESSION,
    SID,
    V2_CALLS,
    V2_READS,
    Call,
    check_request,
    run_and_check,
)
from tui.client import NotSupported, OpenCodeClient
from tui.protocol.dialects import Dialect
from tui.session.commands import run_skill

SAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "traces-2.0" / "samples"
SERVED = SAMPLES / "more_server_openapi.json"


@cache
def served() -> dict[str, Any]:
    spec: dict[str, Any] = json.loads(SERVED.read_text("utf-8"))
    return spec


@pytest.fixture
def router() -> Iterator[respx.MockRouter]:
    with respx.mock(base_url=BASE, assert_all_called=False) as mock:
        yield mock


@pytest.fixture
async def preview20(router: respx.MockRouter) -> AsyncIterator[OpenCodeClient]:
    router.get("/api/health").respond(200, json={"healthy": True, "version": "local", "pid": 7})
    router.get("/openapi.json").respond(200, json=served())
    router.post("/api/session").respond(200, json={"data": SESSION})
    item = {"id": "msg_1", "sessionID": SID, "timeCreated": 1, "type": "user", "data": {"text": "x"},
            "delivery": "steer"}
    router.post(f"/api/session/{SID}/prompt").respond(200, json={"data": item})
    router.post(f"/api/session/{SID}/command").respond(200, json={"data": item})
    router.post(f"/api/session/{SID}/compact").respond(200, json={"data": {**item, "type": "compaction"}})
    router.post(f"/api/session/{SID}/revert/stage").respond(200, json={"data": {"messageID": "msg_1"}})
    router.route().respond(204)
    client = OpenCodeClient(BASE, password="pw")
    await client.identify()
    assert client.dialect is Dialect.V2_0_PREVIEW
    yield client
    await client.aclose()


CALLS: dict[str, Call] = {name: call for name, call in V2_CALLS.items() if name != "inbox cancel"}
CALLS.update({
    "prompt with skills (none here)": lambda c: c.prompt(
        SID, "/changelog now",
        skills=[{"id": "changelog", "mention": {"start": 0, "end": 10, "text": "/c"}}],
    ),
    "interrupt asking to continue (no ?continue= here)": lambda c: c.interrupt(SID, resume_pending=True),
    "pending inputs": lambda c: c.pending_inputs(SID),
    "default model": lambda c: c.default_model(directory="/p"),
})


@pytest.mark.parametrize("name", list(CALLS))
async def test_2_0_request_bodies(router: respx.MockRouter, preview20: OpenCodeClient, name: str) -> None:
    await run_and_check(router, preview20, CALLS[name], served())


@pytest.mark.parametrize("name", list(V2_READS))
async def test_2_0_query_parameters(router: respx.MockRouter, preview20: OpenCodeClient, name: str) -> None:
    await run_and_check(router, preview20, V2_READS[name], served())


async def test_a_skill_with_arguments_is_activated_then_prompted(
        router: respx.MockRouter, preview20: OpenCodeClient) -> None:
    before = len(router.calls)
    await run_skill(preview20, SID, "changelog", "changelog", "for v2")
    sent = [(c.request.url.path, json.loads(c.request.content)) for c in router.calls[before:]]
    assert sent == [(f"/api/session/{SID}/skill", {"skill": "changelog", "resume": False}),
                    (f"/api/session/{SID}/prompt", {"text": "/changelog for v2", "delivery": "steer"})]


@pytest.mark.parametrize("call", ["cancel", "redeliver"])
async def test_what_the_server_lacks_is_never_sent(
        router: respx.MockRouter, preview20: OpenCodeClient, call: str) -> None:
    before = len(router.calls)
    with pytest.raises(NotSupported, match="2.0 preview"):
        if call == "cancel":
            await preview20.inbox_cancel(SID, "msg_9")
        else:
            await preview20.inbox_delivery(SID, "msg_9", "queue")
    assert len(router.calls) == before


def test_the_served_spec_rejects_what_the_pinned_one_allows() -> None:
    """Not vacuous: ``skills`` on a prompt and ``delivery`` on compact are pinned-only."""
    for path, body in ((f"/api/session/{SID}/prompt", {"text": "x", "skills": [{"id": "s"}]}),
                       (f"/api/session/{SID}/compact", {"delivery": "queue"})):
        with pytest.raises(AssertionError):
            check_request(served(), httpx.Request("POST", f"{BASE}{path}", json=body))
    with pytest.raises(AssertionError, match="not a route"):
        check_request(served(), httpx.Request("GET", f"{BASE}/api/session/{SID}/inbox"))
