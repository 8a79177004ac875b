"""``TranscriptActions``: copy, export, compact, undo/redo and the revert panel for the session on view.

The work itself lives in ``tui/app/session_actions.py`` (``app.actions``); this picks the target,
starts a worker and shows the revert panel.
"""

from __future__ import annotations

from typing import Any

from textual import work
from textual.message import Message
from textual.widget import Widget

from tui.app.host import octui_app
from tui.app.session_actions import revert_files, undo_target
from tui.state.transcript import SessionState
from widgets.plain import toast
from widgets.transcript.message_view import MessageView

__all__ = ["TranscriptActions"]


class TranscriptActions(Widget):
    """A non-visual helper. Posts ``PromptUndone`` after an undo: the undone prompt may come back
    to the composer for editing (like OpenCode), unless the server keeps that prompt (1.18). Posts
    ``PromptRedone`` after a redo: the prompt is in the session again."""

    DEFAULT_CSS = "TranscriptActions { display: none; }"

    class PromptUndone(Message):
        def __init__(self, prompt: str) -> None:
            super().__init__()
            self.prompt = prompt

    class PromptRedone(Message):
        pass

    def copy_last_answer(self, state: SessionState | None) -> None:
        octui_app(self).actions.copy_last_answer(state)

    def copy_transcript(self, state: SessionState | None) -> None:
        octui_app(self).actions.copy_transcript(state)

    def copy_code(self, state: SessionState | None) -> None:
        octui_app(self).actions.copy_code_block(state)

    def export(self, state: SessionState | None) -> None:
        octui_app(self).actions.export(state)

    def compact(self, session_id: str | None) -> None:
        if session_id is None:
            toast(self, "No session open to compact.", severity="warning")
            return
        self._session_action("compact", session_id)

    def undo(self, state: SessionState | None, message_id: str | None = None) -> None:
        target = state.messages.get(message_id) if state and message_id else (
            undo_target(state) if state else None)
        if state is None or target is None:
            toast(self, "Nothing to undo.", severity="warning")
            return
        self._undo(state.id, target.id, target.text)

    def redo(self, state: SessionState | None) -> None:
        if state is None or state.info is None or state.info.revert is None:
            toast(self, "Nothing to redo.", severity="warning")
            return
        self._session_action("redo", state.id)

    def revert_panel(self, state: SessionState | None) -> None:
        revert = state.info.revert if state and state.info else None
        if state is None or revert is None:
            toast(self, "No undo is staged (f4 undoes the last prompt).", severity="warning")
            return
        prompt = state.messages[revert.messageID].text if revert.messageID in state.messages else ""
        self._revert_panel(state.id, prompt, revert)

    def message_action(self, event: MessageView.ActionRequested, state: SessionState | None) -> None:
        """A message's own buttons: copy it, copy its code, undo from it."""
        actions = octui_app(self).actions
        if event.action == "copy":
            actions.copy_message(event.message)
        elif event.action == "copy_code":
            actions.copy_message_code(event.message)
        elif event.action == "undo":
            self.undo(state, event.message.id)

    @work(group="session-action", exit_on_error=False)
    async def _session_action(self, what: str, session_id: str) -> None:
        actions = octui_app(self).actions
        if what == "compact":
            await actions.compact(session_id)
        elif what == "redo":
            await self._redo(session_id)
        elif what == "commit":
            await actions.revert_commit(session_id)

    @work(exclusive=True, group="undo", exit_on_error=False)
    async def _undo(self, session_id: str, message_id: str, prompt: str) -> None:
        revert = await octui_app(self).actions.revert_stage(session_id, message_id)
        if revert is not None:
            if not revert.keepBoundary:  # 1.18 keeps the prompt in the session: not in the box too
                self.post_message(self.PromptUndone(prompt))
            await self._revert_panel_wait(session_id, prompt, revert)

    @work(exclusive=True, group="undo", exit_on_error=False)
    async def _revert_panel(self, session_id: str, prompt: str, revert: Any) -> None:
        await self._revert_panel_wait(session_id, prompt, revert)

    async def _revert_panel_wait(self, session_id: str, prompt: str, revert: Any) -> None:
        app = octui_app(self)
        state = app.store.sessions.get(session_id)
        hidden = sum(1 for m in state.messages.values() if m.reverted) if state else 0
        from tui.screens.revert import RevertScreen  # on first use (tui/screens/__init__.py)

        choice = await app.push_screen_wait(RevertScreen(
            prompt, revert_files(revert), reverted_messages=hidden, files_known=revert.files is not None))
        if choice == "clear":
            await self._redo(session_id)
        elif choice == "commit":
            await app.actions.revert_commit(session_id)

    async def _redo(self, session_id: str) -> None:
        if await octui_app(self).actions.revert_clear(session_id):
            self.post_message(self.PromptRedone())
