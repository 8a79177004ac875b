"""The main screen's session actions: copy, export, compact, undo/redo/revert panel.

The work itself lives in ``tui/screens/session_actions.py``; these pick the target and start a worker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.screen import Screen

if TYPE_CHECKING:
    from tui.app.app import OctuiApp
    from tui.state.transcript import SessionState

from tui.screens.session_actions import undo_target
from widgets.composer.composer import Composer
from widgets.plain import toast
from widgets.transcript.message_view import MessageView


class SessionActionKeys(Screen[None]):
    """Mixed into ``MainScreen``; expects ``session_id``, ``state`` and ``octui``."""

    session_id: str | None

    if TYPE_CHECKING:
        @property
        def octui(self) -> OctuiApp: ...

        @property
        def state(self) -> SessionState | None: ...

    def action_copy_last_answer(self) -> None:
        self.octui.actions.copy_last_answer(self.state)

    def action_copy_transcript(self) -> None:
        self.octui.actions.copy_transcript(self.state)

    def action_copy_code(self) -> None:
        self.octui.actions.copy_code_block(self.state)

    def action_export(self) -> None:
        self.octui.actions.export(self.state)

    def action_compact(self) -> None:
        if self.session_id is None:
            toast(self, "No session open to compact.", severity="warning")
            return
        self._session_action("compact", self.session_id)

    def action_undo(self, message_id: str | None = None) -> None:
        state = self.state
        target = state.messages.get(message_id) if state and message_id else (
            undo_target(state) if state else None)
        if state is None or target is None:
            toast(self, "Nothing to undo.", severity="warning")
            return
        self._undo(state.id, target.id, target.text)

    def action_redo(self) -> None:
        state = self.state
        if state is None or state.info is None or state.info.revert is None:
            toast(self, "Nothing to redo.", severity="warning")
            return
        self._session_action("redo", state.id)

    def action_revert_panel(self) -> None:
        state = self.state
        revert = state.info.revert if state and state.info else None
        if state is None or revert is None:
            toast(self, "No undo is staged (f4 undoes the last prompt).", severity="warning")
            return
        prompt = state.messages[revert.messageID].text if revert.messageID in state.messages else ""
        self._revert_panel(state.id, prompt, revert)

    @work(group="session-action", exit_on_error=False)
    async def _session_action(self, what: str, session_id: str) -> None:
        actions = self.octui.actions
        if what == "compact":
            await actions.compact(session_id)
        elif what == "redo":
            await actions.revert_clear(session_id)
        elif what == "commit":
            await actions.revert_commit(session_id)

    @work(exclusive=True, group="undo", exit_on_error=False)
    async def _undo(self, session_id: str, message_id: str, prompt: str) -> None:
        revert = await self.octui.actions.revert_stage(session_id, message_id)
        if revert is not None:
            composer = self.query_one(Composer)
            if not composer.text.strip():
                composer.text = prompt  # like OpenCode: the undone prompt comes back for editing
            await self._revert_panel_wait(session_id, prompt, revert)

    @work(exclusive=True, group="undo", exit_on_error=False)
    async def _revert_panel(self, session_id: str, prompt: str, revert: Any) -> None:
        await self._revert_panel_wait(session_id, prompt, revert)

    async def _revert_panel_wait(self, session_id: str, prompt: str, revert: Any) -> None:
        from tui.screens.revert import RevertScreen
        from tui.screens.session_actions import revert_files

        state = self.octui.store.sessions.get(session_id)
        hidden = sum(1 for m in state.messages.values() if m.reverted) if state else 0
        choice = await self.app.push_screen_wait(RevertScreen(
            prompt, revert_files(revert), reverted_messages=hidden, files_known=revert.files is not None))
        if choice == "clear":
            await self.octui.actions.revert_clear(session_id)
        elif choice == "commit":
            await self.octui.actions.revert_commit(session_id)

    @on(MessageView.ActionRequested)
    def _message_action(self, event: MessageView.ActionRequested) -> None:
        event.stop()
        if event.action == "copy":
            self.octui.actions.copy_message(event.message)
        elif event.action == "copy_code":
            self.octui.actions.copy_message_code(event.message)
        elif event.action == "undo":
            self.action_undo(event.message.id)

