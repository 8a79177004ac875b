"""Provides ``SubagentTree``: the live tree of a session and its subagents.

The screen builds a ``tui.state.tree.TreeNode`` with ``build_tree`` and hands it down with
``show_tree(node, current)``; the widget never reads the store or the network. Rows show a
status glyph and word, the elapsed time (from ``tui.app.clock``, so tests can freeze it), the agent,
tokens and the cost rolled up over descendants. Enter or a click posts ``OpenSession``; ``x``
posts ``StopSession`` (the app rejects the subtree's asks and interrupts each session).
"""

from __future__ import annotations

import math
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode as UINode

from tui.app import clock
from tui.state.tree import NodeStatus, TreeNode
from tui.text.tools import SUBAGENT_WORDS, format_duration
from widgets.plain import chars_in_cells, plain_rich

__all__ = ["STATUS_GLYPHS", "STATUS_WORDS", "SubagentTree", "format_cost", "format_tokens"]

TITLE_LIMIT = 200
"""Characters of a title a row draws (a row is one line; rendering a huge title every tick costs)."""
AGENT_LIMIT = 40

STATUS_GLYPHS: dict[NodeStatus, str] = {
    "running": "◐",
    "waiting": "⚑",
    "completed": "✓",
    "error": "✗",
    "cancelled": "⊘",
}
"""Static glyphs (no spinner: a still tree costs no CPU)."""

STATUS_WORDS: dict[NodeStatus, str] = SUBAGENT_WORDS  # type: ignore[assignment]
"""The same words as the transcript's subagent rows (``tui.text.tools.SUBAGENT_WORDS``)."""

_RowKey = tuple[object, ...]


def format_tokens(tokens: float) -> str:
    """``950`` -> ``950 tok``, ``4440`` -> ``4.4k tok``, ``2_300_000`` -> ``2.3M tok``."""
    if not math.isfinite(tokens):
        return "? tok"  # NaN or infinity from a broken server
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.1f}M tok"
    if tokens >= 1_000:
        return f"{tokens / 1_000:.1f}k tok"
    return f"{tokens:.0f} tok"


def format_cost(cost: float) -> str:
    """Dollars: four decimals below a cent, three below a dollar, then two."""
    if not math.isfinite(cost):
        return "$?"
    if cost < 0.01:
        return f"${cost:.4f}"
    return f"${cost:.3f}" if cost < 1 else f"${cost:.2f}"


class SubagentTree(Tree[TreeNode]):
    """A ``Tree`` of one session family; node data is the ``TreeNode`` it shows."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "stop", "Stop subagent", show=True),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "subagent-tree--running",
        "subagent-tree--waiting",
        "subagent-tree--completed",
        "subagent-tree--error",
        "subagent-tree--cancelled",
        "subagent-tree--detail",
        "subagent-tree--current",
        "subagent-tree--attention",
    }
    """Status colours, muted details, the current session and the 'a child waits' flag."""

    class OpenSession(Message):
        """The user chose a session in the tree (Enter or click)."""

        def __init__(self, tree: SubagentTree, session_id: str) -> None:
            self.tree = tree
            self.session_id = session_id
            """The session to open."""
            super().__init__()

        @property
        def control(self) -> SubagentTree:
            return self.tree

    class StopSession(Message):
        """The user asked to stop a session and everything below it (key ``x``)."""

        def __init__(self, tree: SubagentTree, session_id: str) -> None:
            self.tree = tree
            self.session_id = session_id
            """The session to stop, with its descendants."""
            super().__init__()

        @property
        def control(self) -> SubagentTree:
            return self.tree

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        # A Text, not a str: Tree reads a str label as markup, and that loads Rich's emoji table
        # (~0.8 MB) for an empty root label.
        super().__init__(Text(""), None, name=name, id=id, classes=classes, disabled=disabled)
        self.auto_expand = False  # Enter opens the session; space toggles
        self.guide_depth = 3
        self._collapsed: set[str] = set()
        """Sessions the user collapsed; everything else starts expanded."""
        self._shape: tuple[tuple[str, str | None], ...] = ()
        self._keys: dict[str, _RowKey] = {}
        self._rows: dict[str, UINode[TreeNode]] = {}
        self._current: str | None = None

    # ---------------------------------------------------------------- public API
    @property
    def current(self) -> str | None:
        """The session shown in the main view (highlighted here)."""
        return self._current

    def show_tree(self, node: TreeNode, current: str) -> None:
        """Show ``node`` and its descendants, marking ``current``.

        Only changed rows repaint when the shape is the same; a new or moved child rebuilds the
        tree, keeping what the user collapsed and where the cursor was.
        """
        moved = current != self._current
        self._current = current
        if moved:
            self._reveal(node, current)
        shape = tuple((n.session_id, p) for n, p in _with_parents(node))
        if shape != self._shape:
            self._rebuild(node, shape)
        else:
            self._update_rows(node)
        if moved or self.cursor_node is None:
            target = self._rows.get(current)
            if target is not None:
                _ = self.last_line  # lay out lines so the node knows its line
                self.move_cursor(target)

    def node_for(self, session_id: str) -> TreeNode | None:
        """The data shown for ``session_id``, if it is in the tree."""
        row = self._rows.get(session_id)
        return row.data if row is not None else None

    # ---------------------------------------------------------------- building
    def _rebuild(self, node: TreeNode, shape: tuple[tuple[str, str | None], ...]) -> None:
        cursor = self.cursor_node
        keep = cursor.data.session_id if cursor is not None and cursor.data is not None else None
        self.clear()
        self._rows = {node.session_id: self.root}
        self._keys = {node.session_id: self._row_key(node)}
        self.root.data = node
        self.root.set_label(_row_label(node))
        if node.session_id in self._collapsed:
            self.root.collapse()
        else:
            self.root.expand()
        self.root.allow_expand = bool(node.children)
        self._add_rows(self.root, node)
        self._shape = shape
        target = self._rows.get(keep) if keep is not None else None
        if target is not None:
            _ = self.last_line
            self.move_cursor(target)

    def _add_rows(self, parent: UINode[TreeNode], node: TreeNode) -> None:
        for child in node.children:
            row = parent.add(_row_label(child), child, expand=child.session_id not in self._collapsed,
                             allow_expand=bool(child.children))
            self._rows[child.session_id] = row
            self._keys[child.session_id] = self._row_key(child)
            self._add_rows(row, child)

    def _update_rows(self, node: TreeNode) -> None:
        for item in node.walk():
            row = self._rows.get(item.session_id)
            if row is None:
                continue
            row.data = item
            key = self._row_key(item)
            if key != self._keys.get(item.session_id):
                self._keys[item.session_id] = key
                row.set_label(_row_label(item))

    def _row_key(self, node: TreeNode) -> _RowKey:
        return (node.title, node.agent, node.status, node.started, node.ended, node.total_cost,
                node.total_tokens, node.pending_asks, node.attention, node.error,
                node.session_id == self._current)

    def _reveal(self, node: TreeNode, session_id: str) -> None:
        """Expand every ancestor of ``session_id`` so the current session is visible."""
        path: list[TreeNode] = []

        def search(item: TreeNode) -> bool:
            path.append(item)
            if item.session_id == session_id or any(search(c) for c in item.children):
                return True
            path.pop()
            return False

        if search(node):
            for ancestor in path[:-1]:
                self._collapsed.discard(ancestor.session_id)
                row = self._rows.get(ancestor.session_id)
                if row is not None and not row.is_expanded:
                    row.expand()
        for row_id in (self._current, session_id):
            row = self._rows.get(row_id or "")
            if row is not None:
                row.refresh()

    # ---------------------------------------------------------------- rendering
    def render_label(self, node: UINode[TreeNode], base_style: Style, style: Style) -> Text:
        data = node.data
        detail = style + self.get_component_rich_style("subagent-tree--detail", partial=True)
        if data is None:
            return Text("No session", style=detail)
        status_style = style + self.get_component_rich_style(f"subagent-tree--{data.status}",
                                                             partial=True)
        title_style = style
        if data.session_id == self._current:
            title_style += self.get_component_rich_style("subagent-tree--current", partial=True)
        prefix = Text("", style=base_style)
        if node.allow_expand:
            prefix = plain_rich(self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE, base_style)
        flag = ""
        if data.attention and not data.pending_asks:
            flag = STATUS_GLYPHS["waiting"]  # a descendant waits for the user
        elapsed_ms = data.elapsed_ms(clock.now_ms())
        elapsed = format_duration(elapsed_ms) if elapsed_ms is not None else ""
        rolled = "Σ " if data.children else ""
        tokens = rolled + format_tokens(data.total_tokens) if data.total_tokens else ""
        cost = format_cost(data.total_cost) if data.total_cost else ""
        if cost and not tokens:
            cost = rolled + cost
        word = STATUS_WORDS[data.status]
        title = plain_rich(data.title[:TITLE_LIMIT], title_style)  # a huge title costs no more
        agent = (data.agent or "")[:AGENT_LIMIT]
        # Narrow panels drop details in this order rather than scroll sideways.
        variants = [
            (word, agent, tokens, cost),
            (word, agent, "", cost),
            (word, "", "", cost),
            (word, "", "", ""),
            ("", "", "", ""),
        ]
        width = self.scrollable_content_region.width - data.depth * self.guide_depth
        text = Text()
        for status_word, agent, token_text, cost_text in variants:
            status = " ".join(p for p in (status_word, elapsed) if p)
            extras = " · ".join(p for p in (agent, token_text, cost_text) if p)
            # Gaps stand alone (in the row's base style), never lead a styled segment: a
            # renderer that trims leading blanks would otherwise run title and status together.
            text = Text.assemble(
                prefix,
                plain_rich(STATUS_GLYPHS[data.status] + " ", status_style),
                title,
                plain_rich(" " if flag else "", style),
                plain_rich(flag, style + self.get_component_rich_style("subagent-tree--attention",
                                                                       partial=True)),
                plain_rich("  " if status else "", style),
                plain_rich(status, status_style),
                plain_rich(" " if extras else "", style),
                plain_rich("· " + extras if extras else "", detail),
            )
            if width <= 0 or text.cell_len <= width:
                return text
        excess = text.cell_len - width
        room = title.cell_len - excess - 1  # cells: a CJK character or an emoji takes two
        if room >= 4:  # shorten the title, keep the glyph and elapsed time
            start = len(prefix) + 2
            keep = chars_in_cells(title.plain, room)
            text = text[:start + keep] + Text("…", style=title_style) + text[start + len(title):]
        return text

    def _tick(self) -> None:
        """Repaint rows whose elapsed time moves (running and waiting sessions)."""
        for row in self._rows.values():
            if row.data is not None and not row.data.finished:
                row.refresh()

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)

    # ---------------------------------------------------------------- events
    @on(Tree.NodeCollapsed)
    def _remember_collapsed(self, event: Tree.NodeCollapsed[TreeNode]) -> None:
        if event.node.data is not None:
            self._collapsed.add(event.node.data.session_id)

    @on(Tree.NodeExpanded)
    def _remember_expanded(self, event: Tree.NodeExpanded[TreeNode]) -> None:
        if event.node.data is not None:
            self._collapsed.discard(event.node.data.session_id)

    @on(Tree.NodeSelected)
    def _open(self, event: Tree.NodeSelected[TreeNode]) -> None:
        event.stop()
        if event.node.data is not None:
            self.post_message(self.OpenSession(self, event.node.data.session_id))

    def action_stop(self) -> None:
        """Ask the app to stop the session under the cursor and its subtree."""
        node = self.cursor_node
        if node is not None and node.data is not None:
            self.post_message(self.StopSession(self, node.data.session_id))


def _row_label(node: TreeNode) -> Text:
    """A row's label as the Tree keeps it (it measures and copies it; ``render_label`` draws the
    row): the title's start, as drawn. A megabyte title made three megabyte labels a rebuild."""
    return plain_rich(node.title[:TITLE_LIMIT])


def _with_parents(node: TreeNode) -> list[tuple[TreeNode, str | None]]:
    """Pre-order ``(node, parent id)`` pairs: the tree's shape, for change detection."""
    out: list[tuple[TreeNode, str | None]] = []
    stack: list[tuple[TreeNode, str | None]] = [(node, None)]
    while stack:
        item, parent = stack.pop()
        out.append((item, parent))
        stack.extend((c, item.session_id) for c in reversed(item.children))
    return out
