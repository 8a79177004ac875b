"""The session view: transcript, pending prompts, composer, status bar."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen

from tui.ask_flow import AskFlow
from tui.client.errors import OctuiError
from tui.client.stream import StreamState
from tui.state import tree_nav
from tui.state.transcript import Change, SessionState
from tui.state.tree import build_tree
from widgets.breadcrumb import Breadcrumb
from widgets.composer import Composer
from widgets.connection_banner import ConnectionBanner
from widgets.pending_inputs import PendingInputs
from widgets.status_bar import StatusBar, StatusInfo
from widgets.subagent_tree import SubagentTree
from widgets.tool_row import ToolRow
from widgets.transcript import Transcript

if TYPE_CHECKING:
    from tui.app import OctuiApp

HOME_TEXT = ("No session open.\n\nType a prompt below to start a new session in this directory,\n"
             "or press Ctrl+S to browse sessions.")


class AppSessionLoader:
    """The session browser's view of the server: sessions of this directory, newest first."""

    def __init__(self, app: OctuiApp) -> None:
        self.app = app

    async def load(self, cursor: str | None, search: str | None,
                   roots_only: bool) -> tuple[list[Any], str | None]:
        assert self.app.client is not None
        sessions, nxt = await self.app.client.list_sessions(
            limit=50, cursor=cursor, search=search, directory=self.app.spec.directory,
            roots_only=roots_only)
        for info in sessions:
            self.app.store.upsert_info(info)
        return sessions, nxt

    def busy_ids(self) -> set[str]:
        return self.app.store.busy_ids()


class MainScreen(Screen[None]):
    """Shows one session at a time; everything else is a key away."""

    BINDINGS = [
        Binding("escape", "interrupt", "Interrupt", show=True),
        Binding("ctrl+n", "new_session", "New session", show=True),
        Binding("ctrl+s", "sessions", "Sessions", show=True),
        Binding("ctrl+t", "toggle_reasoning", "Thinking", show=True),
        Binding("ctrl+b", "inbox", "Inbox", show=True),
        Binding("ctrl+g", "toggle_tree", "Subagents", show=True),
        Binding("alt+up", "go('parent')", "Parent session", show=False),
        Binding("alt+down", "go('child')", "First child", show=False),
        Binding("alt+right", "go('next')", "Next sibling", show=False),
        Binding("alt+left", "go('previous')", "Previous sibling", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.session_id: str | None = None
        self.reasoning_collapsed = True
        self.tree_forced: bool | None = None  # None: shown when the session has subagents

    @property
    def octui(self) -> OctuiApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Horizontal(id="body"):
            with Vertical(id="main-column"):
                yield ConnectionBanner(id="banner")
                yield Breadcrumb(id="breadcrumb")
                yield Transcript(id="transcript")
                yield PendingInputs(id="pending")
                yield Composer(id="composer")
            yield SubagentTree(id="tree")
        yield AskFlow()

    def on_mount(self) -> None:
        self.query_one(ConnectionBanner).show_state("connecting")
        self.query_one(PendingInputs).display = False
        self.query_one(SubagentTree).display = False
        self.query_one(Breadcrumb).display = False
        self.query_one(Composer).focus()

    # ------------------------------------------------------------------ views
    @property
    def state(self) -> SessionState | None:
        if self.session_id is None:
            return None
        return self.octui.store.sessions.get(self.session_id)

    def show_home(self) -> None:
        self.session_id = None
        self.query_one(Transcript).show(None, HOME_TEXT)
        self.refresh_status()

    def show_session(self, session_id: str) -> None:
        self.session_id = session_id
        state = self.octui.store.session(session_id)
        self.query_one(Transcript).show(state, "No messages yet — type a prompt below.")
        self.sub_title = state.title
        self.refresh_status()
        self._refresh_pending()
        self._refresh_tree()
        self.flow.show_next(session_id)

    def apply_changes(self, changes: list[Change]) -> None:
        """Repaint what moved. Called at most ~30 times a second with coalesced changes."""
        transcript = self.query_one(Transcript)
        sid = self.session_id
        status = False
        seen: set[tuple[str, str | None, str | None]] = set()
        for change in changes:
            key = (change.kind, change.message_id, change.part_key)
            if change.kind in ("part", "message") and change.session_id == sid:
                if key in seen:
                    continue
                seen.add(key)
            if change.kind == "transcript" and change.session_id == sid and sid is not None:
                transcript.show(self.octui.store.session(sid), "No messages yet — type a prompt below.")
            elif change.kind == "message" and change.session_id == sid and change.message_id:
                transcript.message_changed(change.message_id)
            elif change.kind == "part" and change.session_id == sid and change.message_id:
                transcript.part_changed(change.message_id, change.part_key or "")
            elif change.kind in ("session", "asks", "resynced", "connected"):
                status = True
                if change.kind == "asks" and change.detail == "asked":
                    self.flow.asked(change.part_key, sid)
                elif change.kind == "asks" and change.part_key:
                    self.flow.settled(change.part_key, change.detail)
                elif change.kind in ("asks", "resynced"):
                    self.flow.show_next(sid)
                if change.kind == "session" and change.session_id == sid:
                    self._refresh_pending()
            elif change.kind == "toast" and change.detail:
                severity = "error" if change.part_key == "error" else (
                    "warning" if change.part_key == "warning" else "information")
                self.notify(change.detail, severity=severity)  # type: ignore[arg-type]
            elif change.kind == "prompt.append" and change.detail:
                self.query_one(Composer).insert(change.detail)
            elif change.kind == "select" and change.session_id:
                self.open(change.session_id)
        if status:
            self.refresh_status()
            self._refresh_tree()

    def _refresh_tree(self) -> None:
        tree = self.query_one(SubagentTree)
        crumbs = self.query_one(Breadcrumb)
        sid = self.session_id
        if sid is None:
            tree.display = False
            crumbs.display = False
            return
        store = self.octui.store
        root = tree_nav.root_of(store, sid)
        node = build_tree(store, root)
        show = bool(node.children) if self.tree_forced is None else self.tree_forced
        tree.display = show
        if show:
            tree.show_tree(node, sid)
        path = tree_nav.breadcrumb(store, sid)
        crumbs.display = len(path) > 1
        if len(path) > 1:
            crumbs.show_path(path)

    def _refresh_pending(self) -> None:
        state = self.state
        self.query_one(PendingInputs).show_items(list(state.inbox.values()) if state else [])

    def refresh_status(self) -> None:
        app = self.octui
        state = self.state
        health = app.health
        server = ""
        if app.client is not None:
            server = app.client.dialect.label
            if health is not None and health.version:
                server += f" {health.version}"
        info = state.info if state else None
        model = info.model if info and info.model else None
        last = next((m for m in reversed(state.messages.values()) if m.role == "assistant"), None) \
            if state else None
        if model is None and last is not None:
            model = last.model
        agent = (info.agent if info and info.agent else None) or (last.agent if last else None) or ""
        limit = 0.0
        if model is not None:
            limit = next((m.limit.context for m in app.models
                          if m.id == model.id and m.providerID == model.providerID), 0.0)
        self.query_one(StatusBar).info = StatusInfo(
            connection=app.stream_state.phase, server=server, agent=agent,
            model=model.label if model else "", busy=bool(state and state.busy),
            note=(state.status_note or "") if state else "",
            tokens=state.tokens.total if state else 0, cost=state.cost if state else 0,
            context_limit=limit, context_used=state.context_tokens if state else 0,
            asks=len(app.store.asks))

    def connection_changed(self, state: StreamState) -> None:
        self.query_one(ConnectionBanner).show_state(state.phase, state.attempt, state.error)
        self.refresh_status()

    # ------------------------------------------------------------------ actions
    def open(self, session_id: str) -> None:
        self._open_worker(session_id)

    @work(exclusive=True, group="open-session", exit_on_error=False)
    async def _open_worker(self, session_id: str) -> None:
        await self.octui.open_session(session_id)

    @on(Composer.Submitted)
    def _submitted(self, event: Composer.Submitted) -> None:
        self._send(event.text, event.delivery)

    @work(group="send", exit_on_error=False)
    async def _send(self, text: str, delivery: str) -> None:
        composer = self.query_one(Composer)
        for _ in range(300):  # wait (bounded, 30 s) for start-up instead of refusing the prompt
            if self.octui.controller is not None:
                break
            await asyncio.sleep(0.1)
        controller = self.octui.controller
        if controller is None:
            self.notify("Not connected yet — your prompt is still in the box.", severity="warning")
            return
        try:
            if self.session_id is None:
                info = await controller.create_session(directory=self.octui.spec.directory)
                self.show_session(info.id)
            assert self.session_id is not None
            state = self.state
            if state is not None and not state.busy:
                delivery = "steer" if delivery == "steer" else delivery
            await controller.prompt(self.session_id, text, delivery=delivery)
        except OctuiError as exc:
            self.notify(f"Not sent: {exc}. Your prompt is still in the box.", severity="error")
            return
        if composer.text.strip() == text:
            composer.text = ""

    def action_interrupt(self) -> None:
        state = self.state
        if state is None:
            return
        store = self.octui.store
        tree = [state.id, *tree_nav.descendants(store, state.id)]
        if not any(store.session(sid).busy or store.asks_for(sid) for sid in tree):
            return
        self._interrupt(state.id)

    @work(group="interrupt", exit_on_error=False)
    async def _interrupt(self, session_id: str) -> None:
        """Stop a session and every subagent below it (each rejects its pending asks first)."""
        controller = self.octui.controller
        if controller is None:
            return
        targets = [session_id, *tree_nav.descendants(self.octui.store, session_id)]
        try:
            for sid in reversed(targets):  # children first, so none outlives its parent
                await controller.interrupt(sid)
            self.notify("Interrupted." if len(targets) == 1 else
                        f"Interrupted {len(targets)} sessions.", timeout=2)
        except OctuiError as exc:
            self.notify(f"Interrupt failed: {exc}", severity="error")

    @on(SubagentTree.OpenSession)
    def _tree_open(self, event: SubagentTree.OpenSession) -> None:
        if event.session_id != self.session_id:
            self.open(event.session_id)

    @on(SubagentTree.StopSession)
    def _tree_stop(self, event: SubagentTree.StopSession) -> None:
        self._interrupt(event.session_id)

    @on(Breadcrumb.Navigate)
    def _crumb(self, event: Breadcrumb.Navigate) -> None:
        self.open(event.session_id)

    @on(ToolRow.OpenChild)
    def _open_child(self, event: ToolRow.OpenChild) -> None:
        self.open(event.session_id)

    def action_toggle_tree(self) -> None:
        tree = self.query_one(SubagentTree)
        self.tree_forced = not tree.display
        self._refresh_tree()

    def action_go(self, where: str) -> None:
        sid = self.session_id
        if sid is None:
            return
        store = self.octui.store
        target = {"parent": tree_nav.parent_of, "child": tree_nav.first_child,
                  "next": tree_nav.next_sibling, "previous": tree_nav.previous_sibling}[where](store, sid)
        if target:
            self.open(target)

    def action_new_session(self) -> None:
        self.show_home()
        self.query_one(Composer).focus()

    def action_toggle_reasoning(self) -> None:
        self.reasoning_collapsed = not self.reasoning_collapsed
        self.query_one(Transcript).set_reasoning_collapsed(self.reasoning_collapsed)

    def action_sessions(self) -> None:
        from tui.screens.sessions import SessionsScreen

        if self.octui.client is None:
            self.notify("Not connected yet.", severity="warning")
            return

        def chosen(session_id: str | None) -> None:
            if session_id:
                self.open(session_id)

        self.app.push_screen(SessionsScreen(AppSessionLoader(self.octui)), chosen)

    def on_sessions_screen_new_session(self, event: Any) -> None:
        self.action_new_session()

    def action_inbox(self) -> None:
        self.flow.open_inbox(self.open)

    @property
    def flow(self) -> AskFlow:
        return self.query_one(AskFlow)

    def composer_text(self) -> Any:
        return self.query_one(Composer).text
