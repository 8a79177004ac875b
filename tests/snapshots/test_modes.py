"""Permission mode SVG snapshots: the status-bar indicator in each mode, the full-access
confirmation, and the transcript line of an ask answered by the mode.

The real ``OctuiApp`` over the in-process demo server (see ``tests.snapshots.main_app``); the
state dir (where modes are kept) is a fresh temporary directory for every test.
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
    ManualClock,
    frozen,
    make_demo,
    settle,
    type_prompt,
    wait_connected,
)
from tui.demo import assistant, text, tool, user
from tui.demo.scripts import LS_OUTPUT
from tui.screens.mode_confirm import ModeConfirmScreen
from tui.screens.permission import PermissionScreen
from tui.state.modes import Mode
from widgets.status.status_bar import StatusBar

SnapCompare = Callable[..., bool]


@pytest.fixture(autouse=True)
def deterministic(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Frozen clock, steady cursors, and a private state dir (modes are saved there)."""
    monkeypatch.setenv("OCTUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)
    with frozen(NOW):
        yield


def seeded_app() -> MainApp:
    demo_clock = ManualClock()
    demo = make_demo(demo_clock)
    demo_clock.set(NOW - 600)
    info = demo.seed_session("List the sources", [
        user("What is in src/?"),
        assistant(text("Let me list the files."),
                  tool("shell", {"command": "ls -la src", "description": "List source files"},
                       [LS_OUTPUT, "Command exited with code 0."],
                       metadata={"status": "completed", "exit": 0, "truncated": False}),
                  finish="tool-calls"),
        assistant(text("`src/` holds **four files** and a `tests/` folder.")),
    ])
    demo_clock.set(NOW)
    return MainApp(demo, session_id=str(info["id"]), demo_clock=demo_clock)


def _status_mode(pilot: Pilot[Any]) -> str:
    app = pilot.app
    assert isinstance(app, MainApp)
    return str(app.screen_main().query_one(StatusBar).info.mode)


def _mode(pilot: Pilot[Any]) -> Mode:
    app = pilot.app
    assert isinstance(app, MainApp) and app.session.is_ready
    sid = app.screen_main().session_id
    assert sid is not None
    return app.session.auto.mode_of(sid)


async def _quiet_toasts(pilot: Pilot[Any]) -> None:
    pilot.app.clear_notifications()
    await settle(pilot)


async def cycle_to(pilot: Pilot[Any], target: Mode, *, confirm: bool = True) -> None:
    await wait_connected(pilot)
    while _mode(pilot) is not target:
        pilot.app.clear_notifications()  # while the main screen is on top (toasts live per screen)
        await pilot.press("f2")
        await settle(pilot)
        if isinstance(pilot.app.screen, ModeConfirmScreen):
            if not confirm:
                return
            await pilot.press("y")
            await settle(pilot)
    await _quiet_toasts(pilot)


async def supervised(pilot: Pilot[Any]) -> None:
    await wait_connected(pilot)
    assert _mode(pilot) is Mode.SUPERVISED
    assert _status_mode(pilot) == ""  # the default: no indicator


async def auto_edits(pilot: Pilot[Any]) -> None:
    await cycle_to(pilot, Mode.AUTO_EDITS)
    assert _status_mode(pilot) == "✎ auto-edits"


async def full_access(pilot: Pilot[Any]) -> None:
    await cycle_to(pilot, Mode.FULL)
    assert _status_mode(pilot) == "⚠ full access"


async def confirming(pilot: Pilot[Any]) -> None:
    await cycle_to(pilot, Mode.FULL, confirm=False)
    assert isinstance(pilot.app.screen, ModeConfirmScreen)
    assert _mode(pilot) is Mode.AUTO_EDITS  # nothing changes until the user says yes


async def tour_in_full_access(pilot: Pilot[Any]) -> None:
    """The welcome tour's shell ask is answered by the mode: no dialog, a line in the transcript."""
    await cycle_to(pilot, Mode.FULL)
    await type_prompt(pilot, "Give me a tour of this project.")
    await settle(pilot)
    assert not isinstance(pilot.app.screen, PermissionScreen)
    app = pilot.app
    assert isinstance(app, MainApp)
    sid = app.screen_main().session_id
    assert sid is not None
    notices = [m.text for m in app.store.sessions[sid].messages.values() if m.role == "notice"]
    assert notices == ["auto-allowed: shell `ls -la src`"]
    await _quiet_toasts(pilot)


def test_status_bar_supervised(snap_compare: SnapCompare) -> None:
    assert snap_compare(seeded_app(), terminal_size=SIZE, run_before=supervised)


def test_status_bar_auto_edits(snap_compare: SnapCompare) -> None:
    assert snap_compare(seeded_app(), terminal_size=SIZE, run_before=auto_edits)


def test_status_bar_full_access(snap_compare: SnapCompare) -> None:
    assert snap_compare(seeded_app(), terminal_size=SIZE, run_before=full_access)


def test_full_access_confirmation(snap_compare: SnapCompare) -> None:
    assert snap_compare(seeded_app(), terminal_size=SIZE, run_before=confirming)


def test_auto_allowed_notice_in_the_transcript(snap_compare: SnapCompare) -> None:
    assert snap_compare(seeded_app(), terminal_size=SIZE, run_before=tour_in_full_access)


async def test_full_access_is_confirmed_once_per_session_and_survives_a_restart(tmp_path: Path) -> None:
    app = seeded_app()
    async with app.run_test(size=SIZE) as pilot:
        await cycle_to(pilot, Mode.FULL)
        await pilot.press("f2")  # full → supervised
        await settle(pilot)
        assert _mode(pilot) is Mode.SUPERVISED
        await pilot.press("f2", "f2")  # → auto-edits → full: no second confirmation
        await settle(pilot)
        assert not isinstance(pilot.app.screen, ModeConfirmScreen)
        assert _mode(pilot) is Mode.FULL

    again = MainApp(make_demo(), session_id=app.spec.session_id)  # a new octui, same state dir
    async with again.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        assert again.session.is_ready and app.spec.session_id is not None
        assert again.session.auto.mode_of(app.spec.session_id) is Mode.FULL


async def test_the_mode_is_in_the_command_palette() -> None:
    app = seeded_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        from tui.screens.mode_confirm import ModeCommands

        provider = ModeCommands(app.screen_main())
        names = [hit.text for hit in [h async for h in provider.discover()]]
        assert names == ["Permission mode: cycle", "Permission mode: Supervised",
                         "Permission mode: Auto-accept edits", "Permission mode: Full access"]
        hits = [h async for h in provider.search("mode accept edits")]
        assert hits
        hits[0].command()
        await settle(pilot)
        assert _mode(pilot) is Mode.AUTO_EDITS
