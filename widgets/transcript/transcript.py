"""The scrolling transcript of one session, windowed so huge sessions stay light.

Only a contiguous window of messages is mounted: the newest ``WINDOW`` when a session is shown
(about what two screens hold; ``FIRST`` of them before the first paint, the rest right after),
more as the reader pages up ("show older") or down ("show newer",
``widgets/transcript/transcript_paging.py``),
never more than ``MOUNTED_MAX``. Home goes to the session's
first message (older history the store lacks is asked for first, with a visible "loading
older…" state), End back to the newest. ``position()`` and ``show(…, position)`` keep the
reader's place when they switch sessions and come back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from textual.actions import SkipAction
from textual.content import Content
from textual.message import Message as TextualMessage
from textual.widget import AwaitMount
from textual.widgets import Button, Static

from tui.state.transcript import SessionState, ToolCall
from widgets._textual_compat import OwnVerticalScrollBar, anchor_released
from widgets.plain import plain
from widgets.tools.tool_row import ToolRow
from widgets.transcript.message_view import MessageView
from widgets.transcript.thumb_scroll_bar import ThumbScrollBar
from widgets.transcript.transcript_paging import TranscriptPaging
from widgets.transcript.transcript_window import (
    FIRST,
    MOUNTED_MAX,
    PAGE,
    WINDOW,
    TranscriptPosition,
    WindowPlan,
    newest_window,
    plan_window,
)

OLDER = "↑ show older messages"
LOADING = "↑ loading older messages…"
FAILED = "↑ older messages could not be loaded — press to retry"
NEWER = "↓ show newer messages"


class Transcript(OwnVerticalScrollBar, TranscriptPaging):
    """A window of a session's messages; follows the bottom only while the reader is there."""

    DEFAULT_CLASSES = "transcript"
    VERTICAL_SCROLLBAR = ThumbScrollBar  # a streaming answer does not repaint it for every new line
    DEFAULT_CSS = "Transcript > .load-newer { width: 100%; margin: 0 0 1 0; }"

    @dataclass
    class Unseen(TextualMessage):
        """Messages that came or changed below the reader's scroll position (0: they caught up)."""

        count: int

    @dataclass
    class LoadOlder(TextualMessage):
        """The reader wants older messages than the store holds (``everything``: Home)."""

        everything: bool = False

    def __init__(self, *, reasoning_collapsed: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state: SessionState | None = None
        self.reasoning_collapsed = reasoning_collapsed
        self._views: dict[str, MessageView] = {}  # mounted, in transcript order
        self._tail = True  # the window reaches the newest message: new ones are mounted
        self._waiting: str | None = None  # "page" / "top": older history asked of the server
        self._restoring = False  # a saved scroll position is being put back
        self._shown = 0  # bumped by every rebuild: a late restore or growth of an earlier one is ignored
        self._older = Button(OLDER, classes="load-older", compact=True)
        self._newer = Button(NEWER, classes="load-newer", compact=True)
        self._showing_empty = True
        self._unseen: set[tuple[str, str]] = set()
        self.child_states: dict[str, str] = {}
        """Subagent child id -> its real status (``tui.state.tree``), shared with every row."""
        self.asking_calls: set[str] = set()
        """Tool calls a permission ask waits on the user for, shared with every row."""

    def on_mount(self) -> None:
        self.anchor()

    def set_child_states(self, states: dict[str, str]) -> None:
        """The subagents' real states (from the tree): rows of the children that moved repaint."""
        moved = {sid for sid in states.keys() | self.child_states.keys()
                 if states.get(sid) != self.child_states.get(sid)}
        if moved:
            self.child_states.clear()
            self.child_states.update(states)  # in place: every row holds this same mapping
            self._repaint_rows(lambda call: call.child_session_id in moved)

    def set_asking_calls(self, calls: set[str]) -> None:
        """The tool calls permission asks wait on: their rows repaint."""
        moved = calls ^ self.asking_calls
        if moved:
            self.asking_calls.clear()
            self.asking_calls.update(calls)  # in place: every row holds this same set
            self._repaint_rows(lambda call: call.id in moved)

    def _repaint_rows(self, moved: Callable[[ToolCall], bool]) -> None:
        for row in self.query(ToolRow):
            if moved(row.call):
                row.child_changed()

    # ------------------------------------------------------------------ showing
    def show(self, state: SessionState | None, empty_text: str | Content = "",
             position: TranscriptPosition | None = None) -> None:
        """Render a session (or the empty state): the newest messages, or back at ``position``."""
        self.state = state
        self._waiting = None
        self._restoring = False
        self._shown += 1
        self._set_unseen(set())
        if state is None or not state.messages:
            self._views.clear()
            self.remove_children()
            self._showing_empty = True
            self.mount(Static(plain(empty_text), classes="transcript-empty"))
            self.anchor()
            return
        ids = list(state.messages)
        plan = plan_window(ids, position, WINDOW, MOUNTED_MAX)
        if plan.anchor is None:
            self._mount_newest(ids)
            self.anchor()
            return
        mounted = self._mount_window(ids, plan)
        self.anchor()
        self.release_anchor()
        self._restoring = True
        self.run_worker(self._restore(mounted, plan, self._shown), group="transcript-restore",
                        exclusive=True, exit_on_error=False)

    def _mount_newest(self, ids: list[str]) -> None:
        """The newest ``WINDOW`` messages: ``FIRST`` now, the older rest once they are painted."""
        plan = newest_window(len(ids), WINDOW)
        first = WindowPlan(max(plan.start, plan.end - FIRST), plan.end)
        mounted = self._mount_window(ids, first)
        if first.start > plan.start:
            self.run_worker(self._grow(mounted, self._shown, first.start - plan.start),
                            group="transcript-grow", exclusive=True, exit_on_error=False)

    async def _grow(self, mounted: AwaitMount, shown: int, count: int) -> None:
        await mounted
        painted = asyncio.Event()
        self.call_after_refresh(painted.set)
        await painted.wait()
        state = self.state
        if shown != self._shown or state is None or anchor_released(self) or not self._views:
            return  # rebuilt meanwhile, or the reader scrolled: "show older" does the rest
        first = next(iter(self._views))
        if first not in state.messages:
            return
        ids = list(state.messages)
        end = ids.index(first)
        views = [self._view(mid) for mid in ids[max(0, end - count):end]]
        if views:
            self.mount_all(views, before=self._views[first])
            self._views = {**{v.message.id: v for v in views}, **self._views}
            self._update_buttons()

    def _mount_window(self, ids: list[str], plan: WindowPlan) -> AwaitMount:
        assert self.state is not None
        self._shown += 1
        self._showing_empty = False
        self._views.clear()
        self.remove_children()
        self._older = Button(OLDER, classes="load-older", compact=True)
        self._newer = Button(NEWER, classes="load-newer", compact=True)
        views = [self._view(mid) for mid in ids[plan.start:plan.end]]
        self._views = {view.message.id: view for view in views}
        self._tail = plan.end >= len(ids)
        self._update_buttons()
        return self.mount_all([self._older, *views, self._newer])

    async def _restore(self, mounted: AwaitMount, plan: WindowPlan, shown: int) -> None:
        await mounted  # then one refresh lays the new views out, so their offsets are known
        self.call_after_refresh(self._scroll_to_anchor, plan, shown)

    def _scroll_to_anchor(self, plan: WindowPlan, shown: int) -> None:
        if shown != self._shown:
            return  # another session (or the same one afresh) was shown meanwhile
        view = self._views.get(plan.anchor or "")
        if view is not None:
            self.scroll_to(y=view.virtual_region.y + plan.offset, animate=False, immediate=True)
        self._restoring = False
        self._set_unseen({(mid, "") for mid in plan.unseen})

    def position(self) -> TranscriptPosition:
        """Where the reader is now, to come back to with ``show(state, position=…)``."""
        state = self.state
        if state is None or not self._views or not state.messages:
            return TranscriptPosition()
        newest = next(reversed(state.messages))
        if self._tail and (not anchor_released(self) or self.scroll_y >= self.max_scroll_y):
            return TranscriptPosition(following=True, newest=newest)
        top = round(self.scroll_y)
        anchor, offset = next(iter(self._views)), 0
        for mid, view in self._views.items():
            region = view.virtual_region
            if region.bottom > top:
                anchor, offset = mid, top - region.y
                break
        ids = list(self._views)
        return TranscriptPosition(following=False, first=ids[0], last=None if self._tail else ids[-1],
                                  anchor=anchor, offset=offset, newest=newest)

    def _view(self, message_id: str) -> MessageView:
        # No DOM ids: a rebuild may mount a message again before the old view is gone.
        assert self.state is not None
        return MessageView(self.state.messages[message_id], reasoning_collapsed=self.reasoning_collapsed,
                           child_states=self.child_states, asking_calls=self.asking_calls)

    def _update_buttons(self) -> None:
        state = self.state
        first = next(iter(self._views), None)
        older = state is not None and first is not None and (
            state.older or next(iter(state.messages), first) != first)
        self._older.display = older
        if self._waiting:
            self._older.label = LOADING
        elif str(self._older.label) == LOADING:
            self._older.label = OLDER
        self._newer.display = not self._tail

    # ------------------------------------------------------------------ store changes
    def history_changed(self, detail: str | None = None) -> None:
        """The store's transcript was replaced or merged (a reload) or older pages came in."""
        state = self.state
        if state is None:
            return
        if self._showing_empty or not self._views:
            if state.messages:
                self.show(state)
            return
        for mid in [m for m in self._views if m not in state.messages]:
            self._views.pop(mid).remove()
        for mid, view in self._views.items():
            if view.message is not state.messages[mid]:
                view.sync(state.messages[mid])
        if not self._views:
            self.show(state)
            return
        self._fill_window()
        if detail == "older-failed" and self._waiting:
            self._waiting = None
            self._older.label = FAILED
        self._update_buttons()
        if self._waiting == "page" and (next(iter(state.messages)) not in self._views or not state.older):
            self._waiting = None
            self.page_older()
        elif self._waiting == "top" and not state.older:
            self._waiting = None
            self._go_top()

    def _fill_window(self) -> None:
        """Mount what belongs in the window but is not mounted (new messages, merged ones)."""
        assert self.state is not None
        ids = list(self.state.messages)
        index = {mid: i for i, mid in enumerate(ids)}
        mounted = [index[m] for m in self._views if m in index]
        if not mounted:
            self.show(self.state)
            return
        start = min(mounted)
        end = len(ids) if self._tail else max(mounted) + 1
        if end - start > MOUNTED_MAX:
            if self._tail and not anchor_released(self):
                self._mount_newest(ids)  # a flood while following
                return
            end = max(start + MOUNTED_MAX, max(mounted) + 1)  # reading back: the rest waits below
            self._tail = end >= len(ids)
            self._update_buttons()
        missing = [mid for mid in ids[start:end] if mid not in self._views]
        if not missing:
            return
        for mid in missing:
            at = index[mid]
            later = next((self._views[m] for m in ids[at + 1:end] if m in self._views), None)
            view = self._view(mid)
            self.mount(view, before=later or self._newer)
            self._views[mid] = view
        self._views = {m: self._views[m] for m in ids[start:end] if m in self._views}
        self._trim()

    def message_changed(self, message_id: str) -> None:
        self._note_activity(message_id, "")
        state = self.state
        view = self._views.get(message_id)
        if state is None or message_id not in state.messages:
            if view is not None:
                self._views.pop(message_id).remove()
                if not self._views and state is not None:
                    self.show(state)
            return
        if view is not None:
            view.sync(state.messages[message_id])
        elif self._showing_empty or not self._views:
            self.show(state)
        else:
            self._fill_window()

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
        if not view.has_part(part_key):
            view.sync(message)
        else:
            view.sync_part(part)

    def _trim(self) -> None:
        """Keep the mounted window bounded while the reader is following the bottom."""
        if len(self._views) <= WINDOW + PAGE or anchor_released(self) or not self._tail:
            return
        for mid in list(self._views)[: len(self._views) - WINDOW]:
            self._views.pop(mid).remove()
        self._update_buttons()

    # ------------------------------------------------------------------ new activity chip
    def _note_activity(self, message_id: str, part_key: str) -> None:
        """Count what changed while the reader is scrolled up, instead of yanking them down."""
        at_bottom = self._tail and (not anchor_released(self) or self.scroll_y >= self.max_scroll_y)
        if at_bottom and not self._restoring:
            return
        self._set_unseen(self._unseen | {(message_id, part_key)})

    def _set_unseen(self, unseen: set[tuple[str, str]]) -> None:
        if unseen != self._unseen:
            # Messages, not parts: an answer's reasoning, text and each tool call are one message
            # (a chip that counted parts said "3 new" for one answer), as on coming back to it.
            count = len({message_id for message_id, _ in unseen})
            if count != len({message_id for message_id, _ in self._unseen}):
                self.post_message(self.Unseen(count))
            self._unseen = unseen

    def action_page_down(self) -> None:
        """PgDn; one that reaches the bottom follows the stream again. Textual's own releases the
        anchor first, and at the bottom, where the scroll then changes nothing, it stays released:
        paging down to the end left the reader no longer following."""
        if not self.allow_vertical_scroll:
            raise SkipAction()  # (as Textual's own: the key goes on)
        if self._tail and self.scroll_y + self.scrollable_content_region.height >= self.max_scroll_y:
            self.jump_to_end()
        else:
            self.scroll_page_down()

    def action_page_up(self) -> None:
        """PgUp; at the top of the messages mounted, the page of older ones comes in (from the
        server when the store has none), as "show older" brings it: PgUp stopped there (QA)."""
        if self.scroll_y <= 0 and self.state is not None and self._views:
            top = next(iter(self._views.values()))
            self.page_older()
            if next(iter(self._views.values())) is not top:  # mounted above: a screen up, no more
                self.call_after_refresh(self._just_above, top)
        elif self.allow_vertical_scroll:
            self.scroll_page_up()
        else:
            raise SkipAction()  # (as Textual's own: the key goes on)

    def _just_above(self, view: MessageView) -> None:
        """Show the screen of text just above ``view`` (it had been at the top of the view)."""
        top = view.virtual_region_with_margin.y
        self.scroll_to(y=max(0, top - self.scrollable_content_region.height), animate=False, immediate=True)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._unseen and self._tail and not self._restoring and new_value >= self.max_scroll_y:
            self._set_unseen(set())

    def _ask_older(self, why: str) -> None:
        self._waiting = why
        self._update_buttons()
        self.post_message(self.LoadOlder(everything=why == "top"))

    def set_reasoning_collapsed(self, collapsed: bool) -> None:
        self.reasoning_collapsed = collapsed
        for view in self._views.values():
            view.set_reasoning_collapsed(collapsed)

    def rendering_behind(self) -> bool:
        """Whether the newest message's text shows placeholders about to be rendered."""
        if not self._views or not self._tail:
            return False
        view = next(reversed(self._views.values()))
        return view.rendering_behind

    @property
    def mounted_messages(self) -> int:
        return len(self._views)

    @property
    def waiting_for_older(self) -> bool:
        """A page of older history was asked for and has not arrived yet."""
        return self._waiting is not None


__all__ = ["MOUNTED_MAX", "PAGE", "WINDOW", "Transcript", "TranscriptPosition"]
