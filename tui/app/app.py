"""OctuiApp: owns the store and the session service (``app.session``); the stream runs in one worker."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import sys
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter, thread_time
from typing import Any

import httpx
from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.dom import DOMNode
from textual.screen import Screen
from textual.timer import Timer
from textual.worker import Worker, WorkerState

import styles
from tui.app import exit_guard
from tui.app.frame_writer import DiffedOutput
from tui.app.keymap import apply_keymap
from tui.app.messages import BootFailed, ConnectionChanged, change_messages
from tui.app.notify import Alert, Notifier, terminal_signal
from tui.app.palette import ActionsProvider
from tui.app.session_actions import SessionActions
from tui.app.terminal_check import terminal_problem
from tui.app.themes import persist_theme
from tui.protocol.models import Health, ModelInfo, ModelRef
from tui.screens.key_guard import held_keys
from tui.screens.main import MainScreen
from tui.screens.sessions import SessionsScreen
from tui.session.connect import LocalServer, StreamState
from tui.session.errors import OctuiError
from tui.session.service import SessionService
from tui.state.changes import Change, PartChanged
from tui.state.store import Store
from tui.storage.config import Config, load_config
from widgets._textual_compat import driver_write, install_alt_keys
from widgets.composer.composer import Composer
from widgets.plain import toast
from widgets.tools.tool_row import ToolRow
from widgets.transcript.message_view import MessageView

log = logging.getLogger("octui")
install_alt_keys()  # Alt+Enter sent as ESC CR (tmux) is Alt+Enter, not Enter
STYLES = Path(styles.__file__).resolve().parent
CATALOG_RETRY_S = (0.5, 1.0, 2.0, 4.0)  # waits between /api/model attempts
FRAME_S = 1 / 30  # repaint budget: at most ~30 flushes a second, however fast deltas come
STREAM_FRAME_S = 1 / 20  # parts growing (an answer streaming): at most ~20 frames a second ...
STREAM_SLACK_S = 0.01  # ... on average: one starts up to this much early on slot time left unused
STREAM_PATIENCE_S = 1 / 20  # a part that comes within a slot waits this long at most for the next
FLUSH_GAP = 1.5  # after a frame (flush + repaint) that took t, wait ≥ FLUSH_GAP·t before the next
FLUSH_WAIT_MAX_S = 0.25  # however slow the last frame was, the next one comes this soon
# An answer that grows by more than a screen a second cannot be read as it passes (the rate is
# that of the frames of the last second, judged once they span FLOOD_DECIDE_S, so a burst is
# known as one after a quarter of a second, or as soon as a quarter of a screen came in less
# time, FLOOD_LUMP_SCREENS: each frame before that paints lines nobody reads, bytes that go
# through the terminal for nothing). A fast model is well below that: 100 deltas a second of
# a markdown answer add about 8 lines a second, a fifth of a 40-row screen, some of them in
# lumps (a list item, a code line wrapped); judged against a quarter of a screen a second, that
# was a flood, painted once a second, its words up to 1.7 s late. While it floods, the widgets
# keep up at the streaming pace (each piece rendered as it comes, within its slice) but the
# terminal is painted once a second (each frame much of a new screen), and at once when the
# stream has been quiet for QUIET_S, when a key or the mouse is used, or when anything but an
# answer's parts changes. It is over below FLOOD_OVER of that rate: a fast model whose lump (a
# code block sealed at once) made a flood is streamed again once the lump is a second old.
FLOOD_SCREENS_PER_S = 1.0
FLOOD_OVER = 0.8
FLOOD_WINDOW_S = 1.0
FLOOD_DECIDE_S = 0.25  # the rate is judged over the frames of the last window once they span this
FLOOD_LUMP_SCREENS = 0.25  # ... or as soon as they grew by this much: so much in less than
# FLOOD_DECIDE_S is more than FLOOD_SCREENS_PER_S (while FLOOD_LUMP_SCREENS ≥ FLOOD_SCREENS_PER_S ·
# FLOOD_DECIDE_S), a flood at once; spread over more time, it is judged by the rate as any growth
# is (a reading pace adds a line or two at a time)
FLOOD_FRAME_S = 1.0
# While a flood's painting is held, its parts reach the widgets at most this often (not at the
# streaming pace): each update of a growing block costs its work (a fence is lexed again whole)
# and no one sees the ones in between. What is still pending when the hold ends is applied first.
FLOOD_FLUSH_S = 0.25
QUIET_S = 0.05
# After a key or the mouse, a flood's frames are painted as they come for this long: what was
# typed or scrolled is painted with the next frame, not held with the flood for up to a second
# (and its parts come at the streaming pace, not FLOOD_FLUSH_S: while one types or scrolls, a
# flood is streamed as any answer is).
INPUT_PAINT_S = 0.5
RENDER_HOLD_S = 0.1  # placeholders at the end of an answer: painted once rendered, or after this


_USER_INPUT = (events.Key, events.MouseDown, events.MouseScrollDown, events.MouseScrollUp, events.Paste)


def _only_parts(changes: list[Change]) -> bool:
    """Whether ``changes`` are all an answer's parts growing (paced and held as a stream; anything
    else is painted at the UI's own pace, at once in a flood)."""
    return all(type(change) is PartChanged for change in changes)


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
    # Which server this is, for the status line: "service" (the user's registered background
    # service), "private" (a local server octui started), "" (a --url / demo / test server).
    origin: str = ""
    notices: list[str] = field(default_factory=list)  # said once at start (e.g. a refused registry)


class OctuiApp(DiffedOutput[int]):
    """The terminal client. Exit code: 0 normal, non-zero when start-up failed."""

    TITLE = "octui"
    CSS_PATH = [str(p) for p in sorted(STYLES.glob("*.tcss"), key=lambda p: (p.name != "app.tcss", p.name))]
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True, id="octui.quit")]
    COMMANDS = App.COMMANDS | {ActionsProvider}  # ctrl+p: every action (tui/app/palette.py)
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # every screen: narrow layouts in styles/
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]  # and short ones (80x24)
    SUSPENDED_SCREEN_CLASS = "-covered"  # a screen another is over: the main one's toasts hide (toasts.tcss)

    def __init__(self, spec: ConnectSpec, *, demo: Any = None, config: Config | None = None) -> None:
        super().__init__()
        self.config = config if config is not None else load_config()
        self.spec = spec
        self.demo = demo  # a tui.demo server kept alive for --demo
        self.store = Store()
        # THE command path: every server call of the UI goes through it (ready once connected).
        self.session = SessionService(None, self.store, self._on_changes, self._on_state,
                                      heartbeat_timeout=spec.heartbeat_timeout, directory=spec.directory)
        self.local: LocalServer | None = None
        self._quit_asked = False  # Ctrl+Q during a turn asked to confirm (``action_quit``)
        self._stopping_lock = asyncio.Lock()  # one shutdown at a time, and once (``shutdown``)
        self._stopped_all = False
        self.health: Health | None = None
        self.models: list[ModelInfo] = []
        self.default_model: ModelRef | None = None  # a new session's model, where the server says
        self.stream_state = StreamState(phase="connecting")
        self._pending: list[Change] = []
        self._flush_queued = False  # a flush is queued after the app's messages (call_later)
        self._flush_timer: Timer | None = None  # or it waits for this timer, due at _flush_due
        self._flush_due = 0.0
        self._flush_timers = 0  # timers set so far: a fired one flushes only if it is still the last
        self._slack = 0.0  # how early the next frame may start: slot time the last frames left unused
        self._first_pending = 0.0  # when the oldest change not yet flushed came
        self._pending_parts = True  # whether those are all an answer's parts (paced as a stream)
        self._flush_cost = 0.0  # CPU seconds the last frame took: the flush and the repaint after it
        self._last_flush = 0.0  # when the last frame started (perf_counter)
        self._last_frame_end = 0.0  # when it was painted
        self._held: contextlib.AbstractContextManager[None] | None = None  # painting held (a flood)
        self._hold_until = 0.0
        self._hold_flood = False
        self._release_with: list[Change] | None = None  # a held flood ends with this frame's changes
        self._input_at = -INPUT_PAINT_S  # the last key or mouse use (perf_counter)
        self.typed_at = float("-inf")  # the last key typed (perf_counter): an ask waits for a pause
        self._last_change = 0.0  # when the latest change arrived
        self._flooding = False  # the last frame found the transcript grown by over a screen a second
        self._growth: deque[tuple[float, int]] = deque()  # (when, transcript rows) after recent frames
        self.exit_message: str | None = None
        self.exit_grace_s: float | None = None  # the CLI bounds the exit (app/exit_guard.py); tests do not
        self.actions = SessionActions(self)
        self.notifier = Notifier(self.store, lambda: self.app_focus, self._alert,
                                 lambda: getattr(self.main_or_none(), "session_id", None),
                                 enabled=self.config.notify)

    async def on_mount(self) -> None:
        for warning in apply_keymap(self, self.config.keys, keymap_classes()):
            toast(self, f"config: {warning}", severity="warning", timeout=10)
        persist_theme(self, self.config)
        await self.push_screen(MainScreen())  # _boot queries its widgets (fast with the demo)
        # What exists now (modules, styles, the screen) lives as long as the app: keep it out of the
        # collector's full passes, which would walk it all and stall a frame by 100 ms or more.
        # (Rarer full passes do not help: Textual's strips are cyclic garbage, so each pass would
        # free more at once and take longer.)
        gc.freeze()
        gc.enable()  # off since the start (tui/app/entry.py); on already when started otherwise
        from widgets.transcript.markdown_chunk import warm_lexers  # loaded with the screen anyway

        self.set_timer(0.3, lambda: warm_lexers(self.set_timer))  # while idle, not mid-answer
        self._boot()

    def run(self, *args: Any, **kwargs: Any) -> int | None:
        """Textual's ``run``, once it is known that there is a terminal to draw on (headless: no
        need); without one, ``exit_message`` says why and the code is 2 (a usage error)."""
        if not kwargs.get("headless"):
            problem = terminal_problem(sys.__stdin__, sys.__stderr__, os.environ)
            if problem is not None:
                self.exit_message = problem
                return 2
        return super().run(*args, **kwargs)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's palette commands, less its "Keys" panel: F1 (Help: every key) is the one list
        of keys, and two entries called Keys read as the same thing."""
        for command in super().get_system_commands(screen):
            if command.title != "Keys":
                yield command

    # ------------------------------------------------------------------ boot
    @work(exclusive=True, group="boot", exit_on_error=False)
    async def _boot(self) -> None:
        spec = self.spec
        for notice in spec.notices:
            toast(self, notice, severity="warning", timeout=20)
        try:
            url, password = spec.url, spec.password
            if spec.start_local:
                # 2.x takes 6-12 s to listen, up to a minute on a loaded machine: the banner says so.
                self.screen_main().show_starting_server()
                self.local = LocalServer()
                started = await self.local.start(cwd=spec.directory)
                url, password = started.url, started.password
            assert url is not None
            self.health = await self.session.connect(
                url, username=spec.username, password=password, transport=spec.transport,
                startup_line=self.local.startup_line if self.local is not None else None)
        except OctuiError as exc:
            self.post_message(BootFailed(str(exc), 3))
            return
        self._run_stream()
        self._load_models()
        session_id = spec.session_id
        main = self.main_or_none()
        if main is None:  # closed while it connected
            return
        title = None
        if session_id is None and spec.continue_last:
            main.show_loading(None, "◌ Opening the latest session…")
            with contextlib.suppress(OctuiError):
                latest = await self.session.latest_root_session()
                session_id = latest.id if latest else None
                title = latest.title if latest else None
            main = self.main_or_none()
            if main is None:  # closed while it asked
                return
        if session_id:
            main.show_loading(session_id, title=title)
            if await self.open_session(session_id):
                return
        main = self.main_or_none()
        if main is not None:  # (None: closed while the session loaded)
            main.show_home()

    @work(exclusive=True, group="stream", exit_on_error=False)
    async def _run_stream(self) -> None:
        await self.session.run()

    @work(exclusive=True, group="catalog", exit_on_error=False)
    async def _load_models(self) -> None:
        if not self.session.is_ready:
            return
        # The catalog fills lazily after start (503, or [] for a second or two on 2.x): a GET is
        # safe to retry, bounded. An empty list that stays empty is kept: the server has no models.
        for delay in (*CATALOG_RETRY_S, None):
            try:
                models = await self.session.models()
            except OctuiError as exc:
                if delay is None:
                    toast(self, f"Model list unavailable: {exc}", severity="warning", timeout=8)
                    return
                await asyncio.sleep(delay)
                continue
            if not models and delay is not None:
                await asyncio.sleep(delay)
                continue
            self.models = models
            with contextlib.suppress(OctuiError):
                found = await self.session.default_model()
                if found is not None:
                    self.default_model = ModelRef(id=found.id, providerID=found.providerID)
            main = self.main_or_none()
            if main is not None:  # (None: closed while the list came)
                main.refresh_status()
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
        # Called on the event loop by the session service for every frame of the stream: queued at
        # once (a message per delta would cost a dispatch each; a frame handles them all).
        self._queue_changes(changes)

    def _on_state(self, state: StreamState) -> None:
        self.post_message(ConnectionChanged(state))

    def _queue_changes(self, changes: list[Change]) -> None:
        now = perf_counter()
        parts = _only_parts(changes)
        if not self._pending:
            self._first_pending = now
            self._pending_parts = True
        # Kept as changes come, not found again in the pending list: a flood's frame holds hundreds.
        self._pending_parts = self._pending_parts and parts
        self._pending.extend(changes)
        self._last_change = now
        if not parts:
            self.release_paint()  # anything but an answer's parts is painted at once, even in a flood
        if self._flush_queued:
            return  # a flush runs after the app's queued messages: it takes these too
        # Frames start a pace apart. A change that comes once the slot is over is drawn at once
        # (after a quiet spell, or the next delta of a paced stream); one that comes within it
        # waits for the first change after the slot, or STREAM_PATIENCE_S at most. So a paced
        # answer's frames fall on its deltas (30 ms apart: a frame on every second one, the first
        # waiting 30 ms), where a frame clock of their own would leave some deltas waiting
        # nearly a whole slot. After a slow frame (a long answer streaming very fast) that took
        # t, the loop is left free for FLUSH_GAP·t, so keys and the stream always get part of it.
        parts = self._pending_parts
        pace = STREAM_FRAME_S - self._slack if parts else FRAME_S
        if parts and self._held is not None and self._hold_flood:
            pace = FLOOD_FLUSH_S
        # A frame still in flight (flushed, not painted yet) ends about one frame cost after it
        # started: the gap is counted from then, not from the end of the frame before.
        end = max(self._last_frame_end, self._last_flush + self._flush_cost)
        start = max(self._last_flush + pace, end + FLUSH_GAP * self._flush_cost)
        if start <= now:
            self._cancel_flush_timer()
            self._flush_queued = True
            self.call_later(self._flush_queued_now)  # after the app's queued messages (more deltas)
            return
        due = max(start, self._first_pending + STREAM_PATIENCE_S) if parts else start
        due = min(due, now + FLUSH_WAIT_MAX_S)
        if self._flush_timer is None or due < self._flush_due - 0.001:
            self._cancel_flush_timer()
            self._flush_due = due
            self._flush_timers += 1
            number = self._flush_timers
            self._flush_timer = self.set_timer(due - now, lambda: self._flush_on_time(number))

    @property
    def _flush_scheduled(self) -> bool:
        """Whether a frame is coming for the pending changes (queued, or on a timer)."""
        return self._flush_queued or self._flush_timer is not None

    # A timer that fired has queued its callback already (Textual calls it next), and stopping
    # it then does not take that back: each of these two checks that its flush is still the one
    # coming, or a stopped timer's callback would paint a frame right after the one that replaced it.
    def _flush_on_time(self, number: int) -> None:
        if self._flush_timer is not None and number == self._flush_timers:
            self._flush_timer = None  # it fired: nothing to stop
            self._flush_changes()

    def _flush_queued_now(self) -> None:
        if self._flush_queued:
            self._flush_changes()

    def _cancel_flush_timer(self) -> None:
        timer, self._flush_timer = self._flush_timer, None
        if timer is not None:
            timer.stop()

    # ------------------------------------------------------------------ painting held in a flood
    def _hold_paint(self, seconds: float) -> None:
        if self._held is None:
            self._held = self.batch_update()
            self._held.__enter__()
            self._hold_until = perf_counter() + seconds
            self._hold_flood = self._flooding
            self.set_timer(QUIET_S / 2, self._held_tick)

    def _held_tick(self) -> None:
        if self._held is None:
            return
        now = perf_counter()
        main = self.main_or_none()
        behind = main is not None and main.rendering_behind()
        quiet = now - self._last_change >= QUIET_S
        # A flood is painted once it is over (quiet) and its lines are rendered (not placeholders
        # to be painted again a slice later), or after a second of it.
        if self._hold_over(now, behind) or (not behind and (quiet or not self._hold_flood)):
            if self._hold_flood and self._pending and self._flush_scheduled and main is not None:
                # Parts held back at the flood's pace: applied first, painted with them (by that
                # frame, not one still in flight before it). This frame does not wait FLUSH_GAP
                # after the one before: it ends a hold (or, while its lines render, a few times).
                self._release_with = self._pending
                self._flush_changes()
                return
            self.release_paint()  # a second of a flood, its end, or the lines are rendered now
        else:
            self.set_timer(QUIET_S / 2, self._held_tick)

    def _hold_over(self, now: float, behind: bool) -> bool:
        """A hold's time is up: its own, and RENDER_HOLD_S more while its lines are placeholders.
        (A flood's second released with lines still to render was painted again as each slice
        of them came: two or three frames of a screen of code within 60 ms, not one.)"""
        return now >= self._hold_until + (RENDER_HOLD_S if behind else 0.0)

    def release_paint(self) -> None:
        """Paint what a flood held back (at once: a key, the mouse, any other change)."""
        held, self._held = self._held, None
        if held is not None:
            held.__exit__(None, None, None)
            self.call_after_refresh(self._measure_growth)  # laid out again: is it still a flood?
            if self._hold_flood:
                self.call_after_refresh(self._hold_again)

    def _hold_again(self) -> None:
        """A flood's second painted, the flood going on: held again at once. Left unheld until
        its next frame, the flood was painted two or three times more within 60 ms (the pieces
        rendered just after the paint, the scroll bar), each much of a screen of new lines."""
        now = perf_counter()
        if self._held is None and self._flood_to_hold(now) and now - self._last_change < QUIET_S:
            self._hold_paint(FLOOD_FRAME_S)

    def _flood_to_hold(self, now: float) -> bool:
        """A flood, and no key or mouse use within INPUT_PAINT_S: its painting may be held (while
        one types or scrolls, a flood is painted as it comes)."""
        return self._flooding and now - self._input_at >= INPUT_PAINT_S

    async def on_event(self, event: events.Event) -> None:
        used = isinstance(event, _USER_INPUT)
        if used:
            self._input_at = perf_counter()
        if isinstance(event, events.Key) and not event.is_forwarded:
            self.typed_at = self._input_at
            if held_keys(self.screen, self.typed_at):
                # A dialog that just opened: keys typed for the prompt answer nothing. Its letters
                # go on into the prompt under it (QA: "my draft", typed as a dialog opened, was
                # lost); other keys (Enter: it was not sent) are dropped.
                main = self.main_or_none()
                if main is not None and event.is_printable and event.character:
                    main.composer.insert(event.character)
                return
        if self._held is not None and (used or isinstance(event, events.Resize)):
            self.release_paint()
        if isinstance(event, events.Key) and not event.is_forwarded:  # (not one bubbling back up)
            main = self.main_or_none()
            if main is not None and main is self.screen:
                decision = main.take_typing(event)  # a letter typed on a message goes to the prompt
                for bound in decision.run:  # ... or is the message's own key: run now, in key order
                    if bound.enabled:
                        await self.run_action(bound.binding.action, bound.node)
                if decision.consumed:
                    return
        await super().on_event(event)

    def _flush_changes(self) -> None:
        self._cancel_flush_timer()
        self._flush_queued = False
        now = perf_counter()
        self._slack = min(STREAM_SLACK_S, max(0.0, self._slack + now - self._last_flush - STREAM_FRAME_S))
        self._last_flush = now
        changes, self._pending = self._pending, []
        main = self.main_or_none()  # None while the app is closing: late changes are dropped
        if changes and main is not None:
            started = thread_time()  # CPU, not wall: a loaded machine must not slow frames down more
            # One message per family of changes, to the screen; painting waits until it handled them.
            batch = self.batch_update()
            batch.__enter__()
            for message in change_messages(changes):
                main.post_message(message)
            main.call_next(self._frame_applied, main, batch, started, changes)

    def _frame_applied(self, main: MainScreen, batch: contextlib.AbstractContextManager[None],
                       started: float, changes: list[Change]) -> None:
        """The screen handled a frame's messages (``call_next`` runs after them): paint it."""
        batch.__exit__(None, None, None)
        self.call_after_refresh(self._frame_done, started)
        self.notifier.observe(changes)
        if changes is self._release_with:
            self._release_with = None
            if main.rendering_behind() and not self._hold_over(perf_counter(), behind=True):
                self.set_timer(QUIET_S / 2, self._held_tick)  # placeholders: released once rendered
            else:
                self.release_paint()
        elif self._flood_to_hold(perf_counter()) and _only_parts(changes):
            self._hold_paint(FLOOD_FRAME_S)  # (anything but an answer's parts is painted at once)
        elif main.rendering_behind():
            self._hold_paint(RENDER_HOLD_S)  # placeholders now, the real lines a slice later

    def _frame_done(self, started: float) -> None:
        self._flush_cost = thread_time() - started
        self._last_frame_end = perf_counter()
        if self._held is None:  # no layout while painting is held: measured once it is shown
            self._measure_growth()

    def _measure_growth(self) -> None:
        now = perf_counter()
        main = self.main_or_none()
        rows = main.content_rows() if main is not None else 0
        growth = self._growth
        if growth and not self._flooding and now - growth[-1][0] > FLOOD_DECIDE_S:
            # A pause (the model thinking, the wait for its first words): the rate is judged on
            # what comes after it, not watered down by the frame before it (a burst after a
            # 0.4 s wait was known as one a second late: 13 frames of lines nobody reads).
            growth.clear()
        growth.append((now, rows))
        while len(growth) > 2 and now - growth[1][0] > FLOOD_WINDOW_S:
            growth.popleft()  # at most one frame older than the window stays: the newest such
        then, before = growth[0]
        if now - then > FLOOD_WINDOW_S and len(growth) > 2:
            then, before = growth[1]  # the last window has frames of its own: judged on them
        span = now - then
        if span > 2 * FLOOD_WINDOW_S:
            self._flooding = False  # the frame before is long past (a stream after a pause)
        elif span >= FLOOD_DECIDE_S or rows - before >= self.size.height * FLOOD_LUMP_SCREENS:
            rate = (rows - before) / max(span, 1e-3) / max(1, self.size.height)  # screens a second
            limit = FLOOD_SCREENS_PER_S * FLOOD_OVER if self._flooding else FLOOD_SCREENS_PER_S
            self._flooding = rate > limit

    def _alert(self, alert: Alert) -> None:
        """A turn ended or an ask arrived while the terminal is unfocused: toast + desktop
        notification or bell, as ``notify_method`` says (tui/app/notify.py)."""
        toast(self, alert.text, title="octui", severity="warning" if alert.kind == "ask" else "information",
                    timeout=30)
        self.write_terminal(terminal_signal(self.config.notify_method, "octui", alert.text, os.environ))

    def write_terminal(self, data: str) -> None:
        """Write a raw escape sequence, as ``App.bell`` does, through the driver's writer queue.

        The driver writes each frame with one ``write`` call from this (the event loop) thread,
        so a sequence queued here lands between two frames, never inside one. Headless runs and
        a closed driver write nothing.
        """
        driver_write(self, data)  # no public API for raw output in Textual 8.2.8

    def on_connection_changed(self, message: ConnectionChanged) -> None:
        self.stream_state = message.state
        main = self.main_or_none()
        if main is not None:
            main.connection_changed(message.state)

    def main_or_none(self) -> MainScreen | None:
        """The main screen; None while the app is closing (a late timer or reply asks for it)."""
        if not self.is_running:  # shutting down: the screen may still be stacked with its children gone
            return None
        return next((s for s in self.screen_stack if isinstance(s, MainScreen)), None)

    def screen_main(self) -> MainScreen:
        main = self.main_or_none()
        if main is None:
            raise RuntimeError("main screen missing")
        return main

    # ------------------------------------------------------------------ actions
    async def open_session(self, session_id: str) -> bool:
        """Load a session's history and show it (the main screen does); False when it failed,
        or the app is closing."""
        main = self.main_or_none()
        return main is not None and await main.load_and_show(session_id)

    async def action_quit(self) -> None:
        if self.local is not None and self.store.busy_ids() and not self._quit_asked:
            # The server octui started stops with it, and a running turn with it (QA: Ctrl+Q
            # in the middle of a turn quit at once). Ctrl+Q again, or y, quits.
            self._quit_asked = True
            from tui.screens.confirm import ConfirmScreen  # on first use (tui/screens/__init__.py)

            def answered(quit_now: bool | None) -> None:
                if quit_now:
                    self.call_later(self.action_quit)  # (still asked: no new ask)
                else:
                    self._quit_asked = False

            self.push_screen(ConfirmScreen(
                "A turn is still running", "octui started this server: quitting stops it, and the turn "
                "with it. (Ctrl+Q again quits too.)", yes="Quit", danger=True), answered)
            return
        main = self.main_or_none()
        if main is not None:
            main.save_draft()  # first: the exit guard may cut what follows short
        await self.shutdown()
        self.exit(0)

    def exit(self, result: int | None = None, return_code: int = 0, message: Any = None) -> None:
        self._bound_exit()
        super().exit(result, return_code, message)

    def _bound_exit(self) -> None:
        """From here on the process ends within ``exit_grace_s``, whatever a worker is stuck in."""
        if self.exit_grace_s is not None:
            exit_guard.arm(self.exit_grace_s, lambda: self.return_code or 0)

    async def shutdown(self) -> None:
        """Stop the stream, close HTTP and stop the local server we started (by PID). Once: a
        second caller (Ctrl+Q while the first stop waits, the unmount) waits for the first, which
        a second stop cut short (review: its SIGKILL step skipped)."""
        async with self._stopping_lock:
            if not self._stopped_all:
                try:
                    await self._stop_everything()
                finally:
                    self._stopped_all = True

    async def _stop_everything(self) -> None:
        self._bound_exit()
        self.release_paint()
        await self.session.close()
        if self.local is not None:
            with contextlib.suppress(Exception):
                await self.local.stop()
            self.local = None

    async def on_unmount(self) -> None:
        await self.shutdown()


def keymap_classes() -> list[type[DOMNode]]:
    """octui's classes whose bindings the config may rebind."""
    return [OctuiApp, MainScreen, SessionsScreen, Composer, MessageView, ToolRow]
