"""A subagent's title in wide characters (CJK, emoji) is shortened by the cells it takes."""

from __future__ import annotations

from textual.app import App, ComposeResult

from tui.app import clock
from tui.state.tree import TreeNode
from widgets.subagents.subagent_tree import SubagentTree

WIDTH = 40


class TreeApp(App[None]):
    def compose(self) -> ComposeResult:
        yield SubagentTree()


async def test_a_wide_title_keeps_as_much_as_fits() -> None:
    started = clock.now_ms()
    child = TreeNode(session_id="ses_1", title="漢字" * 30, agent="explore", status="running",
                     started=started, depth=1)
    root = TreeNode(session_id="ses_root", title="root", status="running", started=started, children=[child])
    app = TreeApp()
    async with app.run_test(size=(WIDTH, 10)) as pilot:
        tree = app.query_one(SubagentTree)
        tree.show_tree(root, "ses_1")
        await pilot.pause()
        strips = tree.render_lines(tree.region.reset_offset)
        rows = ["".join(segment.text for segment in strip) for strip in strips]
        row = next(line for line in rows if "漢" in line)
        kept = row.count("漢") + row.count("字")
        assert "…" in row and row.rstrip().endswith("s"), row  # the elapsed time stays
        # Counted as characters, the title was cut by twice what it had to lose: about a third of
        # the room it had was left.
        room = tree.scrollable_content_region.width - len("└─ ◐ ") - len("…  0.0s")
        assert kept * 2 >= room - 8, (row, kept, room)
