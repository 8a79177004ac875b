"""Snapshot and functional tests for tool rows (widgets/tools/tool_row.py and friends)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any

import pytest
from textual.message import Message
from textual.pilot import Pilot
from textual.widgets import Static

from tests.snapshots import tool_row_app as samples
from tests.snapshots.tool_row_app import ToolRowApp
from tui.app import clock
from tui.protocol.models import StructuredError
from widgets.tools.diff_view import DiffView
from widgets.tools.terminal_output import TerminalOutput
from widgets.tools.tool_header import ToolHeader
from widgets.tools.tool_row import ToolRow

FROZEN = samples.T0 / 1000 + 83  # 1m23s after every sample call started


@pytest.fixture(autouse=True)
def frozen_clock() -> Iterator[None]:
    clock.freeze(FROZEN)
    yield
    clock.freeze(None)


def app(*rows: tuple[Any, bool | None]) -> ToolRowApp:
    return ToolRowApp(list(rows))


class TestShellRows:
    def test_collapsed(self, snap_compare: Any) -> None:
        # exit 0 and exit 1, both forced collapsed: badges only
        assert snap_compare(app((samples.BASH_OK, False), (samples.BASH_FAIL, False)), terminal_size=(100, 8))

    def test_expanded_coloured(self, snap_compare: Any) -> None:
        # exit 0 forced open; exit 1 opens by policy; SGR colours and \r progress collapsed
        assert snap_compare(app((samples.BASH_OK, True), (samples.BASH_FAIL, None)), terminal_size=(100, 24))

    def test_long_output_capped(self, snap_compare: Any) -> None:
        assert snap_compare(app((samples.LONG_OUTPUT, True)), terminal_size=(100, 16))

    def test_running_elapsed(self, snap_compare: Any) -> None:
        # frozen clock: 1m23s since start; the streaming write shows its raw input in the header
        # (collapsed by policy) and in full when expanded
        rows = ((samples.RUNNING, True), (samples.STREAMING, None), (samples.STREAMING, True))
        assert snap_compare(app(*rows), terminal_size=(100, 12))

    def test_hostile_output_inert(self, snap_compare: Any) -> None:
        assert snap_compare(app((samples.HOSTILE, True)), terminal_size=(100, 16))


class TestDiffRows:
    def test_unified_at_100(self, snap_compare: Any) -> None:
        assert snap_compare(app((samples.EDIT, None)), terminal_size=(100, 20))

    def test_split_at_140(self, snap_compare: Any) -> None:
        assert snap_compare(app((samples.EDIT, None)), terminal_size=(140, 18))

    def test_split_toggled_to_unified(self, snap_compare: Any) -> None:
        # the row has focus; `d` flips the automatic split view to unified
        assert snap_compare(app((samples.EDIT, None)), press=["d"], terminal_size=(140, 20))

    def test_multi_file_patch_and_write(self, snap_compare: Any) -> None:
        assert snap_compare(app((samples.MULTI_PATCH, None), (samples.WRITE, None)), terminal_size=(100, 24))


class TestOtherRows:
    def test_unknown_tool(self, snap_compare: Any) -> None:
        assert snap_compare(app((samples.UNKNOWN, True)), terminal_size=(100, 10))

    def test_question_subagent_read_failure(self, snap_compare: Any) -> None:
        rows = (
            (samples.QUESTION, True), (samples.SUBAGENT, True), (samples.READ, None), (samples.FAILED, None),
        )
        assert snap_compare(app(*rows), terminal_size=(100, 24))


# -- functional ----------------------------------------------------------------------------------

_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


async def test_hostile_row_renders_no_escape_bytes() -> None:
    harness = app((samples.HOSTILE, True))
    async with harness.run_test(size=(100, 20)) as pilot:
        await pilot.pause()
        strips = harness.screen._compositor.render_strips()
        shown = "\n".join(strip.text for strip in strips)
        assert "still red ok" in shown and "<U+202E>evil.exe" in shown
        for strip in strips:
            for segment in strip:
                assert not _UNSAFE.search(segment.text), repr(segment.text)
                assert segment.style is None or not segment.style.link
        # nothing is hidden either: every escape is on screen as a visible token
        for visible in ("cat evil.txt␛]0;pwned title␇", "␛]0;set window title␇title gone",
                        "␛]8;;https://evil.example/␛\\link text", "␛P1$tmalicious dcs␛\\dcs gone",
                        "<U+009B>31mC1 csi gone", "␛[2Jclear gone ␛[10;5Hcursor gone"):
            assert visible in shown, visible


async def _rows(pilot: Pilot[None]) -> list[ToolRow]:
    await pilot.pause()
    return list(pilot.app.query(ToolRow))


async def test_update_call_repaints_only_on_new_version() -> None:
    call = dataclasses.replace(samples.RUNNING, content=[], version=1)
    harness = app((call, True))
    async with harness.run_test(size=(100, 12)) as pilot:
        (row,) = await _rows(pilot)
        assert row.has_class("-running")
        assert not row.update_call(call)
        call.status = "completed"
        call.time_completed = samples.T0 + 2000
        call.metadata = {"exit": 3}
        call.content = samples.text("oops", "Command exited with code 3.")
        call.version = 2
        assert row.update_call(call)
        await pilot.pause()
        assert row.has_class("-completed") and row.has_class("-failed-exit")
        assert row.query_one(ToolHeader)._timer is None
        assert "exit 3" in "\n".join(s.text for s in harness.screen._compositor.render_strips())


async def test_policy_follows_updates_until_user_toggles() -> None:
    call = dataclasses.replace(samples.RUNNING, content=[], version=1)
    harness = app((call, None))
    async with harness.run_test(size=(100, 12)) as pilot:
        (row,) = await _rows(pilot)
        assert not row.expanded
        call.status, call.metadata, call.version = "completed", {"exit": 1}, 2
        row.update_call(call)
        assert row.expanded  # failed shell opens by policy
        await pilot.press("space")
        assert not row.expanded
        call.version = 3
        row.update_call(call)
        assert not row.expanded  # the user's choice sticks


async def test_enter_toggles_and_posts_toggled() -> None:
    seen: list[Message] = []
    harness = app((samples.BASH_OK, None))
    async with harness.run_test(size=(100, 12), message_hook=seen.append) as pilot:
        (row,) = await _rows(pilot)
        await pilot.press("enter")
        assert row.expanded
        toggled = [m for m in seen if isinstance(m, ToolRow.Toggled)]
        assert toggled and toggled[-1].expanded and toggled[-1].control is row


async def test_enter_on_linked_subagent_opens_child() -> None:
    seen: list[Message] = []
    harness = app((samples.SUBAGENT, None))
    async with harness.run_test(size=(100, 12), message_hook=seen.append) as pilot:
        await _rows(pilot)
        await pilot.press("enter")
        # the hook sees a message at every node it bubbles through: dedupe by identity
        opened = list({id(m): m for m in seen if isinstance(m, ToolRow.OpenChild)}.values())
        assert [m.session_id for m in opened] == ["ses_child123"]


async def test_click_header_toggles() -> None:
    harness = app((samples.READ, None))
    async with harness.run_test(size=(100, 12)) as pilot:
        (row,) = await _rows(pilot)
        harness.set_focus(None)
        await pilot.click(ToolHeader)
        assert row.expanded
        # ... and leaves the focus where it was: focused by a click, the row's one-letter keys
        # took the first letter typed next ("do it again" lost its "d", QA).
        assert harness.focused is None


async def test_show_all_output() -> None:
    harness = app((samples.LONG_OUTPUT, True))
    async with harness.run_test(size=(100, 20)) as pilot:
        await _rows(pilot)
        output = harness.query_one(TerminalOutput)
        assert (output.total_lines, output.hidden_lines) == (450, 250)
        await pilot.press("a")
        await pilot.pause()
        assert harness.query_one(TerminalOutput).hidden_lines == 0


async def test_split_toggle_key() -> None:
    harness = app((samples.EDIT, None))
    async with harness.run_test(size=(140, 30)) as pilot:
        await _rows(pilot)
        view = harness.query_one(DiffView)
        assert view.is_split()
        await pilot.press("d")
        assert not view.is_split()
        await pilot.press("d")
        assert view.is_split()


async def test_odd_metadata_never_crashes() -> None:
    odd = [
        samples.call("edit", metadata={"files": [{"file": 3, "patch": None}]}),
        samples.call("bash", metadata={"exit": {"x": 1}, "truncated": "yes"}, input={"command": 5}),
        samples.call("question", metadata={"answers": "nope"}, input={"questions": [1, None]}),
        samples.call("subagent", metadata={"sessionID": 7, "status": None}),
        samples.call("todowrite", input={"todos": "x"}),
        samples.call("weird", input={"a": [1, 2]}, metadata=None),
    ]
    harness = ToolRowApp([(c, True) for c in odd])
    async with harness.run_test(size=(100, 40)) as pilot:
        assert len(await _rows(pilot)) == len(odd)


async def test_a_subagent_call_that_ended_without_a_child_waits_for_none() -> None:
    """QA (1.18: "Unknown tool: task"): a failed call said "no child yet", as if one could come."""
    failed = dataclasses.replace(samples.SUBAGENT, id="call_nochild", status="error", metadata={}, content=[],
                                 error=StructuredError(type="unknown", message="Unknown tool: task"))
    running = dataclasses.replace(samples.SUBAGENT, id="call_waiting", status="running", metadata={},
                                  content=[], time_completed=None)
    harness = app((failed, True), (running, True))
    async with harness.run_test(size=(100, 20)) as pilot:
        ended, waiting = await _rows(pilot)
        body = str(ended.query_one(".-subagent", Static).render())
        assert "no child session" in body and "yet" not in body, body
        assert ended.query_one(ToolHeader).parts.summary.plain.endswith("no child")
        assert "no child yet" in waiting.query_one(ToolHeader).parts.summary.plain
