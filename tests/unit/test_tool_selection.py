"""Mouse selections in tool rows. Over a diff, it copies its code: no line numbers, signs or
padding, a line cut short on screen whole, and side by side only the side the drag began on
(copied as drawn, a diff brought all of those, and both sides' code interleaved on one line)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Offset
from textual.pilot import Pilot
from textual.selection import Selection

from tui.text.tool_diffs import parse_patch
from tui.text.tools import DiffFile
from widgets.tools.diff_view import DiffView

LONG = "x = " + " + ".join(f"value_{n}" for n in range(30))
PATCH = (f"--- a/x.py\n+++ b/x.py\n@@ -1,5 +1,5 @@\n def f(x):\n-    return x + 1\n+    return x + 2\n \n"
         f" print(f(1))\n {LONG}\n")


class DiffApp(App[None]):
    def __init__(self, split: bool) -> None:
        super().__init__()
        self.view = DiffView(DiffFile("x.py", "modified", 1, 1, parse_patch(PATCH)), split=split)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield self.view


async def drag(app: DiffApp, pilot: Pilot[None], start: tuple[int, int], end: tuple[int, int]) -> str | None:
    region = app.view.content_region
    await pilot.mouse_down(offset=(region.x + start[0], region.y + start[1]))
    await pilot.hover(offset=(region.x + end[0], region.y + end[1]))
    await pilot.mouse_up(offset=(region.x + end[0], region.y + end[1]))
    await pilot.pause()
    return app.screen.get_selected_text()


def rows(app: DiffApp) -> list[str]:
    region = app.view.content_region
    drawn = app.screen._compositor.render_strips()[region.y:region.bottom]
    return [row.crop(region.x, region.right).text.rstrip() for row in drawn]


async def test_unified_rows_copy_their_code_from_where_the_drag_began() -> None:
    app = DiffApp(split=False)
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.pause()
        shown = rows(app)
        assert shown[2].startswith("  1   1   def f(x):")  # numbers, sign, code: 10 cells before it
        # From inside the numbers of "def f(x):" to the 4th character of "print": no numbers.
        assert await drag(app, pilot, (2, 2), (13, 6)) == \
            "def f(x):\n    return x + 1\n    return x + 2\n\nprin"
        app.screen.clear_selection()
        # From the middle of a code line: from that character on.
        assert await drag(app, pilot, (14, 2), (14, 3)) == "f(x):\n    r"


async def test_a_line_cut_short_on_screen_is_copied_whole() -> None:
    app = DiffApp(split=False)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        shown = rows(app)
        assert shown[7].endswith("…"), "the test needs the long line cut"
        assert await drag(app, pilot, (0, 6), (59, 7)) == f"print(f(1))\n{LONG}"


@pytest.mark.parametrize(("column", "expected"), [
    (3, "def f(x):\n    return x + 1\n\nprint("),  # the old side
    (55, "def f(x):\n    return x + 2\n\nprint(f("),  # the new side: not the old one beside it
])
async def test_side_by_side_copies_the_side_the_drag_began_on(column: int, expected: str) -> None:
    app = DiffApp(split=True)
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.pause()
        assert "│" in rows(app)[2]
        assert await drag(app, pilot, (column, 2), (column + 8, 5)) == expected


async def test_headers_are_copied_as_drawn_and_the_whole_diff_as_code() -> None:
    app = DiffApp(split=False)
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.pause()
        text, _ = app.view.get_selection(Selection(Offset(0, 0), Offset(30, 3))) or ("", "")
        assert text == "x.py  modified  +1 −1\n⋯ @@ -1,5 +1,5 @@\ndef f(x):\n    return x + 1"
        whole, _ = app.view.get_selection(Selection(None, None)) or ("", "")
        assert whole.splitlines()[2:] == ["def f(x):", "    return x + 1", "    return x + 2", "",
                                          "print(f(1))", LONG]


async def test_a_drag_begun_in_an_output_blocks_padding_starts_on_that_line() -> None:
    """QA: begun in the command output block's left padding, a drag copied the output from its
    first line; the padding is the lines' own now, so it starts on the line it began beside."""
    from tui.app.app import STYLES
    from widgets.tools.terminal_output import TerminalOutput

    class OutputApp(App[None]):
        CSS_PATH = [str(path) for path in sorted(STYLES.glob("*.tcss"))]

        def compose(self) -> ComposeResult:
            with VerticalScroll():
                yield TerminalOutput("\n".join(f"line {n} of the output" for n in range(10)))

    app = OutputApp()
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        region = app.query_one(TerminalOutput).region
        rows = app.screen._compositor.render_strips()
        assert rows[region.y + 5].text.startswith(" line 5 of")
        await pilot.mouse_down(offset=(region.x, region.y + 5))
        await pilot.hover(offset=(region.x + 5, region.y + 7))
        await pilot.mouse_up(offset=(region.x + 5, region.y + 7))
        await pilot.pause()
        assert app.screen.get_selected_text() == "line 5 of the output\nline 6 of the output\nline "
