"""Scrollbars repainted only when what they draw changes, and drawn exactly as Textual's own.

``ThumbScrollBar`` (the transcript's) skips the repaint its owner asks for on every new line
when the thumb did not move by an eighth of a cell; ``SteadyScrollView`` (the composer's) skips
the scrollbar update a layout pass asks for when nothing of its own changed. Each is run beside
Textual's own widget through the same steps (growing, following the end, scrolled by hand,
hovered, resized, typed into) and every cell of the screen must match; and each must actually
spare repaints, or the test fails too.
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.scrollbar import ScrollBar
from textual.widget import Widget
from textual.widgets import Static, TextArea

from widgets._textual_compat import OwnVerticalScrollBar, SteadyScrollView
from widgets.transcript.thumb_scroll_bar import ThumbScrollBar


class _ThumbScroll(OwnVerticalScrollBar, VerticalScroll):
    VERTICAL_SCROLLBAR = ThumbScrollBar


class _SteadyArea(SteadyScrollView, TextArea):
    pass


CSS = """
#scroll { height: 1fr; padding: 0 1; }
#area { height: 6; padding: 0 1; }
"""


class _Pair(App[None]):
    """A scroll that grows and a text area under it: Textual's own widgets or ours."""

    CSS = CSS

    def __init__(self, ours: bool) -> None:
        super().__init__()
        self.ours = ours

    def compose(self) -> ComposeResult:
        with _ThumbScroll(id="scroll") if self.ours else VerticalScroll(id="scroll"):
            yield Static("", id="text")
        yield _SteadyArea(id="area") if self.ours else TextArea(id="area")


def _screen(app: App[Any]) -> list[list[tuple[str, Style | None]]]:
    return [[(char, segment.style) for segment in strip for char in segment.text]
            for strip in app.screen._compositor.render_strips()]


class _Counter:
    """Renders of each scrollbar (by its owner's id)."""

    def __init__(self) -> None:
        self.renders: dict[str, int] = {}

    def install(self, monkeypatch: Any) -> None:
        original = ScrollBar.render  # ThumbScrollBar's render ends in it: each render counts once

        def counted(bar: ScrollBar) -> Any:
            owner = bar.parent.id if isinstance(bar.parent, Widget) and bar.parent.id else "?"
            self.renders[owner] = self.renders.get(owner, 0) + 1
            return original(bar)

        monkeypatch.setattr(ScrollBar, "render", counted)


async def _steps(ours: bool, monkeypatch: Any) -> tuple[list[Any], dict[str, int], dict[str, int]]:
    """The screen after each step, how often each scrollbar was rendered, and how often each
    was while the scroll's text grew from 40 lines to 160 (its thumb moving by an eighth of a cell
    a line and less)."""
    counter = _Counter()
    app = _Pair(ours)
    screens: list[Any] = []
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        counter.install(monkeypatch)
        scroll = app.query_one("#scroll")
        text = app.query_one("#text", Static)
        area = app.query_one("#area", TextArea)
        area.cursor_blink = False  # the screens are compared: no timer may change them
        area.insert("".join(f"a draft, line {number}\n" for number in range(8)))  # its scrollbar shows
        scroll.anchor()
        for lines in range(1, 161):  # an answer growing line by line, the view following it
            if lines == 40:
                before = dict(counter.renders)
            text.update("\n".join(f"line {n} " + "word " * (n % 5) for n in range(lines)))
            await pilot.pause()
            screens.append(_screen(app))
        growing = {owner: count - before.get(owner, 0) for owner, count in counter.renders.items()}
        for y in (0, 3, 17, 90, 10_000):  # scrolled by hand
            scroll.scroll_to(y=y, animate=False)
            await pilot.pause()
            screens.append(_screen(app))
        bar = scroll.vertical_scrollbar
        await pilot.hover(None, offset=(bar.region.x, bar.region.y + 2))  # its colours change
        await pilot.pause()
        screens.append(_screen(app))
        await pilot.hover(None, offset=(2, 2))
        await pilot.resize_terminal(50, 16)
        await pilot.pause()
        screens.append(_screen(app))
        area.focus()
        for number in range(12):  # the text area's own scrollbar comes and moves
            area.insert(f"typed line {number}\n")
            await pilot.pause()
            screens.append(_screen(app))
        area.insert("one more\n")  # a line added and taken away before the next layout pass: the
        area.undo()  # sizes are as they were, the offset one line past the end until clamped
        await pilot.pause()
        screens.append(_screen(app))
        monkeypatch.undo()
    return screens, counter.renders, growing


async def test_the_scrollbars_draw_what_textuals_own_draw_with_fewer_renders(monkeypatch: Any) -> None:
    theirs, their_renders, their_growing = await _steps(False, monkeypatch)
    mine, my_renders, my_growing = await _steps(True, monkeypatch)
    for step, (a, b) in enumerate(zip(mine, theirs, strict=True)):
        assert a == b, f"step {step}"
    # Textual renders the scroll's bar for every new line; past 40 lines in 14 rows, the thumb
    # moves by an eighth of a cell every few lines (the rest are style updates Textual makes).
    assert their_growing["scroll"] >= 120, their_growing
    assert my_growing["scroll"] < their_growing["scroll"] * 0.6, (my_growing, their_growing)
    # Textual renders the text area's bar on every layout pass of the screen; nothing of it changed.
    assert their_growing["area"] >= 100 and my_growing.get("area", 0) == 0, (my_growing, their_growing)


async def test_a_steady_scroll_view_still_clamps_an_offset_past_the_end() -> None:
    """A layout pass that skips the scrollbar update still brings back an offset left past the
    end (text added and taken away between two passes leaves every size as it was)."""
    app = _Pair(True)
    async with app.run_test(size=(40, 20)) as pilot:
        area = app.query_one("#area", TextArea)
        area.cursor_blink = False
        area.insert("".join(f"a draft, line {number}\n" for number in range(12)))
        await pilot.pause()
        top = area.max_scroll_y
        assert top > 0
        area.set_reactive(TextArea.scroll_y, top + 3)  # as a shrink leaves it, unclamped
        app.screen.refresh(layout=True)
        await pilot.pause()
        assert area.scroll_y == top
