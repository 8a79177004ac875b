"""A failed turn names the model and provider, the server's cause and the fix, and is logged.

The frames are the ones the servers really send: 1.18.33 with its provider on a closed port
(recorded from ``opencode serve``; the e2e test ``test_failures_real_server`` checks it live) and
2.x as TRACES.md §6 and §9 record (``provider.no-route`` with no step; a rate limit that is
retried; a mid-stream error chunk).
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tui.client.http import OpenCodeClient
from tui.protocol.dialect import Dialect
from tui.protocol.models import ModelRef, StructuredError
from tui.session.service import SessionService
from tui.state.changes import Change, TurnFailed
from tui.state.store import Store
from tui.state.transcript import Message
from tui.text.failures import FIX, FIX_BUSY, FIX_MEDIA, FIX_MODEL, failure_fix, failure_headline
from tui.text.sanitize import decode_tokens
from widgets.plain import content_runs
from widgets.transcript.message_view import failure_text

SID = "ses_dc36b614dffeyZAj9vEm0XOBwP"
AMID = "msg_23c94a185001zdwkGEpVijkXNd"


def preview_frames() -> list[dict[str, Any]]:
    """1.18.33, provider ``mock`` pointed at a closed port: the whole turn as the stream had it."""
    durable = {"aggregateID": SID, "version": 1}
    return [
        {"id": "evt_1", "type": "session.created", "durable": durable | {"seq": 0},
         "data": {"sessionID": SID, "info": {"id": SID, "title": "New session", "directory": "/p",
                                             "time": {"created": 1, "updated": 1}}}},
        {"id": "evt_2", "type": "session.next.prompted", "durable": durable | {"seq": 2},
         "data": {"timestamp": 2, "sessionID": SID, "messageID": "msg_user",
                  "prompt": {"text": "hello"}, "delivery": "steer"}},
        {"id": "evt_3", "type": "session.next.step.started", "durable": durable | {"seq": 3},
         "data": {"timestamp": 3, "sessionID": SID, "assistantMessageID": AMID, "agent": "build",
                  "model": {"id": "fake-model", "providerID": "mock"}, "snapshot": "7cc2bab"}},
        {"id": "evt_4", "type": "session.next.step.failed", "durable": durable | {"seq": 4, "version": 2},
         "data": {"timestamp": 4, "sessionID": SID, "assistantMessageID": AMID,
                  "error": {"type": "unknown", "message": "HTTP transport failed"}}},
    ]


def v2_no_route_frames() -> list[dict[str, Any]]:
    def frame(n: int, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        return {"id": f"evt_{n}", "created": n, "type": kind,
                "durable": {"aggregateID": "ses_v2", "seq": n, "version": 1},
                "data": {"sessionID": "ses_v2", **data}}

    return [
        frame(1, "session.created", {"info": {"id": "ses_v2", "title": "t"}}),
        frame(2, "session.model.selected", {"model": {"id": "nope", "providerID": "nope"}}),
        frame(3, "session.execution.started", {}),
        frame(4, "session.execution.failed",
              {"error": {"type": "provider.no-route", "message": "Model unavailable: nope/nope"}}),
    ]


def service_for(dialect: Dialect) -> tuple[SessionService, list[Change]]:
    client = OpenCodeClient("http://127.0.0.1:9")  # never contacted: frames are fed by hand
    client.dialect = dialect
    changes: list[Change] = []
    return SessionService(client, Store(), changes.extend, lambda state: None), changes


def failed_message(store: Store, session_id: str) -> Message:
    found = [m for m in store.session(session_id).messages.values() if m.error is not None]
    assert len(found) == 1, found
    return found[0]


def test_preview_provider_unreachable_names_model_cause_and_fix(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="octui")
    ctl, changes = service_for(Dialect.PREVIEW)
    for frame in preview_frames():
        ctl.intake.ingest(frame)
    msg = failed_message(ctl.store, SID)
    shown = failure_text(msg).plain
    assert shown.splitlines() == [
        "✗ model fake-model (provider mock) failed: HTTP transport failed", FIX]
    assert "Ctrl+K" in shown and "opencode auth login" in shown
    assert TurnFailed(SID, AMID) in changes
    logged = [r.getMessage() for r in caplog.records if r.name == "octui"]
    assert logged == [f"turn failed in {SID}: model fake-model (provider mock): "
                      "HTTP transport failed [type unknown]"]


def test_v2_no_route_has_no_step_so_the_selected_model_is_named(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="octui")
    ctl, _ = service_for(Dialect.V2)
    for frame in v2_no_route_frames():
        ctl.intake.ingest(frame)
    msg = failed_message(ctl.store, "ses_v2")
    assert msg.role == "notice"
    assert failure_text(msg).plain.splitlines()[0] == (
        "✗ model nope (provider nope) failed: Model unavailable: nope/nope [provider.no-route]")
    assert any("Model unavailable: nope/nope [type provider.no-route]" in r.getMessage()
               for r in caplog.records)


def test_a_retried_step_says_so_and_offers_no_fix() -> None:
    ctl, _ = service_for(Dialect.V2)
    base = {"sessionID": "ses_r", "assistantMessageID": "msg_a"}
    error = {"type": "provider.invalid-output", "message": "The provider response ended unexpectedly."}
    for n, (kind, data) in enumerate([
        ("session.step.started", base | {"agent": "build", "model": {"id": "m", "providerID": "p"}}),
        ("session.step.failed", base | {"error": error}),
        ("session.retry.scheduled", base | {"attempt": 2, "at": 5, "error": error}),
    ], start=1):
        ctl.intake.ingest({"id": f"evt_{n}", "created": n, "type": kind,
                     "durable": {"aggregateID": "ses_r", "seq": n, "version": 1}, "data": data})
    msg = failed_message(ctl.store, "ses_r")
    assert failure_text(msg).plain == (
        "✗ model m (provider p) failed: The provider response ended unexpectedly. "
        "[provider.invalid-output] — retried")


@pytest.mark.parametrize(("error", "model", "headline"), [
    (StructuredError(type="provider.rate-limit", message="Provider request failed with HTTP 429: slow down"),
     ModelRef(id="gpt", providerID="openai", variant="high"),
     "✗ model gpt#high (provider openai) failed: Provider request failed with HTTP 429: slow down "
     "[provider.rate-limit]"),
    (StructuredError(type="provider.unknown", message="fake mid-stream failure"), None,
     "✗ The turn failed: fake mid-stream failure [provider.unknown]"),
    (StructuredError(type="unknown", message=""), ModelRef(id="x", providerID="y"),
     "✗ model x (provider y) failed: unknown"),
    (StructuredError(type="aborted", message="Step interrupted"), ModelRef(id="x", providerID="y"),
     "✗ Step interrupted [aborted]"),
])
def test_headlines(error: StructuredError, model: ModelRef | None, headline: str) -> None:
    assert failure_headline(error, model) == headline
    assert (failure_fix(error) is None) == (error.type == "aborted")


def test_hostile_server_text_stays_one_inert_line() -> None:
    error = StructuredError(type="unknown", message="bad\x1b]0;pwned\x07\nnext line")
    headline = failure_headline(error, ModelRef(id="m\x1b[31m", providerID="p"))
    assert "\x1b" not in headline and "\n" not in headline


def test_the_failure_line_shows_the_servers_parts_through_plain() -> None:
    """Model, provider, variant and cause are the server's: markup stays text and every hidden
    character is a styled token that decodes back to what the server sent."""
    error = StructuredError(type="provider.unknown", message="[/b] bad\x1b]0;pwned\x07")
    msg = Message(id="msg_f", role="assistant", error=error,
                  model=ModelRef(id="m\u202e", providerID="[@click=app.quit]p[/]", variant="v\x9b"))
    shown = failure_text(msg)
    assert shown.plain.splitlines()[0] == (
        "✗ model m<U+202E>#v<U+009B> (provider [@click=app.quit]p[/]) failed: [/b] bad␛]0;pwned␇ "
        "[provider.unknown]")
    tokens = [piece for piece, token in content_runs(shown) if token]
    assert [decode_tokens(t) for t in tokens] == ["\u202e", "\x9b", "\x1b", "\x07"]


@pytest.mark.parametrize(("error", "fix"), [
    # The recorded 2.x causes (traces-2.0: m09_429_retry_after, 07d_400, the demo's 500).
    (StructuredError(type="provider.rate-limit", message="Provider request failed with HTTP 429: {}"),
     FIX_BUSY),
    (StructuredError(type="provider",
                     message='Provider request failed with HTTP 500: {"error":"upstream overloaded"}'),
     FIX_BUSY),
    (StructuredError(type="unknown", message="Overloaded, try later"), FIX_BUSY),  # 1.18: the words alone
    (StructuredError(type="provider.no-route", message="Model unavailable: nope/nope"), FIX_MODEL),
    (StructuredError(type="provider", message="Provider request failed with HTTP 400: {}"), FIX),
    (StructuredError(type="unknown", message="HTTP transport failed"), FIX),  # unreachable: set up
    (StructuredError(type="provider", message="Provider request failed with HTTP 5000"), FIX),  # no code
    # 1.18.33 with a text file in the session: every later turn fails on it (QA, real server).
    (StructuredError(type="unknown", message="OpenAI Chat does not support media type text/plain"),
     FIX_MEDIA),
])
def test_the_fix_fits_the_cause(error: StructuredError, fix: str) -> None:
    """A busy provider is no setup problem (QA: "upstream overloaded" was told to log in)."""
    assert failure_fix(error) == fix
