"""The scrolling transcript of one session, windowed so huge sessions stay light."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.containers import VerticalScroll
from textual.message import Message as TextualMessage
from textual.widgets import Button, Static

from tui.state.transcript import SessionState
from widgets.message_view import MessageView

WINDOW = 40  # messages mounted at once (~8 widgets each); older ones are paged in on request
PAGE = 40


class Transcript(VerticalScroll):
    """Mounts the newest ``WINDOW`` messages; follows the bottom only while the reader is there."""

    DEFAULT_CLASSES = "transcript"

    @dataclass
    class Unseen(TextualMessage):
        """Parts changed below the reader's scroll position (0: they caught up)."""

        count: int

    class LoadOlder(TextualMessage):
        """The reader asked for older messages than the window holds."""

    def __init__(self, *, reasoning_collapsed: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state: SessionState | None = None
        self.reasoning_collapsed = reasoning_collapsed
        self._views: dict[str, MessageView] = {}
        self._window_start = 0
        self._older = Button("↑ show older messages", classes="load-older", compact=True)
        self._empty = Static("", classes="transcript-empty")
        self._showing_empty = True
        self._unseen: set[tuple[str, str]] = set()

    def on_mount(self) -> None:
        self.anchor()

    def show(self, state: SessionState | None, empty_text: str = "") -> None:
        """Render a whole session (or the empty state)."""
        self.state = state
        self._views.clear()
        self.remove_children()
        self._showing_empty = state is None or not state.messages
        if state is None or not state.messages:
            self._empty = Static(empty_text, classes="transcript-empty")
            self.mount(self._empty)
            return
        self._older = Button("↑ show older messages", classes="load-older", compact=True)
        ids = list(state.messages)
        self._window_start = max(0, len(ids) - WINDOW)
        self.mount(self._older)
        self._older.display = self._window_start > 0
        views = [self._view(state, mid) for mid in ids[self._window_start:]]
        self.mount_all(views)
        self.anchor()

    def _view(self, state: SessionState, message_id: str) -> MessageView:
        # No DOM ids: a rebuild may mount a message again before the old view is gone.
        view = MessageView(state.messages[message_id], reasoning_collapsed=self.reasoning_collapsed)
        self._views[message_id] = view
        return view

    def message_changed(self, message_id: str) -> None:
        self._note_activity(message_id, "")
        state = self.state
        if state is None or message_id not in state.messages:
            view = self._views.pop(message_id, None)
            if view is not None:
                view.remove()
            return
        view = self._views.get(message_id)
        if view is not None:
            view.sync(state.messages[message_id])
            return
        if self._showing_empty:
            self.show(state)
            return
        ids = list(state.messages)
        position = ids.index(message_id)
        if position < self._window_start:
            return  # outside the window; shown when paged in
        new_view = self._view(state, message_id)
        later = next((self._views[m] for m in ids[position + 1:] if m in self._views), None)
        if later is not None:
            self.mount(new_view, before=later)
        else:
            self.mount(new_view)
        self._trim()

    def _note_activity(self, message_id: str, part_key: str) -> None:
        """Count what changed while the reader is scrolled up, instead of yanking them down."""
        if not self._anchor_released or self.scroll_y >= self.max_scroll_y:
            return
        before = len(self._unseen)
        self._unseen.add((message_id, part_key))
        if len(self._unseen) != before:
            self.post_message(self.Unseen(len(self._unseen)))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._unseen and new_value >= self.max_scroll_y:
            self._unseen.clear()
            self.post_message(self.Unseen(0))

    def jump_to_end(self) -> None:
        self.scroll_end(animate=False, immediate=True)
        self.anchor()
        if self._unseen:
            self._unseen.clear()
            self.post_message(self.Unseen(0))

    def part_changed(self, message_id: str, part_key: str) -> None:
        self._note_activity(message_id, part_key)
        if self.state is None:
            return
        view = self._views.get(message_id)
        message = self.state.messages.get(message_id)
        if view is None or message is None:
            return
        part = message.part(part_key)
        if part is None:
            return
        if part_key not in view._parts:
            view.sync(message)
        else:
            view.sync_part(part)

    def _trim(self) -> None:
        """Keep the mounted window bounded while the reader is following the bottom."""
        if self.state is None or len(self._views) <= WINDOW + PAGE or self._anchor_released:
            return
        ids = [m for m in self.state.messages if m in self._views]
        for mid in ids[: len(ids) - WINDOW]:
            self._views.pop(mid).remove()
        self._window_start = list(self.state.messages).index(ids[len(ids) - WINDOW])
        self._older.display = True

    @on(Button.Pressed, ".load-older")
    def _load_older(self, event: Button.Pressed) -> None:
        event.stop()
        self.page_older()

    def page_older(self) -> None:
        state = self.state
        if state is None or self._window_start == 0:
            return
        ids = list(state.messages)
        start = max(0, self._window_start - PAGE)
        views = [self._view(state, mid) for mid in ids[start:self._window_start]]
        first = next((self._views[m] for m in ids[self._window_start:] if m in self._views), None)
        self._window_start = start
        self._older.display = start > 0
        if views:
            self.mount_all(views, before=first) if first is not None else self.mount_all(views)
        self.release_anchor()

    def set_reasoning_collapsed(self, collapsed: bool) -> None:
        self.reasoning_collapsed = collapsed
        for view in self._views.values():
            view.set_reasoning_collapsed(collapsed)

    @property
    def mounted_messages(self) -> int:
        return len(self._views)
