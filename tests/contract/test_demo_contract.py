"""The demo server must speak the wire format of the pinned v2 openapi.json, event by event.

Every script runs at speed 0 (asks answered over REST); every emitted event is validated against
``components.schemas[<type>]``, and REST answers against their route's response schema.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from tests.specs import V2_OPENAPI, load_json
from tui.demo import DURABLE_VERSIONS, SCRIPTS, DemoServer, history_fixture
from tui.protocol.events import parse_event

Json = dict[str, Any]


def spec() -> Json:
    """The pinned v2 document the demo claims to speak (vendored: tests/fixtures/specs)."""
    return load_json(V2_OPENAPI)


@cache
def _validator(pointer: str) -> Draft202012Validator:
    """A validator for the schema at ``pointer``; refs resolve inside the same document."""
    node: Any = spec()
    for part in pointer.strip("/").split("/"):  # KeyError here = the spec has no such schema
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return Draft202012Validator({"$ref": "#" + pointer, "components": spec()["components"],
                                 "paths": spec()["paths"]})


def check_schema(name: str, instance: Any) -> None:
    errors = sorted(_validator(f"/components/schemas/{name}").iter_errors(instance), key=str)
    assert not errors, f"{name}: {errors[0].message} at {list(errors[0].absolute_path)}\n{instance}"


def check_response(method: str, route: str, response: httpx.Response) -> Any:
    """Validate a response body against ``paths[route][method].responses[status]``."""
    escaped = route.replace("~", "~0").replace("/", "~1")
    pointer = f"/paths/{escaped}/{method.lower()}/responses/{response.status_code}"
    responses = spec()["paths"][route][method.lower()]["responses"]
    assert str(response.status_code) in responses, f"{method} {route}: undeclared {response.status_code}"
    if response.status_code == 204:
        assert response.content == b""
        return None
    body = response.json()
    validator = _validator(pointer + "/content/application~1json/schema")
    errors = sorted(validator.iter_errors(body), key=str)
    assert not errors, f"{method} {route}: {errors[0].message} at {list(errors[0].absolute_path)}"
    return body


class Driver:
    """A client that checks every answer it gets against the spec."""

    def __init__(self, server: DemoServer) -> None:
        self.server = server
        self.http = httpx.AsyncClient(transport=server.transport, base_url=server.base_url)

    async def call(self, method: str, route: str, *, params: Json | None = None, json: Any = None,
                   **path: str) -> Any:
        url = route.format(**path)
        response = await self.http.request(method, url, params=params, json=json)
        return check_response(method, route, response)

    async def answer_everything(self) -> None:
        """Answer asks until the scripts finish, validating the pending lists on the way."""
        state = self.server.state
        for _ in range(50):
            await self.server.idle()
            if not (state.permissions or state.questions or state.forms):
                return
            await self.check_pending()
            for ask in list(state.permissions.values()):
                await self.call("POST", "/api/session/{sessionID}/permission/{requestID}/reply",
                                json={"reply": "once"}, sessionID=ask["sessionID"], requestID=ask["id"])
            for ask in list(state.questions.values()):
                await self.call("POST", "/api/session/{sessionID}/question/{requestID}/reply",
                                json={"answers": [["pytest"], ["Lint", "Tests"]]},
                                sessionID=ask["sessionID"], requestID=ask["id"])
            for form in list(state.forms.values()):
                await self.call("GET", "/api/session/{sessionID}/form/{formID}/state",
                                sessionID=form["sessionID"], formID=form["id"])
                await self.call("POST", "/api/session/{sessionID}/form/{formID}/reply",
                                json={"answer": {"q0": "pytest", "q1": ["Lint"]}},
                                sessionID=form["sessionID"], formID=form["id"])
        raise AssertionError("script never finished")

    async def check_pending(self) -> None:
        lists = (await self.call("GET", "/api/permission/request"),
                 await self.call("GET", "/api/question/request"),
                 await self.call("GET", "/api/form/request"))
        assert any(body["data"] for body in lists)
        for sid in self.server.state.sessions:
            for kind in ("permission", "question", "form"):
                await self.call("GET", f"/api/session/{{sessionID}}/{kind}", sessionID=sid)
        await self.call("GET", "/api/session/active")

    async def check_reads(self) -> None:
        await self.call("GET", "/api/session")
        await self.call("GET", "/api/session", params={"limit": "1", "parentID": "null"})
        for sid in self.server.state.sessions:
            await self.call("GET", "/api/session/{sessionID}", sessionID=sid)
            await self.call("GET", "/api/session/{sessionID}/inbox", sessionID=sid)
            for params in ({}, {"order": "asc"}, {"limit": "2"}):
                body = await self.call("GET", "/api/session/{sessionID}/message", params=params,
                                       sessionID=sid)
            for msg in self.server.state.messages[sid]:
                await self.call("GET", "/api/session/{sessionID}/message/{messageID}",
                                sessionID=sid, messageID=msg["id"])
        assert body is not None


async def run_script(name: str) -> tuple[DemoServer, Driver]:
    server = DemoServer(speed=0, clock=lambda: 1_700_000_000.0)
    driver = Driver(server)
    sid = (await driver.call("POST", "/api/session", json={}))["data"]["id"]
    script = SCRIPTS[name]
    inbox = await driver.call("POST", "/api/session/{sessionID}/prompt", json={"text": script.prompt},
                              sessionID=sid)
    assert inbox["data"]["payload"]["text"] == script.prompt
    await driver.answer_everything()
    return server, driver


@pytest.mark.parametrize("name", sorted(SCRIPTS))
async def test_script_events_match_the_spec(name: str) -> None:
    server, driver = await run_script(name)
    try:
        await driver.check_reads()
        assert server.emitted and server.emitted[-1]["type"] == "session.idle"
        schemas = spec()["components"]["schemas"]
        seqs: dict[str, int] = {}
        for event in server.emitted:
            assert event["type"] in schemas, f"{event['type']} is not a v2 event type"
            check_schema(event["type"], event)
            parsed = parse_event(event)
            assert not parsed.is_unknown, parsed.payload
            if "durable" in event:  # per-aggregate seq strictly increases
                durable = event["durable"]
                assert durable["seq"] > seqs.get(durable["aggregateID"], -1)
                seqs[durable["aggregateID"]] = durable["seq"]
    finally:
        await driver.http.aclose()
        await server.aclose()


def test_durable_table_matches_the_spec() -> None:
    found = {}
    for name, schema in spec()["components"]["schemas"].items():
        props = schema.get("properties", {}) if isinstance(schema, dict) else {}
        if "durable" in props and "type" in props and name != "session.usage.recorded":
            found[name] = props["durable"]["properties"]["version"]["enum"][0]
    assert found == DURABLE_VERSIONS


async def test_stream_frames_and_interrupt_match_the_spec() -> None:
    server = DemoServer(speed=0)
    driver = Driver(server)
    try:
        async with driver.http.stream("GET", "/api/event") as response:
            lines = response.aiter_lines()
            first = json.loads((await anext(lines)).removeprefix("data: "))
            check_schema("V2Event.server.connected", first)
            sid = (await driver.call("POST", "/api/session", json={}))["data"]["id"]
            await driver.call("POST", "/api/session/{sessionID}/prompt", json={"text": "welcome"},
                              sessionID=sid)
            await server.idle()
            await driver.check_pending()
            await driver.call("POST", "/api/session/{sessionID}/interrupt", sessionID=sid)
            server.drop_connections()
            frames = [line async for line in lines if line.startswith("data: ")]
        for frame in frames:
            event = json.loads(frame.removeprefix("data: "))
            check_schema(event["type"], event)
        assert json.loads(frames[-1].removeprefix("data: "))["type"] == "session.idle"
    finally:
        await driver.http.aclose()
        await server.aclose()


async def test_other_rest_answers_match_the_spec() -> None:
    server = DemoServer(speed=0)
    driver = Driver(server)
    try:
        for route in ("/api/health", "/api/model", "/api/model/default", "/api/agent", "/api/command",
                      "/api/skill", "/api/location", "/api/project/current", "/api/server"):
            await driver.call("GET", route)
        await driver.call("GET", "/api/fs/find", params={"query": "greet"})
        sid = server.seed_session("Seeded", history_fixture(40))["id"]
        await driver.check_reads()
        await driver.call("POST", "/api/session/{sessionID}/agent", json={"agent": "plan"}, sessionID=sid)
        await driver.call("POST", "/api/session/{sessionID}/model",
                          json={"model": {"id": "scripted-mini", "providerID": "demo"}}, sessionID=sid)
        await driver.call("POST", "/api/session/{sessionID}/rename", json={"title": "x"}, sessionID=sid)
        await driver.call("GET", "/api/session/{sessionID}/message", sessionID=sid)
        await driver.call("GET", "/api/session/{sessionID}", sessionID="ses_missing")
        await driver.call("GET", "/api/session/{sessionID}", sessionID="bad")
        await driver.call("POST", "/api/session/{sessionID}/prompt", json={"nope": 1}, sessionID=sid)
        await driver.call("GET", "/api/session/{sessionID}/message/{messageID}", sessionID=sid,
                          messageID="msg_missing")
        await driver.call("GET", "/api/session", params={"cursor": "garbage"})
        await driver.call("DELETE", "/api/session/{sessionID}", sessionID=sid)
        for event in server.emitted:
            check_schema(event["type"], event)
    finally:
        await driver.http.aclose()
        await server.aclose()


PNG_1PX = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC")


async def test_skill_compaction_and_attachment_answers_match_the_spec() -> None:
    """The routes and events behind skills, ``/compact`` and inline file attachments."""
    server = DemoServer(speed=0, clock=lambda: 1_700_000_000.0)
    driver = Driver(server)
    try:
        skills = (await driver.call("GET", "/api/skill"))["data"]
        assert {k["id"] for k in skills} >= {"changelog", "style-guide"}
        sid = (await driver.call("POST", "/api/session", json={}))["data"]["id"]
        # Nothing to summarise yet: the compaction fails (and says why).
        item = await driver.call("POST", "/api/session/{sessionID}/compact", json={}, sessionID=sid)
        assert item["data"]["type"] == "compaction"
        await server.idle()
        # A bare skill activation runs a turn; a prompt may carry a skill and an inline image.
        await driver.call("POST", "/api/session/{sessionID}/skill", json={"skill": "changelog"},
                          sessionID=sid)
        await server.idle()
        body = {"text": "/release-notes for v2 look", "skills": [
            {"id": "release-notes", "mention": {"start": 0, "end": 14, "text": "/release-notes"}}],
            "files": [{"uri": f"data:image/png;base64,{PNG_1PX}", "name": "dot.png"},
                      {"uri": "file:///home/demo/project/README.md", "name": "README.md"}]}
        admitted = await driver.call("POST", "/api/session/{sessionID}/prompt", json=body, sessionID=sid)
        payload = admitted["data"]["payload"]
        assert payload["skills"][0]["name"] == "release-notes" and payload["skills"][0]["text"]
        assert payload["files"][0] == {"data": PNG_1PX, "mime": "image/png", "source": {"type": "inline"},
                                       "name": "dot.png"}
        assert payload["files"][1]["source"] == {"type": "uri", "uri": "file:///home/demo/project/README.md"}
        await driver.answer_everything()
        await driver.call("POST", "/api/session/{sessionID}/compact", json={"delivery": "queue"},
                          sessionID=sid)
        await server.idle()
        await driver.check_reads()
        kinds = [m["type"] for m in server.state.messages[sid]]
        assert kinds.count("compaction") == 2 and "skill" in kinds
        failed, done = [m for m in server.state.messages[sid] if m["type"] == "compaction"]
        assert failed["status"] == "failed" and done["status"] == "completed" and done["summary"]
        # Errors: unknown skill (route and prompt), bad data URL.
        await driver.call("POST", "/api/session/{sessionID}/skill", json={"skill": "nope"}, sessionID=sid)
        await driver.call("POST", "/api/session/{sessionID}/prompt", sessionID=sid,
                          json={"text": "x", "skills": [{"id": "nope"}]})
        await driver.call("POST", "/api/session/{sessionID}/prompt", sessionID=sid,
                          json={"text": "x", "files": [{"uri": "data:image/png;base64,@@"}]})
        await driver.call("POST", "/api/session/{sessionID}/compact", json={"id": "bad"}, sessionID=sid)
        types = [e["type"] for e in server.emitted]
        for name in ("session.skill.activated", "session.compaction.started", "session.compaction.delta",
                     "session.compaction.ended", "session.compaction.failed"):
            assert name in types
        for event in server.emitted:
            check_schema(event["type"], event)
            assert not parse_event(event).is_unknown
    finally:
        await driver.http.aclose()
        await server.aclose()
