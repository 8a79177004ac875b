"""Subagent tree and breadcrumb: SVG snapshots plus functional checks of keys, clicks and updates."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from rich.style import Style

from tests.snapshots.tree_app import NOW, Family, TreeApp, finished, mid_run, with_failures
from tui.app import clock
from tui.state import tree_nav
from widgets.subagents.breadcrumb import Breadcrumb
from widgets.subagents.subagent_tree import SubagentTree, format_cost, format_tokens

SIZE = (100, 12)
SnapCompare = Callable[..., bool]


@pytest.fixture(autouse=True)
def frozen_clock() -> Iterator[None]:
    clock.freeze(NOW)
    yield
    clock.freeze(None)


class TestSnapshots:
    def test_mid_run(self, snap_compare: SnapCompare) -> None:
        # root busy; map done (with grandchild), test running, changelog in background, clean waits
        assert snap_compare(TreeApp(mid_run(), "ses_root"), terminal_size=SIZE)

    def test_finished(self, snap_compare: SnapCompare) -> None:
        assert snap_compare(TreeApp(finished(), "ses_root"), terminal_size=SIZE)

    def test_failed_and_cancelled_child(self, snap_compare: SnapCompare) -> None:
        assert snap_compare(TreeApp(with_failures(), "ses_test"), terminal_size=SIZE)

    def test_breadcrumb_in_grandchild(self, snap_compare: SnapCompare) -> None:
        # current = the grandchild: the breadcrumb links root and child, the tree marks it
        assert snap_compare(TreeApp(finished(), "ses_readme"), terminal_size=SIZE)

    def test_breadcrumb_folds_when_narrow(self, snap_compare: SnapCompare) -> None:
        assert snap_compare(TreeApp(finished(), "ses_readme"), terminal_size=(44, 8))


async def test_enter_opens_and_x_stops() -> None:
    app = TreeApp(mid_run(), "ses_root")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("down", "enter")  # cursor starts on the current session (root)
        await pilot.press("down", "down", "x")
        await pilot.pause()
        assert app.opened == ["ses_map"]
        assert app.stopped == ["ses_test"]


async def test_click_opens() -> None:
    app = TreeApp(mid_run(), "ses_root")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.click(SubagentTree, offset=(12, 2))  # third line (0-based 2): the grandchild
        await pilot.pause()
        assert app.opened == ["ses_readme"]


async def test_breadcrumb_click_navigates() -> None:
    app = TreeApp(finished(), "ses_readme")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        crumb = app.query_one(Breadcrumb)
        assert [sid for sid, _ in crumb.path] == ["ses_root", "ses_map", "ses_readme"]
        await pilot.click(Breadcrumb, offset=(3, 0))  # inside "Refactor the auth middleware"
        await pilot.pause()
        assert app.navigated == ["ses_root"]
        # the current segment is not a link
        await pilot.click(Breadcrumb, offset=(crumb.content_region.width - 2, 0))
        await pilot.pause()
        assert app.navigated == ["ses_root"]


async def test_update_keeps_collapsed_nodes_and_cursor() -> None:
    family = mid_run()
    app = TreeApp(family, "ses_root")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        widget = app.query_one(SubagentTree)
        await pilot.press("down", "space")  # collapse "Map the repository"
        await pilot.press("down")  # cursor on "Run the flaky test"
        await pilot.pause()
        assert widget.cursor_node is not None and widget.cursor_node.data is not None
        assert widget.cursor_node.data.session_id == "ses_test"
        # a new child appears (shape change -> rebuild) and a status changes
        family.at(90).spawn("ses_root", "a1", "c5", "ses_new", agent="explore", title="Late child")
        family.end_step("ses_test", "ses_test_a")
        family.succeed("ses_root", "a1", "c2", "ses_test")
        app.refresh_views()
        await pilot.pause()
        row = widget.cursor_node
        assert row is not None and row.data is not None and row.data.session_id == "ses_test"
        assert row.data.status == "completed"
        lines = [line.node.data.session_id for line in widget._tree_lines if line.node.data]
        assert "ses_readme" not in lines  # still collapsed
        assert lines[-1] == "ses_new"


async def test_moving_current_reveals_collapsed_ancestors() -> None:
    family = finished()
    app = TreeApp(family, "ses_root")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        widget = app.query_one(SubagentTree)
        await pilot.press("down", "space")  # collapse "Map the repository"
        await pilot.pause()
        app.current = "ses_readme"
        app.refresh_views()
        await pilot.pause()
        assert widget.current == "ses_readme"
        assert widget.cursor_node is not None and widget.cursor_node.data is not None
        assert widget.cursor_node.data.session_id == "ses_readme"


async def test_elapsed_time_ticks_while_running() -> None:
    app = TreeApp(mid_run(), "ses_root")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        widget = app.query_one(SubagentTree)
        node = widget.node_for("ses_test")
        assert node is not None
        assert "1m13s" in widget.render_label(widget._rows["ses_test"], *_styles()).plain
        clock.freeze(NOW + 60)
        widget._tick()
        assert "2m13s" in widget.render_label(widget._rows["ses_test"], *_styles()).plain
        # finished rows keep their total
        assert "15s" in widget.render_label(widget._rows["ses_map"], *_styles()).plain


def _styles() -> tuple[Style, Style]:
    return Style(), Style()


def test_label_parts() -> None:
    assert format_tokens(950) == "950 tok"
    assert format_tokens(4_440) == "4.4k tok"
    assert format_tokens(2_300_000) == "2.3M tok"
    assert format_cost(0.0036) == "$0.0036"
    assert format_cost(1.5) == "$1.50"


async def test_show_tree_before_any_store() -> None:
    family = Family()
    family.session("ses_solo", "Alone")
    app = TreeApp(family, "ses_solo")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        widget = app.query_one(SubagentTree)
        assert widget.root.data is not None and widget.root.data.session_id == "ses_solo"
        assert tree_nav.descendants(family.store, "ses_solo") == []
        await pilot.press("enter")
        await pilot.pause()
        assert app.opened == ["ses_solo"]
