"""Undo/redo/commit in the app over the demo server (QA against 1.18.33): a staged undo is settled
before the next prompt, undone messages look undone, the undone prompt comes back with the cursor
at its end and goes again on redo, and F8 redoes from the undo panel too."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.snapshots.main_app import (
    NOW,
    SIZE,
    MainApp,
    frozen,
    main_screen,
    settle,
    type_prompt,
    wait_connected,
    wait_until,
)
from tui.protocol.dialects import Dialect
from tui.screens.revert import RevertScreen
from tui.session.errors import OctuiError
from widgets.composer.composer import Composer
from widgets.transcript.message_view import MessageView

FIRST = "Trigger a provider error, first."
SECOND = "Trigger a provider error, second."


@pytest.fixture(autouse=True)
def frozen_clock() -> Iterator[None]:
    with frozen(NOW):
        yield


async def two_turns_then_undo(pilot: Pilot[Any]) -> RevertScreen:
    """Two finished turns, then F4: the undo panel is open over the staged revert."""
    await wait_connected(pilot)
    for text in (FIRST, SECOND):
        await type_prompt(pilot, text)
        await settle(pilot)
    await pilot.press("f4")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, RevertScreen))
    await pilot.pause(0.2)  # (no settle: the undo's worker waits for the panel)
    screen = pilot.app.screen
    assert isinstance(screen, RevertScreen)
    return screen


def state(app: MainApp) -> Any:
    screen = main_screen(app)
    assert screen.session_id is not None
    return app.store.sessions[screen.session_id]


def composer(app: MainApp) -> Composer:
    return main_screen(app).query_one(Composer)


async def test_undone_messages_are_marked_in_the_transcript() -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await two_turns_then_undo(pilot)
        undone = {m.id for m in state(app).messages.values() if m.reverted}
        assert len(undone) >= 2
        views = {v.message.id: v for v in main_screen(app).query(MessageView)}
        assert {mid for mid, v in views.items() if v.has_class("-reverted")} == undone
        await pilot.press("r")  # redo: the marks go
        await wait_until(pilot, lambda: state(app).info.revert is None)
        await settle(pilot)
        assert not any(v.has_class("-reverted") for v in main_screen(app).query(MessageView))


async def test_undone_prompt_comes_back_with_the_cursor_at_its_end() -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await two_turns_then_undo(pilot)
        box = composer(app)
        assert box.text == SECOND
        assert box.cursor_location == box.document.end


@pytest.mark.parametrize("key", ["f8", "r"])
async def test_redo_from_the_panel_takes_the_prompt_back(key: str) -> None:
    """F8 redoes with the undo panel open (it did nothing), and so does ``r``; either way the
    prompt the undo put in the box goes (one Enter sent it again)."""
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await two_turns_then_undo(pilot)
        assert composer(app).text == SECOND
        await pilot.press(key)
        await wait_until(pilot, lambda: state(app).info.revert is None)
        await settle(pilot)
        assert not isinstance(app.screen, RevertScreen)
        assert composer(app).text == ""


async def test_f8_redo_after_keep_staged_takes_the_prompt_back_unless_edited() -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await two_turns_then_undo(pilot)
        await pilot.press("escape")  # keep staged
        await settle(pilot)
        await pilot.press("f8")
        await wait_until(pilot, lambda: state(app).info.revert is None)
        await settle(pilot)
        assert composer(app).text == ""

        await pilot.press("f4")  # again, and the prompt is edited before the redo: it stays
        await wait_until(pilot, lambda: isinstance(app.screen, RevertScreen))
        await pilot.pause(0.2)
        await pilot.press("escape")
        await settle(pilot)
        box = composer(app)
        box.focus()
        await pilot.press("!")
        assert box.text == SECOND + "!"
        await pilot.press("f8")
        await wait_until(pilot, lambda: state(app).info.revert is None)
        await settle(pilot)
        assert box.text == SECOND + "!"


async def test_a_prompt_after_a_staged_undo_commits_it_first() -> None:
    """The next prompt sent the undone turn to the model, and a later commit deleted the new turn."""
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await two_turns_then_undo(pilot)
        await pilot.press("escape")  # keep staged
        await settle(pilot)
        undone = {m.id for m in state(app).messages.values() if m.reverted}
        await type_prompt(pilot, "Next please, error.")
        await settle(pilot)
        kinds = [e["type"] for e in app.server.emitted]
        assert "session.revert.committed" in kinds
        assert state(app).info.revert is None
        messages = state(app).messages
        assert not undone & set(messages)
        assert not any(m.reverted for m in messages.values())
        assert any(m.role == "user" and m.text == "Next please, error." for m in messages.values())
        assert any("undo committed" in n.message for n in app._notifications)


async def test_a_prompt_is_not_sent_when_the_staged_undo_cannot_be_committed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await two_turns_then_undo(pilot)
        await pilot.press("escape")
        await settle(pilot)
        before = len(state(app).messages)

        async def refuse(session_id: str) -> None:
            raise OctuiError("the session is busy")

        monkeypatch.setattr(app.session, "revert_commit", refuse)
        await type_prompt(pilot, "Next please, error.")
        await settle(pilot)
        assert composer(app).text == "Next please, error."
        assert len(state(app).messages) == before and state(app).info.revert is not None
        assert any("Not sent" in n.message and "undo" in n.message for n in app._notifications)


async def test_undo_leaves_the_box_alone_when_the_server_keeps_the_prompt(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """1.18.33 keeps the staged prompt on commit (DIALECTS.md §7): it was put back in the box too,
    and sending it gave the model the same prompt twice."""
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        client = app.session.client
        stage = client.revert_stage

        async def stage_keeping_the_boundary(session_id: str, message_id: str) -> dict[str, Any]:
            return Dialect.PREVIEW.revert_state(await stage(session_id, message_id))

        monkeypatch.setattr(client, "revert_stage", stage_keeping_the_boundary)
        for text in (FIRST, SECOND):
            await type_prompt(pilot, text)
            await settle(pilot)
        await pilot.press("f4")
        await wait_until(pilot, lambda: isinstance(app.screen, RevertScreen))
        await pilot.pause(0.2)
        assert composer(app).text == ""
