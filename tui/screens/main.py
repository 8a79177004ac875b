"""The session view: transcript, pending prompts, composer, status bar."""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, TextArea

from tui.client.errors import OctuiError
from tui.client.stream import StreamState
from tui.screens.assists import AssistedScreen
from tui.screens.main_actions import SessionActionKeys
from tui.screens.main_modes import PermissionModeActions
from tui.screens.main_reading import ReadingPlaces
from tui.screens.main_tree import SubagentNavigation
from tui.screens.mode_confirm import ModeCommands
from tui.screens.session_loader import AppSessionLoader
from tui.state import tree_nav
from tui.state.transcript import Change, SessionState
from tui.storage.drafts import HOME_KEY, DraftKeeper
from tui.text.sanitize import one_line
from widgets.asks.ask_flow import AskFlow
from widgets.composer.attachment_bar import AttachmentBar
from widgets.composer.completion import CompletionMenu
from widgets.composer.composer import Composer
from widgets.composer.pending_inputs import PendingInputs
from widgets.plain import plain_line, toast
from widgets.status.connection_banner import ConnectionBanner
from widgets.status.session_header import SessionHeader
from widgets.status.status_bar import StatusBar, StatusInfo
from widgets.subagents.breadcrumb import Breadcrumb
from widgets.subagents.subagent_tree import SubagentTree
from widgets.transcript.transcript import Transcript

if TYPE_CHECKING:
    from tui.app.app import OctuiApp

HOME_TEXT = ("No session open.\n\nType a prompt below to start a new session in this directory,\n"
             "or press Ctrl+S to browse sessions.")


class MainScreen(AssistedScreen, PermissionModeActions, SessionActionKeys, SubagentNavigation,
                 ReadingPlaces, Screen[None]):
    """Shows one session at a time; everything else is a key away."""

    COMMANDS = {ModeCommands}  # command palette (ctrl+p): the permission modes
    BINDINGS = [
        Binding("escape", "interrupt", "Interrupt", show=True, id="octui.interrupt"),
        Binding("ctrl+n", "new_session", "New session", show=True, id="octui.new_session"),
        Binding("ctrl+s", "sessions", "Sessions", show=True, id="octui.sessions"),
        Binding("ctrl+t", "toggle_reasoning", "Thinking", show=True, id="octui.toggle_reasoning"),
        Binding("ctrl+b", "inbox", "Inbox", show=True, id="octui.inbox"),
        Binding("ctrl+g", "toggle_tree", "Subagents", show=True, id="octui.toggle_tree"),
        Binding("f2", "cycle_mode", "Permission mode", show=True, id="octui.cycle_mode"),  # not ctrl+y (redo)
        Binding("alt+up", "go('parent')", "Parent session", show=False, id="octui.go_parent"),
        Binding("alt+down", "go('child')", "First child", show=False, id="octui.go_child"),
        Binding("alt+right", "go('next')", "Next sibling", show=False, id="octui.go_next"),
        Binding("alt+left", "go('previous')", "Previous sibling", show=False, id="octui.go_previous"),
        # Session actions (tui/screens/session_actions.py). f6/f7 are priority: the composer's TextArea
        # would take them for select-line/select-all.
        Binding("f3", "copy_code", "Copy code block", show=False, id="octui.copy_code"),
        Binding("f4", "undo", "Undo", show=False, id="octui.undo"),
        Binding("f5", "copy_last_answer", "Copy answer", show=False, id="octui.copy_last_answer"),
        Binding("f6", "copy_transcript", "Copy transcript", show=False, priority=True,
                id="octui.copy_transcript"),
        Binding("f7", "export", "Export", show=False, priority=True, id="octui.export"),
        Binding("f8", "redo", "Redo", show=False, id="octui.redo"),
        Binding("f9", "revert_panel", "Revert", show=False, id="octui.revert_panel"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.session_id: str | None = None
        self.reasoning_collapsed = True
        self.drafts = DraftKeeper()  # composer drafts, per session, kept in the state dir
        self._draft_key: str | None = None  # the view the composer text belongs to
        self._draft_timer = False
        self._composer_widget: Composer | None = None
        self.places = {}  # scroll place per session id (ReadingPlaces)

    @property
    def octui(self) -> OctuiApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        yield SessionHeader(id="header")
        with Horizontal(id="body"):
            with Vertical(id="main-column"):
                yield ConnectionBanner(id="banner")
                yield Breadcrumb(id="breadcrumb")
                yield Transcript(id="transcript")
                yield Button("", id="new-activity", classes="new-activity", compact=True)
                yield PendingInputs(id="pending")
                yield AttachmentBar(id="attachments")
                yield CompletionMenu(id="completion")
                yield Composer(id="composer")
            yield SubagentTree(id="tree")
        yield AskFlow()

    def on_mount(self) -> None:
        self.query_one(ConnectionBanner).show_state("connecting")
        self.query_one(PendingInputs).display = False
        self.query_one("#new-activity", Button).display = False
        self.query_one(SubagentTree).display = False
        self.query_one(Breadcrumb).display = False
        self._composer_widget = self.query_one(Composer)
        self.query_one(Composer).focus()

    # ------------------------------------------------------------------ views
    @property
    def state(self) -> SessionState | None:
        if self.session_id is None:
            return None
        return self.octui.store.sessions.get(self.session_id)

    def show_home(self) -> None:
        self.remember_place()
        self.session_id = None
        self._swap_draft(HOME_KEY)
        self.query_one(Transcript).show(None, HOME_TEXT)
        self.refresh_status()

    def show_session(self, session_id: str) -> None:
        """Show a session where the reader left it (at the bottom the first time)."""
        self.remember_place()
        self.session_id = session_id
        self._swap_draft(session_id)
        state = self.octui.store.session(session_id)
        self.query_one(Transcript).show(state, "No messages yet — type a prompt below.",
                                        self.place_of(session_id))
        self.sub_title = one_line(state.title, 200)
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
                state = self.octui.store.session(sid)
                if transcript.state is state:
                    transcript.history_changed(change.detail)  # reloaded or older pages: keep the place
                else:
                    transcript.show(state, "No messages yet — type a prompt below.")
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
                    self.flow.drop_stale()
                    self.flow.show_next(sid)
                if change.kind == "session" and change.session_id == sid:
                    self._refresh_pending()
            elif change.kind == "toast" and change.detail:
                severity = "error" if change.part_key == "error" else (
                    "warning" if change.part_key == "warning" else "information")
                toast(self, change.detail, severity=severity)  # type: ignore[arg-type]
            elif change.kind == "prompt.append" and change.detail:
                self.query_one(Composer).insert(change.detail)
            elif change.kind == "catalog":
                self.catalog_changed(change.detail)
            elif change.kind == "select" and change.session_id:
                self.open(change.session_id)
        if status:
            self.refresh_status()
            self._refresh_tree()

    def rendering_behind(self) -> bool:
        """Whether a streaming block shows placeholders that are being rendered."""
        return self.query_one(Transcript).rendering_behind()

    def content_rows(self) -> int:
        """How tall the transcript's content is (the app paces frames by how fast it grows)."""
        return self.query_one(Transcript).virtual_size.height

    def _refresh_pending(self) -> None:
        state = self.state
        client = self.octui.client
        caps = client.dialect.caps if client is not None else None
        self.query_one(PendingInputs).show_items(
            list(state.inbox.values()) if state else [],
            can_cancel=caps.pending_cancel if caps else True,
            can_redeliver=caps.pending_redeliver if caps else True)

    def refresh_status(self) -> None:
        app = self.octui
        state = self.state
        health = app.health
        server = ""
        if app.client is not None:
            server = app.client.dialect.label
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
            asks=len(app.store.asks), mode=self._mode_text())
        self._refresh_header()

    def _refresh_header(self) -> None:
        """Which session, where, on which server (a no-op unless one of them changed)."""
        app = self.octui
        state = self.state
        title = state.title if state is not None else "No session"
        info = state.info if state is not None else None
        directory = info.location.directory if info and info.location and info.location.directory \
            else app.spec.directory
        home = os.path.expanduser("~")
        if home not in ("", "/", "~") and (directory == home or directory.startswith(home + os.sep)):
            directory = "~" + directory[len(home):]
        server = ""
        if app.client is not None:
            server = app.client.display_url.split("://", 1)[-1].rstrip("/")
            if app.local is not None:
                server = f"local {server}"
        self.query_one(SessionHeader).show(title, directory, server)

    def show_starting_server(self) -> None:
        """Boot is starting ``opencode serve`` (a second or two): the banner says so."""
        self.query_one(ConnectionBanner).show_state("starting")

    def connection_changed(self, state: StreamState) -> None:
        self.query_one(ConnectionBanner).show_state(state.phase, state.attempt, state.error)
        self.refresh_status()

    # ------------------------------------------------------------------ actions
    def open(self, session_id: str) -> None:
        self._open_worker(session_id)

    @work(exclusive=True, group="open-session", exit_on_error=False)
    async def _open_worker(self, session_id: str) -> None:
        known = self.octui.store.sessions.get(session_id)
        if known is None or not known.loaded:
            self.show_loading(session_id)
        if not await self.octui.open_session(session_id):
            self.restore_view()

    def show_loading(self, session_id: str | None, text: str | Content | None = None,
                     title: str | None = None) -> None:
        """The screen waits for a session's history: say so instead of showing a blank page."""
        known = self.octui.store.sessions.get(session_id) if session_id else None
        if not title:
            title = known.title if known is not None and known.info is not None else (session_id or "")
        if not text:  # the title is the server's: through widgets.plain, its hidden characters as tokens
            text = Content.assemble("◌ Loading session “", plain_line(title, 80), "”…")
        self.remember_place()  # where the reader was in the session being left
        self.query_one(Transcript).show(None, text)
        self.query_one(SessionHeader).show(title or "…", self.octui.spec.directory,
                                           self.query_one(SessionHeader).values[2])

    def restore_view(self) -> None:
        """Loading another session failed (the app said why): show what was there before."""
        if self.session_id is not None:
            self.show_session(self.session_id)
        else:
            self.show_home()

    @on(Composer.Submitted)
    def _submitted(self, event: Composer.Submitted) -> None:
        if self.local_command(event.text):
            return
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
            toast(self, "Not connected yet — your prompt is still in the box.", severity="warning")
            return
        try:
            if self.session_id is None:
                info = await controller.create_session(directory=self.octui.spec.directory)
                self._adopt_home_draft(info.id)
                self.show_session(info.id)
            assert self.session_id is not None
            state = self.state
            if state is not None and not state.busy:
                delivery = "steer" if delivery == "steer" else delivery
            await self.deliver(self.session_id, text, delivery)
        except OctuiError as exc:
            toast(self, f"Not sent: {exc}. Your prompt is still in the box.", severity="error")
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
            toast(self, "Interrupted." if len(targets) == 1 else
                        f"Interrupted {len(targets)} sessions.", timeout=2)
        except OctuiError as exc:
            toast(self, f"Interrupt failed: {exc}", severity="error")

    @on(PendingInputs.Cancel)
    def _cancel_pending(self, event: PendingInputs.Cancel) -> None:
        self._pending_action(event.inbox_id, None)

    @on(PendingInputs.ChangeDelivery)
    def _pending_delivery(self, event: PendingInputs.ChangeDelivery) -> None:
        self._pending_action(event.inbox_id, event.delivery)

    @work(group="pending", exit_on_error=False)
    async def _pending_action(self, inbox_id: str, delivery: str | None) -> None:
        controller = self.octui.controller
        if controller is None or self.session_id is None:
            return
        try:
            if delivery is None:
                await controller.cancel_pending(self.session_id, inbox_id)
            else:
                await controller.set_pending_delivery(self.session_id, inbox_id, delivery)
        except OctuiError as exc:
            toast(self, f"Could not change the pending prompt: {exc}", severity="warning")

    def action_new_session(self) -> None:
        self.show_home()
        self.query_one(Composer).focus()

    def action_toggle_reasoning(self) -> None:
        self.reasoning_collapsed = not self.reasoning_collapsed
        self.query_one(Transcript).set_reasoning_collapsed(self.reasoning_collapsed)

    def action_sessions(self) -> None:
        from tui.screens.sessions import SessionsScreen

        if self.octui.client is None:
            toast(self, "Not connected yet.", severity="warning")
            return

        def chosen(session_id: str | None) -> None:
            if session_id:
                self.open(session_id)

        self.app.push_screen(SessionsScreen(AppSessionLoader(self.octui), manager=self.octui.actions), chosen)

    def on_sessions_screen_new_session(self, event: Any) -> None:
        self.action_new_session()

    def action_inbox(self) -> None:
        self.flow.open_inbox(self.open)

    @property
    def flow(self) -> AskFlow:
        return self.query_one(AskFlow)

    def composer_text(self) -> Any:
        return self.query_one(Composer).text

    # ------------------------------------------------------------------ drafts
    @on(TextArea.Changed, "#composer")
    def _composer_changed(self, event: TextArea.Changed) -> None:
        self.drafts.note(self._draft_key or HOME_KEY, event.text_area.text)
        self._schedule_draft_flush()

    def _swap_draft(self, key: str) -> None:
        """Keep the composer text of the view being left; show the draft of ``key``."""
        composer = self.query_one(Composer)
        old = self._draft_key
        if old == key:
            return
        if old is not None:
            self.drafts.note(old, composer.text)
        self._draft_key = key
        saved = self.drafts.load(key)
        self._say_draft_problem()
        if old is None and composer.text.strip() and not saved.strip():
            self.drafts.note(key, composer.text)  # typed during start-up: keep it
        elif composer.text != saved:
            composer.text = saved
            composer.move_cursor(composer.document.end)
        self._schedule_draft_flush()

    def _adopt_home_draft(self, session_id: str) -> None:
        """A prompt typed on the home screen created ``session_id``: its draft moves there."""
        self.drafts.note(HOME_KEY, "")
        self.drafts.note(session_id, self.query_one(Composer).text)
        self._draft_key = session_id
        self._schedule_draft_flush()

    def _schedule_draft_flush(self) -> None:
        if not self._draft_timer and self.drafts.dirty:
            self._draft_timer = True
            self.set_timer(self.drafts.delay, self._flush_drafts)

    @work(group="drafts", exit_on_error=False)
    async def _flush_drafts(self) -> None:
        self._draft_timer = False
        await asyncio.to_thread(self.drafts.flush)  # fsync off the event loop
        self._say_draft_problem()

    def _say_draft_problem(self) -> None:
        problem = self.drafts.take_problem()
        if problem is not None:
            toast(self, f"Draft: {problem}", severity="warning", timeout=10)

    def on_unmount(self) -> None:
        """Exit: write the draft now (the debounce timer will not fire any more)."""
        self.save_draft()

    def save_draft(self) -> None:
        """Write the composer's text now (quitting: before anything that may be cut short)."""
        composer = self._composer_widget  # out of the DOM on unmount, but it still holds the text
        if composer is not None:
            self.drafts.note(self._draft_key or HOME_KEY, composer.text)
        self.drafts.flush()
