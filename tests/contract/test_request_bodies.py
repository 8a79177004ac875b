"""Every request the client builds validates against the route's schema in the OpenAPI documents.

Bodies are captured through respx and checked with jsonschema against the ``requestBody`` of the
matching path + method (``$ref``s resolve inside the same document); query parameter names must be
declared by the route; routes without a request body must be sent without one.

The documents: the pinned 2.x ``openapi.json`` and, for the 1.18 preview, the one the real server
under test serves at ``GET /doc`` (the vendored ``openapi-1.18.json`` without a real server); see
``tests/specs.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import httpx
import pytest
import respx
from jsonschema import Draft202012Validator

from tests.specs import V2_OPENAPI, Spec, load_json
from tui.client import OpenCodeClient
from tui.protocol.models import ModelRef
from tui.session.commands import run_skill, send_input

BASE = "http://127.0.0.1:4096"
SID = "ses_abc123"


def find_operation(spec: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    """The operation whose path template matches; literal segments beat ``{param}`` ones."""
    best: tuple[int, dict[str, Any]] | None = None
    for template, ops in spec["paths"].items():
        op = ops.get(method.lower())
        if op is None:
            continue
        pattern = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, path):
            params = template.count("{")
            if best is None or params < best[0]:
                best = (params, op)
    assert best is not None, f"{method} {path} is not a route in the spec"
    return best[1]


def check_request(spec: dict[str, Any], request: httpx.Request) -> None:
    path = request.url.path
    op = find_operation(spec, request.method, path)
    declared = {p["name"] for p in op.get("parameters", []) if p.get("in") == "query"}
    for name in request.url.params:
        base = name.split("[", 1)[0]  # deepObject: location[directory] -> location
        assert name in declared or base in declared, f"{request.method} {path}: undeclared query {name!r}"
    body_spec = op.get("requestBody")
    if body_spec is None:
        assert request.content == b"", f"{request.method} {path} takes no body"
        return
    assert request.headers.get("content-type", "").startswith("application/json")
    schema = dict(body_spec["content"]["application/json"]["schema"])
    schema["components"] = spec["components"]  # so "#/components/..." resolves in place
    body = json.loads(request.content)
    errors = sorted(Draft202012Validator(schema).iter_errors(body), key=lambda e: list(e.path))
    assert not errors, f"{request.method} {path} body {body!r}: " + "; ".join(e.message for e in errors)


@pytest.fixture
def router() -> Iterator[respx.MockRouter]:
    with respx.mock(base_url=BASE, assert_all_called=False) as mock:
        yield mock


SESSION = {
    "id": SID,
    "projectID": "p",
    "cost": 0,
    "time": {"created": 1, "updated": 1},
    "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
}


async def connected(router: respx.MockRouter, health: dict[str, Any]) -> OpenCodeClient:
    router.get("/api/health").respond(200, json=health)
    router.post("/api/session").respond(200, json={"data": SESSION})
    router.post(f"/api/session/{SID}/prompt").respond(200, json={"data": {"id": "msg_1"}})
    router.post(f"/api/session/{SID}/compact").respond(200, json={"data": {"id": "msg_2"}})
    router.post(f"/api/session/{SID}/revert/stage").respond(200, json={"data": {"messageID": "msg_1"}})
    router.route().respond(204)  # everything else (routes match in order; bodies are what we check)
    client = OpenCodeClient(BASE, password="pw")
    await client.connect()
    return client


@pytest.fixture
async def v2(router: respx.MockRouter) -> AsyncIterator[OpenCodeClient]:
    client = await connected(router, {"healthy": True, "version": "2.0.0", "pid": 1})
    yield client
    await client.aclose()


@pytest.fixture
async def preview(router: respx.MockRouter) -> AsyncIterator[OpenCodeClient]:
    client = await connected(router, {"healthy": True})
    yield client
    await client.aclose()


MENTION = {"start": 0, "end": 5, "text": "@a.py"}
DATA_URI = "data:image/png;base64,iVBORw0KGgo="
Call = Callable[[OpenCodeClient], Awaitable[object]]

V2_CALLS: dict[str, Call] = {
    "prompt minimal": lambda c: c.prompt(SID, "hello"),
    "prompt full": lambda c: c.prompt(
        SID,
        "@a.py please",
        delivery="queue",
        message_id="msg_01",
        files=[{"uri": "file:///proj/a.py", "name": "a.py", "mention": MENTION}],
        agents=[{"name": "general", "mention": MENTION}],
    ),
    "create_session empty": lambda c: c.create_session(),
    "create_session full": lambda c: c.create_session(
        directory="/proj",
        agent="build",
        title="T",
        model=ModelRef(id="m", providerID="p", variant="high", extra_field="dropped"),  # type: ignore[call-arg]
    ),
    "rename": lambda c: c.rename_session(SID, "New title"),
    "delete": lambda c: c.delete_session(SID),
    "set_agent": lambda c: c.set_agent(SID, "plan"),
    "set_model": lambda c: c.set_model(SID, {"id": "m", "providerID": "p", "name": "Display"}),
    "permission once": lambda c: c.permission_reply(SID, "per_1", "once"),
    "permission reject msg": lambda c: c.permission_reply(SID, "per_1", "reject", message="not that"),
    "question reply": lambda c: c.question_reply(SID, "que_1", [["Blue"], ["Tests", "Docs"]]),
    "question reject": lambda c: c.question_reject(SID, "que_1"),
    "form reply": lambda c: c.form_reply(SID, "frm_1", {"q0": "Blue", "q1": ["a", "b"], "n": 3, "ok": True}),
    "form cancel": lambda c: c.form_cancel(SID, "frm_1"),
    "interrupt": lambda c: c.interrupt(SID, resume_pending=False),
    "compact": lambda c: c.compact(SID),
    "revert stage": lambda c: c.revert_stage(SID, "msg_1", files=True),
    "revert clear": lambda c: c.revert_clear(SID),
    "revert commit": lambda c: c.revert_commit(SID),
    "inbox cancel": lambda c: c.inbox_cancel(SID, "msg_9"),
    "skill bare": lambda c: run_skill(c, SID, "changelog", "changelog"),
    "skill with arguments and a file": lambda c: run_skill(
        c, SID, "changelog", "changelog", "for v2", files=[{"uri": DATA_URI, "name": "dot.png"}]),
    "send_input with attachment": lambda c: send_input(
        c, SID, "look @a.py", directory="/proj", attachments=[{"uri": DATA_URI, "name": "dot.png"}]),
    "send_input command with attachment": lambda c: send_input(
        c, SID, "/review now", directory="/proj", commands=["review"],
        attachments=[{"uri": DATA_URI, "name": "dot.png"}]),
}

V2_READS: dict[str, Call] = {
    "list_sessions": lambda c: c.list_sessions(
        limit=10, search="x", directory="/p", roots_only=True, order="asc"
    ),
    "list_sessions cursor": lambda c: c.list_sessions(cursor="abc", parent_id="ses_p"),
    "list_messages": lambda c: c.list_messages(SID, limit=20),
    "list_messages cursor": lambda c: c.list_messages(SID, cursor="abc"),
    "pending_permissions": lambda c: c.pending_permissions(directory="/p"),
    "pending_questions": lambda c: c.pending_questions(directory="/p"),
    "pending_forms": lambda c: c.pending_forms(directory="/p"),
    "models": lambda c: c.models(directory="/p"),
    "fs_find": lambda c: c.fs_find("a", limit=5, directory="/p", kind="file"),
    "skills": lambda c: c.skills(directory="/p"),
    "shell_output": lambda c: c.shell_output("sh_1", cursor=10),
}


async def run_and_check(
    router: respx.MockRouter, client: OpenCodeClient, call: Call, spec: dict[str, Any]
) -> None:
    before = len(router.calls)
    try:
        await call(client)
    except Exception:
        pass  # the answer (204 everywhere) may not fit a read; only the request matters here
    requests = [c.request for c in router.calls[before:]]
    assert requests, "no request was sent"
    for request in requests:
        check_request(spec, request)


@pytest.mark.parametrize("name", list(V2_CALLS))
async def test_v2_request_bodies(router: respx.MockRouter, v2: OpenCodeClient, name: str) -> None:
    await run_and_check(router, v2, V2_CALLS[name], load_json(V2_OPENAPI))


@pytest.mark.parametrize("name", list(V2_READS))
async def test_v2_query_parameters(router: respx.MockRouter, v2: OpenCodeClient, name: str) -> None:
    await run_and_check(router, v2, V2_READS[name], load_json(V2_OPENAPI))


PREVIEW_CALLS: dict[str, Call] = {
    "prompt": V2_CALLS["prompt full"],
    "create_session": V2_CALLS["create_session full"],
    "set_model": V2_CALLS["set_model"],
    "permission": V2_CALLS["permission reject msg"],
    "question reply": V2_CALLS["question reply"],
    "interrupt": V2_CALLS["interrupt"],
    "compact": V2_CALLS["compact"],
    "rename (legacy route)": V2_CALLS["rename"],
    "delete (legacy route)": V2_CALLS["delete"],
    "history": lambda c: c.history(SID, after=4, limit=100),
    "list_sessions": V2_READS["list_sessions"],
    "skill (sent as text; 1.18 has no skill route)": V2_CALLS["skill with arguments and a file"],
    "send_input with attachment": V2_CALLS["send_input with attachment"],
}


@pytest.mark.parametrize("name", list(PREVIEW_CALLS))
async def test_preview_request_bodies(preview_openapi: Spec, router: respx.MockRouter,
                                      preview: OpenCodeClient, name: str) -> None:
    await run_and_check(router, preview, PREVIEW_CALLS[name], preview_openapi.doc)


def test_validator_rejects_a_bad_body() -> None:
    """Guard against a vacuous check: an unknown key must fail the strict prompt schema."""
    spec = load_json(V2_OPENAPI)
    request = httpx.Request("POST", f"{BASE}/api/session/{SID}/prompt", json={"prompt": {"text": "x"}})
    with pytest.raises(AssertionError, match="prompt"):
        check_request(spec, request)
