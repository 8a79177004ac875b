"""The main screen's subagent tree: the panel, the breadcrumb, and moving between sessions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.screen import Screen

from tui.state import tree_nav
from tui.state.transcript import ToolCall
from tui.state.tree import build_tree
from widgets.subagents.breadcrumb import Breadcrumb
from widgets.subagents.subagent_tree import SubagentTree
from widgets.tools.tool_row import ToolRow
from widgets.transcript.transcript import Transcript

if TYPE_CHECKING:
    from tui.app.app import OctuiApp


class SubagentNavigation(Screen[None]):
    """Mixed into ``MainScreen``; expects ``session_id``, ``octui``, ``open`` and ``_interrupt``."""

    session_id: str | None
    tree_forced: bool | None = None  # None: shown when the session has subagents

    if TYPE_CHECKING:
        @property
        def octui(self) -> OctuiApp: ...

        def open(self, session_id: str) -> None: ...

        def _interrupt(self, session_id: str) -> object: ...

    def _may_have_children(self, root: str) -> bool:
        store = self.octui.store
        if store.children(root) or store.session(root).parent_id:
            return True
        return any(isinstance(part, ToolCall) and part.child_session_id
                   for message in store.session(root).messages.values() for part in message.parts)

    def _refresh_tree(self) -> None:
        tree = self.query_one(SubagentTree)
        crumbs = self.query_one(Breadcrumb)
        sid = self.session_id
        if sid is None:
            tree.display = False
            crumbs.display = False
            return
        store = self.octui.store
        root = store.root_of(sid)
        states: dict[str, str] = {}
        if self.tree_forced is None and not self._may_have_children(root):
            tree.display = False  # the common case: no subagents, no tree to build
        else:
            root = tree_nav.root_of(store, sid)
            node = build_tree(store, root)
            show = bool(node.children) if self.tree_forced is None else self.tree_forced
            tree.display = show
            if show:
                tree.show_tree(node, sid)
            here = node.find(sid)
            states = {child.session_id: child.status for child in here.children} if here else {}
        # The transcript's subagent rows say what the tree says about each child.
        self.query_one(Transcript).set_child_states(states)
        path = tree_nav.breadcrumb(store, sid)
        crumbs.display = len(path) > 1
        if len(path) > 1:
            crumbs.show_path(path)

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

