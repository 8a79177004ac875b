"""Provides a tiny app and a fake loader for session-browser snapshot and functional tests.

Nothing here touches the network or the user's machine: sessions are built in memory, times are
relative to ``NOW`` (freeze ``tui.app.clock`` at it), the Input cursor does not blink.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from textual.app import App
from textual.widgets import Input

from tui.protocol.models import ModelRef, SessionInfo, SessionTime
from tui.screens.sessions import SessionsScreen

NOW = 1_760_000_000.0
"""Frozen wall clock (seconds) for every test in this harness."""

MINUTE = 60_000.0
HOUR = 60 * MINUTE
DAY = 24 * HOUR


def session(
    id: str,
    title: str | None,
    age_ms: float,
    *,
    parent: str | None = None,
    agent: str | None = None,
    model: str | None = None,
) -> SessionInfo:
    """A ``SessionInfo`` updated ``age_ms`` before ``NOW``; ``model`` is ``provider/id[#variant]``."""
    ref = None
    if model:
        provider, _, rest = model.partition("/")
        model_id, _, variant = rest.partition("#")
        ref = ModelRef(providerID=provider, id=model_id, variant=variant or None)
    stamp = NOW * 1000 - age_ms
    return SessionInfo(
        id=id,
        title=title,
        parentID=parent,
        agent=agent,
        model=ref,
        time=SessionTime(created=stamp - HOUR, updated=stamp),
    )


def sample_sessions() -> list[SessionInfo]:
    """Eight sessions, newest first: one child (``ses_02``), one untitled, one very long title."""
    sonnet = "anthropic/claude-sonnet-4-5"
    return [
        session("ses_01", "Refactor the auth middleware", 2 * MINUTE, agent="build", model=sonnet),
        session("ses_02", "Explore auth call sites", 3 * MINUTE, parent="ses_01", agent="explore",
                model=sonnet),
        session("ses_03", "Fix flaky SSE reconnect test", 45 * MINUTE, agent="build",
                model="openai/gpt-5#high"),
        session("ses_04", "Write release notes for 0.4", 5 * HOUR, agent="plan", model=sonnet),
        session("ses_05", None, 1 * DAY),
        session("ses_06", "Migrate config to TOML", 3 * DAY, agent="build", model=sonnet),
        session("ses_07", "Investigate memory growth in very long transcripts with thousands of "
                "tool calls and streaming reasoning blocks", 15 * DAY, agent="build", model=sonnet),
        session("ses_08", "Initial project scaffold", 400 * DAY, agent="build"),
    ]


class FakeLoader:
    """An in-memory ``SessionLoader`` with cursor paging, search and failure modes.

    Args:
        sessions: All sessions, newest first.
        busy: Ids reported by ``busy_ids``.
        page_size: Sessions per page; cursors are stringified offsets.
        block_search: A search never answers (to snapshot "search in progress").
        error: Raised by every ``load`` call.
    """

    def __init__(
        self,
        sessions: Iterable[SessionInfo] = (),
        *,
        busy: Iterable[str] = (),
        page_size: int = 50,
        block_search: bool = False,
        error: Exception | None = None,
    ) -> None:
        self.sessions = list(sessions)
        self.busy = set(busy)
        self.page_size = page_size
        self.block_search = block_search
        self.error = error
        self.calls: list[tuple[str | None, str | None, bool]] = []

    async def load(
        self, cursor: str | None, search: str | None, roots_only: bool
    ) -> tuple[list[SessionInfo], str | None]:
        self.calls.append((cursor, search, roots_only))
        if self.error is not None:
            raise self.error
        if search and self.block_search:
            await asyncio.Event().wait()
        items = [
            s for s in self.sessions
            if (not roots_only or s.parentID is None)
            and (not search or search.lower() in (s.title or "").lower())
        ]
        start = int(cursor or 0)
        end = start + self.page_size
        return items[start:end], (str(end) if end < len(items) else None)

    def busy_ids(self) -> set[str]:
        return set(self.busy)


class SessionsApp(App[None]):
    """Pushes one ``SessionsScreen`` over the default screen; records the browser's messages."""

    def __init__(self, loader: FakeLoader, *, roots_only: bool = True, dismiss: bool = False,
                 current: str | None = None) -> None:
        super().__init__()
        self.loader = loader
        self.current = current
        self.roots_only = roots_only
        self.dismiss = dismiss
        self.opened: list[str] = []
        self.results: list[str | None] = []
        self.new_sessions = 0
        self.animation_level = "none"

    async def on_mount(self) -> None:
        screen = SessionsScreen(self.loader, roots_only=self.roots_only, dismiss_on_open=self.dismiss,
                                current=self.current)
        await self.push_screen(screen, self.results.append)
        for field in screen.query(Input):
            field.cursor_blink = False

    def on_sessions_screen_open(self, message: SessionsScreen.Open) -> None:
        self.opened.append(message.session_id)

    def on_sessions_screen_new_session(self, message: SessionsScreen.NewSession) -> None:
        self.new_sessions += 1
