"""TerminalOutput draws a bounded part of any output: lines and characters capped, said above."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st
from textual.app import App, ComposeResult
from textual.widgets import Static

from tui.text.sanitize import drop_sgr
from widgets.tools.terminal_output import (
    SHOW_ALL_MAX_CHARS,
    VISIBLE_MAX_CHARS,
    TerminalOutput,
    ansi_to_content,
)


class OutputApp(App[None]):
    def __init__(self, output: TerminalOutput) -> None:
        super().__init__()
        self.output = output

    def compose(self) -> ComposeResult:
        yield self.output


def marker(output: TerminalOutput) -> str:
    return str(output.query_one(".-more", Static).render())


async def test_one_line_of_20_mb_is_drawn_cut_and_said() -> None:
    text = "\x1b[31m" + "0123456789abcdef" * (20 * 1024 * 1024 // 16) + "\x1b[0m END"
    started = time.perf_counter()
    output = TerminalOutput(text, plain=True)
    app = OutputApp(output)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        took = time.perf_counter() - started
        visible = output._visible_text()
        assert len(visible) == VISIBLE_MAX_CHARS and visible.endswith(" END")
        assert output.query_one(".-more", Static).display
        hidden = len(text) - VISIBLE_MAX_CHARS
        assert marker(output).startswith(f"▲ the first {hidden:,} characters are not shown")
        output.update_output(text, show_all=True)
        assert len(output._visible_text()) == SHOW_ALL_MAX_CHARS
        assert "octui export --format json has all of them" in marker(output)
        assert "\x1b" not in str(output.query_one(".-output", Static).render())
    assert took < 5.0, f"mounting took {took:.1f} s"


async def test_many_lines_keep_the_line_cap() -> None:
    text = "\n".join(f"line {i}" for i in range(450))
    output = TerminalOutput(text)
    async with OutputApp(output).run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert (output.total_lines, output.hidden_lines) == (450, 250)
        assert output._visible_text().startswith("line 250\n")
        assert marker(output).startswith("▲ 250 earlier lines hidden · show all (450 lines)")
        output.update_output("short")
        assert not output.query_one(".-more", Static).display


def test_output_of_control_characters_only_is_shown_not_taken_for_none() -> None:
    assert TerminalOutput("\x0b\x0c")._render_output().plain == "␋␌"  # str.strip() takes them for whitespace
    assert TerminalOutput(" \n\t ")._render_output().plain == "(no output)"
    assert TerminalOutput("\r")._render_output().plain == "\\r"  # a lone \r is drawn as its token too


async def test_all_of_a_long_output_read_through_keeps_only_the_lines_near_the_view() -> None:
    """With "show all" an output can be thousands of lines: read to its end (600 here), only the lines
    within a screen of the view stay drawn (Textual kept every line it drew)."""
    from textual.containers import VerticalScroll

    from widgets.tools.output_text import OutputText

    output = TerminalOutput("".join(f"line {i}\n" for i in range(600)), show_all=True)

    class ScrollApp(App[None]):
        def compose(self) -> ComposeResult:
            with VerticalScroll():
                yield output

    app = ScrollApp()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        scroll, text = app.query_one(VerticalScroll), output.query_one(OutputText)
        assert text.size.height >= 600
        for y in range(0, text.size.height, 10):
            scroll.scroll_to(y=y, animate=False)
            await pilot.pause()
        assert len(text._styles_cache._cache) <= 5 * 10
        assert "line 599" in "".join(strip.text for strip in app.screen._compositor.render_strips())


# Pieces of terminal output: SGR colours (Rich parses these), other escapes, controls, bidi, joiners.
OUTPUT_PIECES = st.lists(st.sampled_from([
    "\x1b[1;34m", "\x1b[0m", "\x1b[m", "\x1b[38:5:1m", "\x1b[2J", "\x1b]8;;https://e.example/\x1b\\",
    "\x1b", "[", "m", "\x9b31m", "\u202e", "\u200d", "👨", "\r\n", "\r", "\n", "\t", "\x07", "ls", " ",
]), max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(OUTPUT_PIECES)
def test_the_export_of_shell_output_is_the_text_drawn(text: str) -> None:
    """``drop_sgr`` (the export and the copies) writes what the shell's output row draws."""
    assert drop_sgr(text) == ansi_to_content(text).plain
