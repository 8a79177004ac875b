"""Every screen at the three sizes people use: 80×24 (the narrow default), 120×40 and 200×60.

The real ``OctuiApp`` over the in-process demo server, deterministic as in
``tests.snapshots.main_app`` (frozen clocks, counter ids, scripts at speed 0, steady cursors).
Asks are put in the demo's pending lists before start, so the first resync opens their dialog
exactly as after a reconnect.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from tests.snapshots.main_app import NOW, MainApp, ManualClock, frozen, make_demo, settle, wait_connected
from tests.snapshots.test_main_screen import MINUTE, mid_stream, open_browser, subagent_asks_while_parent_open
from tests.snapshots.test_pickers import type_text
from tui.demo import DemoServer, assistant, reasoning, text, tool, user
from tui.demo.scripts import LS_OUTPUT
from tui.protocol.models import FileDiff
from tui.screens.agent_picker import AgentPicker
from tui.screens.confirm import ConfirmScreen
from tui.screens.form import FormScreen
from tui.screens.help import HelpScreen
from tui.screens.inbox import InboxScreen
from tui.screens.mode_confirm import ModeConfirmScreen
from tui.screens.model_picker import ModelPicker
from tui.screens.new_session import NewSessionScreen
from tui.screens.permission import PermissionScreen
from tui.screens.question import QuestionScreen
from tui.screens.rename import RenameScreen
from tui.screens.revert import RevertScreen

SnapCompare = Callable[..., bool]
SIZES = [(80, 24), (120, 40), (200, 60)]
sizes = pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])


@pytest.fixture(autouse=True)
def deterministic(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)
    with frozen(NOW):
        yield


def app_with(seed: Callable[[DemoServer, ManualClock], str | None]) -> MainApp:
    demo_clock = ManualClock()
    demo = make_demo(demo_clock)
    session_id = seed(demo, demo_clock)
    demo_clock.set(NOW)
    return MainApp(demo, session_id=session_id, demo_clock=demo_clock)


def with_tools(demo: DemoServer, demo_clock: ManualClock) -> str:
    """A session with a shell row, a failed read and an edit, then an answer."""
    demo_clock.set(NOW - 10 * MINUTE)
    info = demo.seed_session("List the sources and fix the greeting in src/greet.py", [
        user("What is in src/?"),
        assistant(reasoning("Look at the tree first."), text("Let me list the files."),
                  tool("shell", {"command": "ls -la src", "description": "List source files"},
                       [LS_OUTPUT, "Command exited with code 0."],
                       metadata={"status": "completed", "exit": 0, "truncated": False}),
                  finish="tool-calls"),
        assistant(text("`src/` holds **four files** and a `tests/` folder.")),
        user("Now fix the greeting."),
        assistant(tool("read", {"filePath": "/etc/shadow"}, call_id="call_2",
                       error="Unable to read /etc/shadow"),
                  tool("edit", {"filePath": "src/greet.py", "oldString": "'Hello ' + name",
                                "newString": "f'Hello, {name}!'"}, ["Edited src/greet.py"],
                       call_id="call_3"),
                  text("Fixed: the greeting now has its comma."), finish="stop"),
    ])
    return str(info["id"])


def plain(demo: DemoServer, demo_clock: ManualClock) -> str:
    demo_clock.set(NOW - 10 * MINUTE)
    info = demo.seed_session("Greeting fix", [user("Fix the greeting."), assistant(text("Done."))])
    return str(info["id"])


def pending(kind: str) -> Callable[[DemoServer, ManualClock], str]:
    def seed(demo: DemoServer, demo_clock: ManualClock) -> str:
        sid = plain(demo, demo_clock)
        if kind == "permission":
            demo.state.permissions["per_1"] = {
                "id": "per_1", "sessionID": sid, "action": "bash", "resources": ["make test"],
                "save": ["make *"], "metadata": {"command": "make test && git status --short",
                                                 "description": "Run the tests"}}
        elif kind == "question":
            demo.state.questions["que_1"] = {"id": "que_1", "sessionID": sid, "questions": [{
                "question": "Which colour should the status bar use?", "header": "Colour",
                "options": [{"label": "Red", "description": "Warm and loud"},
                            {"label": "Green", "description": "Calm"},
                            {"label": "Blue", "description": "The default"}]}]}
        else:
            demo.state.forms["frm_1"] = {"id": "frm_1", "sessionID": sid, "title": "Deploy settings",
                                         "fields": [
                {"key": "name", "type": "string", "title": "Service name", "required": True,
                 "placeholder": "my-service", "description": "Lowercase letters and dashes"},
                {"key": "target", "type": "string", "title": "Target", "default": "local",
                 "options": [{"value": "cloud", "label": "Cloud"}, {"value": "local", "label": "Local"}]},
                {"key": "replicas", "type": "integer", "title": "Replicas", "minimum": 1, "maximum": 9,
                 "default": 2},
                {"key": "tls", "type": "boolean", "title": "Enable TLS", "default": True},
            ]}
        return sid

    return seed


def browser_sessions(demo: DemoServer, demo_clock: ManualClock) -> None:
    for title, minutes in [("Refactor the auth middleware", 400 * 24 * 60),
                           ("Fix flaky SSE reconnect test", 3 * 24 * 60),
                           ("Write release notes for 0.4", 5 * 60),
                           ("Investigate memory growth in very long transcripts with thousands of tool "
                            "calls and streaming reasoning blocks", 2)]:
        demo_clock.set(NOW - minutes * MINUTE)
        demo.seed_session(title, [user(f"Please: {title.lower()}"), assistant(text("Done."))])


LONG_TITLE = ("Investigate memory growth in very long transcripts with thousands of tool calls and "
              "streaming reasoning blocks")


def long_titled(demo: DemoServer, demo_clock: ManualClock) -> str:
    """The open session has a title far wider than any dialog: it must be cut, not wrapped over keys."""
    demo_clock.set(NOW - 10 * MINUTE)
    info = demo.seed_session(LONG_TITLE, [user("Fix the greeting."), assistant(text("Done."))])
    return str(info["id"])


def asks_in_other_sessions(demo: DemoServer, demo_clock: ManualClock) -> str:
    """The open session is quiet; two other sessions wait: a shell permission, a question, an edit."""
    sid = plain(demo, demo_clock)
    demo_clock.set(NOW - 30 * MINUTE)
    flaky = str(demo.seed_session("Fix flaky SSE reconnect test",
                                  [user("Fix it."), assistant(text("On it."))])["id"])
    notes = str(demo.seed_session(LONG_TITLE, [user("Look into it."), assistant(text("Looking."))])["id"])
    demo.state.permissions["per_1"] = {
        "id": "per_1", "sessionID": flaky, "action": "bash", "resources": ["make test"],
        "save": ["make *"], "metadata": {"command": "make test && git status --short",
                                         "description": "Run the tests"}}
    demo.state.questions["que_1"] = {"id": "que_1", "sessionID": flaky, "questions": [{
        "question": "Should the retry back off exponentially or stay at a fixed one second?",
        "header": "Retry", "options": [{"label": "Exponential", "description": ""},
                                       {"label": "Fixed", "description": ""}]}]}
    demo.state.permissions["per_2"] = {
        "id": "per_2", "sessionID": notes, "action": "edit",
        "resources": ["src/octui/very/deeply/nested/package/path/transcript_memory_profile.py"],
        "save": ["*"], "metadata": {}}
    demo_clock.set(NOW - 10 * MINUTE)
    return sid


REVERTED_FILES = [
    FileDiff(file="src/greet.py", additions=3, deletions=1, status="modified"),
    FileDiff(file="tests/test_greet.py", additions=12, deletions=0, status="added"),
    FileDiff(file="old/helper.py", additions=0, deletions=40, status="deleted"),
    FileDiff(file="src/octui/very/deeply/nested/package/path/with/a/long/name/transcript_memory_profile.py",
             additions=120, deletions=87, status="modified"),
    *[FileDiff(file=f"docs/chapter_{n}.md", additions=n, deletions=1, status="modified")
      for n in range(1, 7)],
]


async def dialog(pilot: Pilot[Any], kind: type) -> None:
    await wait_connected(pilot)
    await settle(pilot)
    assert isinstance(pilot.app.screen, kind), pilot.app.screen


async def press_then(pilot: Pilot[Any], key: str, kind: type) -> None:
    await wait_connected(pilot)
    await pilot.press(key)
    await pilot.pause(0.2)
    await settle(pilot)
    assert isinstance(pilot.app.screen, kind), pilot.app.screen


class TestMainScreen:
    @sizes
    def test_session_with_tools_and_a_streaming_answer(self, snap_compare: SnapCompare,
                                                       size: tuple[int, int]) -> None:
        assert snap_compare(app_with(with_tools), terminal_size=size, run_before=mid_stream)

    @sizes
    def test_home(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        assert snap_compare(MainApp(), terminal_size=size, run_before=wait_connected)


class TestDialogs:
    @sizes
    def test_permission(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        async def run(pilot: Pilot[Any]) -> None:
            await dialog(pilot, PermissionScreen)

        assert snap_compare(app_with(pending("permission")), terminal_size=size, run_before=run)

    @sizes
    def test_question(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        async def run(pilot: Pilot[Any]) -> None:
            await dialog(pilot, QuestionScreen)

        assert snap_compare(app_with(pending("question")), terminal_size=size, run_before=run)

    @sizes
    def test_form(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        async def run(pilot: Pilot[Any]) -> None:
            await dialog(pilot, FormScreen)

        assert snap_compare(app_with(pending("form")), terminal_size=size, run_before=run)

    @sizes
    def test_session_browser(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        def seed(demo: DemoServer, demo_clock: ManualClock) -> None:
            browser_sessions(demo, demo_clock)

        assert snap_compare(app_with(seed), terminal_size=size, run_before=open_browser)

    @sizes
    def test_model_picker(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        async def run(pilot: Pilot[Any]) -> None:
            await press_then(pilot, "ctrl+k", ModelPicker)

        assert snap_compare(app_with(plain), terminal_size=size, run_before=run)

    @sizes
    def test_help(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        async def run(pilot: Pilot[Any]) -> None:
            await press_then(pilot, "f1", HelpScreen)

        assert snap_compare(app_with(plain), terminal_size=size, run_before=run)


class TestSubagentPanel:
    @sizes
    def test_tree_beside_the_parent(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        assert snap_compare(MainApp(), terminal_size=size, run_before=subagent_asks_while_parent_open)


class TestMoreDialogs:
    """The rest of the modal screens, over the real main screen."""

    @sizes
    def test_inbox(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        async def run(pilot: Pilot[Any]) -> None:
            await press_then(pilot, "ctrl+b", InboxScreen)
            screen = pilot.app.screen
            assert isinstance(screen, InboxScreen)  # sessions never opened here: titles from the server
            assert {title for _, title in screen.summaries} == {"Fix flaky SSE reconnect test", LONG_TITLE}

        assert snap_compare(app_with(asks_in_other_sessions), terminal_size=size, run_before=run)

    @sizes
    def test_agent_picker(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        async def run(pilot: Pilot[Any]) -> None:
            await press_then(pilot, "ctrl+l", AgentPicker)

        assert snap_compare(app_with(plain), terminal_size=size, run_before=run)

    @sizes
    def test_command_palette(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        async def run(pilot: Pilot[Any]) -> None:
            await wait_connected(pilot)
            await pilot.press("ctrl+p")
            await pilot.pause(0.2)
            await type_text(pilot, "copy")  # a few rows; a query, so new actions elsewhere rarely move it
            await pilot.pause(0.3)

        assert snap_compare(app_with(plain), terminal_size=size, run_before=run)

    @sizes
    def test_revert_panel(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        async def run(pilot: Pilot[Any]) -> None:
            await wait_connected(pilot)
            await pilot.app.push_screen(RevertScreen(
                "Rename greet() to hello() everywhere, update the tests and the docs, and make sure the "
                "changelog mentions the new name", REVERTED_FILES, reverted_messages=4))
            await settle(pilot)
            assert isinstance(pilot.app.screen, RevertScreen)

        assert snap_compare(app_with(with_tools), terminal_size=size, run_before=run)

    @sizes
    def test_full_access_confirmation(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        async def run(pilot: Pilot[Any]) -> None:
            await wait_connected(pilot)
            await pilot.press("f2")  # supervised → auto-edits
            await settle(pilot)
            pilot.app.clear_notifications()
            await press_then(pilot, "f2", ModeConfirmScreen)  # → full access asks first

        assert snap_compare(app_with(long_titled), terminal_size=size, run_before=run)


class TestSessionBrowserDialogs:
    """The dialogs the session browser opens, over the browser."""

    @staticmethod
    def browser_then(key: str, kind: type) -> Callable[[Pilot[Any]], Any]:
        async def run(pilot: Pilot[Any]) -> None:
            await open_browser(pilot)
            await pilot.press(key)
            # No ``settle``: the browser's worker waits on the dialog until it closes, so never idles.
            for _ in range(10):
                await pilot.pause(0.1)
            await pilot.wait_for_scheduled_animations()
            assert isinstance(pilot.app.screen, kind), pilot.app.screen

        return run

    @staticmethod
    def sessions(demo: DemoServer, demo_clock: ManualClock) -> None:
        browser_sessions(demo, demo_clock)

    @sizes
    def test_delete_confirmation(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        assert snap_compare(app_with(self.sessions), terminal_size=size,
                            run_before=self.browser_then("d", ConfirmScreen))

    @sizes
    def test_rename(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        assert snap_compare(app_with(self.sessions), terminal_size=size,
                            run_before=self.browser_then("r", RenameScreen))

    @sizes
    def test_new_session(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        assert snap_compare(app_with(self.sessions), terminal_size=size,
                            run_before=self.browser_then("n", NewSessionScreen))
