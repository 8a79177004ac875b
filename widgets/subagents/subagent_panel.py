"""``SubagentPanel``: the subagent tree, the breadcrumb, and moving between a tree's sessions."""

from __future__ import annotations

from textual.widget import Widget

from tui.app.host import octui_app
from tui.state import tree_nav
from tui.state.transcript import ToolCall
from tui.state.tree import build_tree
from widgets.subagents.breadcrumb import Breadcrumb
from widgets.subagents.subagent_tree import SubagentTree

__all__ = ["SubagentPanel"]

GO = {"parent": tree_nav.parent_of, "child": tree_nav.first_child,
      "next": tree_nav.next_sibling, "previous": tree_nav.previous_sibling}


class SubagentPanel(Widget):
    """Owns ``#tree`` and ``#breadcrumb`` (found on the screen by type); a non-visual helper.

    The widgets' own messages (``SubagentTree.OpenSession``/``StopSession``, ``Breadcrumb.Navigate``)
    go to the screen, which opens or stops sessions; this decides what they show and where the
    alt+arrow keys lead.
    """

    DEFAULT_CSS = "SubagentPanel { display: none; }"

    def __init__(self) -> None:
        super().__init__()
        self.forced: bool | None = None  # None: shown when the session has subagents

    def _may_have_children(self, root: str) -> bool:
        store = octui_app(self).store
        if store.children(root) or store.session(root).parent_id:
            return True
        return any(isinstance(part, ToolCall) and part.child_session_id
                   for message in store.session(root).messages.values() for part in message.parts)

    def show(self, session_id: str | None) -> dict[str, str]:
        """Show the tree and the breadcrumb of ``session_id``; returns ``{child id: status}``
        of its direct children (the transcript's subagent rows say the same)."""
        tree = self.screen.query_one(SubagentTree)
        crumbs = self.screen.query_one(Breadcrumb)
        if session_id is None:
            tree.display = False
            crumbs.display = False
            return {}
        store = octui_app(self).store
        root = store.root_of(session_id)
        states: dict[str, str] = {}
        if self.forced is None and not self._may_have_children(root):
            tree.display = False  # the common case: no subagents, no tree to build
        else:
            root = tree_nav.root_of(store, session_id)
            node = build_tree(store, root)
            show = bool(node.children) if self.forced is None else self.forced
            tree.display = show
            if show:
                tree.show_tree(node, session_id)
            here = node.find(session_id)
            states = {child.session_id: child.status for child in here.children} if here else {}
        path = tree_nav.breadcrumb(store, session_id)
        crumbs.display = len(path) > 1
        if len(path) > 1:
            crumbs.show_path(path)
        return states

    def toggle(self) -> None:
        """Ctrl+G: show or hide the tree whatever the session has (until toggled back)."""
        self.forced = not self.screen.query_one(SubagentTree).display

    def target(self, session_id: str | None, where: str) -> str | None:
        """The session ``where`` (parent, child, next, previous) of ``session_id`` leads to."""
        if session_id is None:
            return None
        return GO[where](octui_app(self).store, session_id) or None
