"""OctuiApp: owns the client, the store and the controller; the stream runs in one worker."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter
from typing import Any

import httpx
from textual import work
from textual.app import App
from textual.binding import Binding
from textual.worker import Worker, WorkerState

from tui.client.errors import OctuiError
from tui.client.http import OpenCodeClient
from tui.client.local import LocalServer
from tui.client.stream import StreamState
from tui.commands import ActionsProvider
from tui.config import Config, load_config
from tui.controller import Controller
from tui.keymap import apply_keymap, keymap_classes
from tui.messages import BootFailed, ConnectionChanged, StoreChanged
from tui.notify import Alert, Notifier, terminal_signal
from tui.plain import toast
from tui.protocol.dialect import Dialect
from tui.protocol.models import Health, ModelInfo
from tui.session_actions import SessionActions
from tui.state.store import Store
from tui.state.transcript import Change
from tui.themes import persist_theme

log = logging.getLogger("octui")
STYLES = Path(__file__).resolve().parent.parent / "styles"
CATALOG_RETRY_S = (0.5, 1.0, 2.0, 4.0)  # waits between /api/model attempts
FRAME_S = 1 / 30  # repaint budget: at most ~30 flushes a second, however fast deltas come
FLUSH_GAP = 1.5  # after a frame (flush + repaint) that took t, wait ≥ FLUSH_GAP·t before the next
FLUSH_WAIT_MAX_S = 0.25  # however slow the last frame was, the next one comes this soon


@dataclass
class ConnectSpec:
    """How to reach a server: a URL (+ auth), a local server to start, or an in-process transport."""

    url: str | None = None
    username: str = "opencode"
    password: str | None = None
    transport: httpx.AsyncBaseTransport | None = None
    start_local: bool = False
    session_id: str | None = None
    continue_last: bool = False
    directory: str = field(default_factory=os.getcwd)
    heartbeat_timeout: float = 35.0


class OctuiApp(App[int]):
    """The terminal client. Exit code: 0 normal, non-zero when start-up failed."""

    TITLE = "octui"
    CSS_PATH = [str(p) for p in sorted(STYLES.glob("*.tcss"), key=lambda p: (p.name != "app.tcss", p.name))]
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True)]
    COMMANDS = App.COMMANDS | {ActionsProvider}  # ctrl+p: every action (tui/commands.py)

    def __init__(self, spec: ConnectSpec, *, demo: Any = None, config: Config | None = None) -> None:
        super().__init__()
        self.config = config if config is not None else load_config()
        self.spec = spec
        self.demo = demo  # a tui.demo server kept alive for --demo
        self.store = Store()
        self.client: OpenCodeClient | None = None
        self.controller: Controller | None = None
        self.local: LocalServer | None = None
        self.health: Health | None = None
        self.models: list[ModelInfo] = []
        self.stream_state = StreamState(phase="connecting")
        self._pending: list[Change] = []
        self._flush_scheduled = False
        self._flush_cost = 0.0  # seconds the last frame took: the flush and the repaint after it
        self.exit_message: str | None = None
        self.actions = SessionActions(self)
        self.notifier = Notifier(self.store, lambda: self.app_focus, self._alert,
                                 lambda: getattr(self._main_or_none(), "session_id", None),
                                 enabled=self.config.notify)

    async def on_mount(self) -> None:
        from tui.screens.main import MainScreen

        for warning in apply_keymap(self, self.config.keys, keymap_classes()):
            toast(self, f"config: {warning}", severity="warning", timeout=10)
        persist_theme(self, self.config)
        await self.push_screen(MainScreen())  # _boot queries its widgets (fast with the demo)
        # What exists now (modules, styles, the screen) lives as long as the app: keep it out of the
        # collector's full passes, which would walk it all and stall a frame by 100 ms or more.
        # (Rarer full passes do not help: Textual's strips are cyclic garbage, so each pass would
        # free more at once and take longer.)
        gc.freeze()
        from widgets.markdown_chunk import warm_lexers  # loaded with the screen anyway

        self.set_timer(0.3, lambda: warm_lexers(self.set_timer))  # while idle, not mid-answer
        self._boot()

    # ------------------------------------------------------------------ boot
    @work(exclusive=True, group="boot", exit_on_error=False)
    async def _boot(self) -> None:
        spec = self.spec
        try:
            url, password = spec.url, spec.password
            if spec.start_local:
                toast(self, "Starting a local OpenCode server…", timeout=3)
                self.local = LocalServer()
                started = await self.local.start(cwd=spec.directory)
                url, password = started.url, started.password
            assert url is not None
            self.client = OpenCodeClient(url, username=spec.username, password=password,
                                         transport=spec.transport)
            self.health = await self.client.connect()
            if self.health.version is None and self.client.dialect is not Dialect.V2:
                self.health.version = await self.client.legacy_version()
        except OctuiError as exc:
            self.post_message(BootFailed(str(exc), 3))
            return
        self.controller = Controller(self.client, self.store, self._on_changes, self._on_state,
                                     heartbeat_timeout=spec.heartbeat_timeout)
        self._run_stream()
        self._load_models()
        session_id = spec.session_id
        if session_id is None and spec.continue_last:
            with contextlib.suppress(OctuiError):
                sessions, _ = await self.client.list_sessions(limit=1, roots_only=True)
                session_id = sessions[0].id if sessions else None
        if session_id:
            await self.open_session(session_id)
        else:
            self.screen_main().show_home()

    @work(exclusive=True, group="stream", exit_on_error=False)
    async def _run_stream(self) -> None:
        assert self.controller is not None
        await self.controller.run()

    @work(exclusive=True, group="catalog", exit_on_error=False)
    async def _load_models(self) -> None:
        if self.client is None:
            return
        # The catalog fills lazily after start (503 / empty): a GET is safe to retry, bounded.
        for delay in (*CATALOG_RETRY_S, None):
            try:
                self.models = await self.client.models()
            except OctuiError as exc:
                if delay is None:
                    toast(self, f"Model list unavailable: {exc}", severity="warning", timeout=8)
                    return
                await asyncio.sleep(delay)
                continue
            self.screen_main().refresh_status()
            return

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A worker that dies must say so: silence would look like a hung client."""
        if event.state is WorkerState.ERROR and event.worker.error is not None:
            error = event.worker.error
            log.error("worker %s failed: %r", event.worker.name, error)
            toast(self, f"{event.worker.name.strip('_').replace('_', ' ')} failed: {error}",
                        severity="error", timeout=8)

    def on_boot_failed(self, message: BootFailed) -> None:
        self.exit_message = message.text
        self.exit(message.code)

    # ------------------------------------------------------------------ changes
    def _on_changes(self, changes: list[Change]) -> None:
        self.post_message(StoreChanged(changes))

    def _on_state(self, state: StreamState) -> None:
        self.post_message(ConnectionChanged(state))

    def on_store_changed(self, message: StoreChanged) -> None:
        self._pending.extend(message.changes)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            # A slow frame (a long answer streaming very fast) spaces the next one out, so keys
            # and the stream always get part of the event loop.
            wait = min(FLUSH_WAIT_MAX_S, max(FRAME_S, FLUSH_GAP * self._flush_cost))
            self.set_timer(wait, self._flush_changes)

    def _flush_changes(self) -> None:
        self._flush_scheduled = False
        changes, self._pending = self._pending, []
        main = self._main_or_none()  # None while the app is closing: late changes are dropped
        if changes and main is not None:
            started = perf_counter()
            with self.batch_update():
                main.apply_changes(changes)
            self.call_after_refresh(self._frame_done, started)
            self.notifier.observe(changes)

    def _frame_done(self, started: float) -> None:
        self._flush_cost = perf_counter() - started

    def _alert(self, alert: Alert) -> None:
        """A turn ended or an ask arrived while the terminal is unfocused: toast + desktop
        notification or bell, as ``notify_method`` says (tui/notify.py)."""
        toast(self, alert.text, title="octui", severity="warning" if alert.kind == "ask" else "information",
                    timeout=30)
        self.write_terminal(terminal_signal(self.config.notify_method, "octui", alert.text, os.environ))

    def write_terminal(self, data: str) -> None:
        """Write a raw escape sequence, as ``App.bell`` does, through the driver's writer queue.

        The driver writes each frame with one ``write`` call from this (the event loop) thread,
        so a sequence queued here lands between two frames, never inside one. Headless runs and
        a closed driver write nothing.
        """
        driver = getattr(self, "_driver", None)  # no public API for raw output in Textual 8.2.8
        if data and not self.is_headless and driver is not None:
            driver.write(data)

    def on_connection_changed(self, message: ConnectionChanged) -> None:
        self.stream_state = message.state
        main = self._main_or_none()
        if main is not None:
            main.connection_changed(message.state)

    def _main_or_none(self) -> Any:
        from tui.screens.main import MainScreen

        if not self.is_running:  # shutting down: the screen may still be stacked with its children gone
            return None
        return next((s for s in self.screen_stack if isinstance(s, MainScreen)), None)

    def screen_main(self) -> Any:
        main = self._main_or_none()
        if main is None:
            raise RuntimeError("main screen missing")
        return main

    # ------------------------------------------------------------------ actions
    async def open_session(self, session_id: str) -> None:
        if self.controller is None:
            return
        main = self.screen_main()
        try:
            await self.controller.open_session(session_id)
        except OctuiError as exc:
            toast(self, f"Could not open session: {exc}", severity="error")
            return
        main.show_session(session_id)

    async def action_quit(self) -> None:
        await self.shutdown()
        self.exit(0)

    async def shutdown(self) -> None:
        """Stop the stream, close HTTP and stop the local server we started (by PID)."""
        if self.controller is not None:
            with contextlib.suppress(Exception):
                self.controller.stop()
        if self.client is not None:
            with contextlib.suppress(Exception):
                await self.client.aclose()
        if self.local is not None:
            with contextlib.suppress(Exception):
                await self.local.stop()
            self.local = None

    async def on_unmount(self) -> None:
        await self.shutdown()
