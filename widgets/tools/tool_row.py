"""Provides ToolRow: one tool call in the transcript, a header plus a collapsible body."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.events import Click
from textual.message import Message
from textual.reactive import var

from tui.state.transcript import ToolCall
from tui.text.tools import default_expanded, exit_code, kind_of
from widgets.tools.diff_view import DiffView
from widgets.tools.renderers import BodyOptions
from widgets.tools.terminal_output import TerminalOutput
from widgets.tools.tool_body import ToolBody
from widgets.tools.tool_header import ToolHeader

__all__ = ["ToolRow"]

_STATUS_CLASSES = ("-streaming", "-running", "-completed", "-error")


class ToolRow(Vertical, can_focus=True):
    """One tool call, keyed by (message id, call id) and updated in place.

    Collapsed or expanded by the per-kind policy (``tui.text.tools.default_expanded``) until the
    user toggles it; after that the user's choice sticks.
    """

    # A click expands or collapses it and leaves the focus where typing goes: focused by a click,
    # its one-letter keys took the first letter typed next ("do it again" lost its "d", QA).
    # Tab reaches it (marked as focused); then its keys act.
    FOCUS_ON_CLICK = False

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "activate", "Open", show=False, id="octui.activate"),
        Binding("space", "toggle_row", "Expand", show=False, id="octui.toggle_row"),
        Binding("d", "toggle_split", "Split/unified diff", show=False, id="octui.toggle_split"),
        Binding("a", "show_all", "All output", show=False, id="octui.show_all"),
    ]

    expanded: var[bool] = var(False, toggle_class="-expanded")
    """Whether the body is shown."""

    class Toggled(Message):
        """The user expanded or collapsed the row."""

        def __init__(self, row: ToolRow, expanded: bool) -> None:
            super().__init__()
            self.row = row
            self.expanded = expanded

        @property
        def control(self) -> ToolRow:
            return self.row

    class OpenChild(Message):
        """The user asked to open the child session of a subagent call."""

        def __init__(self, row: ToolRow, session_id: str) -> None:
            super().__init__()
            self.row = row
            self.session_id = session_id

        @property
        def control(self) -> ToolRow:
            return self.row

    def __init__(
        self,
        call: ToolCall,
        *,
        expanded: bool | None = None,
        policy: Mapping[str, bool] | None = None,
        child_states: Mapping[str, str] | None = None,
        asking_calls: AbstractSet[str] | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self.call = call
        self._version = call.version
        self._policy = policy
        self._child_states: Mapping[str, str] = child_states if child_states is not None else {}
        self._asking_calls: AbstractSet[str] = asking_calls if asking_calls is not None else set()
        self._user_expanded = expanded
        self._show_all = False
        self._split: bool | None = None
        self._ready = False
        self.set_reactive(ToolRow.expanded, self._wanted_expanded())
        # Not mounted yet: its styles are worked out once, as it mounts (each class change that
        # updates them now, or in ``on_mount``, restyles the row and all of its parts again).
        # ``set_reactive`` does not apply ``toggle_class``: the class is set here.
        self.set_class(self.expanded, "-expanded", update=False)
        self.add_class(f"-kind-{kind_of(call.name)}", update=False)
        self._sync_status(update=False)

    def compose(self) -> ComposeResult:
        yield ToolHeader(self.call, child_status=self.child_status, asking=self.asking)
        yield ToolBody()

    @property
    def child_status(self) -> str | None:
        """The real status of a subagent call's child session, when the tree knows it."""
        child = self.call.child_session_id
        return self._child_states.get(child) if child else None

    @property
    def asking(self) -> bool:
        """A permission for this call waits on the user (the dialog, or the inbox after Esc)."""
        return self.call.id in self._asking_calls

    def child_changed(self) -> None:
        """The child session's state, or an ask for the call, moved (the call itself may not
        have): repaint."""
        if self._ready:
            self.query_one(ToolHeader).show(self.call, child_status=self.child_status, asking=self.asking)
            if self.expanded:
                self._repaint_body()

    def on_mount(self) -> None:
        self._ready = True
        header = self.query_one(ToolHeader)
        header.show(self.call, child_status=self.child_status, asking=self.asking)  # (moved since compose?)
        header.set_expanded(self.expanded)
        self._repaint_body()

    # -- updates ------------------------------------------------------------------------------

    def update_call(self, call: ToolCall) -> bool:
        """Show ``call``; repaints only when its ``version`` moved. Returns whether it did."""
        if call.version == self._version and call is self.call:
            return False
        self.call = call
        self._version = call.version
        self._sync_status()
        if self._ready:
            self.query_one(ToolHeader).show(call, child_status=self.child_status, asking=self.asking)
        wanted = self._wanted_expanded()
        if wanted != self.expanded:
            self.expanded = wanted  # the watcher repaints the body
        elif self.expanded:
            self._repaint_body()
        return True

    def _wanted_expanded(self) -> bool:
        if self._user_expanded is not None:
            return self._user_expanded
        return default_expanded(self.call, self._policy)

    def _sync_status(self, update: bool = True) -> None:
        before = self.classes  # (a frozenset: the changes below make a new one)
        self.remove_class(*_STATUS_CLASSES, update=False)
        self.add_class(f"-{self.call.status}", update=False)
        failed = kind_of(self.call.name) == "shell" and exit_code(self.call) not in (0, None)
        self.set_class(failed, "-failed-exit", update=False)
        if update and self.classes != before:  # one restyle for the lot, none if nothing moved
            self.update_node_styles()

    def _options(self) -> BodyOptions:
        return BodyOptions(show_all=self._show_all, split=self._split, child_status=self.child_status)

    def _repaint_body(self) -> None:
        if self._ready:
            self.query_one(ToolBody).show(self.call if self.expanded else None, self._options())

    def watch_expanded(self, expanded: bool) -> None:
        if self._ready:
            self.query_one(ToolHeader).set_expanded(expanded)
            self._repaint_body()

    # -- user actions -------------------------------------------------------------------------

    def action_toggle_row(self) -> None:
        self._user_expanded = not self.expanded
        self.expanded = self._user_expanded
        self.post_message(self.Toggled(self, self.expanded))

    def action_activate(self) -> None:
        """Enter: open a linked child session, otherwise expand/collapse."""
        child = self.call.child_session_id if kind_of(self.call.name) == "subagent" else None
        if child:
            self.post_message(self.OpenChild(self, child))
        else:
            self.action_toggle_row()

    def action_toggle_split(self) -> None:
        views = list(self.query(DiffView))
        if not views:
            return
        self._split = not views[0].is_split()
        for view in views:
            view.split = self._split

    def action_show_all(self) -> None:
        if self.query(TerminalOutput):
            self._show_all = not self._show_all
            self._repaint_body()

    @on(TerminalOutput.ShowAll)
    def _show_all_clicked(self, event: TerminalOutput.ShowAll) -> None:
        event.stop()
        self._show_all = True
        self._repaint_body()

    def on_click(self, event: Click) -> None:
        widget = event.widget
        header = self.query_one(ToolHeader)
        if widget is not None and (widget is header or header in widget.ancestors):
            event.stop()
            self.action_toggle_row()
