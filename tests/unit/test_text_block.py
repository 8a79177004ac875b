"""TextBlockView: lazy, bounded rendering of a long streamed answer that ends up exactly right."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region, Size

from bench.stream import answer_text
from tui.state.transcript import TextBlock
from widgets.transcript.markdown_chunk import render_markdown
from widgets.transcript.markdown_seal import MAX_PIECE, Sealer
from widgets.transcript.rendered_line import line_segments
from widgets.transcript.text_block import TextBlockView

SIZE = (90, 30)


class BlockApp(App[None]):
    def __init__(self, block: TextBlock) -> None:
        super().__init__()
        self.view = TextBlockView(block)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield self.view

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).anchor()


def drawn(view: TextBlockView) -> list[list[tuple[str, object]]]:
    """The lines as a paint draws them (``render_line`` asked outside a paint is a hit test:
    its segments carry the offsets a mouse selection needs)."""
    return [[(seg.text, seg.style) for seg in view._line_strip(y)] for y in range(view._pieces.total)]


def expected(view: TextBlockView, text: str) -> list[list[tuple[str, object]]]:
    """Rich's lines of the whole text, over the widget's own colours (as the view draws them)."""
    lines = render_markdown(view.app.console, text, view._pieces.width)
    return [[(seg.text, seg.style) for seg in line_segments(line, view.rich_style)] for line in lines]


async def wait_for(condition: Callable[[], bool], pause: Callable[[], object], seconds: float = 10) -> None:
    for _ in range(int(seconds / 0.05)):  # bounded
        if condition():
            return
        await pause()  # type: ignore[misc]
        await asyncio.sleep(0.05)
    raise AssertionError("condition not met in time")


async def stream_into(app: BlockApp, text: str, chunk: int, pause: Callable[[], object]) -> TextBlock:
    block = TextBlock(kind="text", ordinal=0, streaming=True)
    for end in range(chunk, len(text) + chunk, chunk):
        block.text, block.version = text[:end], block.version + 1
        app.view.sync(block)
        await pause()  # type: ignore[misc]
    block.streaming, block.version = False, block.version + 1
    app.view.sync(block)
    return block


async def test_a_long_answer_streams_lazily_and_ends_exactly_like_the_whole_text(
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = answer_text(60)
    app = BlockApp(TextBlock(kind="text", ordinal=0, streaming=True))
    async with app.run_test(size=SIZE) as pilot:
        # A loaded machine can make a pause look like a quiet stream: no backfill while streaming
        # (it only runs while the reader follows the bottom).
        monkeypatch.setattr(TextBlockView, "_following", lambda self: False)
        await stream_into(app, text, 6000, pilot.pause)
        pieces = app.view._pieces
        assert len(pieces) > 100
        # Only what reached the bottom of the screen was rendered while it streamed.
        assert pieces.unrendered > len(pieces) // 2
        monkeypatch.undo()
        app.view._schedule()  # the reader is back at the bottom
        assert app.view.source == text
        # Once quiet, the rest is rendered a slice at a time, and the text is exactly Rich's.
        await wait_for(lambda: not pieces.unrendered, pilot.pause)
        assert drawn(app.view) == expected(app.view, text)
        # The last slice asked for a layout; on a loaded machine it may not have run yet.
        await wait_for(lambda: app.view.virtual_region.height == pieces.total, pilot.pause)


async def test_the_end_of_the_answer_is_on_screen_rendered_right_after_the_last_delta() -> None:
    text = answer_text(40) + "\nThe very last line.\n"
    app = BlockApp(TextBlock(kind="text", ordinal=0, streaming=True))
    async with app.run_test(size=SIZE) as pilot:
        await stream_into(app, text, 3000, pilot.pause)
        await pilot.pause()
        screen = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
        assert "The very last line." in screen
        pieces = app.view._pieces
        bottom = pieces.unrendered_at_end(SIZE[1])
        assert not bottom  # the screenful at the end is rendered, not placeholders


async def test_a_finished_long_text_mounts_without_rendering_it_all() -> None:
    text = answer_text(80)
    total = len(Sealer().feed(text, final=True))  # (the view seals it a slice at a time: on a
    # loaded machine fewer pieces are sealed by the first pause, 96 of 161 in one CI run)
    assert total > 100
    block = TextBlock(kind="text", ordinal=0, text=text, streaming=False, version=1)
    app = BlockApp(block)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pieces = app.view._pieces
        assert pieces.rendered_count < total // 2
        await wait_for(lambda: not pieces.unrendered, pilot.pause)
        assert drawn(app.view) == expected(app.view, text)


async def test_a_new_width_renders_again_for_that_width() -> None:
    text = answer_text(8)
    app = BlockApp(TextBlock(kind="text", ordinal=0, text=text, streaming=False, version=1))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        before = app.view._pieces.width
        await pilot.resize_terminal(60, 30)
        await wait_for(lambda: app.view._pieces.width != before and not app.view._pieces.unrendered,
                       pilot.pause)
        assert drawn(app.view) == expected(app.view, text)


async def test_a_different_final_text_rebuilds_the_block() -> None:
    app = BlockApp(TextBlock(kind="text", ordinal=0, streaming=True))
    async with app.run_test(size=SIZE) as pilot:
        streamed = "Hello " * 200 + "\n\n" + "world " * 200
        block = await stream_into(app, streamed, 500, pilot.pause)
        final = "Something else entirely.\n\n```python\nprint('x')\n```\n"
        block.text, block.version = final, block.version + 1
        app.view.sync(block)
        await pilot.pause()
        assert app.view.source == final
        assert drawn(app.view) == expected(app.view, final)


# ------------------------------------------------------------------- bounded work for huge text

async def test_a_huge_delta_is_sealed_over_many_frames_and_the_display_is_cut(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from widgets.transcript import text_block

    monkeypatch.setattr(text_block, "DISPLAY_MAX_CHARS", 300_000)
    monkeypatch.setattr(text_block, "SEAL_SLICE_S", 0.0)  # one step per callback, on any machine
    text = "Head.\n\n" + "0123456789abcdef" * 50_000 + " TAIL"  # one line of 800 KB
    block = TextBlock(kind="text", ordinal=0, streaming=True)
    app = BlockApp(block)
    async with app.run_test(size=SIZE) as pilot:
        block.text, block.version = text, 1
        started = time.perf_counter()
        app.view.sync(block)
        first = time.perf_counter() - started
        # One sync seals a slice only: the rest comes on later frames.
        assert app.view._fed == text_block.SEAL_STEP
        await wait_for(lambda: app.view._fed == 300_000, pilot.pause)
        block.streaming, block.version = False, 2
        app.view.sync(block)
        await wait_for(lambda: not app.view._pieces.unrendered, pilot.pause)
        pieces = app.view._pieces.pieces
        assert "".join(piece.source for piece in pieces) == text[:300_000], "exactly the shown part"
        assert max(len(piece.source) for piece in pieces) <= MAX_PIECE
        total = app.view._pieces.total
        note = " ".join(app.view.render_line(total + row).text.strip() for row in range(2))
        assert not app.view.render_line(total + 2).text.strip(), "two lines at this width"
        assert note == ("✂ display cut: the first 300,000 of 800,012 characters are shown. All of it "
                        "is kept: y (or F5 for the last answer) copies it, F7 exports the session.")
        width = app.view._pieces.width
        assert app.view.get_content_height(Size(width, 30), Size(width, 30), width) == total + 2
        assert app.view.source == text, "the view still holds the whole text"
    assert first < 1.0, f"one sync took {first:.2f} s"


async def test_appending_to_a_streaming_paragraph_repaints_its_last_line_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = BlockApp(TextBlock(kind="text", ordinal=0, streaming=True))
    async with app.run_test(size=SIZE) as pilot:
        text = "Intro.\n\n" + "a paragraph that goes on and wraps over several lines " * 6
        block = TextBlock(kind="text", ordinal=0, text=text, streaming=True, version=1)
        app.view.sync(block)
        await pilot.pause()
        repaints: list[Region] = []
        original = app.view.refresh

        def spy(*regions: Region, **kwargs: object) -> object:
            repaints.extend(regions)
            return original(*regions, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(app.view, "refresh", spy)
        last = app.view._pieces.total - 1
        block.text, block.version = text + "more", block.version + 1
        app.view.sync(block)
        await pilot.pause()
        assert app.view.source.endswith("more")
        assert repaints and all(region.y >= last for region in repaints), (last, repaints)
        assert drawn(app.view) == expected(app.view, block.text)


async def test_the_screen_shows_the_streamed_text_as_rendered_while_the_block_grows() -> None:
    """Lines kept from before a growth (the line cache survives a taller block) are never stale."""
    text = "".join(f"Paragraph {n}: " + "words that wrap along the width " * 5 + "\n\n" for n in range(12))
    app = BlockApp(TextBlock(kind="text", ordinal=0, streaming=True))
    async with app.run_test(size=SIZE) as pilot:
        block = TextBlock(kind="text", ordinal=0, streaming=True)
        for end in range(7, len(text) + 7, 7):
            block.text, block.version = text[:end], block.version + 1
            app.view.sync(block)
            await pilot.pause()
            if end % 140 < 7:  # now and then, the whole screen against a fresh render
                await pilot.pause()
                want = [line_text(line) for line in expected(app.view, block.text)]
                left, right = app.view.content_region.column_span  # not the scrollbar
                shown = [strip.crop(left, right).text.strip()
                         for strip in app.screen._compositor.render_strips()]
                shown = [line for line in shown if line]
                assert shown and all(line in want for line in shown), (shown, want[-len(shown):])


def line_text(line: list[tuple[str, object]]) -> str:
    return "".join(text for text, _ in line).strip()


# An answer that cites its sources with link reference definitions, at its end or at its start:
# a definition holds for the whole answer, wherever it stands.
CITED = "".join(f"Finding {n} is in [the report][r{n % 3}], see also [notes].\n\n"
                + "More words. " * 12 + "\n\n" for n in range(30))
DEFINITIONS = ("[r0]: https://example.com/0\n[r1]: https://example.com/1 'One'\n"
               "[R2]: <https://example.com/2>\n[notes]: https://example.com/notes\n")


def screen_text(app: BlockApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


@pytest.mark.parametrize("text", [CITED + DEFINITIONS, DEFINITIONS + "\n" + CITED],
                         ids=["definitions-at-the-end", "definitions-at-the-start"])
async def test_links_are_drawn_with_the_answers_definitions_wherever_they_stand(text: str) -> None:
    app = BlockApp(TextBlock(kind="text", ordinal=0, streaming=True))
    async with app.run_test(size=SIZE) as pilot:
        block = await stream_into(app, text, 97, pilot.pause)
        pieces = app.view._pieces
        assert len(pieces) > 20  # cut into pieces all along, after the definitions too
        # What is on screen is drawn again with the definitions (most at once, the rest within a
        # slice or two on a slow machine).
        await wait_for(lambda: "[the report]" not in screen_text(app), pilot.pause)
        assert "the report (https://example.com/" in screen_text(app)
        await wait_for(lambda: not pieces.unrendered, pilot.pause)
        assert drawn(app.view) == expected(app.view, block.text)
        joined = "".join(line_text(line) for line in drawn(app.view)).replace(" ", "")
        assert joined.count("notes(https://example.com/notes)") == 30 and "[notes]" not in joined


async def test_a_finished_answer_with_definitions_at_its_end_is_drawn_as_the_whole_text() -> None:
    """A finished answer (a session opened again) is sealed and rendered a slice at a time: the
    pieces rendered before the definitions were found are rendered again."""
    text = CITED * 3 + DEFINITIONS
    app = BlockApp(TextBlock(kind="text", ordinal=0, text=text, streaming=False, version=1))
    async with app.run_test(size=SIZE) as pilot:
        pieces = app.view._pieces
        await wait_for(lambda: app.view._fed >= len(text) and not pieces.unrendered, pilot.pause)
        assert drawn(app.view) == expected(app.view, text)
        app.query_one(VerticalScroll).scroll_home(animate=False)
        await wait_for(lambda: "Finding 0 is in" in screen_text(app), pilot.pause)
        assert "the report (https://example.com/0)" in screen_text(app)
        assert "[the report]" not in screen_text(app)


async def test_the_answer_is_drawn_in_the_widgets_colours_not_the_terminals() -> None:
    """Rich's markdown styles carry no background and plain text no colour: drawn as they were,
    an answer showed the terminal's default colours, a band of another background where the
    terminal's default is not the theme's (QA, tmux capture: ``ESC[49m``)."""
    app = BlockApp(TextBlock(kind="text", ordinal=0, text="Plain words, **bold** and *slanted*.\n\nMore.",
                             streaming=False, version=1))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        base = app.view.rich_style
        assert base.bgcolor is not None and base.color is not None
        for y in range(app.view._pieces.total + 1):  # every line, and the blank one under them
            for segment in app.view.render_line(y):
                assert segment.style is not None and segment.style.bgcolor == base.bgcolor, (y, segment)
                assert segment.style.color is not None, (y, segment)
