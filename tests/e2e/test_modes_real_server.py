"""Permission modes (issue 9) through the headless app against the real server.

For each mode, a shell and an ``edit`` ask: either octui answers it ``once`` itself (no dialog
ever opens, the call runs, and an "auto-allowed" line is in the transcript and on screen), or the
permission dialog opens and the test answers ``o`` (allow once). Nothing here answers ``always``:
the server is session-scoped and an ``always`` rule would leak into later tests.

Dialogs can only open through ``AskFlow.open``, and replies only go out through
``OpenCodeClient.permission_reply``; the tests record every call to both. The parameter ``bash``
stands for the server's shell tool (1.18 ``bash``, 2.x ``shell``: ``wire.shell_tool``).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.e2e.fake_llm import FakeLLM
from tests.e2e.server import RealServer
from tests.e2e.ui_helpers import (
    running_app,
    screen_text,
    session_texts,
    show_widget,
    submit_prompt,
    tool_call,
    tool_row,
    wait_for_screen,
    wait_until,
    widget_text,
)
from tui.app.app import OctuiApp
from tui.client.http import OpenCodeClient
from tui.screens.mode_confirm import ModeConfirmScreen
from tui.screens.permission import PermissionScreen
from tui.session.auto_approve import notice_key
from tui.state.modes import Mode
from tui.state.transcript import Ask
from widgets.asks.ask_flow import AskFlow
from widgets.status.status_bar import StatusBar

ANSWERS: dict[tuple[Mode, str], bool] = {  # (mode, tool) -> answered by octui
    (Mode.SUPERVISED, "bash"): False,
    (Mode.SUPERVISED, "edit"): False,
    (Mode.AUTO_EDITS, "bash"): False,
    (Mode.AUTO_EDITS, "edit"): True,
    (Mode.FULL, "bash"): True,
    (Mode.FULL, "edit"): True,
}


def _unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


Replies = list[tuple[str, str, str]]


@pytest.fixture
def replies(monkeypatch: pytest.MonkeyPatch) -> Replies:
    """Every permission reply the app sends: (session, request, reply)."""
    sent: Replies = []
    original = OpenCodeClient.permission_reply

    async def recording(self: OpenCodeClient, session_id: str, request_id: str, reply: Any,
                        message: str | None = None) -> None:
        sent.append((session_id, request_id, reply))
        await original(self, session_id, request_id, reply, message)

    monkeypatch.setattr(OpenCodeClient, "permission_reply", recording)
    return sent


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, replies: Replies) -> list[Ask]:
    """A private state dir, and every ask ``AskFlow`` opened a dialog for."""
    monkeypatch.setenv("OCTUI_STATE_DIR", str(tmp_path / "state"))
    seen: list[Ask] = []
    original = AskFlow.open

    def recording(self: AskFlow, ask: Ask, *, by_itself: bool = False) -> None:
        seen.append(ask)
        original(self, ask, by_itself=by_itself)

    monkeypatch.setattr(AskFlow, "open", recording)
    return seen


async def _choose_mode(pilot: Pilot[Any], app: OctuiApp, sid: str, mode: Mode) -> None:
    """Press F2 until ``mode`` is on (confirming full access), as a user would."""
    assert app.session.is_ready
    for _ in range(3):
        if app.session.auto.mode_of(sid) is mode:
            break
        await pilot.press("f2")
        await pilot.pause()
        if mode is Mode.FULL and app.session.auto.mode_of(sid) is Mode.AUTO_EDITS:
            await pilot.press("f2")
            await wait_for_screen(pilot, ModeConfirmScreen)
            await pilot.press("y")
            await wait_until(pilot, lambda: not isinstance(app.screen, ModeConfirmScreen), "confirm closed")
    assert app.session.auto.mode_of(sid) is mode
    shown = app.screen_main().query_one(StatusBar).info.mode
    assert shown == ("" if mode is Mode.SUPERVISED else mode.short)


def _scenario(fake_llm: FakeLLM, project: Path, tool: str) -> tuple[str, str, Path | None]:
    """A one-tool scenario; returns (tag, what the notice names, file the edit changes)."""
    if tool == "bash":
        word = _unique("modes")
        tag = fake_llm.add_scenario(_unique("modes_bash"), [
            {"tool_calls": [{"name": "bash", "arguments": {"command": f"echo {word}"}}]},
            {"text": "Shell done."},
        ])
        return tag, f"echo {word}", None
    name = _unique("modes_edit") + ".txt"
    target = project / name
    target.write_text("alpha\nbeta\n")
    tag = fake_llm.add_scenario(_unique("modes_edit"), [
        {"tool_calls": [{"name": "edit", "arguments": {"path": name, "oldString": "beta",
                                                       "newString": "gamma"}}]},
        {"text": "Edit done."},
    ])
    return tag, name, target


@pytest.mark.e2e
@pytest.mark.parametrize("tool", ["bash", "edit"])
@pytest.mark.parametrize("mode", list(Mode), ids=[m.value for m in Mode])
async def test_mode_answers_or_shows_the_ask(
    live_server: RealServer, fake_llm: FakeLLM, opened: list[Ask], replies: Replies, mode: Mode,
    tool: str,
) -> None:
    sid = live_server.create_session()["id"]
    tag, target, edited = _scenario(fake_llm, live_server.project_dir, tool)
    auto = ANSWERS[(mode, tool)]
    tool = live_server.wire.shell_tool if tool == "bash" else tool  # the name the server uses
    async with running_app(live_server, sid) as (app, pilot):
        await _choose_mode(pilot, app, sid, mode)
        await submit_prompt(pilot, f"Use the tool. {tag}")

        if auto:
            call = await wait_until(
                pilot, lambda: (c := tool_call(app, sid, tool)) is not None and c.finished and c or None,
                f"the {tool} call to finish without the user", 20)
            assert opened == [], "a dialog opened for an ask the mode answers"
            assert not isinstance(app.screen, PermissionScreen)
        else:
            dialog = await wait_for_screen(pilot, PermissionScreen, 20)
            assert dialog.ask.action == tool
            await pilot.press("o")
            call = await wait_until(
                pilot, lambda: (c := tool_call(app, sid, tool)) is not None and c.finished and c or None,
                f"the {tool} call to finish", 20)
            assert [getattr(a, "action", None) for a in opened] == [tool]

        assert call.status == "completed", call.error
        assert [r[2] for r in replies] == ["once"]  # by octui or by the user's "o": never always
        done = "Edit done." if tool == "edit" else "Shell done."
        await wait_until(pilot, lambda: done in session_texts(app, sid), "the text after the tool", 20)
        if edited is not None:
            assert edited.read_text() == "alpha\ngamma\n"

        state = app.store.sessions[sid]
        notices = [m for m in state.messages.values() if m.role == "notice" and m.id.startswith("auto:")]
        assert app.session.is_ready
        history = app.session.auto.history_for([sid])
        if auto:
            line = f"auto-allowed: {tool} `{target}`"
            assert [n.text for n in notices] == [line]
            assert [h.text for h in history] == [line]
            ids = list(state.messages)
            assert ids.index(notices[0].id) == ids.index(call.message_id) + 1  # right after its tool
            await wait_until(pilot, lambda: line in screen_text(app.screen), "the notice on screen")
        else:
            assert notices == [] and history == []


@pytest.mark.e2e
async def test_an_overwrite_allowed_by_the_mode_shows_what_it_replaced(
    live_server: RealServer, fake_llm: FakeLLM, opened: list[Ask], replies: Replies
) -> None:
    """QA: in auto-edits an overwrite's row showed only the new content ("+6 −?"), 1.18 sending
    no diff: the file it replaces is read before octui allows it, and the row shows the change
    (a 2.x server's own diff otherwise)."""
    sid = live_server.create_session()["id"]
    name = _unique("modes_write") + ".txt"
    target = live_server.project_dir / name
    target.write_text("keep\nold two\nold three\n")
    tag = fake_llm.add_scenario(_unique("modes_write"), [
        {"tool_calls": [{"name": "write", "arguments": {"filePath": str(target),
                                                         "content": "keep\nnew two\n"}}]},
        {"text": "Write done."},
    ])
    async with running_app(live_server, sid) as (app, pilot):
        await _choose_mode(pilot, app, sid, Mode.AUTO_EDITS)
        await submit_prompt(pilot, f"Write it. {tag}")
        call = await wait_until(
            pilot, lambda: (c := tool_call(app, sid, "write")) is not None and c.finished and c or None,
            "the write to finish without the user", 20)
        assert opened == [] and [r[2] for r in replies] == ["once"]
        assert target.read_text() == "keep\nnew two\n"
        await wait_until(pilot, lambda: "Write done." in session_texts(app, sid), "the text after it", 20)
        row = await wait_until(pilot, lambda: tool_row(app, call.id), "the write's row")
        await show_widget(pilot, row)

        def counted() -> str | None:
            shown = widget_text(row)
            return shown if "+1 −2" in shown else None

        text = await wait_until(pilot, counted, "the row's counts of the change")
        assert "- old two" in text and "- old three" in text and "+ new two" in text, text


@pytest.mark.e2e
async def test_interrupt_rejects_a_pending_ask_in_auto_edits(
    live_server: RealServer, fake_llm: FakeLLM, opened: list[Ask], replies: Replies
) -> None:
    """Auto-accept edits shows the bash ask; Esc (interrupt) rejects it, never answers it once."""
    sid = live_server.create_session()["id"]
    tag, _, _ = _scenario(fake_llm, live_server.project_dir, "bash")
    async with running_app(live_server, sid) as (app, pilot):
        await _choose_mode(pilot, app, sid, Mode.AUTO_EDITS)
        await submit_prompt(pilot, f"Use the tool. {tag}")
        await wait_for_screen(pilot, PermissionScreen, 20)
        await pilot.press("escape")  # leave it in the inbox
        await wait_until(pilot, lambda: not isinstance(app.screen, PermissionScreen), "dialog closed")
        assert [a.id for a in app.store.asks.values()]
        [ask_id] = list(app.store.asks)
        await pilot.press("escape")  # interrupt
        await wait_until(pilot, lambda: not app.store.asks, "the ask to be settled", 20)
        await wait_until(pilot, lambda: not app.store.sessions[sid].busy, "the session to stop", 20)
        assert notice_key(ask_id) not in app.store.sessions[sid].messages
        assert replies == [(sid, ask_id, "reject")]
        call = tool_call(app, sid, live_server.wire.shell_tool)
        assert call is None or call.status != "completed"


@pytest.mark.e2e
async def test_full_access_survives_an_octui_restart(
    live_server: RealServer, fake_llm: FakeLLM, opened: list[Ask], replies: Replies
) -> None:
    sid = live_server.create_session()["id"]
    async with running_app(live_server, sid) as (app, pilot):
        await _choose_mode(pilot, app, sid, Mode.FULL)
    tag, command, _ = _scenario(fake_llm, live_server.project_dir, "bash")
    async with running_app(live_server, sid) as (app, pilot):
        assert app.screen_main().query_one(StatusBar).info.mode == Mode.FULL.short
        await submit_prompt(pilot, f"Use the tool. {tag}")
        await wait_until(pilot, lambda: "Shell done." in session_texts(app, sid), "the turn to finish", 20)
        assert opened == [] and [r[2] for r in replies] == ["once"]
        texts = [m.text for m in app.store.sessions[sid].messages.values() if m.role == "notice"]
        assert f"auto-allowed: {live_server.wire.shell_tool} `{command}`" in texts
