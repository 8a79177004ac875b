"""Paging the transcript's window: older and newer pages, Home and End.

The base of ``Transcript`` (``widgets/transcript/transcript.py``), which holds the window (the mounted
views in order, whether it reaches the newest message) and rebuilds it; this half moves it.
"""

from __future__ import annotations

from textual import on
from textual.await_remove import AwaitRemove
from textual.containers import VerticalScroll
from textual.widget import AwaitMount
from textual.widgets import Button

from tui.state.transcript import SessionState
from widgets._textual_compat import OneLayoutPass
from widgets.transcript.message_view import MessageView
from widgets.transcript.transcript_window import MOUNTED_MAX, PAGE, WINDOW, WindowPlan


class TranscriptPaging(OneLayoutPass, VerticalScroll):
    """Older / newer pages of a windowed transcript, Home and End.

    ``OneLayoutPass``: the transcript grows with every line an answer streams, and each growth
    would otherwise ask for a second layout of the whole screen.
    """

    state: SessionState | None
    _views: dict[str, MessageView]  # mounted, in transcript order
    _tail: bool  # the window reaches the newest message
    _waiting: str | None  # "page" / "top": older history asked of the server
    _newer: Button

    def _view(self, message_id: str) -> MessageView:
        raise NotImplementedError

    def _mount_window(self, ids: list[str], plan: WindowPlan) -> AwaitMount:
        raise NotImplementedError

    def _mount_newest(self, ids: list[str]) -> None:
        raise NotImplementedError

    def _update_buttons(self) -> None:
        raise NotImplementedError

    def _set_unseen(self, unseen: set[tuple[str, str]]) -> None:
        raise NotImplementedError

    def _ask_older(self, why: str) -> None:
        raise NotImplementedError

    @on(Button.Pressed, ".load-older")
    def _load_older(self, event: Button.Pressed) -> None:
        event.stop()
        self.page_older()

    @on(Button.Pressed, ".load-newer")
    def _load_newer(self, event: Button.Pressed) -> None:
        event.stop()
        self.page_newer()

    def page_older(self) -> None:
        """Mount ``PAGE`` older messages above the window (asking the server when the store has none)."""
        state = self.state
        if state is None or not self._views:
            return
        ids = list(state.messages)
        first = ids.index(next(iter(self._views)))
        if first == 0:
            if state.older:
                self._ask_older("page")
            return
        start = max(0, first - PAGE)
        views = [self._view(mid) for mid in ids[start:first]]
        self.mount_all(views, before=self._views[ids[first]])
        self._views = {**{v.message.id: v for v in views}, **self._views}
        self.release_anchor()
        if len(self._views) > MOUNTED_MAX:
            for mid in list(self._views)[MOUNTED_MAX:]:
                self._views.pop(mid).remove()
            self._tail = False
        self._update_buttons()

    def page_newer(self) -> AwaitRemove | None:
        """Mount ``PAGE`` newer messages below the window; the oldest go beyond ``MOUNTED_MAX``."""
        state = self.state
        if state is None or not self._views or self._tail:
            return None
        ids = list(state.messages)
        last = ids.index(next(reversed(self._views)))
        end = min(len(ids), last + 1 + PAGE)
        views = [self._view(mid) for mid in ids[last + 1:end]]
        self.mount_all(views, before=self._newer)
        self._views.update({v.message.id: v for v in views})
        self._tail = end >= len(ids)
        removed: AwaitRemove | None = None
        if len(self._views) > MOUNTED_MAX:
            dropped = [self._views.pop(m) for m in list(self._views)[: len(self._views) - MOUNTED_MAX]]
            shift = sum(v.virtual_region_with_margin.height for v in dropped)
            removed = self.remove_children(dropped)
            self.scroll_to(y=max(0, self.scroll_y - shift), animate=False, immediate=True)
        self._update_buttons()
        return removed

    def action_scroll_home(self) -> None:
        """Home: the session's very first message (its older history is fetched first)."""
        state = self.state
        if state is None or not self._views:
            self.scroll_home(animate=False, immediate=True)
            return
        self.release_anchor()
        if state.older:
            self._ask_older("top")
            self.scroll_home(animate=False, immediate=True)  # the "loading older…" line shows
            return
        self._go_top()

    def _go_top(self) -> None:
        state = self.state
        if state is None or not state.messages:
            return
        if next(iter(state.messages)) not in self._views:
            ids = list(state.messages)
            self._mount_window(ids, WindowPlan(0, min(len(ids), WINDOW)))
        self.release_anchor()
        self.scroll_home(animate=False, immediate=True)

    def action_scroll_end(self) -> None:
        self.jump_to_end()

    def jump_to_end(self) -> None:
        """End / the "new below" chip: back to the newest message, following again."""
        if not self._tail and self.state is not None:
            self._mount_newest(list(self.state.messages))
        self._waiting = None
        self.scroll_end(animate=False, immediate=True)
        self.anchor()
        self._set_unseen(set())
