"""The session service is the one command path: each command makes the HTTP request it should.

A respx server answers; every test asserts the request the command made (method, path, body or
query) on the current 2.x dialect and, where the routes or bodies differ, on the 1.18 preview.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
import respx

from tui.protocol.models import ModelRef, PermissionRequest, SessionInfo
from tui.session.service import SessionService
from tui.state.changes import Change, SessionChanged, TranscriptChanged
from tui.state.store import Store
from tui.state.transcript import Message

BASE = "http://127.0.0.1:4096"
V2_HEALTH: dict[str, object] = {"healthy": True, "version": "2.0.0", "pid": 42}
PREVIEW_HEALTH: dict[str, object] = {"healthy": True}
SID = "ses_abc"
DIRECTORY = "/proj"


def session_json(sid: str = SID, **extra: object) -> dict[str, object]:
    base: dict[str, object] = {"id": sid, "projectID": "p1", "cost": 0, "time": {"created": 1, "updated": 2},
                               "location": {"directory": DIRECTORY}}
    base.update(extra)
    return base


def preview_session_json(sid: str = SID, **extra: object) -> dict[str, object]:
    base: dict[str, object] = {"id": sid, "slug": "kind-wolf", "projectID": "p1", "directory": DIRECTORY,
                               "path": "", "cost": 0, "title": "New session", "version": "1.18.33",
                               "time": {"created": 1, "updated": 2}}
    base.update(extra)
    return base


class Rig:
    """A connected service over the respx router, and every batch of changes it reported."""

    def __init__(self, router: respx.MockRouter) -> None:
        self.router = router
        self.changes: list[Change] = []
        self.store = Store()
        self.service = SessionService(None, self.store, self.changes.extend, lambda _state: None,
                                      directory=DIRECTORY)


@pytest.fixture
def router() -> Iterator[respx.MockRouter]:
    with respx.mock(base_url=BASE, assert_all_called=False) as mock:
        mock.get("/openapi.json").respond(404)  # no spec: the generation comes from the health answer
        mock.get("/global/health").respond(200, json={"healthy": True, "version": "1.18.33"})  # 1.18 version
        yield mock


async def connected(router: respx.MockRouter, health: dict[str, object]) -> Rig:
    router.get("/api/health").respond(200, json=health)
    rig = Rig(router)
    await rig.service.connect(BASE)
    return rig


@pytest.fixture
async def v2(router: respx.MockRouter) -> AsyncIterator[Rig]:
    rig = await connected(router, V2_HEALTH)
    yield rig
    await rig.service.close()


@pytest.fixture
async def preview(router: respx.MockRouter) -> AsyncIterator[Rig]:
    rig = await connected(router, PREVIEW_HEALTH)
    yield rig
    await rig.service.close()


def sent(route: respx.Route) -> Any:
    content = route.calls.last.request.content
    return json.loads(content) if content else None


def request_line(route: respx.Route) -> tuple[str, str]:
    request = route.calls.last.request
    return request.method, request.url.path


# ------------------------------------------------------------------ ready
async def test_ready_waits_for_connect_and_is_bounded(router: respx.MockRouter) -> None:
    router.get("/api/health").respond(200, json=V2_HEALTH)
    rig = Rig(router)
    assert not rig.service.is_ready and rig.service.caps is None
    assert await rig.service.ready(timeout=0.01) is False  # bounded: gives up, says so
    waiter = asyncio.create_task(rig.service.ready(timeout=5))
    await asyncio.sleep(0)
    assert not waiter.done()
    health = await rig.service.connect(BASE)
    assert await asyncio.wait_for(waiter, 1) is True  # woken by connect, no polling
    assert rig.service.is_ready and health.version == "2.0.0" and rig.service.is_v2
    await rig.service.close()


async def test_a_failed_connect_leaves_the_service_not_ready(router: respx.MockRouter) -> None:
    router.get("/api/health").respond(401, json={"_tag": "UnauthorizedError", "message": "no"})
    rig = Rig(router)
    with pytest.raises(Exception, match="(?i)password|unauthor"):
        await rig.service.connect(BASE)
    assert not rig.service.is_ready


# ------------------------------------------------------------------ sessions
async def test_create_session(v2: Rig, preview: Rig) -> None:
    route = v2.router.post("/api/session").respond(200, json={"data": session_json()})
    info = await v2.service.create_session(directory=DIRECTORY, agent="build",
                                           model=ModelRef(id="m", providerID="p"))
    assert info.id == SID and v2.service.current == SID
    assert request_line(route) == ("POST", "/api/session")
    assert sent(route) == {"agent": "build", "model": {"id": "m", "providerID": "p"},
                           "location": {"directory": DIRECTORY}}
    assert SessionChanged(SID) in v2.changes

    route.respond(200, json={"data": preview_session_json()})
    await preview.service.create_session()
    assert sent(route) == {}


async def test_list_sessions_pages_and_teaches_the_store(v2: Rig) -> None:
    route = v2.router.get("/api/session").respond(
        200, json={"data": [session_json("ses_1"), session_json("ses_2")], "cursor": {"next": "nx"}})
    sessions, _ = await v2.service.list_sessions(cursor="cur", search="auth", roots_only=True, limit=2)
    assert [s.id for s in sessions] == ["ses_1", "ses_2"]
    params = dict(route.calls.last.request.url.params)
    assert params == {"limit": "2", "cursor": "cur", "search": "auth", "directory": DIRECTORY,
                      "parentID": "null"}
    assert {"ses_1", "ses_2"} <= set(v2.store.sessions)
    assert SessionChanged("ses_1") in v2.changes  # the store's reducer reported it


async def test_session_info_is_read_and_taught_to_the_store(v2: Rig) -> None:
    route = v2.router.get("/api/session/ses_far").respond(200, json={"data": session_json("ses_far")})
    info = await v2.service.session_info("ses_far")
    assert info.id == "ses_far"
    assert request_line(route) == ("GET", "/api/session/ses_far")
    assert "ses_far" in v2.store.sessions
    assert SessionChanged("ses_far") in v2.changes


async def test_latest_root_session(v2: Rig, preview: Rig) -> None:
    route = v2.router.get("/api/session").respond(200, json={"data": [session_json("ses_new")], "cursor": {}})
    latest = await v2.service.latest_root_session()
    assert latest is not None and latest.id == "ses_new"
    assert dict(route.calls.last.request.url.params) == {"limit": "1", "parentID": "null"}
    route.respond(200, json={"data": [preview_session_json("ses_old")], "cursor": {}})
    await preview.service.latest_root_session()
    assert dict(route.calls.last.request.url.params) == {"limit": "20"}  # 1.18 filters roots here


async def test_rename_goes_through_the_store(v2: Rig, preview: Rig) -> None:
    for rig in (v2, preview):
        rig.store.upsert_info(SessionInfo(id=SID, title="Old"))
    route = v2.router.post(f"/api/session/{SID}/rename").respond(204)
    await v2.service.rename(SID, "New title")
    assert request_line(route) == ("POST", f"/api/session/{SID}/rename")
    assert sent(route) == {"title": "New title"}
    assert v2.store.sessions[SID].title == "New title"
    assert SessionChanged(SID) in v2.changes

    legacy = preview.router.patch(f"/session/{SID}").respond(200, json=preview_session_json(title="New"))
    await preview.service.rename(SID, "New")
    assert sent(legacy) == {"title": "New"} and preview.store.sessions[SID].title == "New"


async def test_delete(v2: Rig, preview: Rig) -> None:
    route = v2.router.delete(f"/api/session/{SID}").respond(204)
    await v2.service.delete(SID)
    assert route.called
    legacy = preview.router.delete(f"/session/{SID}").respond(200, json=True)
    await preview.service.delete(SID)
    assert legacy.called


# ------------------------------------------------------------------ prompts
async def test_send_a_prompt(v2: Rig, preview: Rig) -> None:
    route = v2.router.post(f"/api/session/{SID}/prompt").respond(200, json={"data": {"id": "msg_1"}})
    await v2.service.send(SID, "hello", "queue")
    assert sent(route) == {"text": "hello", "delivery": "queue"}
    await preview.service.send(SID, "hello")
    assert sent(route) == {"prompt": {"text": "hello"}, "delivery": "steer"}


async def test_send_sets_the_picked_model_and_agent_first(v2: Rig) -> None:
    model = v2.router.post(f"/api/session/{SID}/model").respond(204)
    agent = v2.router.post(f"/api/session/{SID}/agent").respond(204)
    prompt = v2.router.post(f"/api/session/{SID}/prompt").respond(200, json={"data": {}})
    await v2.service.send(SID, "go", model=ModelRef(id="m", providerID="p"), agent="plan")
    assert sent(model) == {"model": {"id": "m", "providerID": "p"}} and sent(agent) == {"agent": "plan"}
    calls = [c.request.url.path for c in v2.router.calls]
    assert calls.index(f"/api/session/{SID}/model") < calls.index(f"/api/session/{SID}/prompt")
    assert prompt.called


async def test_send_with_a_mention_and_an_attachment(v2: Rig) -> None:
    route = v2.router.post(f"/api/session/{SID}/prompt").respond(200, json={"data": {}})
    attachment = {"uri": f"file://{DIRECTORY}/x.png", "mime": "image/png"}
    await v2.service.send(SID, "read @a.py", mentioned={"a.py"}, attachments=[attachment])
    body = sent(route)
    assert body["text"] == "read @a.py"
    assert body["files"][0]["uri"] == f"file://{DIRECTORY}/a.py"
    assert body["files"][0]["mention"] == {"start": 5, "end": 10, "text": "@a.py"}
    assert body["files"][1] == attachment


async def test_send_a_server_command(v2: Rig, preview: Rig) -> None:
    for rig in (v2, preview):
        rig.router.get("/api/command").respond(200, json={"data": [{"name": "review", "template": "x"}]})
        rig.router.get("/api/skill").respond(200, json={"data": []})
    command = v2.router.post(f"/api/session/{SID}/command").respond(200, json={"data": {}})
    await v2.service.send(SID, "/review the diff")
    assert sent(command) == {"command": "review", "delivery": "steer", "arguments": "the diff"}
    prompt = preview.router.post(f"/api/session/{SID}/prompt").respond(200, json={"data": {}})
    await preview.service.send(SID, "/review the diff")  # 1.18: the text goes as typed
    assert sent(prompt) == {"prompt": {"text": "/review the diff"}, "delivery": "steer"}


async def test_send_a_skill(v2: Rig) -> None:
    v2.router.get("/api/command").respond(200, json={"data": []})
    v2.router.get("/api/skill").respond(200, json={"data": [{"id": "skl_1", "name": "tidy"}]})
    route = v2.router.post(f"/api/session/{SID}/skill").respond(204)
    await v2.service.send(SID, "/tidy")
    assert sent(route) == {"skill": "skl_1"}


async def test_set_model_and_agent(v2: Rig) -> None:
    model = v2.router.post(f"/api/session/{SID}/model").respond(204)
    agent = v2.router.post(f"/api/session/{SID}/agent").respond(204)
    await v2.service.set_model(SID, ModelRef(id="k2", providerID="moonshot"))
    await v2.service.set_agent(SID, "build")
    assert sent(model) == {"model": {"id": "k2", "providerID": "moonshot"}}
    assert sent(agent) == {"agent": "build"}


async def test_interrupt_rejects_pending_permissions_first(v2: Rig, preview: Rig) -> None:
    for rig in (v2, preview):
        rig.store.asks["per_1"] = PermissionRequest(id="per_1", sessionID=SID, action="bash")
    reply = v2.router.post(f"/api/session/{SID}/permission/per_1/reply").respond(204)
    stop = v2.router.post(f"/api/session/{SID}/interrupt").respond(204)
    v2.router.get("/api/session/active").respond(200, json={"data": {}})
    await v2.service.interrupt(SID)
    assert sent(reply) == {"reply": "reject"} and stop.called
    paths = [c.request.url.path for c in v2.router.calls]
    assert paths.index(f"/api/session/{SID}/permission/per_1/reply") < \
        paths.index(f"/api/session/{SID}/interrupt")
    await preview.service.interrupt(SID)
    assert request_line(stop) == ("POST", f"/api/session/{SID}/interrupt")
    assert stop.calls.last.request.content == b""


async def test_pending_inputs_cancel_and_redeliver(v2: Rig) -> None:
    cancel = v2.router.delete(f"/api/session/{SID}/inbox/inb_1").respond(204)
    queue = v2.router.post(f"/api/session/{SID}/inbox/inb_1/queue").respond(204)
    await v2.service.cancel_pending(SID, "inb_1")
    await v2.service.set_pending_delivery(SID, "inb_1", "queue")
    assert cancel.called and queue.called


# ------------------------------------------------------------------ asks
async def test_ask_replies(v2: Rig) -> None:
    permission = v2.router.post(f"/api/session/{SID}/permission/per_1/reply").respond(204)
    question = v2.router.post(f"/api/session/{SID}/question/que_1/reply").respond(204)
    reject = v2.router.post(f"/api/session/{SID}/question/que_2/reject").respond(204)
    form = v2.router.post(f"/api/session/{SID}/form/frm_1/reply").respond(204)
    cancel = v2.router.post(f"/api/session/{SID}/form/frm_2/cancel").respond(204)
    await v2.service.reply_permission(SID, "per_1", "always", "fine")
    await v2.service.reply_question(SID, "que_1", [["yes"], ["a", "b"]])
    await v2.service.reject_question(SID, "que_2")
    await v2.service.reply_form(SID, "frm_1", {"q0": "a"})
    await v2.service.cancel_form(SID, "frm_2")
    assert sent(permission) == {"reply": "always", "message": "fine"}
    assert sent(question) == {"answers": [["yes"], ["a", "b"]]}
    assert reject.called and sent(form) == {"answer": {"q0": "a"}} and cancel.called


async def test_forms_are_refused_on_1_18(preview: Rig) -> None:
    route = preview.router.post(f"/api/session/{SID}/form/frm_1/reply").respond(204)
    with pytest.raises(Exception, match="not available"):
        await preview.service.reply_form(SID, "frm_1", {"q0": "a"})
    assert not route.called


# ------------------------------------------------------------------ revert, compact
def _seed_transcript(rig: Rig) -> None:
    rig.store.upsert_info(SessionInfo(id=SID, title="t"))
    state = rig.store.sessions[SID]
    turns = (("msg_u1", "user"), ("msg_a1", "assistant"), ("msg_u2", "user"), ("msg_a2", "assistant"))
    for mid, role in turns:
        state.messages[mid] = Message(id=mid, role=role)  # type: ignore[arg-type]


async def test_revert_stage_clear_commit(v2: Rig) -> None:
    _seed_transcript(v2)
    stage = v2.router.post(f"/api/session/{SID}/revert/stage").respond(
        200, json={"data": {"messageID": "msg_u2", "files": []}})
    clear = v2.router.post(f"/api/session/{SID}/revert/clear").respond(204)
    commit = v2.router.post(f"/api/session/{SID}/revert/commit").respond(204)
    revert = await v2.service.revert_stage(SID, "msg_u2")
    assert sent(stage) == {"messageID": "msg_u2"} and revert.messageID == "msg_u2"
    state = v2.store.sessions[SID]
    assert [m.id for m in state.messages.values() if m.reverted] == ["msg_u2", "msg_a2"]
    assert TranscriptChanged(SID) in v2.changes
    await v2.service.revert_clear(SID)
    assert clear.called and not any(m.reverted for m in state.messages.values())
    await v2.service.revert_commit(SID)
    assert commit.called


async def test_compact(v2: Rig, preview: Rig) -> None:
    route = v2.router.post(f"/api/session/{SID}/compact").respond(200, json={"data": {"id": "msg_c"}})
    await v2.service.compact(SID)
    assert sent(route) == {}
    route.respond(503, json={"_tag": "ServiceUnavailableError",
                             "message": "Session compact is not available yet"})
    with pytest.raises(Exception, match="not available yet"):
        await preview.service.compact(SID)


# ------------------------------------------------------------------ catalog and files
async def test_catalog_lists_and_file_search(v2: Rig) -> None:
    models = v2.router.get("/api/model").respond(200, json={"data": []})
    agents = v2.router.get("/api/agent").respond(200, json={"data": [{"name": "build", "mode": "primary"}]})
    find = v2.router.get("/api/fs/find").respond(200, json={"data": [{"path": "src/a.py", "type": "file"}]})
    assert await v2.service.models() == []
    assert [a.name for a in await v2.service.agents()] == ["build"]
    assert await v2.service.find_files("a.py", 8) == [{"path": "src/a.py", "type": "file"}]
    assert models.called and agents.called
    params = dict(find.calls.last.request.url.params)
    assert params["query"] == "a.py" and params["limit"] == "8"
    assert v2.service.catalog.directory == DIRECTORY


# ------------------------------------------------------------------ history pages
async def test_open_session_reads_the_newest_page_then_older_on_demand(v2: Rig) -> None:
    v2.router.get(f"/api/session/{SID}").respond(200, json={"data": session_json()})
    v2.router.get("/api/session").respond(200, json={"data": [], "cursor": {}})
    v2.router.get(f"/api/session/{SID}/pending").respond(200, json={"data": []})
    v2.router.get(f"/api/session/{SID}/inbox").respond(200, json={"data": []})
    messages = v2.router.get(f"/api/session/{SID}/message").mock(side_effect=lambda request: httpx.Response(
        200, json={"data": [], "cursor": {}}))
    await v2.service.open_session(SID)
    assert messages.called
    first = dict(messages.calls[0].request.url.params)
    assert first["limit"] == "50"
    assert v2.store.sessions[SID].loaded


async def test_a_text_mention_stays_text_where_the_server_cannot_take_text_files(
        v2: Rig, preview: Rig) -> None:
    """1.18.33 hands a mentioned text file to the provider as media: an OpenAI-compatible one
    refuses it, and every later turn of the session fails too (QA, real server). There the
    mention stays "@path" in the text (the agent reads it with its tools); images and PDFs go."""
    assert not preview.service.client.dialect.caps.text_files
    assert v2.service.client.dialect.caps.text_files
    text = "compare @notes.md with @shot.png"
    for rig, expected in ((v2, ["notes.md", "shot.png"]), (preview, ["shot.png"])):
        route = rig.router.post(f"/api/session/{SID}/prompt").respond(200, json={"data": {}})
        await rig.service.send(SID, text, mentioned={"notes.md", "shot.png"})
        body = sent(route)
        prompt = body.get("prompt", body)  # (1.18 nests the prompt)
        assert prompt["text"] == text
        assert [f["name"] for f in prompt.get("files") or []] == expected
