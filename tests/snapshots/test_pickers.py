"""SVG snapshots: model picker, agent picker, slash and @ completion, help screen, palette.

The real ``OctuiApp`` over the in-process demo server (``tests.snapshots.main_app``): frozen
clocks, counter ids, steady cursors; config and state files live in a temp dir.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from tests.snapshots.main_app import (
    NOW,
    SIZE,
    MainApp,
    frozen,
    main_screen,
    make_demo,
    settle,
    wait_connected,
)
from tui.demo import assistant, text, user
from tui.screens.agent_picker import AgentPicker
from tui.screens.help import HelpScreen
from tui.screens.model_picker import ModelPicker
from widgets.composer.completion import CompletionMenu
from widgets.composer.composer import Composer

SnapCompare = Callable[..., bool]


@pytest.fixture(autouse=True)
def deterministic(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)
    monkeypatch.setenv("OCTUI_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("OCTUI_STATE_DIR", str(tmp_path / "state"))
    with frozen(NOW):
        yield


def session_app() -> MainApp:
    demo = make_demo()
    info = demo.seed_session("Greeting fix", [user("Fix the greeting."), assistant(text("Done."))])
    return MainApp(demo, session_id=str(info["id"]))


async def type_text(pilot: Pilot[Any], value: str) -> None:
    for ch in value:
        await pilot.press("space" if ch == " " else ch)
    await pilot.pause(0.2)
    await settle(pilot)


async def model_picker(pilot: Pilot[Any]) -> None:
    await wait_connected(pilot)
    await pilot.press("ctrl+k")
    await pilot.pause(0.2)
    await settle(pilot)
    assert isinstance(pilot.app.screen, ModelPicker)


async def agent_picker(pilot: Pilot[Any]) -> None:
    await wait_connected(pilot)
    await pilot.press("ctrl+l")
    await pilot.pause(0.2)
    await settle(pilot)
    assert isinstance(pilot.app.screen, AgentPicker)


async def slash_open(pilot: Pilot[Any]) -> None:
    await wait_connected(pilot)
    await type_text(pilot, "/")
    assert main_screen(pilot.app).query_one(CompletionMenu).is_open


async def mention_open(pilot: Pilot[Any]) -> None:
    await wait_connected(pilot)
    await type_text(pilot, "explain @s")
    menu = main_screen(pilot.app).query_one(CompletionMenu)
    assert menu.is_open and menu.items[0].value == "src"
    assert main_screen(pilot.app).query_one(Composer).text == "explain @s"


async def help_open(pilot: Pilot[Any]) -> None:
    await wait_connected(pilot)
    await pilot.press("f1")
    await pilot.pause(0.1)
    await settle(pilot)
    assert isinstance(pilot.app.screen, HelpScreen)


async def palette_open(pilot: Pilot[Any]) -> None:
    await wait_connected(pilot)
    await pilot.press("ctrl+p")
    await pilot.pause(0.2)
    await type_text(pilot, "switch agent")  # specific: new actions elsewhere must not move it
    await pilot.pause(0.3)


def test_model_picker(snap_compare: SnapCompare) -> None:
    assert snap_compare(session_app(), terminal_size=SIZE, run_before=model_picker)


def test_agent_picker(snap_compare: SnapCompare) -> None:
    assert snap_compare(session_app(), terminal_size=SIZE, run_before=agent_picker)


def test_slash_completion_open(snap_compare: SnapCompare) -> None:
    assert snap_compare(session_app(), terminal_size=SIZE, run_before=slash_open)


def test_mention_completion_open(snap_compare: SnapCompare) -> None:
    assert snap_compare(session_app(), terminal_size=SIZE, run_before=mention_open)


def test_help_screen(snap_compare: SnapCompare) -> None:
    assert snap_compare(session_app(), terminal_size=SIZE, run_before=help_open)


def test_command_palette(snap_compare: SnapCompare) -> None:
    assert snap_compare(session_app(), terminal_size=SIZE, run_before=palette_open)
