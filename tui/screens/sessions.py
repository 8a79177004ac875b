"""Provides ``SessionsScreen``: browse, search and open sessions.

The screen never talks HTTP. The app passes a ``SessionLoader`` (usually a thin adapter over
``GET /api/session``); the screen calls it in one exclusive worker, so a newer search or refresh
cancels an older request and stale pages never land.

Keys: ↑/↓/PgUp/PgDn/Home/End move, Enter opens, ``/`` searches (server-side, 250 ms debounce),
``c`` toggles root sessions / all sessions, ``n`` starts a new session, ``ctrl+r`` refreshes,
Esc leaves the search box or closes the browser. With a ``SessionManager``: ``r`` renames and ``d``
deletes (after a confirm) the highlighted session, and ``n`` opens a form for a new session in a
chosen directory with a chosen agent and model (the manager creates it; the browser opens it).

Messages (bubble to the app): ``SessionsScreen.Open(session_id)``,
``SessionsScreen.NewSession()`` and ``SessionsScreen.Deleted(session_id)``. When
``dismiss_on_open`` is true and the screen was pushed on top of another one, it also dismisses
itself with the chosen id (``None`` for new/close).
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
from tui.app.session_actions import NewSessionRequest
from tui.protocol.models import ModelRef, SessionInfo
from tui.screens.confirm import ConfirmScreen
from tui.screens.new_session import NewSessionScreen
from tui.screens.rename import RenameScreen
from tui.text.sanitize import one_line
from widgets.plain import plain
from widgets.sessions.session_list import SessionList

__all__ = ["SEARCH_DEBOUNCE", "SessionLoader", "SessionManager", "SessionsScreen"]

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


class SessionManager(Protocol):
    """What the screen needs to change sessions (each call reports its own failure as a toast)."""

    @property
    def default_directory(self) -> str:
        """The directory a new session starts in unless the user types another."""
        ...

    async def choices(self) -> tuple[list[str], list[ModelRef]]:
        """Agent names and models to offer for a new session."""
        ...

    async def rename(self, session_id: str, title: str) -> bool:
        """Rename; ``True`` on success."""
        ...

    async def delete(self, session_id: str) -> bool:
        """Delete (children too); ``True`` on success."""
        ...

    async def create(self, request: NewSessionRequest) -> SessionInfo | None:
        """Create a session; its info on success."""
        ...


class SessionsScreen(Screen[str | None]):
    """The session browser."""

    CSS_PATH = str(Path(styles.__file__).parent / "sessions.tcss")
    AUTO_FOCUS = "#sessions-list"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new_session", "New", id="octui.new_session"),
        Binding("r", "rename", "Rename", id="octui.rename"),
        Binding("d", "delete", "Delete", id="octui.delete"),
        Binding("c", "toggle_roots", "Roots/all", id="octui.toggle_roots"),
        Binding("slash", "focus_search", "Search", key_display="/", id="octui.focus_search"),
        Binding("ctrl+r", "reload", "Refresh", id="octui.reload"),
        Binding("escape", "back", "Back", id="octui.back"),
    ]

    @dataclass
    class Open(Message):
        """Open this session."""

        session_id: str

    @dataclass
    class NewSession(Message):
        """Start a new session."""

    @dataclass
    class Deleted(Message):
        """This session was deleted on the server."""

        session_id: str

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
        manager: SessionManager | None = None,
        current: str | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.loader = loader
        self.current = current  # the session the user is in: highlighted when the list comes
        self.dismiss_on_open = dismiss_on_open
        self.manager = manager
        self.set_reactive(SessionsScreen.roots_only, roots_only)
        self._cursor: str | None = None
        self._debounce: Timer | None = None
        self._focus_results = False  # a search sent with Enter: its results take the focus

    def compose(self) -> ComposeResult:
        with Horizontal(id="sessions-header"):
            yield Static("Sessions", id="sessions-title")
            yield Static(plain(self._scope_label()), id="sessions-scope")
        yield Input(placeholder="Search sessions  (/)", id="sessions-search")
        yield Static("", id="sessions-status")
        sessions = SessionList(id="sessions-list")
        sessions.prefer = self.current
        yield sessions
        yield Static(EMPTY_TEXT, id="sessions-empty")
        yield Footer(show_command_palette=False)  # 80 columns: the keys above come first

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
            self._set_status(f"Searching “{one_line(search, 60)}”…" if search else "◌ Loading sessions…")
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
        if self._focus_results and count:
            self._list.focus()
        self._focus_results = False
        empty = self.query_one("#sessions-empty", Static)
        empty.display = count == 0
        self._list.display = count > 0
        if count == 0:
            empty.update(plain(f"No sessions match “{one_line(search, 60)}”" if search else EMPTY_TEXT))
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
        status.update(plain(text))
        status.set_class(error, "-error")

    def _scope_label(self) -> str:
        return "root sessions" if self.roots_only else "all sessions (incl. subagents)"

    def watch_roots_only(self) -> None:
        if self.is_mounted:
            self.query_one("#sessions-scope", Static).update(plain(self._scope_label()))

    # ------------------------------------------------------------------------- events

    @on(Input.Changed, "#sessions-search")
    def _search_changed(self, event: Input.Changed) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(SEARCH_DEBOUNCE, lambda: self._apply_search(event.value))

    @on(Input.Submitted, "#sessions-search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        """Enter in the search box: the results shown for it open their highlighted session (it
        took a second Enter in the list); a new search moves to the list once it has found
        something. Nothing found, the box keeps the focus (QA: the letters typed next in an
        empty, hidden list were its keys: "c" changed the scope, "n" opened a new session)."""
        if self._debounce is not None:
            self._debounce.stop()
        if event.value.strip() == self.search_text.strip():
            session = self._highlighted()
            if session is not None:
                self.post_message(self.Open(session.id))
            return
        self._focus_results = True
        self._apply_search(event.value)

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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Rename/delete need a manager and a highlighted session."""
        if action in ("rename", "delete"):
            if self.manager is None:
                return False
            return None if self._highlighted() is None else True
        return True

    def _highlighted(self) -> SessionInfo | None:
        if not self.is_mounted:
            return None
        sid = self._list.highlighted_session_id
        return next((s for s in self._list.sessions if s.id == sid), None) if sid else None

    def action_new_session(self) -> None:
        if self.manager is None:
            self.post_message(self.NewSession())
        else:
            self._new_form()

    @work(exclusive=True, group="session-edit", exit_on_error=False)
    async def _new_form(self) -> None:
        assert self.manager is not None
        agents, models = await self.manager.choices()
        request = await self.app.push_screen_wait(
            NewSessionScreen(self.manager.default_directory, agents, models))
        if request is None:
            return
        info = await self.manager.create(request)
        if info is not None:
            self.post_message(self.Open(info.id))

    def action_rename(self) -> None:
        session = self._highlighted()
        if session is not None and self.manager is not None:
            self._rename(session)

    @work(exclusive=True, group="session-edit", exit_on_error=False)
    async def _rename(self, session: SessionInfo) -> None:
        assert self.manager is not None
        title = await self.app.push_screen_wait(RenameScreen(session.title or ""))
        if title and await self.manager.rename(session.id, title):
            self.reload()

    def action_delete(self) -> None:
        session = self._highlighted()
        if session is not None and self.manager is not None:
            self._delete(session)

    @work(exclusive=True, group="session-edit", exit_on_error=False)
    async def _delete(self, session: SessionInfo) -> None:
        assert self.manager is not None
        title = one_line(session.title or "(untitled)", 80)
        sure = await self.app.push_screen_wait(ConfirmScreen(
            f"Delete “{title}”?",
            f"{session.id} and all its subagent sessions are deleted on the server. This cannot be undone.",
            yes="Delete", danger=True))
        if sure and await self.manager.delete(session.id):
            self.post_message(self.Deleted(session.id))
            self.reload()

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
