"""Provides ``SessionsScreen``: browse, search and open sessions.

The screen never talks HTTP. The app passes a ``SessionLoader`` (usually a thin adapter over
``GET /api/session``); the screen calls it in one exclusive worker, so a newer search or refresh
cancels an older request and stale pages never land.

Keys: ↑/↓/PgUp/PgDn/Home/End move, Enter opens, ``/`` searches (server-side, 250 ms debounce),
``c`` toggles root sessions / all sessions, ``n`` starts a new session, ``ctrl+r`` refreshes,
Esc leaves the search box or closes the browser.

Messages (bubble to the app): ``SessionsScreen.Open(session_id)`` and
``SessionsScreen.NewSession()``. When ``dismiss_on_open`` is true and the screen was pushed on
top of another one, it also dismisses itself with the chosen id (``None`` for new/close).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Protocol

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, Static

import styles
from tui.protocol.models import SessionInfo
from tui.sanitize import one_line
from widgets.session_list import SessionList

__all__ = ["SEARCH_DEBOUNCE", "SessionLoader", "SessionsScreen"]

SEARCH_DEBOUNCE = 0.25
"""Seconds of typing quiet before a search goes to the server."""
AGE_REFRESH = 30.0
"""Seconds between re-renders of the relative ages."""
EMPTY_TEXT = "No sessions yet — press n to start one"


class SessionLoader(Protocol):
    """What the screen needs from the app to list sessions."""

    async def load(
        self, cursor: str | None, search: str | None, roots_only: bool
    ) -> tuple[list[SessionInfo], str | None]:
        """One page (newest first) and the cursor of the next page (``None`` at the end)."""
        ...

    def busy_ids(self) -> set[str]:
        """Ids of sessions that are running right now."""
        ...


class SessionsScreen(Screen[str | None]):
    """The session browser."""

    CSS_PATH = str(Path(styles.__file__).parent / "sessions.tcss")
    AUTO_FOCUS = "#sessions-list"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new_session", "New"),
        Binding("c", "toggle_roots", "Roots/all"),
        Binding("slash", "focus_search", "Search", key_display="/"),
        Binding("ctrl+r", "reload", "Refresh"),
        Binding("escape", "back", "Back"),
    ]

    @dataclass
    class Open(Message):
        """Open this session."""

        session_id: str

    @dataclass
    class NewSession(Message):
        """Start a new session."""

    roots_only: var[bool] = var(True)
    """List only root sessions (no subagent children)."""
    search_text: var[str] = var("")
    """The search currently applied (server-side)."""

    def __init__(
        self,
        loader: SessionLoader,
        *,
        roots_only: bool = True,
        dismiss_on_open: bool = True,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.loader = loader
        self.dismiss_on_open = dismiss_on_open
        self.set_reactive(SessionsScreen.roots_only, roots_only)
        self._cursor: str | None = None
        self._debounce: Timer | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="sessions-header"):
            yield Static("Sessions", id="sessions-title")
            yield Static(self._scope_label(), id="sessions-scope")
        yield Input(placeholder="Search sessions  (/)", id="sessions-search")
        yield Static("", id="sessions-status")
        yield SessionList(id="sessions-list")
        yield Static(EMPTY_TEXT, id="sessions-empty")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#sessions-empty").display = False
        self.set_interval(AGE_REFRESH, self._list.refresh_rows)
        self.reload()

    # -------------------------------------------------------------------------- public

    def reload(self) -> None:
        """Load the first page again with the current search and scope."""
        self._cursor = None
        self._load(None, append=False)

    def refresh_busy(self) -> None:
        """Re-read busy ids from the loader and repaint the badges (call on status changes)."""
        self._list.set_busy(self._busy_ids())

    # ------------------------------------------------------------------------- loading

    @property
    def _list(self) -> SessionList:
        return self.query_one("#sessions-list", SessionList)

    @work(exclusive=True, group="sessions", exit_on_error=False)
    async def _load(self, cursor: str | None, append: bool) -> None:
        search = self.search_text.strip() or None
        if not append:
            self._set_status(f"Searching “{one_line(search, 60)}”…" if search else "Loading…")
        try:
            page, next_cursor = await self.loader.load(cursor, search, self.roots_only)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the loader's failure is data for the user, not a crash
            self._list.set_loading_more(False)
            self._set_status(_error_line(error), error=True)
            return
        has_more = bool(next_cursor) and bool(page)
        self._cursor = next_cursor if has_more else None
        if append:
            self._list.extend(page, has_more=has_more)
        else:
            self._list.show(page, busy=self._busy_ids(), has_more=has_more)
        self._after_load(search)

    def _after_load(self, search: str | None) -> None:
        count = len(self._list.sessions)
        empty = self.query_one("#sessions-empty", Static)
        empty.display = count == 0
        self._list.display = count > 0
        if count == 0:
            empty.update(f"No sessions match “{one_line(search, 60)}”" if search else EMPTY_TEXT)
            self._set_status("")
            return
        noun = "session" if count == 1 else "sessions"
        more = "+" if self._list.has_more else ""
        found = f" matching “{one_line(search, 60)}”" if search else ""
        self._set_status(f"{count}{more} {noun}{found}")

    def _busy_ids(self) -> set[str]:
        try:
            return set(self.loader.busy_ids())
        except Exception:
            return set()

    def _set_status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#sessions-status", Static)
        status.update(text)
        status.set_class(error, "-error")

    def _scope_label(self) -> str:
        return "root sessions" if self.roots_only else "all sessions (incl. subagents)"

    def watch_roots_only(self) -> None:
        if self.is_mounted:
            self.query_one("#sessions-scope", Static).update(self._scope_label())

    # ------------------------------------------------------------------------- events

    @on(Input.Changed, "#sessions-search")
    def _search_changed(self, event: Input.Changed) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(SEARCH_DEBOUNCE, lambda: self._apply_search(event.value))

    @on(Input.Submitted, "#sessions-search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        self._apply_search(event.value)
        self._list.focus()

    def _apply_search(self, text: str) -> None:
        self._debounce = None
        if text.strip() != self.search_text.strip():
            self.search_text = text
            self.reload()

    @on(SessionList.MoreRequested)
    def _more(self, event: SessionList.MoreRequested) -> None:
        if self._cursor is not None:
            self._load(self._cursor, append=True)
        else:
            self._list.set_loading_more(False)

    @on(SessionList.Selected)
    def _selected(self, event: SessionList.Selected) -> None:
        self.post_message(self.Open(event.session_id))

    @on(Open)
    def _opened(self, event: Open) -> None:
        self._close(event.session_id)

    @on(NewSession)
    def _new(self, event: NewSession) -> None:
        self._close(None)

    def _close(self, result: str | None) -> None:
        if self.dismiss_on_open and self.is_current and len(self.app.screen_stack) > 1:
            self.dismiss(result)

    # ------------------------------------------------------------------------ actions

    def action_new_session(self) -> None:
        self.post_message(self.NewSession())

    def action_toggle_roots(self) -> None:
        self.roots_only = not self.roots_only
        self.reload()

    def action_focus_search(self) -> None:
        self.query_one("#sessions-search", Input).focus()

    def action_reload(self) -> None:
        self.reload()

    def action_back(self) -> None:
        search = self.query_one("#sessions-search", Input)
        if search.has_focus:
            self._list.focus()
        else:
            self._close(None)


def _error_line(error: BaseException) -> str:
    detail = one_line(str(error), 160) or type(error).__name__
    return f"Could not load sessions: {detail} — ctrl+r to retry"
