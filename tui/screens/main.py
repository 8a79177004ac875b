"""The session view: ``MainScreen`` composes the components and routes their messages.

Each component owns a part of the screen and its state (``widgets/<group>/``): the composer panel
(composer, completion, attachments, drafts, pending prompts), the transcript panel (transcript,
reading places, the "new below" chip, older pages), the subagent panel (tree, breadcrumb), the ask
flow, the status area (status bar, header, banner), the permission modes, the model and agent
choice, and the transcript actions (copy, export, undo). Widgets keep their place in the layout;
the components are non-visual helpers that find them by type.

The screen keeps which session is on view, opens sessions, sends prompts and stops sessions through
the session layer (``app.session``; the components call it too for what they own: replies to asks,
model and agent, pending prompts, older pages), and routes the widgets' messages to the component
that owns them and the store's changes (``tui/app/messages.py``, posted once a frame by the app)
to the component that shows them. Every key binding is declared here (help, palette and keymap are
generated from them); each action hands over to its component.
"""

from __future__ import annotations

import contextlib
from typing import Any

from textual import events, on, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.geometry import Offset
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, TextArea

from tui.app.host import octui_app
from tui.app.messages import (
    AsksFrame,
    CatalogFrame,
    PromptFrame,
    SelectFrame,
    SessionsFrame,
    ToastsFrame,
    TranscriptFrame,
)
from tui.app.session_pages import SessionPages
from tui.protocol.models import PermissionRequest
from tui.screens.message_keys import TYPING_WINDOW_S, HeldKey, KeyDecision
from tui.screens.mode_confirm import ModeCommands
from tui.screens.sessions import SessionsScreen
from tui.session.connect import StreamState
from tui.session.errors import OctuiError
from tui.state import tree_nav
from tui.state.changes import PartChanged, Resynced, SessionChanged
from tui.state.modes import Mode
from tui.state.store import Store
from tui.state.titles import is_default_title, title_from_prompt
from tui.state.transcript import SessionState
from tui.text.sanitize import one_line
from widgets.asks.ask_flow import AskFlow
from widgets.composer.attachment_bar import AttachmentBar
from widgets.composer.attachment_chip import AttachmentChip
from widgets.composer.completion import CompletionMenu
from widgets.composer.composer import Composer
from widgets.composer.composer_panel import ComposerPanel
from widgets.composer.pending_inputs import PendingInputs
from widgets.plain import plain_line, toast
from widgets.status.connection_banner import ConnectionBanner
from widgets.status.model_agent import ModelAgentChoice
from widgets.status.permission_modes import PermissionModes
from widgets.status.session_header import SessionHeader
from widgets.status.status_area import StatusArea
from widgets.status.status_bar import StatusBar
from widgets.subagents.breadcrumb import Breadcrumb
from widgets.subagents.subagent_panel import SubagentPanel
from widgets.subagents.subagent_tree import SubagentTree
from widgets.tools.tool_row import ToolRow
from widgets.transcript.message_view import MessageView
from widgets.transcript.transcript import Transcript
from widgets.transcript.transcript_actions import TranscriptActions
from widgets.transcript.transcript_panel import EMPTY_SESSION, TranscriptPanel

SELECTION_GAP_ROWS = 2  # blank rows between messages a drag may begin on (margins, a notice's gap)
SELECTION_EDGE_COLUMNS = 4  # columns right of a message's text a drag may begin or end in
HOME_TEXT = ("No session open.\n\nType a prompt below to start a new session in this directory,\n"
             "or press Ctrl+S to browse sessions.")


def _running(store: Store, session_id: str) -> bool:
    """Whether ``session_id`` runs a turn or waits on an ask (a child known only by its tool
    link has no state: it is not made one here)."""
    state = store.sessions.get(session_id)
    return bool(state is not None and state.busy) or bool(store.asks_for(session_id))


class MainScreen(Screen[None]):
    """Shows one session at a time; everything else is a key away."""

    COMMANDS = {ModeCommands}  # command palette (ctrl+p): the permission modes
    BINDINGS = [
        Binding("ctrl+k", "pick_model", "Switch model", priority=True,  # over the composer's kill-line
                id="octui.pick_model"),
        Binding("ctrl+l", "pick_agent", "Switch agent", id="octui.pick_agent"),
        Binding("f1", "help", "Help: every key", id="octui.help"),
        Binding("ctrl+e", "edit_in_editor", "Edit in $EDITOR", priority=True, id="octui.edit_in_editor"),
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
        # Transcript actions (widgets/transcript/transcript_actions.py). f6/f7 are priority: the
        # composer's TextArea would take them for select-line/select-all.
        Binding("f3", "copy_code", "Copy code block", show=False, id="octui.copy_code"),
        Binding("f4", "undo", "Undo", show=False, id="octui.undo"),
        Binding("f5", "copy_last_answer", "Copy answer", show=False, id="octui.copy_last_answer"),
        Binding("f6", "copy_transcript", "Copy transcript", show=False, priority=True,
                id="octui.copy_transcript"),
        Binding("f7", "export", "Export", show=False, priority=True, id="octui.export"),
        Binding("f8", "redo", "Redo", show=False, id="octui.redo"),
        Binding("f9", "revert_panel", "Revert", show=False, id="octui.revert_panel"),
        Binding("tab", "tab_in", "Focus next", show=False, id="octui.tab_in"),
        Binding("shift+tab", "tab_back", "Focus previous", show=False, id="octui.tab_back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.session_id: str | None = None
        self._held_key: HeldKey | None = None  # a message's letter, until told from typing
        self._to_title: dict[str, str] = {}  # sessions made here → a title, if left untitled
        self._undone_prompt: str | None = None  # what an undo put in the box (a redo takes it back)

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
        # The components: non-visual, after the layout (they find their widgets by type).
        yield ComposerPanel()
        yield TranscriptPanel()
        yield SubagentPanel()
        yield StatusArea()
        yield PermissionModes()
        yield ModelAgentChoice()
        yield TranscriptActions()

    def get_widget_and_offset_at(self, x: int, y: int) -> tuple[Widget | None, Offset | None]:
        """Where a mouse selection starts or ends. The transcript's own cells (its padding
        columns, the blank rows between messages) hold no text: a drag begun there starts at
        the text beside it, as in a terminal. Found as the transcript itself, it selected every
        message from the top of the answer (QA: a drag from the left edge of a code line)."""
        widget, offset = super().get_widget_and_offset_at(x, y)
        if not isinstance(widget, Transcript):
            return widget, offset
        region = widget.scrollable_content_region  # (not its padding, nor its scroll bar)
        if not region.y <= y < region.bottom:
            return widget, offset
        inner_x = min(max(x, region.x), region.right - 1)
        for row in range(y, min(y + SELECTION_GAP_ROWS + 1, region.bottom)):
            # From the clamped column leftward: a message may end before the transcript's edge.
            for column in range(inner_x, max(region.x - 1, inner_x - SELECTION_EDGE_COLUMNS), -1):
                found, found_offset = super().get_widget_and_offset_at(column, row)
                if found is not None and found is not widget and found_offset is not None:
                    if row == y:
                        return found, found_offset
                    return found, Offset(0, found_offset.y)  # a blank row: the next line's start
        return widget, offset

    def on_mount(self) -> None:
        self.status_area.show_connecting()
        self.query_one("#new-activity", Button).display = False
        self.subagents.show(None)
        self.composer.start()

    # ------------------------------------------------------------------ the components
    @property
    def composer(self) -> ComposerPanel:
        return self.query_one(ComposerPanel)

    @property
    def reading(self) -> TranscriptPanel:
        return self.query_one(TranscriptPanel)

    @property
    def subagents(self) -> SubagentPanel:
        return self.query_one(SubagentPanel)

    @property
    def flow(self) -> AskFlow:
        return self.query_one(AskFlow)

    @property
    def status_area(self) -> StatusArea:
        return self.query_one(StatusArea)

    @property
    def modes(self) -> PermissionModes:
        return self.query_one(PermissionModes)

    @property
    def choice(self) -> ModelAgentChoice:
        return self.query_one(ModelAgentChoice)

    @property
    def transcript_actions(self) -> TranscriptActions:
        return self.query_one(TranscriptActions)

    # ------------------------------------------------------------------ views
    @property
    def state(self) -> SessionState | None:
        if self.session_id is None:
            return None
        return octui_app(self).store.sessions.get(self.session_id)

    def _view(self, session_id: str | None) -> None:
        """``session_id`` is on view now (``None``: home); the components that follow it are told."""
        self.reading.remember_place(self.session_id)
        self.session_id = session_id
        self.choice.session_id = session_id
        self.composer.view_changed(session_id)

    def show_home(self) -> None:
        self._view(None)
        self.reading.show(None, HOME_TEXT)
        self.refresh_status()

    def show_session(self, session_id: str) -> None:
        """Show a session where the reader left it (at the bottom the first time)."""
        self._view(session_id)
        state = octui_app(self).store.session(session_id)
        self.reading.show(state, EMPTY_SESSION, session_id)
        self.sub_title = one_line(state.title, 200)
        self.refresh_status()
        self.composer.show_pending(self.state)
        self._refresh_tree()
        self.flow.show_next(session_id)

    def show_loading(self, session_id: str | None, text: str | Content | None = None,
                     title: str | None = None) -> None:
        """The screen waits for a session's history: say so instead of showing a blank page."""
        known = octui_app(self).store.sessions.get(session_id) if session_id else None
        if not title:
            title = known.title if known is not None and known.info is not None else (session_id or "")
        if not text:  # the title is the server's: through widgets.plain, its hidden characters as tokens
            text = Content.assemble("◌ Loading session “", plain_line(title, 80), "”…")
        self.reading.remember_place(self.session_id)  # where the reader was in the session being left
        self.reading.show(None, text)
        self.status_area.show_loading(title)

    def restore_view(self) -> None:
        """Loading another session failed (the app said why): show what was there before."""
        if self.session_id is not None:
            self.show_session(self.session_id)
        else:
            self.show_home()

    def refresh_status(self) -> None:
        self.status_area.show(self.state, self.modes.text(self.session_id))
        self._title_if_untitled()

    def _title_if_untitled(self) -> None:
        """A session made here whose first turn is over with the server's placeholder title
        still on it gets its first prompt's line (``tui/state/titles.py``)."""
        state = self.state
        if state is None or state.id not in self._to_title or state.busy or \
                not any(m.role == "assistant" for m in state.messages.values()):
            return
        title = self._to_title.pop(state.id)
        if is_default_title(state.title):
            self._give_title(state.id, title)

    @work(group="titles", exit_on_error=False)
    async def _give_title(self, session_id: str, title: str) -> None:
        with contextlib.suppress(OctuiError):  # (a title is a nicety: the session works without)
            await octui_app(self).session.rename(session_id, title)

    def _refresh_tree(self) -> None:
        self.reading.set_child_states(self.subagents.show(self.session_id))
        tree = self.query_one(SubagentTree)
        if not tree.display and (self.focused is None or tree in self.focused.ancestors_with_self):
            # QA: hiding the tree (Ctrl+G) while it had the focus left nothing focused, and the
            # prompt typed next went nowhere.
            self.composer.focus_composer()
        # The tool calls a permission waits on, whoever's session: a row shows it is waiting.
        self.reading.set_asking_calls({ask.source.id for ask in octui_app(self).store.asks.values()
                                       if isinstance(ask, PermissionRequest) and ask.source is not None
                                       and ask.source.id})

    def show_starting_server(self) -> None:
        """Boot is starting ``opencode serve`` (a second or two): the banner says so."""
        self.status_area.show_starting_server()

    def connection_changed(self, state: StreamState) -> None:
        self.status_area.show_connection(state)
        self.refresh_status()

    def rendering_behind(self) -> bool:
        """Whether a streaming block shows placeholders that are being rendered."""
        return self.reading.rendering_behind()

    def content_rows(self) -> int:
        """How tall the transcript's content is (the app paces frames by how fast it grows)."""
        return self.reading.content_rows()

    @property
    def reasoning_collapsed(self) -> bool:
        """Whether thinking blocks show folded (Ctrl+T)."""
        return self.reading.reasoning_collapsed

    def composer_text(self) -> Any:
        return self.composer.text

    def save_draft(self) -> None:
        """Write the composer's text now (quitting: before anything that may be cut short)."""
        self.composer.save_draft()

    # ------------------------------------------------------------------ the store's changes
    @on(TranscriptFrame)
    def _transcript_changed(self, message: TranscriptFrame) -> None:
        self.reading.apply(message.changes, self.session_id)
        # A tool call (the todo tool's plan is on the status line) or a whole message or history
        # of this session; not the text streaming, which is most frames.
        if any(change.session_id == self.session_id
               and (type(change) is not PartChanged or change.part_key.startswith("tool:"))
               for change in message.changes):
            self.refresh_status()

    @on(SessionsFrame)
    def _sessions_changed(self, message: SessionsFrame) -> None:
        sid = self.session_id
        if any(isinstance(c, Resynced) for c in message.changes):
            self.flow.drop_stale()
            self.flow.show_next(sid)
        if sid is not None and any(isinstance(c, SessionChanged) and c.session_id == sid
                                   for c in message.changes):
            self.composer.show_pending(self.state)
        self.refresh_status()
        self._refresh_tree()

    @on(AsksFrame)
    def _asks_changed(self, message: AsksFrame) -> None:
        self.flow.apply(message.changes, self.session_id)
        self.refresh_status()
        self._refresh_tree()

    @on(ToastsFrame)
    def _notices(self, message: ToastsFrame) -> None:
        for change in message.changes:
            if change.text:
                toast(self, change.text, severity=change.severity)

    @on(PromptFrame)
    def _prompt_appended(self, message: PromptFrame) -> None:
        for change in message.changes:
            if change.text:
                self.composer.insert(change.text)

    @on(CatalogFrame)
    def _catalog_changed(self, message: CatalogFrame) -> None:
        for change in message.changes:
            self.choice.catalog_changed(change.event_type)

    @on(SelectFrame)
    def _session_selected(self, message: SelectFrame) -> None:
        for change in message.changes:
            if change.session_id:
                self.open(change.session_id)

    # ------------------------------------------------------------------ opening sessions
    def open(self, session_id: str) -> None:
        self._open_worker(session_id)

    @work(exclusive=True, group="open-session", exit_on_error=False)
    async def _open_worker(self, session_id: str) -> None:
        app = octui_app(self)
        known = app.store.sessions.get(session_id)
        if known is None or not known.loaded:
            self.show_loading(session_id)
        if not await self.load_and_show(session_id):
            self.restore_view()

    async def load_and_show(self, session_id: str) -> bool:
        """Load a session's history and show it; False (and a toast saying why) when it failed."""
        app = octui_app(self)
        if not app.session.is_ready:
            return False
        try:
            await app.session.open_session(session_id)
        except OctuiError as exc:
            toast(app, f"Could not open session: {exc}", severity="error")
            return False
        self.show_session(session_id)
        return True

    # ------------------------------------------------------------------ sending: composer -> session
    @on(Composer.Submitted)
    def _submitted(self, event: Composer.Submitted) -> None:
        event.stop()
        prompt = self.composer.submission(event)  # None: octui's own /command, run by the panel
        if prompt is not None:
            self.send_prompt(prompt)

    @work(group="send", exit_on_error=False)
    async def send_prompt(self, prompt: ComposerPanel.PromptSubmitted) -> None:
        app = octui_app(self)
        session = app.session
        if not await session.ready():  # wait (bounded, 30 s) for start-up instead of refusing the prompt
            toast(self, "Not connected yet — your prompt is still in the box.", severity="warning")
            return
        choice = self.choice
        try:
            if self.session_id is None:
                info = await session.create_session(directory=app.spec.directory)
                self.composer.adopt_home_draft(info.id)
                if (title := title_from_prompt(prompt.text)) is not None:
                    self._to_title[info.id] = title  # if the server leaves it untitled
                self.show_session(info.id)
            assert self.session_id is not None
            target = self.session_id
            if not await self._settle_undo(target):
                return
            await session.send(self.session_id, prompt.text, prompt.delivery,
                               model=choice.pending_model, agent=choice.pending_agent,
                               mentioned=prompt.mentioned,
                               attachments=[a.file_part() for a in prompt.attachments])
        except OctuiError as exc:
            toast(self, f"Not sent: {exc}. Your prompt is still in the box.", severity="error")
            return
        choice.pending_sent()
        self.composer.sent(prompt.text, prompt.attachments)
        if self.session_id == target:  # (not a session switched to meanwhile: its place is kept)
            self.reading.follow()  # a reader scrolled up sees the prompt go in and its answer come

    async def _settle_undo(self, session_id: str) -> bool:
        """A staged undo is settled before a new prompt, as OpenCode's next prompt does: committed,
        else the undone turns would still reach the model, and a later commit would delete the new
        ones. False (nothing is sent) when the commit fails."""
        state = octui_app(self).store.sessions.get(session_id)
        if state is None or state.info is None or state.info.revert is None:
            return True
        undone = sum(1 for m in state.messages.values() if m.reverted)
        try:
            await octui_app(self).session.revert_commit(session_id)
        except OctuiError as exc:
            toast(self, f"Not sent: the staged undo could not be committed first ({exc}). "
                        "Your prompt is still in the box.", severity="error", timeout=10)
            return False
        noun = "message" if undone == 1 else "messages"
        toast(self, f"Staged undo committed before sending: {undone} undone {noun} removed.", timeout=4)
        return True

    @on(ComposerPanel.LocalCommand)
    def _local_command(self, event: ComposerPanel.LocalCommand) -> None:
        event.stop()
        self.call_later(self.run_action, event.action)

    @on(ComposerPanel.SwitchRequested)
    def _switch_requested(self, event: ComposerPanel.SwitchRequested) -> None:
        event.stop()
        self.choice.switch_by_name(event.kind, event.name, event.draft)

    @on(ModelAgentChoice.DraftUsed)
    def _draft_used(self, event: ModelAgentChoice.DraftUsed) -> None:
        event.stop()
        self.composer.clear_draft(event.draft)

    @on(ModelAgentChoice.ModelsLoaded)
    @on(PermissionModes.Changed)
    def _status_moved(self, event: ModelAgentChoice.ModelsLoaded | PermissionModes.Changed) -> None:
        event.stop()
        self.refresh_status()

    @on(TranscriptActions.PromptUndone)
    def _prompt_undone(self, event: TranscriptActions.PromptUndone) -> None:
        event.stop()
        self.composer.restore_prompt(event.prompt)
        restored = self.composer.composer.text == event.prompt
        self._undone_prompt = event.prompt if restored else None

    @on(TranscriptActions.PromptRedone)
    def _prompt_redone(self, event: TranscriptActions.PromptRedone) -> None:
        """The undone prompt is back in the session: out of the box (unless it was edited)."""
        event.stop()
        undone, self._undone_prompt = self._undone_prompt, None
        if undone is not None and self.composer.composer.text == undone:
            self.composer.clear_draft(undone)

    @on(ComposerPanel.PendingChanged)
    def _pending_changed(self, event: ComposerPanel.PendingChanged) -> None:
        event.stop()
        self._pending_action(event.session_id, event.inbox_id, event.delivery)

    @work(group="pending", exit_on_error=False)
    async def _pending_action(self, session_id: str, inbox_id: str, delivery: str | None) -> None:
        session = octui_app(self).session
        if not session.is_ready:
            return
        try:
            if delivery is None:
                await session.cancel_pending(session_id, inbox_id)
            else:
                await session.set_pending_delivery(session_id, inbox_id, delivery)
        except OctuiError as exc:
            toast(self, f"Could not change the pending prompt: {exc}", severity="warning")

    # ------------------------------------------------------------------ widgets' messages, to their owners
    @on(Composer.CompletionRequested)
    def _completion_requested(self, event: Composer.CompletionRequested) -> None:
        self.composer.complete(event)

    @on(Composer.AttachRequested)
    def _attach_pasted(self, event: Composer.AttachRequested) -> None:
        event.stop()
        self.composer.attach_pasted(event)

    @on(AttachmentChip.Remove)
    def _remove_chip(self, event: AttachmentChip.Remove) -> None:
        event.stop()
        self.composer.remove_attachment(event.key)

    @on(TextArea.Changed, "#composer")
    def _composer_changed(self, event: TextArea.Changed) -> None:
        self.composer.text_changed()

    @on(PendingInputs.Cancel)
    def _cancel_pending(self, event: PendingInputs.Cancel) -> None:
        self.composer.pending_action(event.inbox_id, None)

    @on(PendingInputs.ChangeDelivery)
    def _pending_delivery(self, event: PendingInputs.ChangeDelivery) -> None:
        self.composer.pending_action(event.inbox_id, event.delivery)

    @on(Transcript.Unseen)
    def _unseen(self, event: Transcript.Unseen) -> None:
        self.reading.unseen(event.count)

    @on(Button.Pressed, "#new-activity")
    def _follow(self, event: Button.Pressed) -> None:
        event.stop()
        self.reading.follow()

    @on(Transcript.LoadOlder)
    def _load_older(self, event: Transcript.LoadOlder) -> None:
        self.reading.load_older(self.session_id, event.everything)

    @on(MessageView.ActionRequested)
    def _message_action(self, event: MessageView.ActionRequested) -> None:
        event.stop()
        self.transcript_actions.message_action(event, self.state)

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

    # ------------------------------------------------------------------ stopping
    def action_interrupt(self) -> None:
        state = self.state
        if state is None:
            return
        store = octui_app(self).store
        if not any(_running(store, sid) for sid in [state.id, *tree_nav.descendants(store, state.id)]):
            return
        self._interrupt(state.id)

    @work(group="interrupt", exit_on_error=False)
    async def _interrupt(self, session_id: str) -> None:
        """Stop a session and every subagent below it (each rejects its pending asks first)."""
        app = octui_app(self)
        session = app.session
        if not session.is_ready:
            return
        store = app.store
        targets = [session_id, *tree_nav.descendants(store, session_id)]
        # Every one is stopped (a child about to start is not busy yet); the toast counts those
        # that were running or asking, not the finished subagents of earlier turns.
        running = sum(1 for sid in targets if _running(store, sid))
        try:
            for sid in reversed(targets):  # children first, so none outlives its parent
                await session.interrupt(sid)
            toast(self, "Interrupted." if running <= 1 else f"Interrupted {running} sessions.", timeout=2)
        except OctuiError as exc:
            toast(self, f"Interrupt failed: {exc}", severity="error")

    def take_typing(self, event: events.Key) -> KeyDecision:
        """A character typed while a message (or the transcript) has the focus: the app calls
        this before it forwards the key, so the keys are decided in their order.

        One that is a key of theirs (``y``, ``c``, ``u``, a tool row's ``d``, ``a``, Space) or of
        anything above is run by the app at once: looked up after it bubbled up, as Textual
        does, it would be looked up where the focus is by then, and a letter typed right after
        it (one terminal read) had moved the focus on. A letter is held a moment first
        (``tui/screens/message_keys.py``): followed at once by another character, it began a
        prompt. Any other character but a space moves the focus to the prompt, which is then
        handed it and all that follow (after a click on a message, typing went nowhere)."""
        held, self._held_key = self._held_key, None
        if held is not None:
            held.timer.stop()
        character = event.character if event.is_printable else None
        focused = self.focused
        transcript = self.query_one(Transcript)
        on_transcript = focused is not None and not isinstance(focused, TextArea) and (
            focused is transcript or transcript in focused.ancestors)
        if held is not None and character and not character.isspace() and character != held.character \
                and on_transcript:
            self.set_focus(self.composer.composer)  # typing: the held letter began a prompt,
            self.composer.insert(held.character)  # and this key follows it there
            return KeyDecision()
        run = (held.bound,) if held is not None else ()
        if not character or not on_transcript:
            return KeyDecision(run)  # (the prompt's own letters: this runs for every key)
        bound = self.active_bindings
        for key in (event.key, *event.aliases):
            if key in bound:
                if character.isalpha() and (held is None or held.character != character):
                    timer = self.set_timer(TYPING_WINDOW_S, self._run_held_key)
                    self._held_key = HeldKey(bound[key], character, timer)
                    return KeyDecision(run, consumed=True)
                return KeyDecision((*run, bound[key]), consumed=True)
        if not character.isspace():  # (Space on a message is no start of a prompt)
            self.set_focus(self.composer.composer)
        return KeyDecision(run)

    async def _run_held_key(self) -> None:
        """No character followed a message's letter: it was the message's key."""
        held, self._held_key = self._held_key, None
        # (not once a dialog covers the screen, or the message is gone: a session switched)
        if held is not None and held.bound.enabled and self.app.screen is self and \
                held.bound.node.is_attached:
            await self.app.run_action(held.bound.binding.action, held.bound.node)

    # ------------------------------------------------------------------ actions (keys, palette, /commands)
    def action_new_session(self) -> None:
        self.show_home()
        self.composer.focus_composer()

    def action_sessions(self) -> None:
        app = octui_app(self)
        if not app.session.is_ready:
            toast(self, "Not connected yet.", severity="warning")
            return

        def chosen(session_id: str | None) -> None:
            if session_id:
                self.open(session_id)

        browser = SessionsScreen(SessionPages(app), manager=app.actions, current=self.session_id)
        app.push_screen(browser, chosen)

    def action_inbox(self) -> None:
        self.flow.open_inbox(self.open)

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen, binding_rows, help_sections  # (tui/screens/__init__.py)

        self.app.push_screen(HelpScreen(binding_rows(help_sections(self), self.app)))

    def action_toggle_reasoning(self) -> None:
        self.reading.toggle_reasoning()

    def action_tab_in(self) -> None:
        """Tab: from the prompt, to the last message or tool row on screen (QA: it went to the
        first one of the session, and the view jumped to its top); elsewhere, the next in order,
        with the subagent tree, when shown, between the transcript and the prompt (QA: Tab never
        reached it: the prompt sent Tab back into the transcript)."""
        focused = self.focused
        tree = self.query_one(SubagentTree)
        if focused is not None and tree in focused.ancestors_with_self:
            self.composer.focus_composer()
            return
        if not isinstance(focused, Composer):
            chain = self.focus_chain
            after = chain[chain.index(focused) + 1] if focused in chain[:-1] else None
            if isinstance(after, Composer) and tree in chain:  # (shown, and with something in it)
                tree.focus()
            else:
                self.focus_next()
            return
        transcript = self.query_one(Transcript)
        view = transcript.content_region
        shown = [widget for widget in transcript.query("MessageView, ToolRow")
                 if widget.focusable and widget.region.overlaps(view)]
        if shown:
            shown[-1].focus(scroll_visible=False)
        else:
            self.focus_next()

    def action_tab_back(self) -> None:
        """Shift+Tab: Tab's order backwards. From the prompt to the subagent tree when it is
        shown, and from the tree to what Tab came to it from (QA: the tree and the prompt were
        each other's previous and next, so Shift+Tab from the prompt skipped the tree)."""
        focused = self.focused
        tree = self.query_one(SubagentTree)
        chain = self.focus_chain
        if isinstance(focused, Composer) and tree in chain:
            tree.focus()
        elif focused is not None and tree in focused.ancestors_with_self and self.composer.composer in chain:
            before = chain[chain.index(self.composer.composer) - 1]
            if before is tree:  # (nothing else to go to)
                self.composer.focus_composer()
            else:
                before.focus()
        else:
            self.focus_previous()

    def action_page_transcript(self, step: int) -> None:
        """PageUp/PageDown from the prompt: the transcript's pages, as with it focused."""
        transcript = self.query_one(Transcript)
        if step > 0:
            transcript.action_page_down()
        else:
            transcript.action_page_up()  # (at the top: the older page; nothing to page: the key goes on)

    def action_toggle_tree(self) -> None:
        self.subagents.toggle()
        self._refresh_tree()

    def action_go(self, where: str) -> None:
        target = self.subagents.target(self.session_id, where)
        if target:
            self.open(target)

    def action_cycle_mode(self) -> None:
        self.cycle_permission_mode()

    def cycle_permission_mode(self) -> None:
        """supervised → auto-accept edits → full access → supervised (the palette calls it too)."""
        self.modes.cycle(self.session_id)

    def set_permission_mode(self, mode: Mode) -> None:
        """Set the mode of the open session's tree (the palette calls it)."""
        self.modes.set_mode(self.session_id, mode)

    def action_pick_model(self) -> None:
        self.choice.pick_model()

    def action_pick_agent(self) -> None:
        self.choice.pick_agent()

    def current_agent(self) -> str | None:
        return self.choice.current_agent()

    def action_edit_in_editor(self) -> None:
        self.composer.edit_in_editor()

    def action_slash_commands(self) -> None:
        self.composer.slash_commands()

    def action_mention_file(self) -> None:
        self.composer.mention_file()

    def action_attach_file(self) -> None:
        self.composer.attach_file()

    def action_detach_all(self) -> None:
        self.composer.detach_all()

    def action_copy_text(self) -> None:
        """Copy the mouse selection (Textual's Ctrl+C) as the other copies do: OSC 52, the
        state dir's clipboard file and a toast (QA: it wrote only OSC 52, silently)."""
        selection = self.get_selected_text()
        if selection is None:
            raise SkipAction()
        octui_app(self).actions.copy(selection, "Selection")

    def action_copy_last_answer(self) -> None:
        self.transcript_actions.copy_last_answer(self.state)

    def action_copy_transcript(self) -> None:
        self.transcript_actions.copy_transcript(self.state)

    def action_copy_code(self) -> None:
        self.transcript_actions.copy_code(self.state)

    def action_export(self) -> None:
        self.transcript_actions.export(self.state)

    def action_compact(self) -> None:
        self.transcript_actions.compact(self.session_id)

    def action_undo(self, message_id: str | None = None) -> None:
        self.transcript_actions.undo(self.state, message_id)

    def action_redo(self) -> None:
        self.transcript_actions.redo(self.state)

    def action_revert_panel(self) -> None:
        self.transcript_actions.revert_panel(self.state)

