"""Which server generation is this? Decided from recorded evidence alone (``tui.protocol.dialects.detect``):
start-up lines, health bodies, the served OpenAPI documents, event names, a 404 with an empty body.
Never from a version string."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tui.protocol.dialects import GENERATIONS, Dialect, detect, route_key

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SAMPLES_20 = FIXTURES / "traces-2.0" / "samples"


def load(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


# -- start-up lines -----------------------------------------------------------------------------
LINE_118 = "opencode server listening on http://127.0.0.1:44695"  # traces-1.18 run_summary stdout
LINE_2X = "server listening on http://127.0.0.1:38211"  # traces-2.0 README: no "opencode " prefix


def test_startup_line_of_each_family() -> None:
    assert detect.from_startup_line(LINE_118) is Dialect.PREVIEW
    found = detect.from_startup_line(LINE_2X)
    assert found is not None and found.family == "2.x"
    assert detect.startup_url(LINE_118) == "http://127.0.0.1:44695"
    assert detect.startup_url(LINE_2X) == "http://127.0.0.1:38211"


@pytest.mark.parametrize("line", [
    "\x1b[32mserver listening on http://127.0.0.1:4096\x1b[0m",
    "INFO 2026-08-07T10:00:00 server listening on http://127.0.0.1:4096",
    "server listening on http://127.0.0.1:4096\r",
])
def test_startup_line_with_colour_or_a_log_prefix(line: str) -> None:
    assert detect.startup_url(line) == "http://127.0.0.1:4096"
    found = detect.from_startup_line(line)
    assert found is not None and found.family == "2.x"


@pytest.mark.parametrize("line", ["", "opencode 2.0 preview", "listening on http://x", "server listening"])
def test_other_lines_are_no_startup_line(line: str) -> None:
    assert detect.from_startup_line(line) is None and detect.startup_url(line) is None


# -- health bodies ------------------------------------------------------------------------------
def test_recorded_health_bodies() -> None:
    body_118 = load(FIXTURES / "traces" / "samples" / "rest_samples.health.json")["health"]["body"]
    body_20 = load(SAMPLES_20 / "rest_probes.health.json")["/api/health"]["body"]
    assert detect.from_health(body_118) is Dialect.PREVIEW
    assert detect.from_health(body_20).family == "2.x"
    assert body_20["version"] == "local"  # a source build: nothing to compare


def test_a_version_string_decides_nothing() -> None:
    assert detect.from_health({"healthy": True, "version": "1.18.33", "pid": 1}).family == "2.x"
    assert detect.from_health({"healthy": True, "version": "9.9.9"}).family == "2.x"


# -- the served OpenAPI documents ---------------------------------------------------------------
def test_served_spec_of_each_generation() -> None:
    assert detect.from_spec(load(SAMPLES_20 / "more_server_openapi.json")) is Dialect.V2_0_PREVIEW
    assert detect.from_spec(load(FIXTURES / "specs" / "pinned-v2.routes.json")) is Dialect.V2
    assert detect.from_spec(load(FIXTURES / "specs" / "preview-1.18.routes.json")) is Dialect.PREVIEW


@pytest.mark.parametrize("doc", [None, [], {}, {"paths": []}, {"paths": {"/api/health": {}}}, "<html>"])
def test_a_document_that_says_nothing(doc: Any) -> None:
    assert detect.from_spec(doc) is None


def test_a_server_with_both_pending_routes_is_the_newer() -> None:
    doc: dict[str, Any] = {"paths": {"/api/session/{sessionID}/pending": {}, "/api/session/{id}/inbox": {}}}
    assert detect.from_spec(doc) is Dialect.V2


def test_route_keys_ignore_parameter_names() -> None:
    assert route_key("/api/session/:sessionID/pending") == route_key("/api/session/{id}/pending/")
    assert route_key("/api/shell/{id}/output?cursor=3") == "/api/shell/{}/output"


# -- event names --------------------------------------------------------------------------------
def _types(path: Path) -> set[str]:
    out = set()
    for line in path.read_text("utf-8").splitlines():
        frame = json.loads(line).get("data")
        if isinstance(frame, dict) and isinstance(frame.get("type"), str):
            out.add(frame["type"])
    return out


TRACES_20 = sorted((FIXTURES / "traces-2.0" / "traces").glob("*.jsonl"))
TRACES_118 = sorted(p for p in (FIXTURES / "traces").glob("*.jsonl") if p.name.count(".") == 1)


@pytest.mark.parametrize("path", TRACES_20, ids=lambda p: p.name)
def test_2_0_traces_name_only_their_generation(path: Path) -> None:
    named = {detect.from_event_type(t) for t in _types(path)} - {None}
    if path.name == "m11_reconnect_conn2.jsonl":  # joined mid-block: only deltas and endings
        assert named == set()
    else:
        assert named == {Dialect.V2_0_PREVIEW}


@pytest.mark.parametrize("path", TRACES_118, ids=lambda p: p.name)
def test_1_18_traces_name_only_their_generation(path: Path) -> None:
    named = {detect.from_event_type(t) for t in _types(path)} - {None}
    if path.name.startswith("05b_"):  # ran on the legacy /session routes: /api/event heard little
        assert named <= {Dialect.PREVIEW}
    else:
        assert named == {Dialect.PREVIEW}


def test_pinned_only_and_shared_event_names() -> None:
    assert detect.from_event_type("session.inbox.enqueued") is Dialect.V2
    assert detect.from_event_type("session.inbox.delivery.changed") is Dialect.V2
    for shared in ("session.text.delta", "session.step.started", "permission.asked", "server.connected"):
        assert detect.from_event_type(shared) is None


# -- a route's 404 ------------------------------------------------------------------------------
def test_an_empty_404_is_a_missing_route_and_an_entity_404_is_not() -> None:
    assert detect.is_missing_route(404, b"")
    assert detect.is_missing_route(404, None)
    body = b'{"_tag":"SessionNotFoundError","sessionID":"ses_x","message":"Session not found: ses_x"}'
    assert not detect.is_missing_route(404, body)
    assert not detect.is_missing_route(401, b"")


def test_a_missing_pending_route_names_the_other_2x_generation() -> None:
    assert detect.after_missing_pending_route(Dialect.V2) is Dialect.V2_0_PREVIEW
    assert detect.after_missing_pending_route(Dialect.V2_0_PREVIEW) is Dialect.V2
    assert detect.after_missing_pending_route(Dialect.PREVIEW) is None


def test_the_registry() -> None:
    assert GENERATIONS == (Dialect.PREVIEW, Dialect.V2_0_PREVIEW, Dialect.V2)
    assert len({d.name for d in GENERATIONS}) == len(GENERATIONS)
    for family in ("1.18", "2.x"):  # exactly one guess per family
        assert sum(d.family == family and d.family_default for d in GENERATIONS) == 1
    caps = Dialect.V2_0_PREVIEW.caps
    assert caps.pending_route == "pending" and not caps.pending_cancel and not caps.pending_redeliver
    assert not caps.prompt_skills and not caps.compaction_delivery and not caps.interrupt_continue
    assert Dialect.V2.caps.pending_route == "inbox" and Dialect.V2.caps.pending_cancel


async def test_a_start_up_line_hint_survives_connect_and_the_spec_refines_it() -> None:
    import httpx

    from tui.client.http import OpenCodeClient

    served = load(SAMPLES_20 / "more_server_openapi.json")
    health = load(SAMPLES_20 / "rest_probes.health.json")["/api/health"]["body"]

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/health":
            return httpx.Response(200, json=health)
        if request.url.path == "/openapi.json":
            return httpx.Response(200, json=served)
        return httpx.Response(404)

    client = OpenCodeClient("http://127.0.0.1:1", transport=httpx.MockTransport(answer))
    client.hint_startup_line(LINE_118)
    assert client.dialect is Dialect.PREVIEW
    client.hint_startup_line(LINE_2X)
    assert client.dialect.family == "2.x"
    client.hint_startup_line("some other output")
    assert client.dialect.family == "2.x"
    await client.identify()
    assert client.dialect is Dialect.V2_0_PREVIEW
    await client.aclose()


def test_the_2_0_preview_lifts_a_subagent_s_nested_progress_metadata() -> None:
    """traces-2.0 m02: ``tool.progress {metadata: {metadata: {sessionID, status}}}``."""
    frames = Dialect.V2_0_PREVIEW.frames()
    data = {"sessionID": "ses_p", "assistantMessageID": "msg_a", "id": "call_1",
            "metadata": {"metadata": {"sessionID": "ses_child", "status": "running"}}}
    out = frames.event({"type": "session.tool.progress", "data": data})
    assert out is not None and out["data"]["metadata"] == {"sessionID": "ses_child", "status": "running"}
    flat = {**data, "metadata": {"shellID": "sh_1"}}
    assert frames.event({"type": "session.tool.progress", "data": flat}) == {
        "type": "session.tool.progress", "data": flat}
    running = {"status": "running", "input": {}, "metadata": data["metadata"]}
    stored = {"id": "msg_a", "type": "assistant",
              "content": [{"type": "tool", "id": "call_1", "name": "subagent", "state": running}]}
    part = Dialect.V2_0_PREVIEW.message(stored)["content"][0]
    assert part["state"]["metadata"] == {"sessionID": "ses_child", "status": "running"}
