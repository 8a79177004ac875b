"""Routing asks to dialogs and answers back to the server, without ever losing one.

An ask for the session on screen (or one of its subagents) opens its dialog at once; an ask
anywhere else rings the bell and raises the inbox badge instead of covering the user's work.
Esc on a dialog leaves the ask pending in the inbox; a question or form reopens from there as it
was left. An ask answered by another client, or whose tool call ended first, closes its dialog
with a note.
"""

from __future__ import annotations

import asyncio
import contextlib
from time import perf_counter
from typing import TYPE_CHECKING, Any

from textual import work
from textual.widget import Widget

from tui.app.host import octui_app
from tui.protocol.models import PermissionRequest
from tui.screens import key_guard
from tui.screens.key_guard import PAUSE_CHECK_S, hold_keys, typing_pause_left
from tui.session.errors import OctuiError
from tui.state.asks import (
    CurrentFile,
    FormAnswer,
    FormDismissed,
    PermissionAnswer,
    QuestionAnswer,
    QuestionDismissed,
    answer_for,
    permission_preview,
    written_file,
)
from tui.state.changes import AsksChanged
from tui.state.store import ASK_CALL_ENDED
from tui.state.transcript import Ask
from tui.text.sanitize import one_line
from widgets.plain import toast

if TYPE_CHECKING:
    from tui.screens.inbox import InboxChoice
    from tui.screens.permission import PermissionScreen


class AskFlow(Widget):
    """An invisible helper widget on the main screen that owns the dialog workers."""

    DEFAULT_CSS = "AskFlow { display: none; }"

    def __init__(self) -> None:
        super().__init__()
        self.open_ask: str | None = None
        self._screen: Any = None
        self.dismissed: set[str] = set()  # Esc'd by the user: wait in the inbox, don't re-open
        self.answered: set[str] = set()  # reply sent; its *.replied event may not have arrived yet
        # What was picked, typed or filled in a question or form dialog closed unanswered (later,
        # or an answer the server did not take), by ask id: it reopens as it was left.
        self._drafts: dict[str, Any] = {}
        self._waiting: dict[str, float] = {}  # asks waiting for a pause in typing, since when
        self._told: set[str] = set()  # ... and were said to wait
        self._pause_timer: Any = None

    def apply(self, changes: list[AsksChanged], current: str | None) -> None:
        """One frame's ask changes, ``current`` the session on view."""
        for change in changes:
            if change.how == "asked":
                self.asked(change.ask_id, current)
            elif change.ask_id:
                self.settled(change.ask_id, change.how)
            else:
                self.drop_stale()
                self.show_next(current)

    def in_view(self, session_id: str, current: str | None) -> bool:
        """The session on screen, or any session below it in the subagent tree."""
        if current is None:
            return False
        store = octui_app(self).store
        seen: set[str] = set()
        sid: str | None = session_id
        while sid and sid not in seen:
            if sid == current:
                return True
            seen.add(sid)
            state = store.sessions.get(sid)
            sid = state.parent_id if state else None
        return False

    def asked(self, ask_id: str | None, current: str | None) -> None:
        store = octui_app(self).store
        ask = store.asks.get(ask_id or "")
        if ask is None or self.auto_answered(ask.id):
            return
        if self.in_view(ask.sessionID, current):
            self.show_next(current)
        else:
            title = store.sessions[ask.sessionID].title if ask.sessionID in store.sessions else "a session"
            self.app.bell()
            toast(self, f"⚑ {one_line(title, 40)} is waiting for you — Ctrl+B opens the inbox",
                        severity="warning", timeout=6)

    def settled(self, ask_id: str | None, how: str | None) -> None:
        self._drafts.pop(ask_id or "", None)
        self.dismissed.discard(ask_id or "")
        self.answered.discard(ask_id or "")
        if ask_id and ask_id == self.open_ask and self._screen is not None:
            screen, self._screen, self.open_ask = self._screen, None, None
            # One toast, the dialog's (this said it again beside it). A question dialog took no
            # argument here, and another client's answer crashed the app.
            screen.close_answered_elsewhere(f"no longer asked: {how}" if how == ASK_CALL_ENDED
                                            else f"answered elsewhere ({how or 'answered'})")

    def auto_answered(self, ask_id: str) -> bool:
        """The session's permission mode answers this ask itself (``tui.session.auto_approve``): no dialog."""
        session = octui_app(self).session
        return session.is_ready and session.auto_answered(ask_id)

    def drop_stale(self) -> None:
        """After a resync: a dialog whose ask the server no longer has was answered elsewhere."""
        if self.open_ask is not None and self.open_ask not in octui_app(self).store.asks:
            self.settled(self.open_ask, "no longer pending")

    def show_next(self, current: str | None) -> None:
        """Open the oldest pending ask in view, if no dialog is open: once typing pauses
        (``tui.screens.key_guard``)."""
        if self.open_ask is not None:
            return
        for ask in octui_app(self).store.asks.values():
            if ask.id not in self.dismissed and ask.id not in self.answered and \
                    not self.auto_answered(ask.id) and self.in_view(ask.sessionID, current):
                wait = typing_pause_left(octui_app(self).typed_at, perf_counter())
                if wait > 0:
                    self._wait_for_pause(ask, wait)
                    return
                self.open(ask, by_itself=True)
                return

    def _wait_for_pause(self, ask: Ask, wait: float) -> None:
        # Said once the wait outlasts a pause (typing on): the usual wait, after the Enter that
        # sent the prompt, is below a second and needs no words.
        since = self._waiting.setdefault(ask.id, perf_counter())
        if perf_counter() - since > 2 * key_guard.TYPING_PAUSE_S and ask.id not in self._told:
            self._told.add(ask.id)
            toast(self, "⚑ A request is waiting for you: it opens when you pause typing "
                  "(Ctrl+B opens it now).", severity="warning", timeout=4)
        if self._pause_timer is None:  # (looked at again at least every PAUSE_CHECK_S)
            self._pause_timer = self.set_timer(min(wait, PAUSE_CHECK_S) + 0.05, self._paused)

    @property
    def waiting_for_pause(self) -> bool:
        """An ask in view waits for typing to pause before its dialog opens."""
        return self._pause_timer is not None

    def _paused(self) -> None:
        self._pause_timer = None
        main = octui_app(self).main_or_none() if self.is_attached else None
        if main is not None:  # (None: the app is closing)
            self.show_next(main.session_id)  # (typing again: waits again)

    def open(self, ask: Ask, *, by_itself: bool = False) -> None:
        if self.open_ask is not None:
            return
        store = octui_app(self).store
        state = store.sessions.get(ask.sessionID)
        title = state.title if state else ask.sessionID
        subagent = None
        if state is not None and state.parent_id:
            subagent = one_line(title, 40)
        from tui.screens.ask_router import draft_of, screen_for_ask  # on first use (tui/screens/__init__.py)
        from tui.screens.permission import PermissionScreen

        caps = octui_app(self).session.caps
        screen = screen_for_ask(ask, octui_app(self).store.tool_for_ask(ask), title, subagent,
                                draft=self._drafts.pop(ask.id, None),
                                reject_message=caps.reject_message if caps is not None else True)
        self.open_ask, self._screen = ask.id, screen

        def done(result: Any) -> None:
            if self.open_ask != ask.id:
                return  # closed by ``settled``: answered elsewhere, nothing to send
            self.open_ask, self._screen = None, None
            # Reopened as it was left: after "later", and after an answer the server did not take
            # (the ask stays in the inbox). Dropped when the ask settles.
            self._drafts[ask.id] = draft_of(screen)
            if isinstance(screen, PermissionScreen) and isinstance(result, PermissionAnswer) \
                    and screen.preview.replaced:
                # Answered with the write's diff on screen: its row keeps that diff once the
                # server confirms (not a diff read for a dialog left for later, review).
                store.show_write(ask.id, screen.preview.replaced)
            self._answer(ask, result)

        self.app.push_screen(screen, done)
        self._waiting.pop(ask.id, None)
        self._told.discard(ask.id)
        if by_itself:
            hold_keys(screen, perf_counter())
        if isinstance(ask, PermissionRequest) and isinstance(screen, PermissionScreen):
            written = written_file(ask, screen.tool)
            if written is not None:
                self._show_current(screen, ask.sessionID, written[0])

    @work(group="current-file", exit_on_error=False)
    async def _show_current(self, screen: PermissionScreen, session_id: str, path: str) -> None:
        """A write with no diff from the server: its dialog shows what the file holds now (or
        why not: never "reading…" for ever). The diff is made off the event loop: a long file
        takes difflib a while, and keys and the screen must not wait for it."""
        session = octui_app(self).session
        if not session.is_ready:
            current = CurrentFile(None, note="octui is not connected to the server")
        else:
            try:
                current = await session.current_file(session_id, path)
            except (OctuiError, ValueError) as exc:
                current = CurrentFile(None, note=f"the read failed ({exc})")
        preview = await asyncio.to_thread(permission_preview, screen.ask, screen.tool, current)
        if screen.is_attached:
            screen.show_preview(preview)

    @work(group="answers", exit_on_error=False)
    async def _answer(self, ask: Ask, result: Any) -> None:
        session = octui_app(self).session
        if result is None:
            self.dismissed.add(ask.id)
            toast(self, "Left in the inbox (Ctrl+B).", timeout=3)
            return
        if not session.is_ready:
            return
        sid = ask.sessionID
        result = answer_for(ask, result)
        try:
            if isinstance(result, PermissionAnswer):
                await session.reply_permission(sid, ask.id, result.reply, result.message)
            elif isinstance(result, QuestionAnswer):
                await session.reply_question(sid, ask.id, result.answers)
            elif isinstance(result, QuestionDismissed) and not result.elsewhere:
                await session.reject_question(sid, ask.id)
            elif isinstance(result, FormAnswer):
                await session.reply_form(sid, ask.id, result.answer)
            elif isinstance(result, FormDismissed) and not result.elsewhere:
                await session.cancel_form(sid, ask.id)
        except OctuiError as exc:
            toast(self, f"Answer not sent: {exc}. The request is still in the inbox.", severity="error")
            self.dismissed.add(ask.id)
            return
        if ask.id in octui_app(self).store.asks:  # the stream has not confirmed it yet
            self.answered.add(ask.id)
        main = octui_app(self).main_or_none()
        if main is not None:  # (None: the app is closing)
            self.show_next(main.session_id)

    def open_inbox(self, on_jump: Any) -> None:
        self._open_inbox(on_jump)

    async def _session_titles(self, session_ids: set[str]) -> dict[str, str]:
        """Titles of the asks' sessions; those the store has not loaded (an ask from a session
        never opened here) are asked of the server, so the inbox never heads a group with an id."""
        app = octui_app(self)
        store = app.store
        titles = {sid: store.sessions[sid].title for sid in session_ids
                  if sid in store.sessions and store.sessions[sid].title}
        if not app.session.is_ready:
            return titles
        for sid in sorted(session_ids - titles.keys()):
            with contextlib.suppress(OctuiError):
                titles[sid] = (await app.session.session_info(sid)).title or ""
        return titles

    @work(exclusive=True, group="inbox", exit_on_error=False)
    async def _open_inbox(self, on_jump: Any) -> None:
        app = octui_app(self)
        store = app.store
        asks = [ask for ask in store.asks.values() if not self.auto_answered(ask.id)]
        titles = await self._session_titles({ask.sessionID for ask in asks})
        rows = [(ask, titles.get(ask.sessionID) or ask.sessionID, app.store.tool_for_ask(ask))
                for ask in asks if ask.id in store.asks]  # one may have been settled meanwhile
        history = [a.text for a in app.session.auto_answers()] if app.session.is_ready else []
        if not rows and not history:
            toast(self, "Nothing is waiting for you.", timeout=3)
            return

        def chosen(choice: InboxChoice | None) -> None:
            if choice is None:
                return
            ask = store.asks.get(choice.ask_id)
            if choice.action == "jump" or ask is None:
                on_jump(choice.session_id)
            else:
                self.dismissed.discard(ask.id)
                self.open(ask)

        from tui.screens.inbox import InboxScreen  # on first use (tui/screens/__init__.py)

        self.app.push_screen(InboxScreen(rows, history=history), chosen)
