"""Approvals and questions (issue "Approvals and questions") through the headless app.

Every test opens a fresh session of the session-scoped real server in the app, sends a tagged
prompt from the composer and answers the dialog with the keys a user would press.

Rule leaks: the server config asks for the shell tool (1.18 ``bash``, 2.x ``shell``) and ``edit``.
A shell ``always`` saves a project-wide rule for the rest of the server's run: 1.18 the exact
command (REAL-SERVER.md gotcha 10), 2.x a pattern of its first word (``echo *``, TRACES.md 7). So
the ``always`` test runs a program no other test runs, and on 2.x deletes the rule it made
(``DELETE /api/permission/saved/{id}``); no test here replies ``always`` to an ``edit`` ask (that
would save ``*`` and silence every later edit ask), so no restart is needed.

Tool names are the server's (the fake LLM fits ``bash`` to ``shell``): ``wire.shell_tool``.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from tests.e2e.fake_llm import FakeLLM
from tests.e2e.server import EventRecorder, RealServer
from tests.e2e.ui_helpers import (
    CuttableTransport,
    running_app,
    screen_text,
    session_texts,
    submit_prompt,
    to_thread,
    tool_call,
    tool_row,
    wait_for_screen,
    wait_until,
    widget_text,
)
from tui.app.app import OctuiApp
from tui.protocol.models import PermissionRequest, QuestionRequest
from tui.screens.inbox import InboxScreen
from tui.screens.main import MainScreen
from tui.screens.permission import REJECT_PLACEHOLDER, REJECT_PLACEHOLDER_DROPPED, PermissionScreen
from tui.screens.question import QuestionScreen
from tui.state.transcript import ToolCall
from tui.text.tools import exit_code
from widgets.status.status_bar import StatusBar
from widgets.tools.tool_header import ToolHeader


def _unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def _bash(command: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}


def _of(sid: str) -> Any:
    return lambda data: data.get("sessionID") == sid


async def _finished(pilot: Pilot[Any], app: OctuiApp, sid: str, name: str, index: int = 0) -> ToolCall:
    return await wait_until(
        pilot,
        lambda: (call := tool_call(app, sid, name, index)) is not None and call.finished and call or None,
        f"{name} call #{index} to finish",
    )


async def _permission(pilot: Pilot[Any], sid: str) -> PermissionScreen:
    dialog = await wait_for_screen(pilot, PermissionScreen)
    assert dialog.ask.sessionID == sid
    return dialog


async def _dialog_closed(pilot: Pilot[Any], dialog: Any = None) -> None:
    """The dialog is gone (the next ask may already have opened its own dialog)."""
    def closed() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, MainScreen) or (dialog is not None and screen is not dialog)

    await wait_until(pilot, closed, "the dialog to close")


async def _settled(pilot: Pilot[Any], app: OctuiApp, ask_id: str) -> None:
    await wait_until(pilot, lambda: ask_id not in app.store.asks, f"ask {ask_id} settled in the store")


async def _idle(pilot: Pilot[Any], app: OctuiApp, sid: str, timeout: float = 8.0) -> None:
    def idle() -> bool:
        state = app.store.sessions.get(sid)
        return state is not None and not state.busy

    await wait_until(pilot, idle, "the app to see the session idle", timeout)


def _pending_permissions(server: RealServer, sid: str) -> list[dict[str, Any]]:
    with server.client() as http:
        response = http.get(f"/api/session/{sid}/permission")
        response.raise_for_status()
        data: list[dict[str, Any]] = response.json()["data"]
        return data


# ---------------------------------------------------------------------------------- permissions


@pytest.mark.e2e
async def test_bash_ask_once_asks_again_next_time(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder
) -> None:
    w = live_server.wire
    shell = w.shell_tool
    sid = live_server.create_session()["id"]
    command = f"echo once-{uuid.uuid4().hex[:6]}"
    tag = fake_llm.add_scenario(_unique("asks_once"), [_bash(command), _bash(command), {"text": "Twice."}])
    async with running_app(live_server, sid) as (app, pilot):
        await submit_prompt(pilot, f"Run it twice. {tag}")
        seen: list[str] = []
        for index in range(2):
            dialog = await _permission(pilot, sid)
            assert dialog.ask.action == shell and dialog.ask.resources == w.shell_resources(command)
            assert command in screen_text(dialog)
            assert dialog.tool is not None and dialog.tool.name == shell  # joined on the call id
            ask = dialog.ask
            assert ask.id in app.store.asks and ask.id not in seen
            seen.append(ask.id)
            await pilot.press("o")
            await _dialog_closed(pilot, dialog)
            call = await _finished(pilot, app, sid, shell, index)
            assert call.status == "completed" and exit_code(call) == 0
            assert call.output_text.startswith(command.removeprefix("echo "))
            await _settled(pilot, app, ask.id)
        await wait_until(pilot, lambda: "Twice." in session_texts(app, sid), "the text after both tools")
    # "once" saved nothing: the same command asked a second time.
    replies = events.of_type(w.ev("permission.replied"), _of(sid))
    assert [r["data"]["reply"] for r in replies] == ["once", "once"]


@pytest.mark.e2e
async def test_bash_ask_always_then_runs_without_ask(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder
) -> None:
    w = live_server.wire
    shell = w.shell_tool
    sid = live_server.create_session()["id"]
    # A program unique to this test: "always" saves a rule for the project for the server's
    # lifetime (1.18: the command; 2.x: "<first word> *").
    token = uuid.uuid4().hex[:8]
    program = f"always-{token}.sh"
    script = live_server.project_dir / program
    script.write_text(f"#!/bin/sh\necho always-{token} \"$@\"\n")
    script.chmod(0o755)
    command = f"./{program} run"
    steps = [_bash(command), _bash(command), {"text": "Ran twice."}]
    tag = fake_llm.add_scenario(_unique("asks_always"), steps)
    saved_ids: list[str] = []
    try:
        async with running_app(live_server, sid) as (app, pilot):
            await submit_prompt(pilot, f"Run it twice. {tag}")
            dialog = await _permission(pilot, sid)
            patterns = list(dialog.ask.save or [])
            if w.v2:  # TRACES.md 7: one pattern per simple command: its program and a wildcard
                assert dialog.can_always and len(patterns) == 1
                assert program in patterns[0] and patterns[0].endswith(" *") and "echo" not in patterns[0]
            else:
                assert dialog.can_always and patterns == [command]
            assert "Allow always [a]" in screen_text(dialog)
            await pilot.press("a")
            await _dialog_closed(pilot)
            first = await _finished(pilot, app, sid, shell, 0)
            second = await _finished(pilot, app, sid, shell, 1)
            await wait_until(pilot, lambda: "Ran twice." in session_texts(app, sid), "the final text")
            assert first.status == second.status == "completed"
            assert exit_code(second) == 0 and second.output_text.startswith(f"always-{token} run")
            # No second ask: neither a dialog nor anything pending in the app.
            assert isinstance(app.screen, MainScreen)
            assert not app.store.asks_for(sid)
        asked = events.of_type(w.ev("permission.asked"), _of(sid))
        assert len(asked) == 1, [a["data"] for a in asked]
        replies = events.of_type(w.ev("permission.replied"), _of(sid))
        assert [r["data"]["reply"] for r in replies] == ["always"]
        with live_server.client() as http:
            saved = http.get("/api/permission/saved")
        assert saved.status_code == 200
        assert all(pattern in json.dumps(saved.json()) for pattern in patterns)
        if w.v2:  # {data: [{id, projectID, action, resource}]}
            rules = [r for r in saved.json()["data"] if r.get("resource") in patterns]
            assert [r["action"] for r in rules] == [shell]
            saved_ids = [r["id"] for r in rules]
    finally:
        script.unlink(missing_ok=True)
        with live_server.client() as http:  # 2.x can forget a saved rule; then no other test sees it
            for rule_id in saved_ids:
                assert http.delete(f"/api/permission/saved/{rule_id}").status_code == 204


@pytest.mark.e2e
async def test_reject_with_message_fails_tool_and_turn_continues(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder
) -> None:
    sid = live_server.create_session()["id"]
    scenario = _unique("asks_reject_msg")
    tag = fake_llm.add_scenario(scenario, [_bash("touch should-not-exist.txt"), {"text": "Fine, I won't."}])
    async with running_app(live_server, sid) as (app, pilot):
        await submit_prompt(pilot, f"Touch it. {tag}")
        dialog = await _permission(pilot, sid)
        await pilot.press("m")
        box = dialog.query_one("#reject-message", Input)
        assert dialog.has_class("-messaging") and box.has_focus
        caps = app.session.caps
        assert caps is not None
        # What the box says is what the server does with the reason (checked below).
        assert box.placeholder == (REJECT_PLACEHOLDER if caps.reject_message else REJECT_PLACEHOLDER_DROPPED)
        await pilot.press(*"Not in this test")
        assert box.value == "Not in this test"
        await pilot.press("enter")
        await _dialog_closed(pilot)
        call = await _finished(pilot, app, sid, live_server.wire.shell_tool)
        assert call.status == "error"
        # The loop went on to the next LLM step: its text arrives and the turn ends.
        await wait_until(pilot, lambda: "Fine, I won't." in session_texts(app, sid), "the next step's text")
        # The store has the failure before the row's next sync repaints it: wait for the class.
        await wait_until(
            pilot,
            lambda: (row := tool_row(app, call.id)) is not None and row.has_class("-error"),
            "the bash row styled as failed",
        )
        await _idle(pilot, app, sid)
    assert not (live_server.project_dir / "should-not-exist.txt").exists()
    (reply,) = events.of_type(live_server.wire.ev("permission.replied"), _of(sid))
    assert reply["data"]["reply"] == "reject"
    requests = fake_llm.requests_for(scenario)
    assert len(requests) == 2
    # QA: 1.18.33 gave the model "Unable to execute command", never the reason typed; the
    # dialog says so for a server that does not pass it (Capabilities.reject_message).
    assert ("Not in this test" in json.dumps(requests[1]["body"]["messages"])) == caps.reject_message


@pytest.mark.e2e
async def test_reject_without_message_ends_turn_idle(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder
) -> None:
    sid = live_server.create_session()["id"]
    scenario = _unique("asks_reject")
    tag = fake_llm.add_scenario(scenario, [_bash("touch nope.txt"), {"text": "Never sent."}])
    async with running_app(live_server, sid) as (app, pilot):
        await submit_prompt(pilot, f"Touch it. {tag}")
        await _permission(pilot, sid)
        assert app.store.session(sid).busy
        await pilot.press("r")
        await _dialog_closed(pilot)
        w = live_server.wire
        call = await _finished(pilot, app, sid, w.shell_tool)
        assert call.status == "error" and call.error is not None
        if not w.v2:  # 1.18: "Tool execution interrupted" (REAL-SERVER.md 02c)
            assert "interrupted" in call.error.message.lower()
        else:  # 2.x: not recorded without a message; the failure must at least say something
            assert call.error.message.strip()
        # The row says it was refused, not only the server's "interrupted" (QA).
        assert call.rejected
        row = await wait_until(pilot, lambda: tool_row(app, call.id), "the shell row")
        header = row.query_one(ToolHeader)
        await wait_until(pilot, lambda: header.parts.summary.plain == "rejected", "the row to say rejected")
        # 1.18 sends no end event here: the app must learn it from /api/session/active.
        await _idle(pilot, app, sid)

        def status() -> str:
            return widget_text(app.screen_main().query_one(StatusBar))

        # The store is idle first; the status bar repaints on the next (possibly spaced) frame.
        await wait_until(pilot, lambda: "idle" in status() and "busy" not in status(), "an idle status bar")
    assert sid not in live_server.active_sessions()
    (reply,) = events.of_type(w.ev("permission.replied"), _of(sid))
    assert reply["data"]["reply"] == "reject"
    assert not (live_server.project_dir / "nope.txt").exists()
    if not w.v2:
        assert len(fake_llm.requests_for(scenario)) == 1  # no next step
        assert "Never sent." not in json.dumps(events.snapshot())
    else:
        # 2.x was not recorded rejecting without a message (whether the loop goes on is open);
        # the refusal must hold: one ask only, and the session ends idle (asserted above).
        assert len(events.of_type(w.ev("permission.asked"), _of(sid))) == 1


# ---------------------------------------------------------------------------------- questions

QUESTIONS = [
    {
        "question": "Which color do you prefer?",
        "header": "Color",
        "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}],
    },
    {
        "question": "What should I add?",
        "header": "Extras",
        "options": [
            {"label": "Tests", "description": "unit tests"},
            {"label": "Docs", "description": "README section"},
        ],
        "multiple": True,
    },
]


def _ask_questions() -> dict[str, Any]:
    return {"tool_calls": [{"name": "question", "arguments": {"questions": QUESTIONS}}]}


@pytest.mark.e2e
async def test_question_single_and_multi_choice(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder
) -> None:
    sid = live_server.create_session()["id"]
    tag = fake_llm.add_scenario(_unique("asks_question"), [_ask_questions(), {"text": "Blue it is."}])
    async with running_app(live_server, sid) as (app, pilot):
        await submit_prompt(pilot, f"Ask me. {tag}")
        dialog = await wait_for_screen(pilot, QuestionScreen)
        assert isinstance(dialog.ask, QuestionRequest) and dialog.ask.sessionID == sid
        text = screen_text(dialog)
        assert "Which color do you prefer?" in text and "2 questions" in text
        await pilot.press("2", "enter")  # Color: Blue, then on to the next question
        await wait_until(pilot, lambda: dialog.current == 1, "the second question")
        assert "What should I add?" in screen_text(dialog)
        await pilot.press("1", "2", "enter")  # Extras: Tests and Docs, Enter on the last submits
        await _dialog_closed(pilot)
        call = await _finished(pilot, app, sid, "question")
        assert call.status == "completed"
        assert call.metadata.get("answers") == [["Blue"], ["Tests", "Docs"]]
        await wait_until(pilot, lambda: "Blue it is." in session_texts(app, sid), "the text after")
        row = await wait_until(pilot, lambda: tool_row(app, call.id), "the question row")
        header = row.query_one(ToolHeader)
        await wait_until(pilot, lambda: "answered: Blue; Tests, Docs" in header.parts.summary.plain,
                         "the row to show the answers")  # repainted on the next (maybe spaced) frame
    w = live_server.wire
    (replied,) = events.of_type(w.ev("question.replied"), _of(sid))
    if w.v2:  # the question is a form: answers by field, one value or a list (TRACES.md 04_question)
        assert replied["data"]["answer"] == {"q0": "Blue", "q1": ["Tests", "Docs"]}
        assert replied["data"]["id"] == dialog.ask.id
    else:
        assert replied["data"]["answers"] == [["Blue"], ["Tests", "Docs"]]


@pytest.mark.e2e
async def test_question_left_with_esc_then_rejected_with_ctrl_r(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder
) -> None:
    sid = live_server.create_session()["id"]
    scenario = _unique("asks_question_reject")
    tag = fake_llm.add_scenario(scenario, [_ask_questions(), {"text": "Never sent."}])
    async with running_app(live_server, sid) as (app, pilot):
        await submit_prompt(pilot, f"Ask me. {tag}")
        dialog = await wait_for_screen(pilot, QuestionScreen)
        ask_id = dialog.ask.id
        # Esc leaves it for later: the server still waits on it, and the inbox opens it again.
        await pilot.press("escape")
        await _dialog_closed(pilot)
        await pilot.pause(0.3)
        assert ask_id in app.store.asks and app.store.sessions[sid].busy
        assert not events.of_type(live_server.wire.ev("question.rejected"), _of(sid))
        await pilot.press("ctrl+b")
        await wait_for_screen(pilot, InboxScreen)
        await pilot.press("enter")
        dialog = await wait_for_screen(pilot, QuestionScreen)
        assert dialog.ask.id == ask_id
        await pilot.press("ctrl+r")
        await _dialog_closed(pilot)
        call = await _finished(pilot, app, sid, "question")
        assert call.status == "error"
        await wait_until(pilot, lambda: ask_id not in app.store.asks, "the question settled")
        row = await wait_until(pilot, lambda: tool_row(app, call.id), "the question row")
        header = row.query_one(ToolHeader)
        # The store settles first; the row repaints on the next (possibly spaced) frame.
        await wait_until(pilot, lambda: "rejected" in header.parts.summary.plain, "the row to say rejected")
        await _idle(pilot, app, sid)  # no end event after a question reject either
    w = live_server.wire
    (rejected,) = events.of_type(w.ev("question.rejected"), _of(sid))
    if w.v2:
        # TRACES.md 04b: the form is cancelled, the tool fails ("dismissed" there), and the turn
        # ends with execution.interrupted (reason "shutdown" there). The words are the server's:
        # the row holds the tool's failure exactly as the server sent it.
        assert rejected["data"]["id"] == ask_id
        (ended,) = events.of_type("session.execution.interrupted", _of(sid))
        assert ended["data"].get("reason"), ended
        failed = [e for e in events.of_type(w.ev("tool.failed"), _of(sid)) if w.call_id(e["data"]) == call.id]
        assert len(failed) == 1 and failed[0]["data"]["error"]["message"].strip()
        assert call.error is not None and call.error.message == failed[0]["data"]["error"]["message"]
    else:
        assert rejected["data"]["requestID"] == ask_id
    assert len(fake_llm.requests_for(scenario)) == 1


# ---------------------------------------------------------------------------------- reconnects


@pytest.mark.e2e
async def test_ask_raised_while_stream_is_cut_is_shown_after_resync(
    live_server: RealServer, fake_llm: FakeLLM
) -> None:
    """The ask is created while the app has no event stream: only the resync can reveal it."""
    sid = live_server.create_session()["id"]
    command = f"echo resync-{uuid.uuid4().hex[:6]}"
    tag = fake_llm.add_scenario(_unique("asks_cut_before"), [_bash(command), {"text": "Back again."}])
    transport = CuttableTransport()
    async with running_app(live_server, sid, transport=transport) as (app, pilot):
        assert app.session.is_ready
        # A public knob of EventStream: retry at least every second, so the test stays short.
        app.session.stream.backoff_max = 1.0
        assert transport.cut() == 1
        await wait_until(pilot, lambda: app.stream_state.phase == "reconnecting", "the app to notice the cut")
        generation = app.stream_state.generation
        # The prompt goes over plain HTTP (only the event stream is down).
        await submit_prompt(pilot, f"Run it. {tag}")

        def server_pending() -> list[dict[str, Any]]:
            return _pending_permissions(live_server, sid)

        pending: list[dict[str, Any]] = []
        for _ in range(100):  # bounded: ~10 s
            pending = await to_thread(server_pending)
            if pending:
                break
            await pilot.pause(0.1)
        assert len(pending) == 1, "the server never raised the ask"
        ask_id = pending[0]["id"]
        await pilot.pause(0.3)
        assert ask_id not in app.store.asks and isinstance(app.screen, MainScreen)  # really cut off

        transport.restore()
        await wait_until(
            pilot,
            lambda: app.stream_state.phase == "connected" and app.stream_state.generation > generation,
            "the stream to reconnect",
        )
        dialog = await _permission(pilot, sid)
        assert dialog.ask.id == ask_id and isinstance(app.store.asks[ask_id], PermissionRequest)
        await pilot.press("o")
        await _dialog_closed(pilot)
        call = await _finished(pilot, app, sid, live_server.wire.shell_tool)
        assert call.status == "completed" and exit_code(call) == 0
        await wait_until(pilot, lambda: "Back again." in session_texts(app, sid), "the text after")
        assert ask_id not in app.store.asks


@pytest.mark.e2e
async def test_open_dialog_survives_stream_cut_and_still_answers(
    live_server: RealServer, fake_llm: FakeLLM
) -> None:
    sid = live_server.create_session()["id"]
    command = f"echo survive-{uuid.uuid4().hex[:6]}"
    tag = fake_llm.add_scenario(_unique("asks_cut_during"), [_bash(command), {"text": "Survived."}])
    transport = CuttableTransport()
    async with running_app(live_server, sid, transport=transport) as (app, pilot):
        await submit_prompt(pilot, f"Run it. {tag}")
        dialog = await _permission(pilot, sid)
        ask_id = dialog.ask.id
        generation = app.stream_state.generation
        assert transport.cut() == 1
        await wait_until(pilot, lambda: app.stream_state.phase == "reconnecting", "the app to notice the cut")
        transport.restore()
        await wait_until(
            pilot,
            lambda: app.stream_state.phase == "connected" and app.stream_state.generation > generation,
            "the stream to reconnect",
        )
        await wait_until(pilot, lambda: not app.session.is_ready or not app.session.intake.resyncing,
                         "the resync")
        await pilot.pause(0.2)
        # Still pending after the resync, the same dialog still up for it.
        assert ask_id in app.store.asks
        assert app.screen is dialog
        await pilot.press("o")
        await _dialog_closed(pilot)
        call = await _finished(pilot, app, sid, live_server.wire.shell_tool)
        assert call.status == "completed" and exit_code(call) == 0
        await wait_until(pilot, lambda: "Survived." in session_texts(app, sid), "the text after")
    assert transport.event_connects >= 2


def test_cuttable_transport_refuses_event_stream_only() -> None:
    """The cut is what the tests above rely on: event connections refused, nothing else."""
    transport = CuttableTransport()
    transport.cut()
    request = httpx.Request("GET", "http://127.0.0.1:9/api/event")
    with pytest.raises(httpx.ConnectError):
        asyncio.run(transport.handle_async_request(request))
