"""``StatusArea``: the status bar, the session header and the connection banner of the main screen.

A non-visual helper (the three widgets sit in different places of the layout and keep them): the
screen says which session is on view and what the permission mode reads; this fills in the
connection, the server, the model, the agent, the usage and the pending asks from the app.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from textual.widget import Widget

from tui.app import clock
from tui.app.host import octui_app
from tui.session.connect import StreamState
from tui.state.todos import todo_progress
from tui.state.transcript import SessionState
from widgets.status.connection_banner import ConnectionBanner
from widgets.status.model_agent import ModelAgentChoice
from widgets.status.session_header import SessionHeader
from widgets.status.status_bar import StatusBar, StatusInfo

__all__ = ["StatusArea"]


class StatusArea(Widget):
    """Owns ``#status``, ``#header`` and ``#banner`` (found on the screen by type)."""

    DEFAULT_CSS = "StatusArea { display: none; }"

    def __init__(self) -> None:
        super().__init__()
        self._busy_seen: dict[str, tuple[str, float]] = {}  # busy session → (its prompt, when it began)
        self._shown_session: str | None = None  # the session the last show was for

    def show(self, state: SessionState | None, mode_text: str) -> None:
        """Repaint the status bar and the header for ``state`` (``None``: no session open)."""
        app = octui_app(self)
        health = app.health
        server = ""
        if app.session.is_ready:
            server = app.session.server_label
            if health is not None and health.version:
                server += f" {health.version}"
            if app.spec.origin:  # the user's background service, or a private server of ours
                server = f"{app.spec.origin} · {server}"
        info = state.info if state else None
        model = info.model if info and info.model else None
        last = next((m for m in reversed(state.messages.values()) if m.role == "assistant"), None) \
            if state else None
        if model is None and last is not None:
            model = last.model
        agent = (info.agent if info and info.agent else None) or (last.agent if last else None) or ""
        if state is None:  # no session yet: what the next one gets (QA: nothing until a prompt)
            choice = self.screen.query(ModelAgentChoice)
            picked = choice.first() if choice else None
            model = (picked.pending_model if picked else None) or app.default_model
            agent = (picked.pending_agent if picked else None) or ""
        limit = 0.0
        if model is not None:
            limit = next((m.limit.context for m in app.models
                          if m.id == model.id and m.providerID == model.providerID), 0.0)
        self.screen.query_one(StatusBar).info = StatusInfo(
            connection=app.stream_state.phase, server=server, agent=agent,
            model=model.label if model else "", busy=bool(state and state.busy),
            busy_since=self._turn_began(state),
            note=(state.status_note or "") if state else "",
            tokens=state.tokens.total if state else 0, cost=state.cost if state else 0,
            context_limit=limit, context_used=state.context_tokens if state else 0,
            asks=len(app.store.asks), mode=mode_text, **self._plan(state))
        self._show_header(state)

    def _turn_began(self, state: SessionState | None) -> float | None:
        """When the busy session's turn began (epoch seconds): seen here, by this clock (a
        remote server's clock may be off); for a session opened busy, its prompt's time."""
        shown_before, self._shown_session = self._shown_session, state.id if state is not None else None
        if state is None:
            return None
        if not state.busy:
            self._busy_seen.pop(state.id, None)
            return None
        prompt = next((m for m in reversed(state.messages.values()) if m.role == "user"), None)
        turn = prompt.id if prompt is not None else ""
        seen = self._busy_seen.get(state.id)
        if seen is None or seen[0] != turn:  # (a turn that ended and began again off screen: anew)
            began = clock.now()
            if shown_before != state.id and prompt is not None and prompt.time_created:
                began = min(began, prompt.time_created / 1000)  # opened while busy: it began before
            seen = self._busy_seen[state.id] = (turn, began)
        return seen[1]

    @staticmethod
    def _plan(state: SessionState | None) -> dict[str, Any]:
        """The agent's unfinished plan, for the status line (nothing once every item is done)."""
        progress = todo_progress(state) if state is not None else None
        if progress is None or progress.finished:
            return {}
        return {"todos_done": progress.done, "todos_total": progress.total, "doing": progress.doing}

    def _show_header(self, state: SessionState | None) -> None:
        """Which session, where, on which server (a no-op unless one of them changed)."""
        app = octui_app(self)
        title = state.title if state is not None else "No session"
        info = state.info if state is not None else None
        directory = info.location.directory if info and info.location and info.location.directory \
            else app.spec.directory
        home = os.path.expanduser("~")
        if home not in ("", "/", "~") and (directory == home or directory.startswith(home + os.sep)):
            directory = "~" + directory[len(home):]
        server = ""
        if app.session.is_ready:
            server = app.session.display_url.split("://", 1)[-1].rstrip("/")
            if app.local is not None:
                server = f"local {server}"
        self.screen.query_one(SessionHeader).show(title, directory, server)

    def show_loading(self, title: str) -> None:
        """A session's history is loading: its title heads the screen already, and the status line
        no longer shows the session left (its plan, usage, agent and model; a review)."""
        header = self.screen.query_one(SessionHeader)
        header.show(title or "…", octui_app(self).spec.directory, header.values[2])
        bar = self.screen.query_one(StatusBar)
        bar.info = replace(bar.info, agent="", model="", busy=False, note="", tokens=0, cost=0,
                           context_limit=0, context_used=0, todos_done=0, todos_total=0, doing="")

    def show_connecting(self) -> None:
        self.screen.query_one(ConnectionBanner).show_state("connecting")

    def show_starting_server(self) -> None:
        """Boot is starting ``opencode serve`` (a second or two): the banner says so."""
        self.screen.query_one(ConnectionBanner).show_state("starting")

    def show_connection(self, state: StreamState) -> None:
        self.screen.query_one(ConnectionBanner).show_state(state.phase, state.attempt, state.error)
