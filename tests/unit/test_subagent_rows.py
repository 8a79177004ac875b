"""Subagent rows in the transcript say what the tree says about each child, and no field runs into
the next. The demo's subagents script has every case: a child done, one failed (its call keeps a
stale ``progress.status`` "running"), one in the background (its call completed long before the
child, ``metadata.status`` "running") and one waiting on a permission."""

from __future__ import annotations

import re
from typing import Any

import pytest
from textual.strip import Strip

from tests.snapshots.main_app import MainApp, frozen, settle, type_prompt, wait_connected
from tui.protocol.models import StructuredError
from tui.state.transcript import ToolCall
from tui.text.tools import subagent_status
from widgets.subagents.subagent_tree import STATUS_WORDS, SubagentTree
from widgets.tools.tool_header import ToolHeader
from widgets.tools.tool_row import ToolRow

LEADING_BLANK = re.compile(r"^ +\S")


def leading_blank_segments(strips: list[Strip]) -> list[str]:
    """Segments whose text starts with blanks and then text: a renderer that trims a segment's
    leading blanks (as rsvg does with snapshot SVGs) would run it into its neighbour."""
    return [seg.text for strip in strips for seg in strip if LEADING_BLANK.match(seg.text)]


async def run_subagents(pilot: Any) -> None:
    await wait_connected(pilot)
    await type_prompt(pilot, "Run the subagents please.")
    await settle(pilot)
    await pilot.press("escape")  # leave the child's permission in the inbox
    await settle(pilot)


async def test_rows_follow_each_childs_real_state() -> None:
    with frozen():
        app = MainApp()
        async with app.run_test(size=(160, 50)) as pilot:
            await run_subagents(pilot)
            screen = app.screen_main()
            tree = screen.query_one(SubagentTree)
            rows = [r for r in screen.query(ToolRow) if r.call.child_session_id]
            assert len(rows) == 4
            seen = set()
            stale = 0
            for row in rows:
                node = tree.node_for(row.call.child_session_id or "")
                assert node is not None
                seen.add(node.status)
                summary = row.query_one(ToolHeader).parts.summary.plain
                assert summary.startswith(f"{STATUS_WORDS[node.status]} → "), (summary, node.status)
                own = row.call.metadata.get("status") or row.call.progress.get("status")
                stale += own == "running" and node.status != "running"
            assert seen == {"completed", "error", "waiting"}  # the background child is done too
            assert stale >= 2  # the failed and the background child: their calls still say running


async def test_tree_and_row_bodies_keep_their_gaps() -> None:
    with frozen():
        app = MainApp()
        async with app.run_test(size=(160, 50)) as pilot:
            await run_subagents(pilot)
            screen = app.screen_main()
            tree = screen.query_one(SubagentTree)
            lines = [tree.render_line(y) for y in range(5)]
            assert "Map the repository  done" in lines[1].text
            assert leading_blank_segments(lines) == []
            failed = next(r for r in screen.query(ToolRow) if "flaky" in str(r.call.input))
            if not failed.expanded:
                failed.focus()
                await pilot.press("space")  # expand it
                await settle(pilot)
            body = failed.query_one(".-subagent")
            strip = body.render_line(0)
            assert strip.text.strip().startswith("agent general · failed · child ses_")
            assert strip.text.rstrip().endswith("· Enter opens it")
            assert leading_blank_segments([strip]) == []


def call(status: str, **kwargs: Any) -> ToolCall:
    return ToolCall(id="c", name="subagent", status=status, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(("tool_call", "word"), [
    (call("error", progress={"status": "running"}, error=StructuredError(message="HTTP 429")), "failed"),
    (call("error", progress={"status": "running"},
          error=StructuredError(message="Tool execution interrupted")), "cancelled"),
    (call("completed", metadata={"status": "running"}), "running in background"),
    (call("completed", metadata={"status": "completed"}), "done"),
    (call("completed", metadata={"status": "failed"}), "failed"),
    (call("running", progress={"status": "running"}), "running"),
    (call("running"), "running"),
])
def test_status_from_the_call_alone(tool_call: ToolCall, word: str) -> None:
    assert subagent_status(tool_call) == word


def test_the_trees_status_wins() -> None:
    background = call("completed", metadata={"status": "running"})
    assert subagent_status(background, "completed") == "done"
    assert subagent_status(background, "waiting") == "waiting for you"
