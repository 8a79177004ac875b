"""A mouse selection over part of an answer: the characters dragged over are marked on screen and
copied, not the whole answer (QA: a drag over three words marked nothing, and Ctrl+C copied the
whole answer's markdown)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Offset
from textual.selection import Selection

from tui.state.transcript import TextBlock
from widgets.transcript.text_block import EAGER_CHARS, TextBlockView

MARKDOWN = ("# Title\n\nFirst paragraph with **bold** words and `code` in it.\n\n- item one\n- item two\n\n"
            "```python\ndef f(x):\n    return x + 1\n```\n\nLast line.\n")


class BlockApp(App[None]):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.view = TextBlockView(TextBlock(kind="text", ordinal=0, text=text, streaming=False, version=1))

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield self.view


def shown_rows(app: BlockApp) -> list[str]:
    region = app.view.content_region
    rows = app.screen._compositor.render_strips()[region.y:region.bottom]
    return [row.crop(region.x, region.right).text.rstrip() for row in rows]


def marked_cells(app: BlockApp, y: int) -> str:
    """The characters of content row ``y`` drawn in the selection's background, each readable:
    its text colour is not its background (QA: the default theme's "transparent" selection
    text resolved to the background itself)."""
    region = app.view.content_region
    selected = app.screen.get_component_rich_style("screen--selection").bgcolor
    row = app.screen._compositor.render_strips()[region.y + y].crop(region.x, region.right)
    marked = [segment for segment in row if segment.style and segment.style.bgcolor == selected]
    for segment in marked:
        assert segment.style is not None and segment.style.color != segment.style.bgcolor, segment
    return "".join(segment.text for segment in marked)


async def test_a_drag_over_part_of_an_answer_marks_and_copies_just_that() -> None:
    app = BlockApp(MARKDOWN)
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        rows = shown_rows(app)
        top = rows.index("First paragraph with bold words and code in it.")
        code = rows.index("     return x + 1")
        region = app.view.content_region
        await pilot.mouse_down(offset=(region.x + 6, region.y + top))
        await pilot.hover(offset=(region.x + 10, region.y + code))
        await pilot.mouse_up(offset=(region.x + 10, region.y + code))
        await pilot.pause()
        copied = app.screen.get_selected_text()
        # From the pointer's first cell to its last, both taken, as the rows show them (the
        # markdown's ** and backticks are not on screen), each row without its padding; a code
        # row without the blank cell left of the code (QA: pasted Python was one space in).
        assert rows[code - 1] == " def f(x):" and rows[code] == "     return x + 1"
        shown = [*rows[top + 1:code - 1], rows[code - 1][1:], rows[code][1:11]]
        assert copied == "\n".join([rows[top][6:], *shown])
        assert copied.startswith("paragraph with bold") and copied.endswith("\ndef f(x):\n    return")
        assert marked_cells(app, top) == rows[top][6:]
        assert marked_cells(app, code) == rows[code][:11]
        assert marked_cells(app, top - 1) == "" and marked_cells(app, code + 1) == ""


async def test_a_paint_carries_no_offsets_only_a_hit_test_does() -> None:
    """The offsets that tell a click's character cost a style per segment: painted lines (every
    frame of a stream) go without them."""
    app = BlockApp(MARKDOWN)
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        region = app.view.content_region
        rows = app.screen._compositor.render_strips()[region.y:region.bottom]
        assert not any(segment.style and segment.style.meta.get("offset") for row in rows for segment in row)
        widget, offset = app.screen.get_widget_and_offset_at(region.x + 3, region.y + 2)
        assert widget is app.view and offset == Offset(3, 2)


async def test_a_whole_answer_selected_copies_its_markdown() -> None:
    app = BlockApp(MARKDOWN)
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        assert app.view.get_selection(Selection(None, None)) == (MARKDOWN, "\n")
        # From a point to its end (a drag that goes on below it), the rows shown.
        rows = shown_rows(app)
        last = max(y for y, row in enumerate(rows) if row)
        text, _ = app.view.get_selection(Selection(Offset(0, last), None)) or ("", "")
        assert text == "Last line."


async def test_rows_not_rendered_yet_are_copied_as_rendered() -> None:
    """A selection over rows still placeholders (their markdown source, shown for a frame or two
    while a long answer renders) copies them rendered, as they are drawn a moment later."""
    paragraph = "Some **bold** words and a [link](https://example.invalid/x) in a sentence.\n\n"
    text = paragraph * (3 * EAGER_CHARS // len(paragraph))
    app = BlockApp(text)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        view = app.view
        assert view._pieces.unrendered, "the test needs rows not rendered yet"
        whole_rows = Selection(Offset(0, 0), Offset(10, view._pieces.total - 1))
        copied, _ = view.get_selection(whole_rows) or ("", "")
        assert "**" not in copied and "](" not in copied
        assert copied.count("Some bold words and a link") == text.count(paragraph)


async def test_a_drag_ending_on_a_blank_line_keeps_every_line_before_it() -> None:
    """Review: a drag down to the blank line under a list lost the list's last line, and one
    within a blank line raised on Ctrl+C (Textual's extract drops a last empty line)."""
    app = BlockApp("- abc line\n- def line\n\nAfter.\n")
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        rows = shown_rows(app)
        top = next(y for y, row in enumerate(rows) if "abc line" in row)
        blank = next(y for y, row in enumerate(rows) if y > top and not row)
        region = app.view.content_region
        await pilot.mouse_down(offset=(region.x + 1, region.y + top))
        await pilot.hover(offset=(region.x + 3, region.y + blank))
        await pilot.mouse_up(offset=(region.x + 3, region.y + blank))
        await pilot.pause()
        copied = app.screen.get_selected_text() or ""
        assert copied.rstrip("\n") == "\n".join([rows[top][1:], *rows[top + 1:blank]])
        app.screen.clear_selection()
        await pilot.mouse_down(offset=(region.x + 1, region.y + blank))
        await pilot.hover(offset=(region.x + 5, region.y + blank))
        await pilot.mouse_up(offset=(region.x + 5, region.y + blank))
        await pilot.pause()
        assert not app.screen.get_selected_text()  # nothing there, and no error
