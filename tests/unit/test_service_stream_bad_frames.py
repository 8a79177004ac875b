"""The bad-input corpus (tests/fixtures/bad/) through the REAL path: ``EventStream`` (bytes, SSE
framing, JSON) → ``StreamIntake._on_frame`` → ``Store``, with ``/api/event`` served by an
``httpx.MockTransport``.

For every case: nothing escapes (no handler failure, no crash), every frame that is a valid event on
its own is applied exactly as applying it directly to a fresh store would, and each bad frame gives
exactly one concise warning in the log (``LogLine``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest

from tui.client.http import OpenCodeClient
from tui.client.stream import SSEParser, StreamState
from tui.protocol.dialect import Dialect, Normaliser
from tui.protocol.events import ProtocolError, parse_event
from tui.session.service import SessionService
from tui.state.changes import Change, LogLine
from tui.state.store import Store

BAD = Path(__file__).resolve().parents[1] / "fixtures" / "bad"
CASES: list[dict[str, Any]] = json.loads((BAD / "cases.json").read_text(encoding="utf-8"))["cases"]
CONNECTED = b'data: {"id":"evt_0","type":"server.connected","data":{}}\n\n'
WARNING_MAX = 300


def stream_body(case: dict[str, Any]) -> bytes:
    raw = (BAD / case["file"]).read_bytes()
    if case["kind"] == "frame":
        lines = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        return CONNECTED + b"".join(b"data: " + line + b"\n" for line in lines) + b"\n"
    return CONNECTED + raw


def expected(body: bytes) -> tuple[Store, int]:
    """Reference: each data payload parsed on its own and applied to a fresh store; bad ones counted."""
    store, bad = Store(), 0
    normaliser = Normaliser()
    items = SSEParser().feed(body)
    for kind, payload in items:
        if kind != "data":
            bad += kind == "oversize"
            continue
        try:
            obj = json.loads(payload)
        except (ValueError, RecursionError):
            bad += 1
            continue
        if not isinstance(obj, dict):
            bad += 1
            continue
        try:
            out = normaliser.event(obj)
            if out is None:
                continue
            event = parse_event(out)
        except (ProtocolError, RecursionError):
            bad += 1
            continue
        store.apply(event)
    return store, bad


def snapshot(store: Store) -> str:
    return repr(({sid: repr(store.sessions[sid]) for sid in sorted(store.sessions)}, sorted(store.asks)))


async def run_controller(body: bytes) -> tuple[SessionService, list[Change]]:
    async def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/event":
            return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)
        return httpx.Response(404, json={"message": "not here"})

    client = OpenCodeClient("http://127.0.0.1:9", transport=httpx.MockTransport(handler))
    client.dialect = Dialect.PREVIEW  # like the reference pipeline: every frame is normalised
    changes: list[Change] = []
    states: list[StreamState] = []
    service = SessionService(client, Store(), changes.extend, states.append, heartbeat_timeout=5.0)
    service.stream.backoff_initial = service.stream.backoff_max = 60.0  # one connection only

    async def one_pass() -> None:
        while not any(s.phase == "reconnecting" for s in states):
            await asyncio.sleep(0.005)

    task = asyncio.create_task(service.run())
    try:
        await asyncio.wait_for(one_pass(), 10.0)
        while service.intake.resyncing:  # bounded by the resync's own (failing, fast) HTTP calls
            await asyncio.sleep(0.005)
    finally:
        service.stop()
        await asyncio.wait_for(task, 5.0)
        await client.aclose()
    return service, changes


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
async def test_bad_case_through_controller(case: dict[str, Any], caplog: pytest.LogCaptureFixture) -> None:
    body = stream_body(case)
    caplog.set_level(logging.WARNING)
    service, changes = await run_controller(body)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not errors, [r.getMessage() for r in errors]
    logs = [c.text for c in changes if isinstance(c, LogLine)]
    logs = [text for text in logs if not text.startswith(("resync failed", "could not load pending"))]
    assert not any(text.startswith("event handler failed") for text in logs), logs
    reference, bad = expected(body)
    assert snapshot(service.store) == snapshot(reference), "valid frames applied, as on their own"
    assert len(logs) == bad, logs
    for text in logs:
        assert text and "\n" not in text and len(text) <= WARNING_MAX, text


async def test_a_bad_frame_between_good_ones_loses_nothing() -> None:
    good = (BAD / "088_escapes_text_delta.json").read_bytes()
    body = CONNECTED + b"".join(
        b"data: " + chunk + b"\n\n" for chunk in [good, b"{not json", good, b"[1,2]", b"\xff\xfe", good]
    )
    service, changes = await run_controller(body)
    logs = [c.text for c in changes if isinstance(c, LogLine) and not c.text.startswith(
        ("resync failed", "could not load pending"))]
    assert len(logs) == 3
    reference, bad = expected(body)
    assert bad == 3 and snapshot(service.store) == snapshot(reference)
    assert service.store.sessions, "the good deltas were applied"
