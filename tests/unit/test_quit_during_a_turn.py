"""Ctrl+Q while a turn runs on the server octui started asks first: that server stops with octui,
and the turn with it (QA: it quit at once). Attached to a server of its own (--url, --demo), octui
quits at once: the turn goes on there."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.snapshots.main_app import SIZE, MainApp, settle, wait_connected
from tui.screens.confirm import ConfirmScreen


class StartedServer:
    """Stands for the local server octui started (only its stop is used when quitting); its stop
    takes ``takes`` seconds, as a real one waits for the process to end."""

    def __init__(self, takes: float = 0.0) -> None:
        self.stopped = False
        self.stops = 0
        self.takes = takes

    async def stop(self) -> None:
        self.stops += 1
        await asyncio.sleep(self.takes)
        self.stopped = True


async def busy_app(pilot: Any, app: MainApp) -> StartedServer:
    await wait_connected(pilot)
    session = app.server.create_session(title="running")
    await app.open_session(session["id"])
    app.store.session(session["id"]).busy = True
    local = StartedServer()
    app.local = local  # type: ignore[assignment]
    await settle(pilot)
    return local


async def test_ctrl_q_during_a_turn_asks_and_no_keeps_octui() -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        local = await busy_app(pilot, app)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and app.is_running and not local.stopped
        await pilot.press("n")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen) and app.is_running and not local.stopped
        app.local = None  # (the test's stand-in is not stopped again when the app closes)


async def test_ctrl_q_twice_or_yes_quits() -> None:
    for keys in (("ctrl+q", "ctrl+q"), ("ctrl+q", "y")):
        app = MainApp()
        async with app.run_test(size=SIZE) as pilot:
            local = await busy_app(pilot, app)
            for key in keys:
                await pilot.press(key)
                await pilot.pause()
            await pilot.pause(0.2)
            assert local.stopped, keys
        assert app.return_code == 0


async def test_ctrl_q_with_nothing_running_quits_at_once() -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        local = StartedServer()
        app.local = local  # type: ignore[assignment]
        await pilot.press("ctrl+q")
        await pilot.pause(0.2)
        assert local.stopped and not isinstance(app.screen, ConfirmScreen)


async def test_ctrl_q_while_the_stop_waits_does_not_cut_it_short() -> None:
    """Review: y, then Ctrl+Q during the server's stop, started a second shutdown that exited at
    once and cut the first stop short (its SIGKILL step skipped)."""
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        local = await busy_app(pilot, app)
        local.takes = 0.5
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause(0.1)
        await pilot.press("ctrl+q")  # while the stop waits
        await pilot.pause(1.0)
    assert local.stopped and local.stops == 1
