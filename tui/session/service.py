"""The session service: THE command path between the UI and the server. No Textual.

``SessionService`` owns the client and the store. The app gives it two callbacks (changes,
connection state), ``connect``s it at start-up (``ready`` is set then), and every screen calls one
async method per command (prompt, model, agent, interrupt, replies to asks, revert, compact, rename,
delete, session pages, catalog …). Every batch of changes passes the auto-approver on its way out.

What the server says on its own (the event stream, frame ingest, resync after every reconnect,
the store's follow-ups, live shell output) is handled by its ``StreamIntake``
(``tui/session/intake.py``); ``run`` runs it. State changes go through the store's reducers only,
and come back as ``Change``s.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import httpx

from tui.client.errors import OctuiError
from tui.client.http import OpenCodeClient
from tui.client.stream import EventStream, StreamState
from tui.protocol.dialects import Capabilities
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
from tui.session.auto_approve import AutoAnswer, AutoApprover, ModeBook
from tui.session.commands import Catalog, send_input, slash_skills
from tui.session.current_file import read_current
from tui.session.fetch import SessionFetcher
from tui.session.history_pager import HistoryPager
from tui.session.intake import StreamIntake
from tui.state.asks import CurrentFile
from tui.state.changes import INTERNAL, Change
from tui.state.modes import Mode
from tui.state.store import Store

ChangeSink = Callable[[list[Change]], None]
StateSink = Callable[[StreamState], None]

FIRST_CONNECT_WAIT_S = 0.5  # open_session waits this long for the stream before loading anyway
READY_WAIT_S = 30.0  # a command issued during start-up waits this long for the connection
SESSION_PAGE = 50  # sessions per page of the session browser


class SessionService:
    """One object owns the conversation with the server; see the module docstring."""

    client: OpenCodeClient
    history: HistoryPager
    fetcher: SessionFetcher
    catalog: Catalog

    def __init__(self, client: OpenCodeClient | None, store: Store, on_changes: ChangeSink,
                 on_state: StateSink, *, heartbeat_timeout: float = 35.0,
                 modes: ModeBook | None = None, directory: str | None = None) -> None:
        """``client`` None: the app ``connect``s later (start-up may first start a server)."""
        self.store = store
        self.directory = directory
        self.health: Health | None = None
        self._ready = asyncio.Event()
        self.current: str | None = None
        # Permission modes: every batch of changes passes the auto-approver before the UI sees it,
        # so an ask the mode answers is claimed (and never opens a dialog).
        self.on_changes: ChangeSink = self._reviewed(on_changes)
        # Text/reasoning delta changes skip the review: nothing to review or follow in them.
        self.intake = StreamIntake(store, self.on_changes, on_changes, on_state, self._reload_open,
                                   heartbeat_timeout=heartbeat_timeout)
        self.auto = AutoApprover(store, self.reply_permission, self.intake.spawn, on_changes, modes,
                                 read_file=self.current_file)
        if client is not None:
            self._attach(client)

    # ---------------------------------------------------------------- start-up
    def _attach(self, client: OpenCodeClient) -> None:
        self.client = client
        self.intake.attach(client)
        self.history = HistoryPager(client, self.store, self.on_changes, self.intake.start)
        # Warnings go through ``intake.warn`` at call time (tests capture them there).
        self.fetcher = SessionFetcher(client, self.store, self.history, self.intake,
                                      lambda: self.intake.stream_state, self.intake.start,
                                      lambda text: self.intake.warn(text))
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

    # ---------------------------------------------------------------- stream (see StreamIntake)
    @property
    def stream(self) -> EventStream:
        return self.intake.stream

    @property
    def stream_state(self) -> StreamState | None:
        """The stream's last state (None before it first connects)."""
        return self.intake.stream_state

    async def run(self) -> None:
        """Run the stream, its follow-ups and the busy watchdog until cancelled."""
        await self.intake.run()

    def stop(self) -> None:
        self.intake.stop()

    async def _reload_open(self) -> list[Change]:
        """A resync re-reads the open session (after busy state and asks)."""
        if not self.current:
            return []
        changes = await self.fetcher.load(self.current)
        return changes + await self.intake.settle_abandoned(self.current)

    def _reviewed(self, sink: ChangeSink) -> ChangeSink:
        def emit(changes: list[Change]) -> None:
            for change in changes:
                if isinstance(change, INTERNAL):
                    changes = [c for c in changes if not isinstance(c, INTERNAL)]
                    break
            sink(changes + self.auto.review(changes))
        return emit

    # ---------------------------------------------------------------- actions
    async def open_session(self, session_id: str) -> None:
        self.current = session_id
        # Connect the stream first, then read the history (nothing falls in between); the
        # first resync then shares this load instead of making a second one.
        await self.intake.wait_connected(FIRST_CONNECT_WAIT_S)
        changes = await self.fetcher.load(session_id)
        changes += await self.intake.settle_abandoned(session_id)
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

    async def default_model(self) -> ModelInfo | None:
        """The model a new session gets (None where the server has no route to say: 1.18)."""
        return await self.client.default_model(self.directory)

    async def agents(self) -> list[AgentInfo]:
        return await self.client.agents()

    async def find_files(self, query: str, limit: int) -> list[dict[str, Any]]:
        """Paths for an ``@`` mention, as the server's file search finds them."""
        return await self.client.fs_find(query, limit=limit, directory=self.directory)

    async def current_file(self, session_id: str, path: str) -> CurrentFile:
        """The file a whole-file write in ``session_id`` replaces, as the server reads it now."""
        state = self.store.sessions.get(session_id)
        location = state.info.location if state is not None and state.info is not None else None
        directory = (location.directory if location is not None else "") or self.directory or ""
        return await read_current(self.client, path, directory)

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
        self.intake.recheck_active()

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

    # ---------------------------------------------------------------- permission modes
    # Client-side (neither server generation takes a session's rules): the auto-approver answers
    # what a mode allows. A mode belongs to a session tree's root; subagents follow it.
    def mode_of(self, session_id: str) -> Mode:
        return self.auto.mode_of(session_id)

    def mode_root(self, session_id: str) -> str:
        return self.auto.book.root(self.store, session_id)

    def full_access_confirmed(self, root_id: str) -> bool:
        """Full access asks once per session tree; True once it was confirmed."""
        return self.auto.book.full_confirmed(root_id)

    def set_mode(self, root_id: str, mode: Mode) -> bool:
        """Set (and save) the mode of a tree; False when the state dir could not be written."""
        if mode is Mode.FULL:
            self.auto.book.confirm_full(root_id)
        return self.auto.set_mode(root_id, mode)

    def auto_answered(self, ask_id: str) -> bool:
        """The mode answered (or is answering) this ask: it never opens a dialog."""
        return self.auto.claims(ask_id)

    def auto_answers(self) -> list[AutoAnswer]:
        """What the modes allowed lately, for the inbox."""
        return self.auto.history_for()

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
