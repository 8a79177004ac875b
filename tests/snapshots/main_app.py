"""Provides a deterministic ``OctuiApp`` + ``DemoServer`` harness for main-screen tests.

Everything is in-process: the app talks to the scripted demo server through its httpx transport.
Determinism comes from:

* ``tui.app.clock`` frozen at ``NOW`` (use the ``frozen`` context manager or fixture) and a
  ``ManualClock`` for the demo server, so message times, session titles and ages never move;
* counter ids (the demo's default ``IdGenerator``), so every run sees the same ids;
* ``speed=0`` and no heartbeats: scripts run back to back and ``settle`` waits until they are
  finished or waiting for an answer, the service's follow-up tasks are done and the app has
  flushed every change to the screen;
* a steady (non-blinking) composer cursor and ``animation_level = "none"``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from textual.app import App
from textual.pilot import Pilot
from textual.widget import Widget

from tui.app import clock
from tui.app.app import ConnectSpec, OctuiApp
from tui.demo import DemoServer, IdGenerator
from tui.screens.key_guard import keys_taken
from tui.screens.main import MainScreen
from widgets.asks.ask_flow import AskFlow
from widgets.composer.composer import Composer

NOW = 1_790_000_000.0
"""Frozen wall clock (seconds) for the app and the demo server."""

DIRECTORY = "/home/demo/project"
SIZE = (120, 36)


class ManualClock:
    """A clock that only moves when told to (``set``/``advance``)."""

    def __init__(self, at: float = NOW) -> None:
        self.t = at

    def __call__(self) -> float:
        return self.t

    def set(self, at: float) -> None:
        self.t = at

    def advance(self, seconds: float) -> None:
        self.t += seconds


@contextmanager
def frozen(at: float = NOW) -> Iterator[None]:
    """Freeze ``tui.app.clock`` for the duration of the block."""
    clock.freeze(at)
    try:
        yield
    finally:
        clock.freeze(None)


def make_demo(demo_clock: ManualClock | None = None) -> DemoServer:
    return DemoServer(clock=demo_clock or ManualClock(), speed=0, heartbeat=0, directory=DIRECTORY,
                      ids=IdGenerator())


class MainApp(OctuiApp):
    """``OctuiApp`` wired to a fresh demo server, with animations off and a steady cursor."""

    def __init__(self, demo: DemoServer | None = None, *, session_id: str | None = None,
                 demo_clock: ManualClock | None = None) -> None:
        self.demo_clock = demo_clock or ManualClock()
        server = demo or make_demo(self.demo_clock)
        spec = ConnectSpec(url=server.base_url, transport=server.transport, directory=DIRECTORY,
                           session_id=session_id)
        super().__init__(spec, demo=server)
        self.server: DemoServer = server
        self.animation_level = "none"


def main_screen(app: App[Any]) -> MainScreen:
    """The app's ``MainScreen`` (under any dialogs), typed."""
    assert isinstance(app, MainApp)
    screen = app.screen_main()
    assert isinstance(screen, MainScreen)
    return screen


def _quiet(app: MainApp) -> bool:
    service = app.session
    tasks_done = service is None or all(t.done() for t in service.intake.tasks)
    busy_workers = [w for w in app.workers if w.group != "stream" and not w.is_finished]
    # On a loaded machine each hop below can outlast the calm checks of ``settle``: frames the demo
    # sent that the stream has not read, changes posted to the app but not handled, widgets of the
    # last flush (a new tool row, say) in the DOM but not mounted yet.
    unread = any(not queue.empty() for queue in app.server._subscribers)
    mounting = [w for w in main_screen(app).walk_children(Widget) if not w.is_mounted]
    # An ask's dialog opens once typing pauses, and takes keys a moment after (key_guard.py).
    asking = main_screen(app).query_one(AskFlow).waiting_for_pause or \
        not keys_taken(app.screen, time.perf_counter())
    return (tasks_done and not busy_workers and not unread and app.message_queue_size == 0
            and not app._pending and not app._flush_scheduled and not mounting
            and app.server.settled() and not asking)


async def wait_until(pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait (bounded) until ``condition()`` holds, checking every 20 ms."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise TimeoutError("condition not met")
        await pilot.pause(0.02)


async def wait_connected(pilot: Pilot[Any], timeout: float = 30.0) -> None:
    """Wait for boot: service made, stream connected and the first resync applied."""
    app = pilot.app
    assert isinstance(app, MainApp)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not app.session.is_ready or app.stream_state.phase != "connected":
        if loop.time() > deadline:
            raise TimeoutError(f"app did not connect (phase {app.stream_state.phase})")
        await pilot.pause(0.01)
    main_screen(app).query_one(Composer).cursor_blink = False
    await settle(pilot)


async def settle(pilot: Pilot[Any], timeout: float = 30.0) -> None:
    """Wait until the demo is idle (or waiting for an answer) and the screen shows everything.

    Checks several times in a row, because one flush can start another step (an answered ask
    lets the script continue, a ``need_message`` starts a fetch).
    """
    app = pilot.app
    assert isinstance(app, MainApp)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    calm = 0
    while calm < 3:
        await app.server.idle(timeout)
        await pilot.pause(0.05)
        calm = calm + 1 if _quiet(app) else 0
        if loop.time() > deadline:
            raise TimeoutError("the app did not settle")
    await pilot.wait_for_scheduled_animations()
    # Scroll anchoring and lazily rendered text land one or two refreshes after the last flush;
    # on a loaded machine the screenshot could otherwise catch the frame before them.
    for _ in range(2):
        await pilot.pause(0.1)
    await pilot.pause()


async def type_prompt(pilot: Pilot[Any], text: str) -> None:
    """Type ``text`` into the composer and press Enter."""
    composer = main_screen(pilot.app).query_one(Composer)
    composer.focus()
    composer.text = text
    composer.move_cursor(composer.document.end)
    await pilot.press("enter")


async def permission_open(pilot: Pilot[Any]) -> None:
    """The welcome script's prompt, up to its shell permission dialog."""
    from tui.screens.permission import PermissionScreen

    await wait_connected(pilot)
    await type_prompt(pilot, "Give me a tour of this project.")
    await settle(pilot)
    assert isinstance(pilot.app.screen, PermissionScreen)
