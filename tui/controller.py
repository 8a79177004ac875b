"""Glue between the client and the store: the one place that turns frames into changes.

No Textual here. The app gives it two callbacks (changes, connection state) and calls its
async methods from workers. It owns the stream, resyncs over HTTP after every (re)connect
(the stream has no replay), and answers the store's requests (``need_message``,
``check_active``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from tui.auto_approve import AutoApprover, ModeBook
from tui.client.errors import OctuiError
from tui.client.http import OpenCodeClient
from tui.client.stream import EventStream, StreamState
from tui.protocol.dialect import Dialect, Normaliser, detect_from_event_type
from tui.protocol.events import ProtocolError, parse_event
from tui.protocol.models import FormInfo, ModelRef, PermissionReply, PermissionRequest, SessionInfo
from tui.state.store import Store
from tui.state.transcript import Change, ToolCall

log = logging.getLogger("octui")

ChangeSink = Callable[[list[Change]], None]
StateSink = Callable[[StreamState], None]

HISTORY_PAGE = 100
HISTORY_MAX = 2000  # messages kept per session on open; older ones are paged in on demand
ACTIVE_POLL_S = 4.0  # busy sessions with a silent stream are re-checked this often
SUBTREE_DEPTH = 4  # subagent levels re-read after a reconnect
SHELL_POLL_S = 0.5  # live output of a running v2 shell is fetched this often
SHELL_FOLLOW_MAX_S = 3600.0  # and never for longer than this
SHELL_KEEP_CHARS = 1_000_000


class Controller:
    def __init__(self, client: OpenCodeClient, store: Store, on_changes: ChangeSink,
                 on_state: StateSink, *, heartbeat_timeout: float = 35.0,
                 modes: ModeBook | None = None) -> None:
        self.client = client
        self.store = store
        # Permission modes: every batch of changes passes the auto-approver before the UI sees it,
        # so an ask the mode answers is claimed (and never opens a dialog).
        self.auto = AutoApprover(store, self.reply_permission, self._spawn, on_changes, modes)
        self.on_changes: ChangeSink = self._reviewed(on_changes)
        self.on_state = on_state
        self.normaliser = Normaliser()
        self.current: str | None = None
        self.stream = EventStream(client, self._on_frame, self._on_stream_state,
                                  heartbeat_timeout=heartbeat_timeout, on_warning=self._warn)
        self.stream_state: StreamState | None = None
        self._resyncing = False
        self._buffer: list[dict[str, Any]] = []
        self._last_frame = time.monotonic()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._shells: set[tuple[str, str, str]] = set()

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
        self.on_changes([Change("log", detail=text)])

    async def _on_stream_state(self, state: StreamState) -> None:
        previous = self.stream_state
        self.stream_state = state
        self.on_state(state)
        if state.phase == "connected" and (previous is None or previous.generation != state.generation):
            self._spawn(self.resync())

    async def _on_frame(self, frame: dict[str, Any]) -> None:
        self._last_frame = time.monotonic()
        if self._resyncing:
            self._buffer.append(frame)
            return
        self._ingest(frame)

    def _ingest(self, frame: Any) -> None:
        try:
            if not isinstance(frame, dict):
                raise ProtocolError(f"event frame is a {type(frame).__name__}, not an object")
            kind = frame.get("type")
            if isinstance(kind, str) and self.client.dialect is Dialect.V2:
                if detect_from_event_type(kind) is Dialect.PREVIEW:
                    self.client.dialect = Dialect.PREVIEW  # the health probe guessed wrong
            if self.client.dialect is Dialect.PREVIEW:
                normalised = self.normaliser.event(frame)
                if normalised is None:
                    return
                frame = normalised
            event = parse_event(frame)
        except ProtocolError as exc:
            self._warn(f"bad event frame: {exc}")
            return
        changes = self.store.apply(event)
        if event.is_unknown and self.store.warnings:
            log.info("%s", self.store.warnings[-1])
        if changes:
            self._follow_up(changes)
            self.on_changes(changes)

    def _follow_up(self, changes: list[Change]) -> None:
        for change in changes:
            if change.kind == "need_message" and change.session_id and change.message_id:
                self._spawn(self._fetch_message(change.session_id, change.message_id))
            elif change.kind == "check_active":
                self._spawn(self._check_active_soon())
            elif change.kind == "part" and (change.part_key or "").startswith("tool:"):
                self._maybe_follow_shell(change)

    # ---------------------------------------------------------------- live shell output
    def _maybe_follow_shell(self, change: Change) -> None:
        """v2 shells report a ``shellID`` while running: poll its output until the tool ends."""
        if self.client.dialect is not Dialect.V2 or not change.session_id or not change.message_id:
            return
        call = self._call(change.session_id, change.message_id, (change.part_key or "")[5:])
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
                    call.live_output = (call.live_output + text)[-SHELL_KEEP_CHARS:]
                    call.version += 1
                    self.on_changes([Change("part", session_id, message_id, call.key)])
                await asyncio.sleep(SHELL_POLL_S)
        finally:
            self._shells.discard((session_id, message_id, call_id))

    def _reviewed(self, sink: ChangeSink) -> ChangeSink:
        def emit(changes: list[Change]) -> None:
            sink(changes + self.auto.review(changes))
        return emit

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ---------------------------------------------------------------- resync
    async def resync(self) -> None:
        """Re-read what the stream cannot replay: busy state, pending asks, the open session."""
        self._resyncing = True
        try:
            changes: list[Change] = []
            with contextlib.suppress(OctuiError):
                changes += self.store.set_active(await self.client.active())
            changes += await self._refresh_asks()
            if self.current:
                changes += await self._load_session(self.current)
            self.on_changes(changes + [Change("resynced")])
        except OctuiError as exc:
            self._warn(f"resync failed: {exc}")
        finally:
            buffered, self._buffer = self._buffer, []
            self._resyncing = False
            for frame in buffered:
                self._ingest(frame)

    async def _refresh_asks(self) -> list[Change]:
        try:
            permissions = await self.client.pending_permissions()
            questions = await self.client.pending_questions()
            forms = await self.client.pending_forms() if self.client.dialect is Dialect.V2 else None
        except OctuiError as exc:
            self._warn(f"could not load pending asks: {exc}")
            return []
        return self.store.set_asks(permissions, questions, forms)

    async def _load_session(self, session_id: str) -> list[Change]:
        info = await self.client.get_session(session_id)
        changes = self.store.upsert_info(info)
        newest_first: list[dict[str, Any]] = []
        cursor: str | None = None
        while len(newest_first) < HISTORY_MAX:
            page, cursor = await self.client.list_messages(session_id, limit=HISTORY_PAGE, cursor=cursor)
            newest_first.extend(page)
            if not cursor or not page:
                break
        newest_first.reverse()
        changes += self.store.load_history(session_id, newest_first)
        if self.client.dialect is Dialect.V2:
            changes += self.store.set_inbox(session_id, await self.client.inbox(session_id))
        changes += await self._load_ancestors(info)
        changes += await self._load_subtree(self.store.root_of(session_id))
        return changes

    async def _load_ancestors(self, info: SessionInfo) -> list[Change]:
        """A child opened directly still gets its breadcrumb: fetch the parents we lack."""
        changes: list[Change] = []
        parent = info.parentID
        for _ in range(SUBTREE_DEPTH):
            if not parent or (parent in self.store.sessions and self.store.sessions[parent].info):
                break
            try:
                parent_info = await self.client.get_session(parent)
            except OctuiError:
                break
            changes += self.store.upsert_info(parent_info)
            parent = parent_info.parentID
        return changes

    async def _load_subtree(self, root_id: str) -> list[Change]:
        """Rebuild the subagent tree after a gap: child sessions of the root, a few levels down."""
        if self.client.dialect is not Dialect.V2:
            return []  # the 1.18 /api loop runs no subagents and cannot filter by parent
        changes: list[Change] = []
        level = [root_id]
        for _ in range(SUBTREE_DEPTH):
            found: list[str] = []
            for parent in level:
                try:
                    children, _ = await self.client.list_sessions(limit=200, parent_id=parent)
                except OctuiError:
                    return changes
                for info in children:
                    if info.parentID == parent:
                        changes += self.store.upsert_info(info)
                        found.append(info.id)
            if not found:
                break
            level = found
        return changes

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
        self.on_changes(await self._load_session(session_id))

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

    async def interrupt(self, session_id: str) -> None:
        """Reject the session's pending permissions and dismiss its forms first, then stop it.

        Whatever the permission mode: its asks are not auto-answered while this runs."""
        with self.auto.holding(session_id):
            for ask in self.store.asks_for(session_id):
                with contextlib.suppress(OctuiError):
                    if isinstance(ask, PermissionRequest):
                        await self.client.permission_reply(session_id, ask.id, "reject")
                    elif self.client.dialect is Dialect.V2 and isinstance(ask, FormInfo):
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
