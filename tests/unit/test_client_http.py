"""OpenCodeClient against respx mocks: auth, dialects, bodies, errors, timeouts, paging."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
import respx

from tui.client import (
    ApiError,
    BadRequest,
    BadResponse,
    Conflict,
    NotFound,
    NotSupported,
    OpenCodeClient,
    RequestTimeout,
    ServerUnreachable,
    Unauthorized,
    Unavailable,
)
from tui.protocol.dialect import Dialect
from tui.protocol.models import ModelRef

BASE = "http://127.0.0.1:4096"
SECRET = "s3cret-Pa55word"
V2_HEALTH: dict[str, object] = {"healthy": True, "version": "2.0.0", "pid": 42}
PREVIEW_HEALTH: dict[str, object] = {"healthy": True}
SID = "ses_abc"


def session_json(sid: str = SID, **extra: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": sid,
        "projectID": "p1",
        "cost": 0,
        "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
        "time": {"created": 1, "updated": 2},
        "location": {"directory": "/proj"},
    }
    base.update(extra)
    return base


def preview_session_json(sid: str = SID, **extra: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": sid,
        "slug": "kind-wolf",
        "projectID": "p1",
        "directory": "/proj",
        "path": "",
        "cost": 0,
        "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
        "title": "New session - 2026-12-02T11:16:25.782Z",
        "version": "1.18.33",
        "time": {"created": 1, "updated": 2},
    }
    base.update(extra)
    return base


@pytest.fixture
def router() -> Iterator[respx.MockRouter]:
    with respx.mock(base_url=BASE, assert_all_called=False) as mock:
        yield mock


async def make_client(router: respx.MockRouter, health: dict[str, object], **kw: object) -> OpenCodeClient:
    router.get("/api/health").respond(200, json=health)
    client = OpenCodeClient(BASE, password=SECRET, **kw)  # type: ignore[arg-type]
    await client.connect()
    return client


@pytest.fixture
async def v2(router: respx.MockRouter) -> AsyncIterator[OpenCodeClient]:
    client = await make_client(router, V2_HEALTH)
    yield client
    await client.aclose()


@pytest.fixture
async def preview(router: respx.MockRouter) -> AsyncIterator[OpenCodeClient]:
    client = await make_client(router, PREVIEW_HEALTH)
    yield client
    await client.aclose()


def sent_json(route: respx.Route) -> object:
    return json.loads(route.calls.last.request.content)


# Auth ------------------------------------------------------------------------------------------


async def test_basic_auth_header(router: respx.MockRouter) -> None:
    route = router.get("/api/health").respond(200, json=V2_HEALTH)
    async with OpenCodeClient(BASE, password=SECRET) as client:
        health = await client.connect()
    expected = "Basic " + base64.b64encode(f"opencode:{SECRET}".encode()).decode()
    assert route.calls.last.request.headers["authorization"] == expected
    assert health.healthy and health.version == "2.0.0"


async def test_custom_username(router: respx.MockRouter) -> None:
    route = router.get("/api/health").respond(200, json=V2_HEALTH)
    async with OpenCodeClient(BASE, username="me", password=SECRET) as client:
        await client.connect()
    expected = "Basic " + base64.b64encode(f"me:{SECRET}".encode()).decode()
    assert route.calls.last.request.headers["authorization"] == expected


async def test_no_password_no_header(router: respx.MockRouter) -> None:
    route = router.get("/api/health").respond(200, json=V2_HEALTH)
    async with OpenCodeClient(BASE) as client:
        await client.connect()
    assert "authorization" not in route.calls.last.request.headers


async def test_wrong_password_is_typed_and_secret_free(router: respx.MockRouter) -> None:
    router.get("/api/health").respond(
        401,
        json={"_tag": "UnauthorizedError", "message": "Authentication required"},
        headers={"www-authenticate": 'Basic realm="Secure Area"'},
    )
    client = OpenCodeClient(BASE, password=SECRET)
    with pytest.raises(Unauthorized) as info:
        await client.connect()
    err = info.value
    assert str(err).startswith(f"wrong password for {BASE} as user 'opencode' (401 Unauthorized)")
    assert "OPENCODE_SERVER_PASSWORD" in str(err)  # says how to set it
    assert "\n" not in str(err)
    assert err.status == 401 and err.tag == "UnauthorizedError" and err.is_tag("UnauthorizedError")
    assert isinstance(err, ApiError)
    for text in (str(err), repr(err), repr(client), client.display_url, str(err.args)):
        assert SECRET not in text
    await client.aclose()


async def test_missing_password_message(router: respx.MockRouter) -> None:
    router.get("/api/health").respond(401, json={"_tag": "UnauthorizedError", "message": "x"})
    async with OpenCodeClient(BASE) as client:
        with pytest.raises(Unauthorized, match="needs a password"):
            await client.connect()


async def test_credentials_in_url_are_moved_to_header(router: respx.MockRouter) -> None:
    route = router.get("/api/health").respond(200, json=V2_HEALTH)
    async with OpenCodeClient(f"http://opencode:{SECRET}@127.0.0.1:4096/") as client:
        assert client.display_url == BASE
        assert SECRET not in repr(client)
        await client.connect()
    request = route.calls.last.request
    assert SECRET not in str(request.url)
    assert request.headers["authorization"].startswith("Basic ")


def test_display_url_adds_scheme() -> None:
    client = OpenCodeClient("127.0.0.1:4096", password=SECRET)
    assert client.display_url == BASE
    asyncio.run(client.aclose())


# Dialect ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("health", "dialect"), [(V2_HEALTH, Dialect.V2), (PREVIEW_HEALTH, Dialect.PREVIEW)])
async def test_dialect_detection(
    router: respx.MockRouter, health: dict[str, object], dialect: Dialect
) -> None:
    client = await make_client(router, health)
    assert client.dialect is dialect
    await client.aclose()


async def test_prompt_body_v2(router: respx.MockRouter, v2: OpenCodeClient) -> None:
    route = router.post(f"/api/session/{SID}/prompt").respond(
        200, json={"data": {"id": "msg_1", "type": "user"}}
    )
    out = await v2.prompt(
        SID,
        "hi @a.py",
        delivery="queue",
        files=[{"uri": "file:///proj/a.py", "mention": {"start": 3, "end": 8, "text": "@a.py"}}],
        agents=[{"name": "general"}],
        message_id="msg_1",
    )
    assert out == {"id": "msg_1", "type": "user"}
    assert sent_json(route) == {
        "text": "hi @a.py",
        "delivery": "queue",
        "id": "msg_1",
        "files": [{"uri": "file:///proj/a.py", "mention": {"start": 3, "end": 8, "text": "@a.py"}}],
        "agents": [{"name": "general"}],
    }


async def test_prompt_body_preview(router: respx.MockRouter, preview: OpenCodeClient) -> None:
    route = router.post(f"/api/session/{SID}/prompt").respond(200, json={"data": {"admittedSeq": 1}})
    await preview.prompt(
        SID, "hi", files=[{"uri": "file:///a", "mention": {"start": 0, "end": 1, "text": "h"}}]
    )
    assert sent_json(route) == {
        "prompt": {
            "text": "hi",
            "files": [{"uri": "file:///a", "source": {"start": 0, "end": 1, "text": "h"}}],
        },
        "delivery": "steer",
    }


async def test_create_session_title_only_on_v2(router: respx.MockRouter, v2: OpenCodeClient) -> None:
    route = router.post("/api/session").respond(200, json={"data": session_json(title="T")})
    info = await v2.create_session(
        directory="/proj", agent="build", model=ModelRef(id="m", providerID="p"), title="T"
    )
    assert info.id == SID and info.title == "T"
    assert sent_json(route) == {
        "title": "T",
        "agent": "build",
        "model": {"id": "m", "providerID": "p"},
        "location": {"directory": "/proj"},
    }


async def test_create_session_preview_drops_title_and_normalises(
    router: respx.MockRouter, preview: OpenCodeClient
) -> None:
    route = router.post("/api/session").respond(200, json={"data": preview_session_json()})
    info = await preview.create_session(title="ignored")
    assert sent_json(route) == {}
    assert info.location is not None and info.location.directory == "/proj"


async def test_preview_delete_and_rename_use_legacy_routes(
    router: respx.MockRouter, preview: OpenCodeClient
) -> None:
    delete = router.delete(f"/session/{SID}").respond(200, json=True)
    patch = router.patch(f"/session/{SID}").respond(200, json=preview_session_json(title="new"))
    await preview.delete_session(SID)
    await preview.rename_session(SID, "new")
    assert delete.called and sent_json(patch) == {"title": "new"}


async def test_v2_only_operations(router: respx.MockRouter, preview: OpenCodeClient) -> None:
    forms = router.get("/api/form/request").respond(200, json={"location": {}, "data": []})
    inbox = router.get(f"/api/session/{SID}/inbox").respond(200, json={"data": []})
    assert await preview.pending_forms() == []
    assert await preview.session_forms(SID) == []
    assert await preview.inbox(SID) == []
    assert await preview.default_model() is None
    assert not forms.called and not inbox.called
    with pytest.raises(NotSupported, match="1.18 preview"):
        await preview.form_reply(SID, "frm_1", {"q0": "a"})
    with pytest.raises(NotSupported):
        await preview.shell_output("sh_1")


async def test_history_only_on_preview(
    router: respx.MockRouter, preview: OpenCodeClient, v2: OpenCodeClient
) -> None:
    route = router.get(f"/api/session/{SID}/history").respond(
        200, json={"data": [{"type": "session.next.step.started"}], "hasMore": True}
    )
    events, more = await preview.history(SID, after=3, limit=10)
    assert events == [{"type": "session.next.step.started"}] and more
    assert dict(route.calls.last.request.url.params) == {"after": "3", "limit": "10"}
    with pytest.raises(NotSupported):
        await v2.history(SID)


async def test_interrupt_continue_only_on_v2(
    router: respx.MockRouter, v2: OpenCodeClient, preview: OpenCodeClient
) -> None:
    route = router.post(f"/api/session/{SID}/interrupt").respond(204)
    await v2.interrupt(SID, resume_pending=True)
    assert route.calls.last.request.url.params["continue"] == "true"
    assert route.calls.last.request.content == b""
    await preview.interrupt(SID, resume_pending=True)
    assert "continue" not in route.calls.last.request.url.params


async def test_compact_bodies(router: respx.MockRouter, v2: OpenCodeClient, preview: OpenCodeClient) -> None:
    route = router.post(f"/api/session/{SID}/compact")
    route.respond(200, json={"data": {"id": "msg_c", "type": "compaction"}})
    assert await v2.compact(SID) == {"id": "msg_c", "type": "compaction"}
    assert sent_json(route) == {}
    route.respond(
        503, json={"_tag": "ServiceUnavailableError", "message": "Session compact is not available yet"}
    )
    with pytest.raises(Unavailable, match="not available yet"):
        await preview.compact(SID)
    assert route.calls.last.request.content == b""


# Errors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "body", "cls", "tag"),
    [
        (
            400,
            {"_tag": "InvalidRequestError", "message": "bad", "field": "sessionID"},
            BadRequest,
            "InvalidRequestError",
        ),
        (
            404,
            {"_tag": "SessionNotFoundError", "message": "Session not found", "sessionID": SID},
            NotFound,
            "SessionNotFoundError",
        ),
        (
            409,
            {"_tag": "SessionBusyError", "message": "busy", "sessionID": SID},
            Conflict,
            "SessionBusyError",
        ),
        (503, {"_tag": "ServiceUnavailableError", "message": "wait"}, Unavailable, "ServiceUnavailableError"),
        (500, {"_tag": "UnknownError", "message": "boom"}, ApiError, "UnknownError"),
        (502, "<html>Bad gateway</html>", ApiError, "HTTP502"),
    ],
)
async def test_error_mapping(
    router: respx.MockRouter, v2: OpenCodeClient, status: int, body: object, cls: type[ApiError], tag: str
) -> None:
    if isinstance(body, str):
        router.get(f"/api/session/{SID}").respond(status, text=body)
    else:
        router.get(f"/api/session/{SID}").respond(status, json=body)
    with pytest.raises(cls) as info:
        await v2.get_session(SID)
    err = info.value
    assert type(err) is cls
    assert err.status == status and err.tag == tag and err.body == body
    assert str(err).startswith(f"GET /api/session/{SID} failed: ")
    assert f"({status} {tag})" in str(err)
    assert "\n" not in str(err)


async def test_not_json_success_is_bad_response(router: respx.MockRouter, v2: OpenCodeClient) -> None:
    router.get("/api/session/active").respond(200, text="hello")
    with pytest.raises(BadResponse, match="not JSON"):
        await v2.active()
    router.get(f"/api/session/{SID}").respond(200, json={"nope": 1})
    with pytest.raises(BadResponse, match="'data'"):
        await v2.get_session(SID)


async def test_read_timeout_is_typed(router: respx.MockRouter, v2: OpenCodeClient) -> None:
    router.get(f"/api/session/{SID}").mock(side_effect=httpx.ReadTimeout("slow"))
    with pytest.raises(RequestTimeout, match="did not answer GET"):
        await v2.get_session(SID)


async def test_connect_refused_is_typed(router: respx.MockRouter) -> None:
    router.get("/api/health").mock(side_effect=httpx.ConnectError("[Errno 111] Connection refused"))
    async with OpenCodeClient(BASE, password=SECRET) as client:
        with pytest.raises(ServerUnreachable) as info:
            await client.connect()
    assert str(info.value) == f"cannot reach {BASE}: connection refused"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_real_refused_port() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    async with OpenCodeClient(url, password=SECRET, timeout=2.0) as client:
        with pytest.raises(ServerUnreachable, match="cannot reach") as info:
            await client.connect()
    assert SECRET not in str(info.value)


async def test_real_silent_server_times_out() -> None:
    """A server that accepts and never answers (REAL-SERVER.md gotcha 1) must not hang us."""

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(65536)
        await asyncio.sleep(5)
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with OpenCodeClient(f"http://127.0.0.1:{port}", timeout=0.3) as client:
            with pytest.raises(RequestTimeout):
                await asyncio.wait_for(client.connect(), 5)
    finally:
        server.close()


# Lists and paging ------------------------------------------------------------------------------


async def test_list_sessions_paging_and_params(router: respx.MockRouter, v2: OpenCodeClient) -> None:
    route = router.get("/api/session")
    route.side_effect = [
        httpx.Response(
            200, json={"data": [session_json("ses_1")], "cursor": {"next": "c2", "previous": None}}
        ),
        httpx.Response(
            200, json={"data": [session_json("ses_2")], "cursor": {"next": None, "previous": "c1"}}
        ),
    ]
    first, cursor = await v2.list_sessions(
        limit=1, order="desc", roots_only=True, search="fix", directory="/proj"
    )
    assert [s.id for s in first] == ["ses_1"] and cursor == "c2"
    params = dict(route.calls[0].request.url.params)
    assert params == {
        "limit": "1",
        "order": "desc",
        "parentID": "null",
        "search": "fix",
        "directory": "/proj",
    }
    second, cursor = await v2.list_sessions(limit=1, cursor="c2", order="desc")
    assert [s.id for s in second] == ["ses_2"] and cursor is None
    # order is for the first page only and must not be combined with a cursor
    assert dict(route.calls[1].request.url.params) == {"limit": "1", "cursor": "c2"}


async def test_a_short_page_is_the_last_even_with_a_next_cursor(
    router: respx.MockRouter, v2: OpenCodeClient
) -> None:
    """2.x (TRACES.md §10) and 1.18.33 send both cursors even at the edges: a page shorter than
    the limit ends the list; a full page keeps its cursor (the next page may still be empty)."""
    edge = {"next": "more?", "previous": "back"}
    router.get("/api/session").side_effect = [
        httpx.Response(200, json={"data": [session_json("ses_only")], "cursor": edge}),
        httpx.Response(200, json={"data": [session_json("ses_a"), session_json("ses_b")], "cursor": edge}),
    ]
    only, cursor = await v2.list_sessions(limit=50)
    assert [s.id for s in only] == ["ses_only"] and cursor is None
    full, cursor = await v2.list_sessions(limit=2)
    assert len(full) == 2 and cursor == "more?"
    router.get(f"/api/session/{SID}/message").side_effect = [
        httpx.Response(200, json={"data": [{"id": "msg_1", "type": "user"}], "cursor": edge}),
        httpx.Response(200, json={"data": [{"id": "m2", "type": "user"}, {"id": "m1", "type": "user"}],
                                  "cursor": edge}),
    ]
    assert (await v2.list_messages(SID, limit=50))[1] is None
    assert (await v2.list_messages(SID, limit=2))[1] == "more?"


async def test_list_sessions_preview_normalises_and_filters(
    router: respx.MockRouter, preview: OpenCodeClient
) -> None:
    route = router.get("/api/session").respond(
        200,
        json={
            "data": [preview_session_json("ses_1"), preview_session_json("ses_2", parentID="ses_1")],
            "cursor": {"next": "zzz"},
        },
    )
    roots, _ = await preview.list_sessions(roots_only=True)
    assert [s.id for s in roots] == ["ses_1"]
    assert roots[0].location is not None and roots[0].location.directory == "/proj"
    assert "parentID" not in route.calls.last.request.url.params
    children, _ = await preview.list_sessions(parent_id="ses_1")
    assert [s.id for s in children] == ["ses_2"]


async def test_list_messages_normalised(router: respx.MockRouter, preview: OpenCodeClient) -> None:
    tool = {
        "type": "tool",
        "id": "call_1",
        "name": "bash",
        "provider": {"executed": False},
        "state": {"status": "completed", "input": {}, "content": [], "structured": {"exit": 0}},
    }
    route = router.get(f"/api/session/{SID}/message").respond(
        200,
        json={
            "data": [
                {"id": "msg_2", "type": "assistant", "content": [tool]},
                {"id": "msg_1", "type": "user"},
            ],
            "cursor": {"next": "n1"},
        },
    )
    messages, cursor = await preview.list_messages(SID, limit=2)
    assert cursor == "n1"
    assert dict(route.calls.last.request.url.params) == {"limit": "2", "order": "desc"}
    part = messages[0]["content"][0]
    assert part["executed"] is False and part["state"]["metadata"] == {"exit": 0}
    assert "provider" not in part and "structured" not in part["state"]


async def test_pending_asks_normalised_with_location(
    router: respx.MockRouter, preview: OpenCodeClient
) -> None:
    perms = router.get("/api/permission/request").respond(
        200,
        json={
            "location": {"directory": "/proj"},
            "data": [
                {
                    "id": "per_1",
                    "sessionID": SID,
                    "action": "bash",
                    "resources": ["ls"],
                    "source": {"type": "tool", "messageID": "msg_1", "callID": "call_1"},
                }
            ],
        },
    )
    router.get("/api/question/request").respond(
        200,
        json={
            "location": {},
            "data": [
                {
                    "id": "que_1",
                    "sessionID": SID,
                    "questions": [],
                    "tool": {"messageID": "msg_1", "callID": "call_2"},
                }
            ],
        },
    )
    [perm] = await preview.pending_permissions(directory="/proj")
    assert perm.source is not None and perm.source.id == "call_1"
    assert perms.calls.last.request.url.params["location[directory]"] == "/proj"
    [question] = await preview.pending_questions()
    assert question.tool is not None and question.tool.id == "call_2"


async def test_catalog_and_active(router: respx.MockRouter, v2: OpenCodeClient) -> None:
    loc = {"directory": "/proj"}
    router.get("/api/session/active").respond(200, json={"data": {SID: {"type": "running"}}})
    router.get("/api/model").respond(200, json={"location": loc, "data": [{"id": "m", "providerID": "p"}]})
    router.get("/api/model/default").respond(200, json={"location": loc, "data": None})
    router.get("/api/agent").respond(200, json={"location": loc, "data": [{"id": "build", "name": "build"}]})
    router.get("/api/command").respond(200, json={"location": loc, "data": [{"name": "init"}]})
    find = router.get("/api/fs/find").respond(
        200, json={"location": loc, "data": [{"path": "a.py", "type": "file"}]}
    )
    router.get(f"/api/session/{SID}/inbox").respond(200, json={"data": [{"id": "msg_q", "type": "user"}]})
    router.get("/api/shell/sh_1/output").respond(
        200, json={"location": loc, "data": {"output": "x", "cursor": 1, "size": 1, "truncated": False}}
    )
    assert await v2.active() == {SID: {"type": "running"}}
    assert [m.id for m in await v2.models()] == ["m"]
    assert await v2.default_model() is None
    assert [a.id for a in await v2.agents()] == ["build"]
    assert [c.name for c in await v2.commands()] == ["init"]
    assert await v2.fs_find("a", limit=5) == [{"path": "a.py", "type": "file"}]
    assert dict(find.calls.last.request.url.params) == {"query": "a", "limit": "5"}
    assert await v2.inbox(SID) == [{"id": "msg_q", "type": "user"}]
    assert (await v2.shell_output("sh_1", cursor=0))["output"] == "x"


async def test_path_segments_are_escaped(router: respx.MockRouter, v2: OpenCodeClient) -> None:
    route = router.get("/api/session/ses%2F..%2Fx").respond(200, json={"data": session_json("ses_x")})
    await v2.get_session("ses/../x")
    assert route.called
