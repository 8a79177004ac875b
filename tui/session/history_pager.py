"""A session's history, newest page first: the first paint needs one page, the rest follows.

No Textual. ``newest`` fetches the newest page (what the screen can show) and replaces the
store's transcript with it, or merges it when the older messages are already there (a reload
after a reconnect). Older pages are then fetched by one task per session: in the background up
to ``BACKGROUND_MAX`` messages, and further on demand (``want``: the reader paged up or pressed
Home). Each page is prepended to the store (``Store.prepend_history``) and reported as a
``transcript`` change with ``detail="older"``; a failure as ``detail="older-failed"``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Callable
from typing import Any

from tui.client.errors import OctuiError
from tui.client.http import OpenCodeClient
from tui.state.changes import Change, TranscriptChanged
from tui.state.store import Store

log = logging.getLogger("octui")

FIRST_PAGE = 50  # newest messages fetched before a session is shown
OLDER_PAGE = 100  # messages per background page
DEMAND_PAGE = 200  # messages per page while the reader waits (the API's maximum)
BACKGROUND_MAX = 2000  # messages kept per session without being asked; older ones on demand
FILL_DELAY_S = 0.3  # the background pages start this long after the newest page, at the earliest
IDLE_PROBE_S = 0.02  # a background page waits for a sleep this long to end on time (an idle loop)
IDLE_WAIT_MAX_S = 3.0  # but not longer than this

ChangeSink = Callable[[list[Change]], None]
Spawn = Callable[[Any], "asyncio.Task[Any]"]


class HistoryPager:
    """Per session: the cursor of the next older page and the task that follows it."""

    def __init__(self, client: OpenCodeClient, store: Store, emit: ChangeSink, spawn: Spawn) -> None:
        self.client = client
        self.store = store
        self.emit = emit
        self.spawn = spawn
        self._cursor: dict[str, str | None] = {}
        self._want: dict[str, float] = {}
        self._demand: set[str] = set()
        self._filling: dict[str, asyncio.Task[Any]] = {}
        self._wake: dict[str, asyncio.Event] = {}  # set when the reader asks: pauses end at once

    async def newest(self, session_id: str) -> list[Change]:
        """Fetch the newest page into the store; the older pages follow in the background."""
        page, cursor = await self.client.list_messages(session_id, limit=FIRST_PAGE)
        oldest_first = list(reversed(page))
        older = bool(cursor and page)
        oldest = oldest_first[0].get("id") if oldest_first else None
        keeps = older and isinstance(oldest, str) and self.store.history_overlaps(session_id, oldest)
        if not keeps:
            self._cursor[session_id] = cursor if older else None
        changes = self.store.load_history(session_id, oldest_first, older=older)
        self._want[session_id] = max(self._want.get(session_id, 0), BACKGROUND_MAX)
        self._start(session_id)
        return changes

    def want(self, session_id: str, everything: bool = False) -> None:
        """The reader waits for older messages: one more page, or (Home) all of them."""
        state = self.store.sessions.get(session_id)
        if state is None or not state.older:
            self.emit([TranscriptChanged(session_id, "older")])
            return
        if not self._cursor.get(session_id):
            self.emit([TranscriptChanged(session_id, "older-failed")])
            return
        have = len(state.messages)
        self._want[session_id] = math.inf if everything else max(self._want.get(session_id, 0),
                                                                  have + DEMAND_PAGE)
        self._demand.add(session_id)
        self._wake.setdefault(session_id, asyncio.Event()).set()
        self._start(session_id)

    def loading(self, session_id: str) -> bool:
        task = self._filling.get(session_id)
        return task is not None and not task.done()

    def _start(self, session_id: str) -> None:
        if not self.loading(session_id) and self._cursor.get(session_id):
            self._filling[session_id] = self.spawn(self._fill(session_id))

    async def _fill(self, session_id: str) -> None:
        try:
            await self._nap(session_id, FILL_DELAY_S)
            await self._pages(session_id)
        finally:
            self._demand.discard(session_id)
            self._wake.pop(session_id, None)

    async def _pages(self, session_id: str) -> None:
        while True:
            await self._when_idle(session_id)  # the first paint (and whatever the screen does) first
            state = self.store.sessions.get(session_id)
            cursor = self._cursor.get(session_id)
            if state is None or not cursor or not state.older:
                break
            if len(state.messages) >= self._want.get(session_id, 0):
                break
            demand = session_id in self._demand
            try:
                page, after = await self.client.list_messages(
                    session_id, limit=DEMAND_PAGE if demand else OLDER_PAGE, cursor=cursor)
            except OctuiError as exc:
                log.warning("older history of %s: %s", session_id, exc)
                self.emit([TranscriptChanged(session_id, "older-failed")])
                return
            if self._cursor.get(session_id) != cursor:
                continue  # the history was replaced meanwhile: follow the new cursor
            self._cursor[session_id] = after if page else None
            more = bool(after and page)
            self.emit(self.store.prepend_history(session_id, list(reversed(page)), older=more))
            await asyncio.sleep(0)

    async def _nap(self, session_id: str, seconds: float) -> None:
        """Sleep ``seconds``, or less when the reader asks for older messages meanwhile."""
        wake = self._wake.setdefault(session_id, asyncio.Event())
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(wake.wait(), seconds)

    async def _when_idle(self, session_id: str) -> None:
        """Return once the event loop is idle (a short sleep ends on time), bounded; at once on demand."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + IDLE_WAIT_MAX_S
        while session_id not in self._demand and loop.time() < deadline:
            start = loop.time()
            await self._nap(session_id, IDLE_PROBE_S)
            if loop.time() - start < IDLE_PROBE_S * 1.5:
                return
