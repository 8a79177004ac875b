"""Session actions in the UI: delete confirm and revert panel snapshots; rename/delete/new flows in
the browser; copy and export keys in the real app against the demo server."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, Select, TextArea

from tests.snapshots.main_app import NOW as MAIN_NOW
from tests.snapshots.main_app import MainApp, ManualClock, frozen, make_demo, settle, wait_connected
from tests.snapshots.sessions_app import NOW, FakeLoader, sample_sessions
from tui.app import clock
from tui.app.session_actions import CLIPBOARD_FILE, NewSessionRequest
from tui.demo import DemoServer, assistant, text, user
from tui.protocol.models import FileDiff, ModelRef, SessionInfo
from tui.screens.confirm import ConfirmScreen
from tui.screens.message_keys import TYPING_WINDOW_S
from tui.screens.new_session import NewSessionScreen
from tui.screens.rename import RenameScreen
from tui.screens.revert import RevertScreen
from tui.screens.sessions import SessionsScreen
from widgets.transcript.message_view import MessageView

SIZE = (100, 30)
SnapCompare = Callable[..., bool]


@pytest.fixture(autouse=True)
def steady(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)
    clock.freeze(NOW)
    yield
    clock.freeze(None)


class FakeManager:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    @property
    def default_directory(self) -> str:
        return "/home/demo/project"

    async def choices(self) -> tuple[list[str], list[ModelRef]]:
        return ["build", "plan"], [ModelRef(providerID="mock", id="fake-model")]

    async def rename(self, session_id: str, title: str) -> bool:
        self.calls.append(("rename", session_id, title))
        return True

    async def delete(self, session_id: str) -> bool:
        self.calls.append(("delete", session_id))
        return True

    async def create(self, request: NewSessionRequest) -> SessionInfo | None:
        self.calls.append(("create", request))
        return SessionInfo(id="ses_new", title="new")


class BrowserApp(App[None]):
    def __init__(self, manager: FakeManager) -> None:
        super().__init__()
        self.manager = manager
        self.loader = FakeLoader(sample_sessions())
        self.opened: list[str] = []
        self.deleted: list[str] = []
        self.animation_level = "none"

    async def on_mount(self) -> None:
        await self.push_screen(SessionsScreen(self.loader, dismiss_on_open=False, manager=self.manager))

    def on_sessions_screen_open(self, message: SessionsScreen.Open) -> None:
        self.opened.append(message.session_id)

    def on_sessions_screen_deleted(self, message: SessionsScreen.Deleted) -> None:
        self.deleted.append(message.session_id)


async def settle_browser(pilot: Pilot[Any]) -> None:
    for _ in range(3):
        await pilot.app.workers.wait_for_complete() if not _modal(pilot) else None
        await pilot.pause()


def _modal(pilot: Pilot[Any]) -> bool:
    return isinstance(pilot.app.screen, (ConfirmScreen, RenameScreen, NewSessionScreen))


class RevertApp(App[None]):
    def __init__(self, files: list[FileDiff], known: bool = True) -> None:
        super().__init__()
        self.files = files
        self.known = known
        self.results: list[Any] = []
        self.animation_level = "none"

    async def on_mount(self) -> None:
        await self.push_screen(RevertScreen("Rename greet() to hello() and update the tests", self.files,
                                            reverted_messages=4, files_known=self.known),
                               self.results.append)


FILES = [FileDiff(file="src/greet.py", additions=3, deletions=1, status="modified"),
         FileDiff(file="tests/test_greet.py", additions=12, deletions=0, status="added"),
         FileDiff(file="old/helper.py", additions=0, deletions=40, status="deleted")]


# ------------------------------------------------------------------ snapshots
def test_delete_confirm_snapshot(snap_compare: SnapCompare) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle_browser(pilot)
        await pilot.press("d")
        await pilot.pause()

    assert snap_compare(BrowserApp(FakeManager()), terminal_size=SIZE, run_before=run_before)


def test_revert_screen_snapshot(snap_compare: SnapCompare) -> None:
    assert snap_compare(RevertApp(FILES), terminal_size=SIZE)


def test_revert_screen_without_files_snapshot(snap_compare: SnapCompare) -> None:
    assert snap_compare(RevertApp([], known=False), terminal_size=SIZE)


# ------------------------------------------------------------------ browser flows
async def test_delete_needs_yes_and_default_is_no() -> None:
    manager = FakeManager()
    app = BrowserApp(manager)
    async with app.run_test(size=SIZE) as pilot:
        await settle_browser(pilot)
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("enter")  # focus starts on "Cancel"
        await settle_browser(pilot)
        assert manager.calls == [] and isinstance(app.screen, SessionsScreen)
        await pilot.press("d", "y")
        await settle_browser(pilot)
        assert manager.calls == [("delete", "ses_01")]
        assert app.deleted == ["ses_01"]


async def test_rename_sends_the_new_title() -> None:
    manager = FakeManager()
    app = BrowserApp(manager)
    async with app.run_test(size=SIZE) as pilot:
        await settle_browser(pilot)
        await pilot.press("down", "r")
        await pilot.pause()
        field = app.screen.query_one("#rename-input", Input)
        assert field.value == "Fix flaky SSE reconnect test"  # ses_02 is a child: roots only
        field.value = "  Flaky   SSE test "
        await pilot.press("enter")
        await settle_browser(pilot)
        assert manager.calls == [("rename", "ses_03", "Flaky SSE test")]


async def test_rename_unchanged_is_a_no_op() -> None:
    manager = FakeManager()
    app = BrowserApp(manager)
    async with app.run_test(size=SIZE) as pilot:
        await settle_browser(pilot)
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("enter")
        await settle_browser(pilot)
        assert manager.calls == []


async def test_new_session_in_a_directory_with_agent_and_model() -> None:
    manager = FakeManager()
    app = BrowserApp(manager)
    async with app.run_test(size=SIZE) as pilot:
        await settle_browser(pilot)
        await pilot.press("n")
        for _ in range(5):
            await pilot.pause()
        screen = app.screen
        assert isinstance(screen, NewSessionScreen)
        screen.query_one("#new-directory", Input).value = "relative/dir"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, NewSessionScreen)  # refused: not absolute
        screen.query_one("#new-directory", Input).value = "/srv/other"
        screen.query_one("#new-agent", Select).value = "plan"
        screen.query_one("#new-model", Select).value = "mock/fake-model"
        await pilot.press("ctrl+s")
        await settle_browser(pilot)
        [(kind, request)] = manager.calls
        assert kind == "create" and request == NewSessionRequest(
            "/srv/other", "plan", ModelRef(providerID="mock", id="fake-model"))
        assert app.opened == ["ses_new"]


async def test_revert_screen_keys() -> None:
    for key, expected in (("r", "clear"), ("c", "commit"), ("escape", None)):
        app = RevertApp(FILES)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(key)
            await pilot.pause()
            assert app.results == [expected]


# ------------------------------------------------------------------ the real app (demo server)
def conversation(demo: DemoServer, demo_clock: ManualClock) -> str:
    info = demo.seed_session("Greeting", [
        user("Write a greeting"),
        assistant(text("Here:\n\n```python\nprint('hello')\n```")),
    ])
    return str(info["id"])


def seeded() -> MainApp:
    demo_clock = ManualClock()
    demo = make_demo(demo_clock)
    sid = conversation(demo, demo_clock)
    demo_clock.set(MAIN_NOW)
    return MainApp(demo, session_id=sid, demo_clock=demo_clock)


async def test_copy_keys_and_export_in_the_app() -> None:
    state_dir = Path(os.environ["OCTUI_STATE_DIR"])
    with frozen(MAIN_NOW):
        app = seeded()
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            await pilot.press("f5")
            await pilot.pause()
            answer = "Here:\n\n```python\nprint('hello')\n```"
            assert app.clipboard == answer
            assert (state_dir / CLIPBOARD_FILE).read_text("utf-8") == answer
            toast = list(app._notifications)[-1].message
            assert "OSC 52" in toast and str(state_dir / CLIPBOARD_FILE) in toast
            await pilot.press("f3")
            await pilot.pause()
            assert app.clipboard == "print('hello')"
            await pilot.press("f6")
            await pilot.pause()
            assert app.clipboard.startswith("# Greeting")
            await pilot.press("f7")
            await pilot.pause()
            exports = list((state_dir / "exports").glob("*.md"))
            assert len(exports) == 1 and "print('hello')" in exports[0].read_text("utf-8")
            # a focused prompt: y copies that message
            views = list(app.screen.query(MessageView))
            user_view = next(v for v in views if v.message.role == "user")
            user_view.focus()
            await pilot.press("y")
            await pilot.pause(TYPING_WINDOW_S + 0.2)  # (a letter right behind it: typing)
            await pilot.pause()
            assert app.clipboard == "Write a greeting"
            await settle(pilot)
