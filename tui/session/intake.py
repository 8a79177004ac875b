"""Stream intake: everything the server says on its own, from the event stream into the store. No Textual.

``StreamIntake`` is owned by ``SessionService`` (``tui/session/service.py``, the command path). It
runs the ``EventStream`` and turns each frame into store changes (``ingest``: the hot path, with the
dialect marks that notice which server generation is talking), then acts on the store's own
follow-ups (``need_message``, ``check_active``, turn failures for the log, live shell output of a
running v2 tool). The stream has no replay, so after every (re)connect it resyncs over HTTP (busy
state, pending asks, the open session) while live frames wait in a buffer (``hold``/``release``),
and a busy watchdog asks the server when a busy session goes quiet. State changes go through the
store's reducers only, and leave through the sinks the service gave it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from tui.client.errors import OctuiError
from tui.client.http import OpenCodeClient
from tui.client.stream import EventStream, StreamState
from tui.protocol.dialects import Dialect, FrameNormaliser, detect
from tui.protocol.events import ProtocolError, parse_event
from tui.state.changes import (
    Change,
    CheckActive,
    LogLine,
    NeedMessage,
    PartChanged,
    Resynced,
    TurnFailed,
)
from tui.state.store import AskLists, Store
from tui.state.transcript import ToolCall
from tui.text.failures import failure_log_line

log = logging.getLogger("octui")

ChangeSink = Callable[[list[Change]], None]
StateSink = Callable[[StreamState], None]
Reload = Callable[[], Awaitable[list[Change]]]

ACTIVE_POLL_S = 4.0  # busy sessions with a silent stream are re-checked this often
CHECK_ACTIVE_DELAY_S = 0.5  # a CheckActive follow-up (or an interrupt) asks the server this much later
SHELL_POLL_S = 0.5  # live output of a running v2 shell is fetched this often
SHELL_FOLLOW_MAX_S = 3600.0  # and never for longer than this
SHELL_KEEP_CHARS = 1_000_000
ASKS_RETRY_S = (1.0, 3.0, 10.0)  # a resync that could not read the pending asks tries again ...
ASKS_RETRY_EVERY_S = 30.0  # ... then this often, while the same connection lasts
MARKS_MAX = 1024  # event types remembered by ``_mark`` (a server has a few hundred at most)


class StreamIntake:
    """The event stream into the store, and what must follow from it; see the module docstring."""

    client: OpenCodeClient
    stream: EventStream

    def __init__(self, store: Store, on_changes: ChangeSink, unreviewed: ChangeSink,
                 on_state: StateSink, reload: Reload, *, heartbeat_timeout: float = 35.0) -> None:
        """``on_changes`` reviews every batch (the auto-approver); ``unreviewed`` takes the text and
        reasoning deltas nothing needs to review. ``reload`` re-reads the open session in a resync."""
        self.store = store
        self.on_changes = on_changes
        self._unreviewed = unreviewed
        self.on_state = on_state
        self._reload = reload
        self.heartbeat_timeout = heartbeat_timeout
        # Frames of the connected generation -> pinned v2 frames; rebuilt when the generation
        # changes (detected late, from an event name or a route's 404).
        self._frames_of: Dialect | None = None
        self._frames: FrameNormaliser | None = None
        self._marks: dict[str, Dialect | None] = {}  # event type -> the generation it names, if any
        self.stream_state: StreamState | None = None
        self._holds = 0  # resyncs and history loads under way: live frames wait in _buffer
        self._buffer: list[dict[str, Any]] = []
        self._connected = asyncio.Event()
        self._last_frame = time.monotonic()
        self.tasks: set[asyncio.Task[Any]] = set()  # every background task; ``run`` ends them
        self._shells: set[tuple[str, str, str]] = set()
        self._logged = 0  # store warnings already logged
        self._asks_retry: asyncio.Task[None] | None = None  # pending asks read again (``_retry_asks``)

    def attach(self, client: OpenCodeClient) -> None:
        """The server is known: the stream can be built (``run`` starts it)."""
        self.client = client
        self.stream = EventStream(client, self._on_frame, self._on_stream_state,
                                  heartbeat_timeout=self.heartbeat_timeout, on_warning=self.warn)

    # ---------------------------------------------------------------- tasks and sinks
    def start(self, coro: Any) -> asyncio.Task[Any]:
        """A background task that ends with the stream (``run``)."""
        task = asyncio.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    def spawn(self, coro: Any) -> None:
        self.start(coro)

    def warn(self, text: str) -> None:
        log.warning("%s", text)
        self.store.warn(text)
        self.on_changes([LogLine(text)])

    def _emit(self, changes: list[Change]) -> None:
        if changes:
            self.on_changes(changes)

    # ---------------------------------------------------------------- stream
    async def run(self) -> None:
        """Run the stream and the busy watchdog until cancelled."""
        watchdog = asyncio.create_task(self._busy_watchdog())
        try:
            await self.stream.run()
        finally:
            watchdog.cancel()
            for task in list(self.tasks):
                task.cancel()

    def stop(self) -> None:
        self.stream.stop()

    async def wait_connected(self, timeout: float) -> None:
        """Wait (bounded) for the stream's first connection."""
        if not self._connected.is_set():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._connected.wait(), timeout)

    async def _on_stream_state(self, state: StreamState) -> None:
        previous = self.stream_state
        self.stream_state = state
        self.on_state(state)
        if state.phase == "connected" and (previous is None or previous.generation != state.generation):
            if previous is not None and previous.generation:
                self.store.stream_gap()  # before the new connection's first frame is applied
            self._connected.set()
            self.spawn(self.resync())

    async def _on_frame(self, frame: dict[str, Any]) -> None:
        self._last_frame = time.monotonic()
        if self._holds:
            self._buffer.append(frame)
            return
        self.ingest(frame)

    def ingest(self, frame: Any) -> None:
        """One decoded frame into the store; its changes go out (the stream calls this per frame)."""
        # Every frame of the stream passes here (issue #8 budget): keep it flat.
        client = self.client
        event = None
        try:
            if not isinstance(frame, dict):
                raise ProtocolError(f"event frame is a {type(frame).__name__}, not an object")
            kind = frame.get("type")
            if type(kind) is str:
                try:
                    marked = self._marks[kind]
                except KeyError:
                    marked = self._mark(kind)
                if marked is not None and marked is not client.dialect:
                    self._heard(kind, marked)  # a type only one generation sends: the server's
            frames = self._frames
            if frames is None or self._frames_of is not client.dialect:
                frames = self._frames_for(client.dialect)
            # Most frames are deltas for a part the store has: those need no event object.
            fast = frames.plain_delta(frame)
            changes = None if fast is None else self.store.apply_delta(*fast)
            if changes is None:
                if not frames.identity:
                    frame = frames.event(frame)
                    if frame is None:
                        return
                event = parse_event(frame)
        except ProtocolError as exc:
            self.warn(f"bad event frame: {exc}")
            return
        if event is not None:
            changes = self.store.apply(event)
        elif changes and fast is not None and fast[0] != "tool":
            # One "part" change of a text or reasoning block: the auto-approver only reads ask and
            # transcript changes and follow-ups only tool parts, so neither needs to see it.
            self._unreviewed(changes)
            return
        if changes:
            self._follow_up(changes)
            self.on_changes(changes)
        elif event is not None and event.is_unknown and self.store.warned != self._logged:
            # Unknown events never change anything; each kind is logged once (the store warns once).
            self._logged = self.store.warned
            log.info("%s", self.store.warnings[-1])

    def _frames_for(self, dialect: Dialect) -> FrameNormaliser:
        self._frames_of = dialect
        self._frames = dialect.frames()
        return self._frames

    def _mark(self, kind: str) -> Dialect | None:
        found = detect.from_event_type(kind)
        if len(self._marks) < MARKS_MAX:
            self._marks[kind] = found
        return found

    def _heard(self, kind: str, found: Dialect) -> None:
        """The stream names the generation: follow it (the health probe only knows the family,
        and a server without ``/openapi.json`` is told apart only here)."""
        log.info("event %s: the server speaks %s, not %s", kind, found.label, self.client.dialect.label)
        self.client.dialect = found

    # ---------------------------------------------------------------- follow-ups
    def _follow_up(self, changes: list[Change]) -> None:
        for change in changes:
            if isinstance(change, PartChanged):
                if change.part_key.startswith("tool:"):
                    self._maybe_follow_shell(change)
            elif isinstance(change, NeedMessage):
                self.spawn(self._fetch_message(change.session_id, change.message_id))
            elif isinstance(change, CheckActive):
                self.recheck_active()
            elif isinstance(change, TurnFailed):
                self._log_failure(change)

    def _log_failure(self, change: TurnFailed) -> None:
        """A turn failed: octui.log says which model and why, as the server said it."""
        state = self.store.sessions.get(change.session_id)
        message = state.messages.get(change.message_id) if state else None
        if state is None or message is None or message.error is None:
            return
        model = message.model or (state.info.model if state.info else None)
        log.warning("%s", failure_log_line(state.id, message.error, model))

    async def _fetch_message(self, session_id: str, message_id: str) -> None:
        try:
            raw = await self.client.get_message(session_id, message_id)
        except OctuiError:
            return  # not projected yet; the next durable event will fill it in
        self.on_changes(self.store.upsert_message(session_id, raw))

    def recheck_active(self) -> None:
        """Ask the server shortly which sessions are busy (a turn may have ended unannounced)."""
        self.spawn(self._check_active_soon())

    async def _check_active_soon(self) -> None:
        await asyncio.sleep(CHECK_ACTIVE_DELAY_S)
        await self.check_active()

    async def check_active(self) -> None:
        try:
            active = await self.client.active()
        except OctuiError:
            return
        changes = self.store.set_active(active, known_only=True)
        if changes:
            self.on_changes(changes)

    async def _busy_watchdog(self) -> None:
        """1.18 can end a turn with no event at all: ask the server when a busy session goes quiet."""
        while True:
            await asyncio.sleep(ACTIVE_POLL_S)
            quiet = time.monotonic() - self._last_frame > ACTIVE_POLL_S
            if quiet and self.store.busy_ids() and self.stream_state and \
                    self.stream_state.phase == "connected":
                await self.check_active()

    # ---------------------------------------------------------------- live shell output
    def _maybe_follow_shell(self, change: PartChanged) -> None:
        """v2 shells report a ``shellID`` while running: poll its output until the tool ends."""
        if not self.client.dialect.caps.shell_output:
            return
        call = self._call(change.session_id, change.message_id, change.part_key[5:])
        if call is None or call.finished or call.shell_id is None:
            return
        key = (change.session_id, change.message_id, call.id)
        if key not in self._shells:
            self._shells.add(key)
            self.spawn(self._poll_shell(*key, call.shell_id))

    def _call(self, session_id: str, message_id: str, call_id: str) -> ToolCall | None:
        state = self.store.sessions.get(session_id)
        message = state.messages.get(message_id) if state else None
        return message.tool(call_id) if message else None

    async def _poll_shell(self, session_id: str, message_id: str, call_id: str, shell_id: str) -> None:
        cursor = 0
        failures = 0
        deadline = time.monotonic() + SHELL_FOLLOW_MAX_S
        try:
            while time.monotonic() < deadline and failures < 3:
                call = self._call(session_id, message_id, call_id)
                if call is None or call.finished:
                    return
                try:
                    out = await self.client.shell_output(shell_id, cursor)
                except OctuiError:
                    failures += 1
                    await asyncio.sleep(SHELL_POLL_S)
                    continue
                text = out.get("output")
                next_cursor = out.get("cursor")
                if isinstance(next_cursor, int) and next_cursor >= cursor:
                    cursor = next_cursor
                if isinstance(text, str) and text:
                    # Keep the tail only: a runaway command must not grow memory without bound.
                    self._emit(self.store.append_shell_output(session_id, message_id, call_id, text,
                                                              SHELL_KEEP_CHARS))
                await asyncio.sleep(SHELL_POLL_S)
        finally:
            self._shells.discard((session_id, message_id, call_id))

    # ---------------------------------------------------------------- resync
    async def resync(self) -> None:
        """Re-read what the stream cannot replay: busy state, pending asks, the open session."""
        generation = self.stream_state.generation if self.stream_state else 0
        self.hold()
        try:
            changes: list[Change] = []
            with contextlib.suppress(OctuiError):
                changes += self.store.set_active(await self.client.active())
            changes += await self._refresh_asks(generation)
            changes += await self._reload()
            self.on_changes(changes + [Resynced()])
        except OctuiError as exc:
            self.warn(f"resync failed: {exc}")
        finally:
            self.release()

    @property
    def resyncing(self) -> bool:
        """A resync or a history load is under way (live frames are buffered)."""
        return self._holds > 0

    def hold(self) -> None:
        """Live frames wait in a buffer (a snapshot is being read)."""
        self._holds += 1

    def release(self) -> None:
        """One snapshot is in the store: when none is left, the held frames are applied."""
        self._holds -= 1
        if self._holds:
            return
        buffered, self._buffer = self._buffer, []
        for frame in buffered:
            self.ingest(frame)

    async def settle_abandoned(self, session_id: str) -> list[Change]:
        """After its history was read: if the server runs no turn in the session, every turn
        still open in it is over (a server that was killed never ends them): mark them
        interrupted, and keep what streamed but was not saved (``tui/state/interrupts.py``).
        Asked after the history was read, so a turn started meanwhile shows as busy."""
        state = self.store.sessions.get(session_id)
        if state is None or not any(m.streaming for m in state.messages.values()):
            return []
        try:
            active = await self.client.active()
        except OctuiError:
            return []
        if session_id in active:
            return []
        return self.store.set_active(active, known_only=True) + self.store.mark_abandoned(session_id)

    async def _refresh_asks(self, generation: int) -> list[Change]:
        try:
            return self.store.set_asks(*await self._read_asks())
        except (OctuiError, ValueError) as exc:  # (ValueError: a list the models refuse)
            self.warn(f"could not load pending asks: {exc}; trying again")
            if self._asks_retry is not None:
                self._asks_retry.cancel()  # one retry at a time: this connection's
            self._asks_retry = self.start(self._retry_asks(generation))
            return []

    async def _read_asks(self) -> AskLists:
        permissions = await self.client.pending_permissions()
        questions = await self.client.pending_questions()
        forms = await self.client.pending_forms() if self.client.dialect.caps.forms else None
        return permissions, questions, forms

    async def _retry_asks(self, generation: int) -> None:
        """The pending asks a resync could not read, read again a while later (a server just
        restarted on a busy machine took over 10 s to answer): until then an ask that died with
        the old server would stay on screen as if it could be answered. A new connection's
        resync reads them itself, so the retries end with this connection.

        The stream goes on meanwhile (a read can take seconds; holding live frames for it froze
        the answer streaming, review): what it says of an ask while the list is read wins over
        the list, an ask that came is kept and one that settled stays settled."""
        tries = 0
        while True:
            await asyncio.sleep(ASKS_RETRY_S[tries] if tries < len(ASKS_RETRY_S) else ASKS_RETRY_EVERY_S)
            tries += 1
            state = self.stream_state
            if state is None or state.phase != "connected" or state.generation != generation:
                return
            known, mark = set(self.store.asks), self.store.settled_count()
            try:
                lists = await self._read_asks()
            except (OctuiError, ValueError) as exc:
                if tries == len(ASKS_RETRY_S):
                    self.warn(f"still could not load pending asks ({exc}); trying every "
                              f"{ASKS_RETRY_EVERY_S:.0f} s")
                continue
            state = self.stream_state
            if state is None or state.generation != generation:
                return  # a new connection's resync reads them
            self._emit(self.store.set_asks_read_live(lists, known, mark))
            log.info("pending asks read on try %d after a resync", tries + 1)
            return
