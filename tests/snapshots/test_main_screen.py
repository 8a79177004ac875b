"""Main screen SVG snapshots: the real ``OctuiApp`` over the in-process demo server.

Every scenario is driven to a settled, deterministic point in ``run_before`` (see
``tests.snapshots.main_app``): frozen clocks, counter ids, scripts at speed 0, a steady cursor.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from tests.snapshots.main_app import (
    NOW,
    SIZE,
    MainApp,
    ManualClock,
    frozen,
    main_screen,
    make_demo,
    permission_open,
    settle,
    type_prompt,
    wait_connected,
)
from tui.demo import DemoServer, assistant, reasoning, text, tool, user
from tui.demo.scripts import LS_OUTPUT
from tui.screens.permission import PermissionScreen
from tui.screens.sessions import SessionsScreen
from widgets.transcript.transcript import Transcript

SnapCompare = Callable[..., bool]
MINUTE = 60.0


@pytest.fixture(autouse=True)
def deterministic(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Frozen ``tui.app.clock`` and cursors that never blink (Input and TextArea)."""
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)
    with frozen(NOW):
        yield


def seeded_app(seed: Callable[[DemoServer, ManualClock], str | None]) -> MainApp:
    """A ``MainApp`` whose demo server was seeded first; opens the session ``seed`` returns."""
    demo_clock = ManualClock()
    demo = make_demo(demo_clock)
    session_id = seed(demo, demo_clock)
    demo_clock.set(NOW)
    return MainApp(demo, session_id=session_id, demo_clock=demo_clock)


def short_conversation(demo: DemoServer, demo_clock: ManualClock) -> str:
    demo_clock.set(NOW - 10 * MINUTE)
    info = demo.seed_session("List the sources", [
        user("What is in src/?"),
        assistant(reasoning("Look at the tree first."), text("Let me list the files."),
                  tool("shell", {"command": "ls -la src", "description": "List source files"},
                       [LS_OUTPUT, "Command exited with code 0."],
                       metadata={"status": "completed", "exit": 0, "truncated": False}),
                  finish="tool-calls"),
        assistant(text("`src/` holds **four files** and a `tests/` folder.")),
    ])
    return str(info["id"])


async def open_browser(pilot: Pilot[Any]) -> None:
    await wait_connected(pilot)
    await pilot.press("ctrl+s")
    await settle(pilot)
    assert isinstance(pilot.app.screen, SessionsScreen)


async def welcome_answered(pilot: Pilot[Any]) -> None:
    await permission_open(pilot)
    await pilot.press("o")
    await settle(pilot)
    main_screen(pilot.app).query_one(Transcript).scroll_home(animate=False, immediate=True)
    await pilot.pause()


async def mid_stream(pilot: Pilot[Any]) -> None:
    """A turn caught mid-answer: reasoning done, text started with a few deltas, no end."""
    await wait_connected(pilot)
    app = pilot.app
    assert isinstance(app, MainApp)
    demo, sid = app.server, app.spec.session_id
    assert sid is not None
    session = {"sessionID": sid}
    demo.emit("session.inbox.enqueued", session | {"inboxID": "msg_live_user", "item": {
        "type": "user", "payload": {"text": "Explain the greeting fix."}, "delivery": "steer"}})
    demo.emit("session.inbox.delivered", session | {"inboxID": "msg_live_user"})
    demo.emit("session.execution.started", session)
    demo.emit("session.status", session | {"status": {"type": "busy"}})
    step = session | {"assistantMessageID": "msg_live_answer"}
    demo.emit("session.step.started", step | {"agent": "build",
                                              "model": {"id": "scripted", "providerID": "demo"}})
    block = step | {"ordinal": 0}
    demo.emit("session.reasoning.started", block)
    demo.emit("session.reasoning.delta", block | {"delta": "The fix swaps concatenation "})
    demo.emit("session.reasoning.ended", block | {"text": "The fix swaps concatenation for an f-string."})
    demo.emit("session.text.started", block)
    for delta in ("The old code ", "built the string with `+`, ", "which drops the comma and "):
        demo.emit("session.text.delta", block | {"delta": delta})
    await settle(pilot)


async def reconnecting(pilot: Pilot[Any]) -> None:
    """The server drops the stream; the next attempt is held far in the future."""
    await wait_connected(pilot)
    app = pilot.app
    assert isinstance(app, MainApp) and app.session.is_ready
    stream = app.session.stream
    stream.backoff_initial = stream.backoff_max = 600.0
    app.server.drop_connections()
    for _ in range(200):
        if app.stream_state.phase == "reconnecting":
            break
        await pilot.pause(0.01)
    assert app.stream_state.phase == "reconnecting"
    await settle(pilot)


async def provider_error(pilot: Pilot[Any]) -> None:
    await wait_connected(pilot)
    await type_prompt(pilot, "Trigger a provider error.")
    await settle(pilot)


def test_home(snap_compare: SnapCompare) -> None:
    assert snap_compare(MainApp(), terminal_size=SIZE, run_before=wait_connected)


def test_session_browser(snap_compare: SnapCompare) -> None:
    def seed(demo: DemoServer, demo_clock: ManualClock) -> None:
        ages = [("Refactor the auth middleware", 400 * 24 * 60),
                ("Fix flaky SSE reconnect test", 3 * 24 * 60),
                ("Write release notes for 0.4", 5 * 60), ("Migrate config to TOML", 45),
                ("Investigate memory growth in very long transcripts with thousands of tool calls "
                 "and streaming reasoning blocks", 2)]
        for title, minutes in ages:
            demo_clock.set(NOW - minutes * MINUTE)
            info = demo.seed_session(title, [user(f"Please: {title.lower()}"), assistant(text("Done."))])
        demo.seed_session("Explore auth call sites", [user("Find the call sites")], parent_id=info["id"],
                          agent="explore")

    assert snap_compare(seeded_app(seed), terminal_size=SIZE, run_before=open_browser)


def test_transcript_after_welcome(snap_compare: SnapCompare) -> None:
    assert snap_compare(MainApp(), terminal_size=SIZE, run_before=welcome_answered)


def test_streaming_in_progress(snap_compare: SnapCompare) -> None:
    assert snap_compare(seeded_app(short_conversation), terminal_size=SIZE, run_before=mid_stream)


def test_reconnecting_banner(snap_compare: SnapCompare) -> None:
    assert snap_compare(seeded_app(short_conversation), terminal_size=SIZE, run_before=reconnecting)


def test_provider_error(snap_compare: SnapCompare) -> None:
    assert snap_compare(MainApp(), terminal_size=SIZE, run_before=provider_error)


def test_permission_dialog(snap_compare: SnapCompare) -> None:
    assert snap_compare(MainApp(), terminal_size=SIZE, run_before=permission_open)


async def test_harness_is_deterministic() -> None:
    """Two runs of the welcome flow give the same ids, roles and part kinds."""

    async def run() -> list[tuple[str, str, list[str]]]:
        app = MainApp()
        async with app.run_test(size=SIZE) as pilot:
            await welcome_answered(pilot)
            sid = main_screen(app).session_id
            assert sid is not None
            state = app.store.sessions[sid]
            return [(m.id, m.role, [p.key for p in m.parts]) for m in state.messages.values()]

    first = await run()
    assert first == await run()
    assert [role for _, role, _ in first] == ["user", "assistant", "assistant", "assistant"]


async def subagent_asks_while_parent_open(pilot: Pilot[Any]) -> None:
    """The subagents script: one child waits on a permission; the user leaves it in the inbox."""
    await wait_connected(pilot)
    await type_prompt(pilot, "Run the subagents please.")
    await settle(pilot)
    assert isinstance(pilot.app.screen, PermissionScreen)  # a child's ask, in view of its parent
    await pilot.press("escape")
    await settle(pilot)
    assert not isinstance(pilot.app.screen, PermissionScreen)
    pilot.app.clear_notifications()  # toasts time out: keep them out of the frame
    await pilot.pause()


async def child_opened_from_tree(pilot: Pilot[Any]) -> None:
    await subagent_asks_while_parent_open(pilot)
    await pilot.press("alt+down")  # first child
    await settle(pilot)
    screen = main_screen(pilot.app)
    state = screen.state
    assert state is not None and state.parent_id is not None
    pilot.app.clear_notifications()
    await pilot.pause()


def test_subagent_tree_with_a_waiting_child_and_inbox_badge(snap_compare: SnapCompare) -> None:
    assert snap_compare(MainApp(), terminal_size=(140, 36), run_before=subagent_asks_while_parent_open)


def test_child_transcript_with_breadcrumb(snap_compare: SnapCompare) -> None:
    assert snap_compare(MainApp(), terminal_size=(140, 36), run_before=child_opened_from_tree)
