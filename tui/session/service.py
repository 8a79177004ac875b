"""The session service: THE command path between the UI and the server. No Textual.

``SessionService`` owns the client, the event stream and the store. The app gives it two
callbacks (changes, connection state), ``connect``s it at start-up (``ready`` is set then), and
every screen calls one async method per command (prompt, model, agent, interrupt, replies to
asks, revert, compact, rename, delete, session pages, catalog …). It resyncs over HTTP after
every (re)connect (the stream has no replay) and handles the store's own follow-ups
(``need_message``, ``check_active``): those never reach the UI callback. State changes go through
the store's reducers only, and come back as ``Change``s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import httpx

from tui.client.errors import OctuiError
from tui.client.http import OpenCodeClient
from tui.client.stream import EventStream, StreamState
from tui.protocol.dialects import Capabilities, Dialect, FrameNormaliser, detect
from tui.protocol.events import ProtocolError, parse_event
from tui.protocol.models import (
    AgentInfo,
    FormInfo,
    Health,
    ModelInfo,
    ModelRef,
    PermissionReply,
    PermissionRequest,
    SessionInfo,
    SessionRevert,
)
from tui.session.auto_approve import AutoApprover, ModeBook
from tui.session.commands import Catalog, send_input, slash_skills
from tui.session.fetch import SessionFetcher
from tui.session.history_pager import HistoryPager
from tui.state.changes import (
    INTERNAL,
    Change,
    CheckActive,
    LogLine,
    NeedMessage,
    PartChanged,
    Resynced,
    TurnFailed,
)
from tui.state.store import Store
from tui.state.transcript import ToolCall
from tui.text.failures import failure_log_line

log = logging.getLogger("octui")

ChangeSink = Callable[[list[Change]], None]
StateSink = Callable[[StreamState], None]

FIRST_CONNECT_WAIT_S = 0.5  # open_session waits this long for the stream before loading anyway
READY_WAIT_S = 30.0  # a command issued during start-up waits this long for the connection
ACTIVE_POLL_S = 4.0  # busy sessions with a silent stream are re-checked this often
SHELL_POLL_S = 0.5  # live output of a running v2 shell is fetched this often
SHELL_FOLLOW_MAX_S = 3600.0  # and never for longer than this
SHELL_KEEP_CHARS = 1_000_000
MARKS_MAX = 1024  # event types remembered by ``_mark`` (a server has a few hundred at most)
SESSION_PAGE = 50  # sessions per page of the session browser


class SessionService:
    """One object owns the conversation with the server; see the module docstring."""

    client: OpenCodeClient
    stream: EventStream
    history: HistoryPager
    fetcher: SessionFetcher
    catalog: Catalog

    def __init__(self, client: OpenCodeClient | None, store: Store, on_changes: ChangeSink,
                 on_state: StateSink, *, heartbeat_timeout: float = 35.0,
                 modes: ModeBook | None = None, directory: str | None = None) -> None:
        """``client`` None: the app ``connect``s later (start-up may first start a server)."""
        self.store = store
        self.directory = directory
        self.heartbeat_timeout = heartbeat_timeout
        self.health: Health | None = None
        self._ready = asyncio.Event()
        # Permission modes: every batch of changes passes the auto-approver before the UI sees it,
        # so an ask the mode answers is claimed (and never opens a dialog).
        self.auto = AutoApprover(store, self.reply_permission, self._spawn, on_changes, modes)
        self.on_changes: ChangeSink = self._reviewed(on_changes)
        self._unreviewed = on_changes  # text/reasoning delta changes: nothing to review or follow
        self.on_state = on_state
        # Frames of the connected generation -> pinned v2 frames; rebuilt when the generation
        # changes (detected late, from an event name or a route's 404).
        self._frames_of: Dialect | None = None
        self._frames: FrameNormaliser | None = None
        self._marks: dict[str, Dialect | None] = {}  # event type -> the generation it names, if any
        self.current: str | None = None
        self.stream_state: StreamState | None = None
        self._holds = 0  # resyncs and history loads under way: live frames wait in _buffer
        self._buffer: list[dict[str, Any]] = []
        self._connected = asyncio.Event()
        self._last_frame = time.monotonic()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._shells: set[tuple[str, str, str]] = set()
        self._logged = 0  # store warnings already logged
        if client is not None:
            self._attach(client)

    # ---------------------------------------------------------------- start-up
    def _attach(self, client: OpenCodeClient) -> None:
        self.client = client
        self.stream = EventStream(client, self._on_frame, self._on_stream_state,
                                  heartbeat_timeout=self.heartbeat_timeout, on_warning=self._warn)
        self.history = HistoryPager(client, self.store, self.on_changes, self._start)
        self.fetcher = SessionFetcher(client, self.store, self.history, self, lambda: self.stream_state,
                                      self._start, lambda text: self._warn(text))
        self.catalog = Catalog(client, self.directory)
        self._ready.set()

    async def connect(self, url: str, *, username: str = "opencode", password: str | None = None,
                      transport: httpx.AsyncBaseTransport | None = None,
                      startup_line: str | None = None) -> Health:
        """Reach the server, learn its generation, and become ready for commands."""
        client = OpenCodeClient(url, username=username, password=password, transport=transport)
        try:
            if startup_line:
                client.hint_startup_line(startup_line)  # the family, before any request
            health = await client.identify()  # family from health, generation from its spec
            if health.version is None and client.dialect.family == "1.18":
                health.version = await client.legacy_version()
        except BaseException:
            await client.aclose()
            raise
        self.health = health
        self._attach(client)
        return health

    @property
    def is_ready(self) -> bool:
        """Connected to a server whose generation is known: commands may be sent."""
        return self._ready.is_set()

    async def ready(self, timeout: float = READY_WAIT_S) -> bool:
        """Wait (bounded) until ``connect`` is done; False if it did not happen in time."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._ready.wait(), timeout)
        return self._ready.is_set()

    @property
    def caps(self) -> Capabilities | None:
        """What the connected server's generation can do (None before ``connect``)."""
        return self.client.dialect.caps if self.is_ready else None

    @property
    def server_label(self) -> str:
        return self.client.dialect.label if self.is_ready else ""

    @property
    def display_url(self) -> str:
        return self.client.display_url if self.is_ready else ""

    @property
    def is_v2(self) -> bool:
        return self.is_ready and self.client.is_v2

    async def close(self) -> None:
        """Stop the stream and close HTTP (quitting)."""
        if self.is_ready:
            with contextlib.suppress(Exception):
                self.stop()
            with contextlib.suppress(Exception):
                await self.client.aclose()

    # ---------------------------------------------------------------- stream
    async def run(self) -> None:
        """Run the stream and the busy watchdog until cancelled."""
        watchdog = asyncio.create_task(self._busy_watchdog())
        try:
            await self.stream.run()
        finally:
            watchdog.cancel()
            for task in list(self._tasks):
                task.cancel()

    def stop(self) -> None:
        self.stream.stop()

    def _warn(self, text: str) -> None:
        log.warning("%s", text)
        self.store.warn(text)
        self.on_changes([LogLine(text)])

    async def _on_stream_state(self, state: StreamState) -> None:
        previous = self.stream_state
        self.stream_state = state
        self.on_state(state)
        if state.phase == "connected" and (previous is None or previous.generation != state.generation):
            if previous is not None and previous.generation:
                self.store.stream_gap()  # before the new connection's first frame is applied
            self._connected.set()
            self._spawn(self.resync())

    async def _on_frame(self, frame: dict[str, Any]) -> None:
        self._last_frame = time.monotonic()
        if self._holds:
            self._buffer.append(frame)
            return
        self._ingest(frame)

    def _ingest(self, frame: Any) -> None:
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
            self._warn(f"bad event frame: {exc}")
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

    def _follow_up(self, changes: list[Change]) -> None:
        for change in changes:
            if isinstance(change, PartChanged):
                if change.part_key.startswith("tool:"):
                    self._maybe_follow_shell(change)
            elif isinstance(change, NeedMessage):
                self._spawn(self._fetch_message(change.session_id, change.message_id))
            elif isinstance(change, CheckActive):
                self._spawn(self._check_active_soon())
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
            self._spawn(self._poll_shell(*key, call.shell_id))

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

    def _reviewed(self, sink: ChangeSink) -> ChangeSink:
        def emit(changes: list[Change]) -> None:
            for change in changes:
                if isinstance(change, INTERNAL):
                    changes = [c for c in changes if not isinstance(c, INTERNAL)]
                    break
            sink(changes + self.auto.review(changes))
        return emit

    def _spawn(self, coro: Any) -> None:
        self._start(coro)

    def _start(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # ---------------------------------------------------------------- resync
    async def resync(self) -> None:
        """Re-read what the stream cannot replay: busy state, pending asks, the open session."""
        self.hold()
        try:
            changes: list[Change] = []
            with contextlib.suppress(OctuiError):
                changes += self.store.set_active(await self.client.active())
            changes += await self._refresh_asks()
            if self.current:
                changes += await self.fetcher.load(self.current)
                changes += await self._settle_abandoned(self.current)
            self.on_changes(changes + [Resynced()])
        except OctuiError as exc:
            self._warn(f"resync failed: {exc}")
        finally:
            self.release()

    @property
    def _resyncing(self) -> bool:
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
            self._ingest(frame)

    async def _settle_abandoned(self, session_id: str) -> list[Change]:
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

    async def _refresh_asks(self) -> list[Change]:
        try:
            permissions = await self.client.pending_permissions()
            questions = await self.client.pending_questions()
            forms = await self.client.pending_forms() if self.client.dialect.caps.forms else None
        except OctuiError as exc:
            self._warn(f"could not load pending asks: {exc}")
            return []
        return self.store.set_asks(permissions, questions, forms)

    async def _fetch_message(self, session_id: str, message_id: str) -> None:
        try:
            raw = await self.client.get_message(session_id, message_id)
        except OctuiError:
            return  # not projected yet; the next durable event will fill it in
        self.on_changes(self.store.upsert_message(session_id, raw))

    async def _check_active_soon(self) -> None:
        await asyncio.sleep(0.5)
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

    # ---------------------------------------------------------------- actions
    async def open_session(self, session_id: str) -> None:
        self.current = session_id
        if not self._connected.is_set():
            # Connect the stream first, then read the history (nothing falls in between); the
            # first resync then shares this load instead of making a second one.
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._connected.wait(), FIRST_CONNECT_WAIT_S)
        changes = await self.fetcher.load(session_id)
        changes += await self._settle_abandoned(session_id)
        if changes:
            self.on_changes(changes)

    def load_older(self, session_id: str, everything: bool = False) -> None:
        """The reader wants older messages than the store holds (Home: all of them)."""
        self.history.want(session_id, everything)

    async def latest_root_session(self) -> SessionInfo | None:
        """The newest top-level session (``--continue``)."""
        # 1.18 filters roots client-side: one row could be a child, so ask for a few.
        sessions, _ = await self.client.list_sessions(limit=1 if self.client.is_v2 else 20, roots_only=True)
        return sessions[0] if sessions else None

    async def list_sessions(self, cursor: str | None = None, search: str | None = None,
                            roots_only: bool = True,
                            limit: int = SESSION_PAGE) -> tuple[list[SessionInfo], str | None]:
        """One page of the sessions of this directory, newest first; the store learns them."""
        sessions, nxt = await self.client.list_sessions(limit=limit, cursor=cursor, search=search,
                                                        directory=self.directory, roots_only=roots_only)
        changes: list[Change] = []
        for info in sessions:
            changes += self.store.upsert_info(info)
        if changes:
            self.on_changes(changes)
        return sessions, nxt

    async def session_info(self, session_id: str) -> SessionInfo:
        """One session's info from the server (an ask can come from a session never opened here);
        the store learns it."""
        info = await self.client.get_session(session_id)
        changes = self.store.upsert_info(info)
        if changes:
            self.on_changes(changes)
        return info

    async def create_session(self, directory: str | None = None, agent: str | None = None,
                             model: ModelRef | None = None) -> SessionInfo:
        info = await self.client.create_session(directory=directory, agent=agent, model=model)
        self.current = info.id
        changes = self.store.upsert_info(info)
        changes += self.store.load_history(info.id, [])
        self.on_changes(changes)
        return info

    async def prompt(self, session_id: str, text: str, delivery: str = "steer") -> None:
        await self.client.prompt(session_id, text, delivery="queue" if delivery == "queue" else "steer")

    async def send(self, session_id: str, text: str, delivery: str = "steer", *,
                   model: ModelRef | None = None, agent: str | None = None,
                   mentioned: Iterable[str] = (), attachments: Sequence[dict[str, Any]] = ()) -> None:
        """A draft goes out: first the model/agent picked before the session existed, then the
        input as a ``/command``, a skill, or a prompt with file mentions and attachments."""
        if model is not None:
            await self.client.set_model(session_id, model)
        if agent is not None:
            await self.client.set_agent(session_id, agent)
        commands, skills = await self.slash_names() if text.startswith("/") else ([], {})
        await send_input(self.client, session_id, text, directory=self.directory or os.getcwd(),
                         delivery="queue" if delivery == "queue" else "steer", commands=commands,
                         skills=skills, mentioned=set(mentioned), attachments=list(attachments))

    async def slash_names(self) -> tuple[list[str], dict[str, str]]:
        """Server command names and ``{skill name: skill id}`` (a command hides a same-named skill)."""

        commands = [c.name for c in await self.catalog.get("commands")]
        skills = {k.name: k.key for k in slash_skills(await self.catalog.get("skills"))
                  if k.name not in commands}
        return commands, skills

    async def set_model(self, session_id: str, model: ModelRef) -> None:
        await self.client.set_model(session_id, model)

    async def set_agent(self, session_id: str, agent: str) -> None:
        await self.client.set_agent(session_id, agent)

    async def models(self) -> list[ModelInfo]:
        return await self.client.models()

    async def agents(self) -> list[AgentInfo]:
        return await self.client.agents()

    async def find_files(self, query: str, limit: int) -> list[dict[str, Any]]:
        """Paths for an ``@`` mention, as the server's file search finds them."""
        return await self.client.fs_find(query, limit=limit, directory=self.directory)

    async def interrupt(self, session_id: str) -> None:
        """Reject the session's pending permissions and dismiss its forms first, then stop it.

        Whatever the permission mode: its asks are not auto-answered while this runs."""
        with self.auto.holding(session_id):
            for ask in self.store.asks_for(session_id):
                with contextlib.suppress(OctuiError):
                    if isinstance(ask, PermissionRequest):
                        await self.client.permission_reply(session_id, ask.id, "reject")
                    elif self.client.dialect.caps.forms and isinstance(ask, FormInfo):
                        await self.client.form_cancel(session_id, ask.id)
            await self.client.interrupt(session_id)
        self._spawn(self._check_active_soon())

    async def cancel_pending(self, session_id: str, inbox_id: str) -> None:
        await self.client.inbox_cancel(session_id, inbox_id)

    async def set_pending_delivery(self, session_id: str, inbox_id: str, delivery: str) -> None:
        await self.client.inbox_delivery(session_id, inbox_id,
                                         "queue" if delivery == "queue" else "steer")

    async def reply_permission(self, session_id: str, request_id: str, reply: PermissionReply,
                               message: str | None = None) -> None:
        await self.client.permission_reply(session_id, request_id, reply, message=message)

    async def reply_question(self, session_id: str, request_id: str, answers: list[list[str]]) -> None:
        await self.client.question_reply(session_id, request_id, answers)

    async def reject_question(self, session_id: str, request_id: str) -> None:
        await self.client.question_reject(session_id, request_id)

    async def reply_form(self, session_id: str, form_id: str, answer: dict[str, Any]) -> None:
        await self.client.form_reply(session_id, form_id, answer)

    async def cancel_form(self, session_id: str, form_id: str) -> None:
        await self.client.form_cancel(session_id, form_id)


    # ---------------------------------------------------------------- session actions
    async def revert_stage(self, session_id: str, message_id: str) -> SessionRevert:
        """Undo: the messages from ``message_id`` on are reverted (shown marked until committed)."""
        raw = await self.client.revert_stage(session_id, message_id)
        revert = SessionRevert.model_validate(raw) if raw else SessionRevert(messageID=message_id)
        self._emit(self.store.set_revert(session_id, revert))  # the revert event confirms it
        return revert

    async def revert_clear(self, session_id: str) -> None:
        """Redo: the reverted messages and files are back."""
        await self.client.revert_clear(session_id)
        self._emit(self.store.set_revert(session_id, None))

    async def revert_commit(self, session_id: str) -> None:
        await self.client.revert_commit(session_id)

    async def compact(self, session_id: str) -> None:
        await self.client.compact(session_id)

    async def rename(self, session_id: str, title: str) -> None:
        await self.client.rename_session(session_id, title)
        self._emit(self.store.rename(session_id, title))

    async def delete(self, session_id: str) -> None:
        await self.client.delete_session(session_id)

    def _emit(self, changes: list[Change]) -> None:
        if changes:
            self.on_changes(changes)
