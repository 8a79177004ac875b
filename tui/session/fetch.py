"""How the session service loads a session: once per stream connection, newest messages first.

No Textual. ``SessionFetcher`` is owned by ``SessionService`` (``tui/session/service.py``); the
stream state and the frame buffer (``FrameHold``) are its ``StreamIntake``'s (``intake.py``).
A load fetches the session's info, the newest page of its history (``HistoryPager``; older pages
follow in the background), its inbox, then the ancestors and the subagent tree. Live frames are
held back while the snapshot is read, so nothing the stream says in between is overwritten by an
older snapshot.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

from tui.client.errors import OctuiError
from tui.client.http import OpenCodeClient
from tui.client.stream import StreamState
from tui.protocol.models import SessionInfo
from tui.session.history_pager import HistoryPager
from tui.state.changes import Change
from tui.state.store import Store

SUBTREE_DEPTH = 4  # subagent levels re-read after a reconnect


class FrameHold(Protocol):
    """Live frames wait while a snapshot is read (``hold``), and are applied on ``release``."""

    def hold(self) -> None: ...

    def release(self) -> None: ...


class SessionFetcher:
    """Single-flight session loads, keyed by session and stream connection generation."""

    def __init__(self, client: OpenCodeClient, store: Store, history: HistoryPager, frames: FrameHold,
                 stream_state: Callable[[], StreamState | None], start: Callable[[Any], asyncio.Task[Any]],
                 warn: Callable[[str], None]) -> None:
        self.client = client
        self.store = store
        self.history = history
        self._frames = frames
        self._stream_state = stream_state
        self._start = start
        self._warn = warn
        self._loads: dict[str, tuple[int | None, asyncio.Task[list[Change]]]] = {}

    def _generation(self) -> int | None:
        state = self._stream_state()
        return state.generation if state is not None and state.phase == "connected" else None

    async def load(self, session_id: str) -> list[Change]:
        """Load a session once per stream connection: later calls share (or skip) that load.

        While connected the stream keeps a loaded session current, so switching back to it costs
        nothing; after a reconnect it is loaded again (the stream has no replay)."""
        generation = self._generation()
        running = self._loads.get(session_id)
        if running is not None and running[0] == generation:
            task = running[1]
            if not task.done():
                await asyncio.shield(task)
                return []  # the caller that started it reports the changes
            state = self.store.sessions.get(session_id)
            if generation is not None and not task.cancelled() and task.exception() is None \
                    and state is not None and state.loaded:
                return []
        task = self._start(self._fetch_session(session_id))
        task.add_done_callback(_retrieve)
        self._loads[session_id] = (generation, task)
        return await asyncio.shield(task)

    async def _fetch_session(self, session_id: str) -> list[Change]:
        self._frames.hold()  # live frames for this session wait until the snapshot is in the store
        try:
            info = await self.client.get_session(session_id)
            changes = self.store.upsert_info(info)
            changes += await self.history.newest(session_id)
            changes += await self._load_pending(session_id)
        finally:
            self._frames.release()
        changes += await self._load_ancestors(info)
        changes += await self._load_subtree(self.store.root_of(session_id))
        return changes

    async def _load_pending(self, session_id: str) -> list[Change]:
        """Pending inputs (steer/queue chips). Not worth failing the whole load over: a server
        whose generation has no such list, or an error, leaves the stream's view as it is."""
        if self.client.dialect.caps.pending_route is None:
            return []
        try:
            items = await self.client.pending_inputs(session_id)
        except OctuiError as exc:
            self._warn(f"could not load pending prompts: {exc}")
            return []
        return self.store.set_inbox(session_id, items)

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
        if not self.client.dialect.caps.subagents:
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


def _retrieve(task: asyncio.Task[Any]) -> None:
    """A load nobody awaits any more (its opener was cancelled) must not log a stray error."""
    if not task.cancelled():
        task.exception()
