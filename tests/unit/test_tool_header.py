"""The tool row's header: one widget that lays out its own line (widgets/tools/tool_header.py).

It replaced seven labels in a row (half of what a tool row cost to mount); these tests hold it
to what the labels did at any width: every part in its place and order, the title taking the
room left but never less than ``TITLE_MIN`` cells, the summary never past its share of the row,
cuts marked with ``…``, and a new layout when the row is resized.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from rich.cells import cell_len
from textual.strip import Strip

from tests.snapshots import tool_row_app as samples
from tests.snapshots.tool_row_app import ToolRowApp
from tui.app import clock
from widgets.tools.tool_header import SUMMARY_SHARE, TITLE_MIN, ToolHeader
from widgets.tools.tool_row import ToolRow

LONG = "a title long enough to be cut at every width this test tries " * 3
CALLS = [
    samples.BASH_OK,
    samples.BASH_FAIL,
    samples.RUNNING,
    samples.STREAMING,
    samples.QUESTION,
    samples.SUBAGENT,
    samples.READ,
    samples.FAILED,
    samples.HOSTILE,
    dataclasses.replace(samples.BASH_FAIL, id="call_long", input={"command": LONG, "description": LONG}),
    dataclasses.replace(samples.SUBAGENT, id="call_wide", input={"description": "漢字かなカナ" * 12,
                                                                 "subagent_type": "general"}),
]


@pytest.fixture(autouse=True)
def frozen_clock() -> Iterator[None]:
    clock.freeze(samples.T0 / 1000 + 83)
    yield
    clock.freeze(None)


def header_line(app: ToolRowApp, row: ToolRow) -> Strip:
    """The header's line as the screen shows it (the row's left border cut off)."""
    header = row.query_one(ToolHeader)
    strips = app.screen._compositor.render_strips()
    region = header.region
    return strips[region.y].crop(region.x, region.right)


def fitted(text: str, shown: str, cells: int) -> bool:
    """``shown`` is ``text`` in ``cells`` cells: whole and padded, or its start cut with ``…``."""
    if cell_len(shown) != cells:
        return False
    if cell_len(text) <= cells:
        return shown.rstrip() == text.rstrip()
    body = shown.rstrip()  # a wide character that does not fit leaves a blank before the "…"
    return body.endswith("…") and text.startswith(body[:-1].rstrip()) and cell_len(body) == cells


def check_layout(header: ToolHeader, line: Strip) -> None:
    """The header's rules, part by part: head, title, summary, then badge and time at the end."""
    parts = header.parts
    width = header.size.width  # the line has one more cell: the header's padding
    assert line.cell_length == width + 1, (line.text, width)
    head = f"{parts.chevron} {parts.icon} {parts.name.plain} "
    tail = (f" {parts.badge} " if parts.badge else "") + f" {parts.elapsed}"
    summary_cells = min(parts.summary.cell_length + 1, int(width * SUMMARY_SHARE))
    title_cells = max(TITLE_MIN, width - cell_len(head) - summary_cells - cell_len(tail))

    def cells(start: int, count: int) -> str:
        return line.crop(start, start + count).text

    assert cells(0, cell_len(head)) == head, line.text
    at = cell_len(head)
    if at + title_cells <= width:
        title = cells(at, title_cells - 1)
        assert fitted(parts.title.plain, title, title_cells - 1), (line.text, parts.title)
        assert cells(at + title_cells - 1, 1) == " ", line.text
    else:  # a row too narrow even for the title's least: it runs to the row's end
        shown = cells(at, width - at).rstrip().removesuffix("…")
        assert parts.title.plain.startswith(shown), (line.text, parts.title)
    if at + title_cells + summary_cells + cell_len(tail) > width:
        return  # too narrow for the rest: it is cut at the row's end, as the labels were
    at += title_cells
    summary = cells(at, summary_cells - 1)
    assert fitted(parts.summary.plain, summary, summary_cells - 1), (line.text, parts.summary)
    assert cells(at + summary_cells - 1, 1) == " ", line.text
    assert cells(at + summary_cells, width - at - summary_cells) == tail, line.text


async def test_every_part_has_its_place_at_every_width() -> None:
    app = ToolRowApp([(call, False) for call in CALLS])
    async with app.run_test(size=(160, 2 * len(CALLS) + 2)) as pilot:
        rows = list(app.query(ToolRow))
        for row in rows:
            assert not row.query_one(ToolHeader).children, "the header draws its line itself"
        for width in range(20, 161, 3):
            for row in rows:
                row.styles.width = width
            await pilot.pause()
            for row in rows:
                check_layout(row.query_one(ToolHeader), header_line(app, row))


async def test_a_resized_row_lays_its_header_out_again() -> None:
    call = CALLS[-2]  # a long title, a red badge, a time
    app = ToolRowApp([(call, False)])
    async with app.run_test(size=(140, 6)) as pilot:
        row = app.query_one(ToolRow)
        wide = header_line(app, row).text
        await pilot.resize_terminal(70, 6)
        await pilot.pause()
        narrow = header_line(app, row).text
        for text in (wide, narrow):
            assert text.rstrip().endswith(" exit 1  3.4s"), text
            assert "…" in text
        assert cell_len(narrow) < cell_len(wide)


async def test_the_header_follows_the_call() -> None:
    """A running call's header ticks and then shows the finished call: icon, badge, time."""
    running = dataclasses.replace(samples.BASH_FAIL, status="running", time_completed=None, version=1)
    app = ToolRowApp([(running, False)])
    async with app.run_test(size=(100, 6)) as pilot:
        row = app.query_one(ToolRow)
        first = header_line(app, row).text
        assert "● bash" in first and "exit" not in first and first.rstrip().endswith("1m23s"), first
        clock.freeze(samples.T0 / 1000 + 95)
        await pilot.pause(1.1)  # the ticker: once a second while the call runs
        assert header_line(app, row).text.rstrip().endswith("1m35s")
        row.update_call(dataclasses.replace(samples.BASH_FAIL, version=2))
        await pilot.pause()
        done = header_line(app, row).text
        assert "✗ bash" in done  # it exited 1: failed, not a green tick beside a red "exit 1" (QA)
        assert done.rstrip().endswith(" exit 1  3.4s"), done
        assert row.query_one(ToolHeader)._timer is None


def luminance(rgb: tuple[int, ...]) -> float:
    """WCAG's relative luminance of a colour."""
    linear = [c / 255 / 12.92 if c <= 10 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: tuple[int, ...], two: tuple[int, ...]) -> float:
    """The WCAG contrast ratio of two colours (1: the same; 21: black on white)."""
    lighter, darker = sorted((luminance(one), luminance(two)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


async def test_every_part_reads_in_every_theme() -> None:
    """Muted parts (chevron, summary, time, a streaming title) use an "auto" colour picked against
    what is under it: drawn from a partial style it came out near-white, unreadable in a light
    theme. (The status icon is left out: its colour is the theme's own success or error colour.)"""
    calls = [samples.BASH_FAIL, samples.STREAMING, samples.QUESTION, samples.RUNNING]
    app = ToolRowApp([(call, False) for call in calls])
    async with app.run_test(size=(100, 2 * len(calls) + 2)) as pilot:
        app.screen.set_focus(None)
        for theme in sorted(app.available_themes):
            app.theme = theme
            await pilot.pause()
            for row in app.query(ToolRow):
                icon = row.query_one(ToolHeader).parts.icon
                for segment in header_line(app, row):
                    style = segment.style
                    if not segment.text.strip() or segment.text == icon or style is None:
                        continue
                    fg, bg = (style.bgcolor, style.color) if style.reverse else (style.color, style.bgcolor)
                    if fg is None or bg is None or fg.triplet is None or bg.triplet is None:
                        continue  # a terminal's own colours (the ansi themes)
                    ratio = contrast(tuple(fg.triplet), tuple(bg.triplet))
                    assert ratio >= 3, (theme, segment.text, fg.triplet.hex, bg.triplet.hex)


def test_a_question_left_unanswered_reads_as_a_dash() -> None:
    """QA: an optional question left empty read "answered: Red;" (a dangling semicolon)."""
    from tui.state.transcript import ToolCall

    call = ToolCall(id="c1", name="question", status="completed", metadata={"answers": [["Red"], []]})
    assert ToolHeader(call)._summary(call) == "answered: Red; –"
    both = ToolCall(id="c1", name="question", status="completed", metadata={"answers": [["Red"], ["A", "B"]]})
    assert ToolHeader(both)._summary(both) == "answered: Red; A, B"
