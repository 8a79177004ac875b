"""Opening a session on a 2.0-preview server, with its recorded answers: ``--session ID``, Enter in
the session browser, Alt+Down into a subagent and every resync take the same path
(``SessionService.open_session`` / ``resync``). It used to fail on ``GET …/inbox`` (404 there).
Also: its 401 and 404 answers (empty bodies) read as what they are."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest

from tests.replay.harness import BASE, TRACES_20, Connection, ReplayServer, messages_answer, records, sample
from tui.client import NotFound, OpenCodeClient, RouteMissing, Unauthorized
from tui.protocol.dialects import Dialect
from tui.session.service import SessionService
from tui.state.store import Store

REQUESTS: list[dict[str, Any]] = sample("m01_queue.requests.json")
INFO = REQUESTS[0]["response_body"]["data"]
SID = INFO["id"]
PENDING = sample("m01_queue.extra.json")["pending_after_queue_and_steer"]
# ``/message`` while Q and S were pending: only the first prompt had been delivered (the recorded
# answer is from the end of the scenario, when Q and S were messages too).
FINAL = next(r["response_body"] for r in REQUESTS if "/message" in r["path"])
HISTORY = {"data": [m for m in FINAL["data"] if m["id"] not in {i["id"] for i in PENDING["data"]}][:1],
           "cursor": {"previous": None, "next": None}}
SECRET = "c0rrect-h0rse"


def server(*, spec: bool, pending: tuple[int, Any] = (200, PENDING)) -> ReplayServer:
    connected = records(TRACES_20 / "traces" / "m01_queue.jsonl")[:2]  # server.connected, heartbeat
    replay = ReplayServer([Connection(connected)], rest={
        f"GET /api/session/{SID}": (200, {"data": INFO}),
        f"GET /api/session/{SID}/message": (200, messages_answer(HISTORY)),
        f"GET /api/session/{SID}/pending": pending,
        "GET /api/session": (200, {"data": [], "cursor": {"previous": None, "next": None}}),
    })
    if not spec:
        replay.answer("GET", "/openapi.json", 404, None)  # a server that serves no spec there
    return replay


async def open_session(replay: ReplayServer, *, identify: bool) -> tuple[SessionService, list[str]]:
    client = OpenCodeClient(BASE, password=SECRET, transport=replay.transport)
    await (client.identify() if identify else client.connect())
    service = SessionService(client, Store(), lambda _c: None, lambda _s: None)
    warnings: list[str] = []
    service.intake.warn = warnings.append  # type: ignore[method-assign,assignment]
    await service.open_session(SID)
    await client.aclose()
    return service, warnings


@pytest.mark.parametrize("identify", [True, False], ids=["spec read first", "health only"])
async def test_a_session_opens_with_its_pending_prompts(identify: bool) -> None:
    replay = server(spec=identify)
    service, warnings = await open_session(replay, identify=identify)
    assert service.client.dialect is Dialect.V2_0_PREVIEW
    state = service.store.sessions[SID]
    assert [m["id"] for m in HISTORY["data"]] == list(state.messages)
    assert [(p.id, p.delivery, p.text) for p in state.inbox.values()] == [
        (i["id"], i["delivery"], i["data"]["text"]) for i in PENDING["data"]]
    asked = [r.url.path for r in replay.requests]
    assert asked.count(f"/api/session/{SID}/pending") == 1
    # Read first: never a wrong route. Health only: one empty 404 on /inbox, then /pending.
    assert asked.count(f"/api/session/{SID}/inbox") == (0 if identify else 1)
    assert not warnings


async def test_a_failing_pending_list_does_not_stop_the_session_opening() -> None:
    replay = server(spec=True, pending=(500, {"_tag": "UnknownError", "message": "boom"}))
    service, warnings = await open_session(replay, identify=True)
    assert list(service.store.sessions[SID].messages) == [m["id"] for m in HISTORY["data"]]
    assert len(warnings) == 1 and "pending prompts" in warnings[0] and "boom" in warnings[0]


async def test_event_names_tell_the_generation_when_nothing_else_did() -> None:
    class Client:
        dialect = Dialect.V2

    service = SessionService(Client(), Store(), lambda _c: None, lambda _s: None)  # type: ignore[arg-type]
    frames = [r["data"] for r in records(TRACES_20 / "traces" / "m01_queue.jsonl") if "data" in r]
    admitted = next(f for f in frames if f["type"] == "session.input.admitted")
    service.intake.ingest(copy.deepcopy(admitted))
    assert service.client.dialect is Dialect.V2_0_PREVIEW
    inbox = service.store.sessions[SID].inbox
    assert list(inbox) == [admitted["data"]["inputID"]]
    promoted = next(f for f in frames if f["type"] == "session.input.promoted")
    service.intake.ingest(copy.deepcopy(promoted))
    user = service.store.sessions[SID].messages[admitted["data"]["inputID"]]
    assert user.role == "user" and user.text == admitted["data"]["input"]["data"]["text"]
    assert not inbox


# -- 401 and 404 with empty bodies (ROUTES.md, TRACES.md §12) ------------------------------------
def empty(status: int, **headers: str) -> httpx.MockTransport:
    return httpx.MockTransport(lambda request: httpx.Response(status, headers=headers))


async def test_401_with_an_empty_body_says_wrong_password_without_the_password() -> None:
    transport = empty(401, **{"www-authenticate": 'Basic realm="Secure Area"'})
    for password, words in ((SECRET, "wrong password"), (None, "needs a password")):
        client = OpenCodeClient(BASE, password=password, transport=transport)
        with pytest.raises(Unauthorized) as info:
            await client.connect()
        await client.aclose()
        text = str(info.value)
        assert words in text and "OPENCODE_SERVER_PASSWORD" in text and SECRET not in text


async def test_404_with_an_empty_body_is_a_missing_route_not_a_missing_session() -> None:
    client = OpenCodeClient(BASE, transport=empty(404))
    with pytest.raises(RouteMissing) as info:
        await client.get_session(SID)
    assert not isinstance(info.value, NotFound)
    assert "no route GET /api/session/" in str(info.value) and "not found" not in str(info.value).lower()
    body = {"_tag": "SessionNotFoundError", "sessionID": SID, "message": f"Session not found: {SID}"}
    client = OpenCodeClient(BASE, transport=httpx.MockTransport(lambda r: httpx.Response(404, json=body)))
    with pytest.raises(NotFound, match="Session not found"):
        await client.get_session(SID)
    await client.aclose()
