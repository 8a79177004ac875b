"""The demo server's 2.0-preview generation must speak what the recorded 2.0 preview build serves.

The authority is that build's own ``GET /openapi.json`` (``traces-2.0/samples/more_server_openapi.json``,
vendored under ``tests/fixtures/traces-2.0/samples/``): every emitted event validates against
``components.schemas[<type>]``, every REST answer against its route's response schema, every
route the demo serves exists there, and the behaviours ROUTES.md measured hold (empty 401 and
unknown-route 404 bodies, ``/pending`` with ``data`` items and no inbox routes).
"""

from __future__ import annotations

import base64
import json
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from tui.demo import SCRIPTS, DemoServer, history_fixture
from tui.demo.generation import DemoGeneration
from tui.demo.ids import PREVIEW_DURABLE_VERSIONS
from tui.demo.routing import served

Json = dict[str, Any]
SAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "traces-2.0" / "samples"
SPEC = SAMPLES / "more_server_openapi.json"
PREVIEW = DemoGeneration.PREVIEW


@cache
def spec() -> Json:
    data: Json = json.loads(SPEC.read_text())
    return data


@cache
def _validator(pointer: str) -> Draft202012Validator:
    node: Any = spec()
    for part in pointer.strip("/").split("/"):  # KeyError here = the spec has no such schema
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return Draft202012Validator({"$ref": "#" + pointer, "components": spec()["components"],
                                 "paths": spec()["paths"]})


def check_event(event: Json) -> None:
    assert event["type"] in spec()["components"]["schemas"], f"{event['type']}: no such event in 2.0"
    errors = sorted(_validator(f"/components/schemas/{event['type']}").iter_errors(event), key=str)
    assert not errors, f"{event['type']}: {errors[0].message} at {list(errors[0].absolute_path)}\n{event}"


def check_response(method: str, route: str, response: httpx.Response) -> Any:
    responses = spec()["paths"][route][method.lower()]["responses"]
    assert str(response.status_code) in responses, f"{method} {route}: undeclared {response.status_code}"
    if response.status_code == 204:
        assert response.content == b""
        return None
    escaped = route.replace("~", "~0").replace("/", "~1")
    pointer = f"/paths/{escaped}/{method.lower()}/responses/{response.status_code}"
    body = response.json()
    errors = sorted(_validator(pointer + "/content/application~1json/schema").iter_errors(body), key=str)
    assert not errors, f"{method} {route}: {errors[0].message} at {list(errors[0].absolute_path)}\n{body}"
    return body


class Driver:
    def __init__(self, server: DemoServer, auth: tuple[str, str] | None = None) -> None:
        self.server = server
        self.http = httpx.AsyncClient(transport=server.transport, base_url=server.base_url, auth=auth)

    async def call(self, method: str, route: str, *, params: Json | None = None, json: Any = None,
                   **path: str) -> Any:
        response = await self.http.request(method, route.format(**path), params=params, json=json)
        return check_response(method, route, response)

    async def answer_everything(self) -> None:
        state = self.server.state
        for _ in range(50):
            await self.server.idle()
            if not (state.permissions or state.questions or state.forms):
                return
            assert not state.questions, "the 2.0 preview asks questions only as forms"
            await self.call("GET", "/api/permission/request")
            await self.call("GET", "/api/form/request")
            for ask in list(state.permissions.values()):
                await self.call("GET", "/api/session/{sessionID}/permission", sessionID=ask["sessionID"])
                await self.call("POST", "/api/session/{sessionID}/permission/{requestID}/reply",
                                json={"reply": "once"}, sessionID=ask["sessionID"], requestID=ask["id"])
            for form in list(state.forms.values()):
                await self.call("GET", "/api/session/{sessionID}/form/{formID}/state",
                                sessionID=form["sessionID"], formID=form["id"])
                await self.call("POST", "/api/session/{sessionID}/form/{formID}/reply",
                                json={"answer": {"q0": "pytest", "q1": ["Lint"]}},
                                sessionID=form["sessionID"], formID=form["id"])
        raise AssertionError("script never finished")

    async def check_reads(self) -> None:
        await self.call("GET", "/api/session")
        await self.call("GET", "/api/session", params={"limit": "1", "parentID": "null"})
        await self.call("GET", "/api/session/active")
        for sid in self.server.state.sessions:
            await self.call("GET", "/api/session/{sessionID}", sessionID=sid)
            await self.call("GET", "/api/session/{sessionID}/pending", sessionID=sid)
            for params in ({}, {"order": "asc"}, {"limit": "2"}):
                await self.call("GET", "/api/session/{sessionID}/message", params=params, sessionID=sid)
            for msg in self.server.state.messages[sid]:
                await self.call("GET", "/api/session/{sessionID}/message/{messageID}",
                                sessionID=sid, messageID=msg["id"])

    async def aclose(self) -> None:
        await self.http.aclose()
        await self.server.aclose()


def check_all_events(server: DemoServer) -> None:
    seqs: dict[str, int] = {}
    for event in server.emitted:
        check_event(event)
        if "durable" in event:  # per-aggregate seq strictly increases
            durable = event["durable"]
            assert durable["seq"] > seqs.get(durable["aggregateID"], -1)
            seqs[durable["aggregateID"]] = durable["seq"]


def test_durable_table_matches_the_build() -> None:
    found = {}
    for name, schema in spec()["components"]["schemas"].items():
        props = schema.get("properties", {}) if isinstance(schema, dict) else {}
        if "durable" in props and "type" in props and name != "session.usage.recorded":
            found[name] = props["durable"]["properties"]["version"]["enum"][0]
    assert found == PREVIEW_DURABLE_VERSIONS


def test_every_route_the_demo_serves_is_a_route_of_the_build() -> None:
    paths = spec()["paths"]
    for method, path in served(PREVIEW):
        if path == "/openapi.json":  # outside /api; the build serves it but does not list it
            continue
        assert path in paths and method.lower() in paths[path], f"{method} {path} is not served by 2.0"


@pytest.mark.parametrize("name", sorted(SCRIPTS))
async def test_script_events_and_answers_match_the_build(name: str) -> None:
    server = DemoServer(speed=0, clock=lambda: 1_700_000_000.0, generation=PREVIEW)
    driver = Driver(server)
    try:
        sid = (await driver.call("POST", "/api/session", json={}))["data"]["id"]
        script = SCRIPTS[name]
        admitted = await driver.call("POST", "/api/session/{sessionID}/prompt", json={"text": script.prompt},
                                     sessionID=sid)
        assert admitted["data"]["data"]["text"] == script.prompt  # SessionPending.User: data, not payload
        await driver.answer_everything()
        await driver.check_reads()
        check_all_events(server)
        types = [e["type"] for e in server.emitted]
        assert "session.status" not in types and "session.idle" not in types  # never sent by 2.0
        assert not any(t.startswith("session.inbox.") for t in types)
        assert types[-1] in ("session.execution.succeeded", "session.execution.failed",
                             "session.execution.interrupted", "session.usage.updated")
    finally:
        await driver.aclose()


async def test_dismissed_question_ends_the_execution_as_shutdown() -> None:
    """TRACES.md 04b: form.cancelled, tool.failed (aborted, dismissed), step.failed (aborted,
    "Step interrupted"), execution.interrupted {reason: shutdown}; no further step."""
    server = DemoServer(speed=0, generation=PREVIEW)
    driver = Driver(server)
    try:
        sid = (await driver.call("POST", "/api/session", json={}))["data"]["id"]
        await driver.call("POST", "/api/session/{sessionID}/prompt",
                          json={"text": SCRIPTS["question"].prompt}, sessionID=sid)
        await server.idle()
        (form,) = server.state.forms.values()
        await driver.call("POST", "/api/session/{sessionID}/form/{formID}/cancel", sessionID=sid,
                          formID=form["id"])
        await server.idle()
        accounting = ("session.usage.updated", "session.renamed")
        tail = [e for e in server.emitted if e["type"] not in accounting][-4:]
        assert [e["type"] for e in tail] == ["form.cancelled", "session.tool.failed", "session.step.failed",
                                            "session.execution.interrupted"]
        assert tail[1]["data"]["error"] == {"type": "aborted", "message": "The user dismissed this question"}
        assert tail[2]["data"]["error"] == {"type": "aborted", "message": "Step interrupted"}
        assert tail[3]["data"]["reason"] == "shutdown"
        assert sum(e["type"] == "session.step.started" for e in server.emitted) == 1
        check_all_events(server)
    finally:
        await driver.aclose()


async def test_subagents_as_the_build_runs_them() -> None:
    """TRACES.md 2: progress names the child at metadata.metadata.sessionID, success flat; a child
    cannot start a subagent; a background child's result is a synthetic input that wakes the parent."""
    server = DemoServer(speed=0, generation=PREVIEW)
    driver = Driver(server)
    try:
        sid = (await driver.call("POST", "/api/session", json={}))["data"]["id"]
        await driver.call("POST", "/api/session/{sessionID}/prompt",
                          json={"text": SCRIPTS["subagents"].prompt}, sessionID=sid)
        await driver.answer_everything()
        await server.idle()
        children = {k for k, v in server.state.sessions.items() if v.get("parentID") == sid}
        progress = [e["data"] for e in server.emitted if e["type"] == "session.tool.progress"
                    and e["data"]["sessionID"] == sid]
        assert {p["metadata"]["metadata"]["sessionID"] for p in progress} == children
        assert not any("sessionID" in p["metadata"] for p in progress)
        successes = [e["data"] for e in server.emitted if e["type"] == "session.tool.success"
                     and e["data"]["sessionID"] == sid]
        assert {s["metadata"]["sessionID"] for s in successes if "sessionID" in s["metadata"]} <= children
        nested = [e["data"] for e in server.emitted if e["type"] == "session.tool.failed"
                  and e["data"]["sessionID"] in children]
        unknown = {"type": "tool.execution", "message": "Unknown tool: subagent"}
        assert any(f["error"] == unknown for f in nested)
        assert not any(v.get("parentID") in children for v in server.state.sessions.values())  # no grandchild
        synthetic = [e["data"] for e in server.emitted if e["type"] == "session.input.admitted"
                     and e["data"]["input"]["type"] == "synthetic"]
        (wake,) = synthetic
        assert wake["sessionID"] == sid and wake["input"]["data"]["metadata"]["source"] == "subagent"
        assert wake["input"]["data"]["metadata"]["childID"] in children
        promoted = [e["data"]["inputID"] for e in server.emitted if e["type"] == "session.input.promoted"]
        assert wake["inputID"] in promoted
        assert not any(e["type"] == "session.synthetic" for e in server.emitted)
        check_all_events(server)
        await driver.check_reads()
    finally:
        await driver.aclose()


async def test_pending_compaction_and_route_answers() -> None:
    server = DemoServer(speed=0, clock=lambda: 1_700_000_000.0, generation=PREVIEW)
    driver = Driver(server)
    try:
        for route in ("/api/health", "/api/model", "/api/model/default", "/api/agent", "/api/command",
                      "/api/skill", "/api/location", "/api/project/current", "/api/server"):
            await driver.call("GET", route)
        health = await driver.call("GET", "/api/health")
        assert health["version"] == "local" and health["pid"] > 0
        sid = (await driver.call("POST", "/api/session", json={}))["data"]["id"]
        # resume false keeps a prompt pending: /pending lists it with ``data``.
        await driver.call("POST", "/api/session/{sessionID}/prompt", sessionID=sid,
                          json={"text": "Write something long.", "resume": False, "delivery": "queue"})
        await driver.call("GET", "/api/session/{sessionID}/pending", sessionID=sid)
        await driver.answer_everything()
        item = await driver.call("POST", "/api/session/{sessionID}/compact", json={}, sessionID=sid)
        assert set(item["data"]) == {"id", "sessionID", "timeCreated", "type"}
        assert item["data"]["type"] == "compaction"
        await server.idle()
        kinds = [e["type"] for e in server.emitted]
        start = kinds.index("session.compaction.admitted")
        assert kinds[start:start + 3] == ["session.compaction.admitted", "session.execution.started",
                                          "session.instructions.updated"]
        assert "session.compaction.ended" in kinds[start:]
        ended = next(e["data"] for e in server.emitted if e["type"] == "session.compaction.ended")
        assert ended["recent"] == "" and ended["reason"] == "manual"
        assert not server.state.inbox[sid]  # a compaction leaves /pending when it starts
        # Errors: the build's bodies.
        await driver.call("POST", "/api/session/{sessionID}/compact", json={"delivery": "queue"},
                          sessionID=sid)  # no delivery in 2.0
        await driver.call("POST", "/api/session/{sessionID}/prompt", sessionID=sid,
                          json={"text": "x", "skills": [{"id": "changelog"}]})  # no skills in 2.0
        await driver.call("GET", "/api/session/{sessionID}", sessionID="ses_missing")
        missing = await driver.http.get("/api/session/ses_missing/pending")
        assert missing.status_code == 404 and missing.json()["_tag"] == "SessionNotFoundError"
        sid2 = server.seed_session("Seeded", history_fixture(6))["id"]
        await driver.call("POST", "/api/session/{sessionID}/agent", json={"agent": "plan"}, sessionID=sid2)
        await driver.call("POST", "/api/session/{sessionID}/rename", json={"title": "x"}, sessionID=sid2)
        await driver.check_reads()
        check_all_events(server)
    finally:
        await driver.aclose()


async def test_unknown_routes_are_empty_404s_and_the_inbox_is_gone() -> None:
    server = DemoServer(speed=0, generation=PREVIEW)
    http = httpx.AsyncClient(transport=server.transport, base_url=server.base_url)
    try:
        sid = (await http.post("/api/session", json={})).json()["data"]["id"]
        for method, path in (("GET", f"/api/session/{sid}/inbox"), ("GET", "/api/no-such-route"),
                             ("DELETE", f"/api/session/{sid}/inbox/msg_x"),
                             ("POST", f"/api/session/{sid}/inbox/msg_x/queue"),
                             ("DELETE", f"/api/session/{sid}/revert")):
            response = await http.request(method, path)
            assert response.status_code == 404 and response.content == b"", (method, path)
        document = (await http.get("/openapi.json")).json()
        assert "/api/session/{sessionID}/pending" in document["paths"]
        assert not any("/inbox" in path for path in document["paths"])
        assert set(document["paths"]) <= set(spec()["paths"])
    finally:
        await http.aclose()
        await server.aclose()


async def test_401_has_an_empty_body_on_every_path() -> None:
    server = DemoServer(speed=0, generation=PREVIEW, password="demo-secret")
    good = Driver(server, auth=("opencode", "demo-secret"))
    bare = httpx.AsyncClient(transport=server.transport, base_url=server.base_url)
    wrong = httpx.AsyncClient(transport=server.transport, base_url=server.base_url,
                              auth=("opencode", "nope"))
    try:
        for client in (bare, wrong):
            for path in ("/api/health", "/api/event", "/openapi.json", "/api/no-such-route"):
                response = await client.get(path)
                assert response.status_code == 401 and response.content == b"", path
                assert response.headers["www-authenticate"] == 'Basic realm="Secure Area"'
        assert (await good.call("GET", "/api/health"))["healthy"] is True
        token = base64.b64encode(b"opencode:demo-secret").decode()
        assert (await bare.get("/api/health", headers={"authorization": f"Basic {token}"})).status_code == 200
    finally:
        await bare.aclose()
        await wrong.aclose()
        await good.aclose()


async def test_stream_frames_and_interrupt_match_the_build() -> None:
    server = DemoServer(speed=0, generation=PREVIEW)
    driver = Driver(server)
    try:
        async with driver.http.stream("GET", "/api/event") as response:
            lines = response.aiter_lines()
            first = json.loads((await anext(lines)).removeprefix("data: "))
            errors = list(_validator("/components/schemas/V2Event.server.connected").iter_errors(first))
            assert not errors
            sid = (await driver.call("POST", "/api/session", json={}))["data"]["id"]
            await driver.call("POST", "/api/session/{sessionID}/prompt", json={"text": "welcome"},
                              sessionID=sid)
            await server.idle()
            await driver.call("POST", "/api/session/{sessionID}/interrupt", sessionID=sid)
            server.drop_connections()
            frames = [json.loads(line.removeprefix("data: ")) async for line in lines
                      if line.startswith("data: ")]
        for event in frames:
            check_event(event)
        failed = [e for e in frames if e["type"] == "session.step.failed"]
        assert failed and failed[-1]["data"]["error"] == {"type": "aborted", "message": "Step interrupted"}
        assert frames[-1]["type"] == "session.execution.interrupted"
        assert frames[-1]["data"]["reason"] == "user"
    finally:
        await driver.aclose()
