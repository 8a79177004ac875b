"""TerminalOutput draws a bounded part of any output: lines and characters capped, said above."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.content import Content
from textual.widgets import Static

from tui.protocol.models import ToolContent
from tui.state.transcript import ToolCall
from tui.text.sanitize import drop_sgr, overstrike
from tui.text.tools import output_cuts
from widgets.plain import content_runs
from widgets.tools.renderers import BodyOptions, shell
from widgets.tools.terminal_output import (
    SHOW_ALL_MAX_CHARS,
    VISIBLE_MAX_CHARS,
    TerminalOutput,
    ansi_to_content,
)


def colour(style: str | Style) -> int | None:
    """The ANSI colour number of a span's style."""
    assert isinstance(style, Style)
    return style.color.number if style.color is not None else None


def plain_ansi_rich(text: str) -> Text:
    """What ``ansi_to_content`` parses (its carriage returns obeyed), as rich ``Text`` with its
    colour spans named."""
    return Text.from_ansi(overstrike(text), end="")


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
    # A lone \r is obeyed as a terminal does (it draws nothing); as plain output (an unknown tool's)
    # it is drawn as its token
    assert TerminalOutput("\r")._render_output().plain == "(no output)"
    assert TerminalOutput("\r", plain=True)._render_output().plain == "\\r"


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


# -- carriage returns: a terminal goes back to the line's start and overwrites -----------------


def test_a_progress_bar_reads_as_its_last_frame() -> None:
    """150 frames of ``printf '\\r[###…] N%'`` then ``echo finished`` (QA, real server): the
    frames were drawn one after another with a ``\\r`` token between them, ~100 wrapped lines."""
    frames = "".join(f"\r[{'#' * (n // 3):<50}] {n * 100 // 150}%" for n in range(1, 151))
    content = ansi_to_content(frames + "\nfinished")
    assert content.plain == f"[{'#' * 50}] 100%\nfinished"
    assert not any(token for _, token in content_runs(content))


def test_a_carriage_return_overwrites_as_a_terminal_does() -> None:
    assert ansi_to_content("downloading 100%\rdone").plain == "doneloading 100%"  # the tail stays
    assert ansi_to_content("one\r\ntwo\r\n").plain == "one\ntwo\n"  # CRLF: a line end
    assert ansi_to_content("abc\r").plain == "abc"  # back to the start, nothing written over it
    assert ansi_to_content("a\rb\nc\rd").plain == "b\nd"  # each line on its own


def test_other_controls_stay_visible_tokens_through_an_overwrite() -> None:
    content = ansi_to_content("xyz\x07\x1b]0;t\x07\rab")
    assert content.plain == "abz␇␛]0;t␇"
    assert content_runs(content) == [("abz", False), ("␇␛", True), ("]0;t", False), ("␇", True)]


def test_colours_stay_with_the_characters_that_overwrite() -> None:
    text = "\x1b[31mred long line\x1b[0m\r\x1b[34mblue\x1b[0m\nafter \x1b[32mgreen"
    content = ansi_to_content(text)
    assert content.plain == "bluelong line\nafter green"
    rich_text = plain_ansi_rich(text)
    assert [(rich_text.plain[s.start:s.end], colour(s.style)) for s in rich_text.spans] == [
        ("blue", 4), ("long line", 1), ("green", 2)]


def test_a_colour_set_before_the_overwritten_line_still_holds_after_it() -> None:
    rich_text = plain_ansi_rich("\x1b[1mbold\nx\ry\nstill bold")
    assert rich_text.plain == "bold\ny\nstill bold"
    bold = [rich_text.plain[s.start:s.end] for s in rich_text.spans
            if isinstance(s.style, Style) and s.style.bold]
    assert "y" in bold and "still bold" in bold


def test_many_carriage_returns_take_linear_time() -> None:
    """A long first frame then 200,000 one-character ones: rebuilding the line for each frame
    (even by slicing, which copies it) takes seconds; and 3 MB of coloured frames. Timed in CPU,
    not wall time (a loaded machine ran the check past its wall-clock bound)."""
    started = time.thread_time()
    assert overstrike("x" * 200_000 + "\ry" * 200_000) == "y" + "x" * 199_999
    took = time.thread_time() - started
    assert took < 1.5, f"took {took:.1f} s of CPU"  # 0.4 s here; copying the line each frame: 2.4 s
    started = time.thread_time()
    text = ("\x1b[32m" + "#" * 40 + "\x1b[0m 50%\r") * 50_000 + "\nfinished"
    assert drop_sgr(text) == "#" * 40 + " 50%\nfinished"
    took = time.thread_time() - started
    assert took < 4.0, f"took {took:.1f} s of CPU"


def test_the_output_of_a_progress_bar_is_drawn_cheaply() -> None:
    frames = "".join(f"\r\x1b[32m[{'#' * (n % 50):<50}]\x1b[0m {n}%" for n in range(4000))  # 250 kB
    started = time.thread_time()  # CPU: a loaded machine must not fail it
    output = TerminalOutput(frames + "\nfinished")
    content = output._render_output()
    took = time.thread_time() - started
    assert content.plain.endswith("\nfinished") and "\\r" not in content.plain
    assert took < 2.0, f"took {took:.1f} s"


# -- a server that cut the output: its notes are not output lines ------------------------------

SAVED = "/home/dev/.local/share/opencode/tool-output/tool_e1f2a3b4c5d6"


def server_cut_118() -> str:
    """What 1.18.33 sends for ``seq 1 20000 | sed 's/$/ lorem ipsum/'`` past its tool-output limit
    (read in the server's code): the first and the last lines it kept around its note, and its shell
    capture limit's note; after them the exit sentence (``shell_output`` takes it off)."""
    head = "\n".join(f"{n} lorem ipsum" for n in range(1, 344))
    tail = "\n".join(f"{n} lorem ipsum" for n in range(13603, 13945))
    return (f"{head}\n\n... output truncated; full content saved to {SAVED} ...\n\n{tail}\n\n"
            "[output capture truncated at the in-memory safety limit]")


def test_a_cut_output_counts_only_its_output_lines_and_says_the_server_left_out_more() -> None:
    text = server_cut_118()
    output = TerminalOutput(text, cuts=output_cuts(text))
    assert output._visible_text().startswith("13747 lorem ipsum\n")
    # It said "490 earlier lines hidden · show all (690 lines)": the server's notes counted as output
    # lines, and a total for an output of which the server sent only the first and last lines.
    assert output._marker().plain == \
        "▲ 487 earlier lines hidden, more cut by the server · show all (685 lines sent) [a]"


def test_a_cut_whose_size_the_server_gives_is_counted() -> None:
    """v2's tool-output limit keeps the first lines and says how many it left out after them."""
    text = "\n".join(f"{n} lorem ipsum" for n in range(1, 1945))
    text += f"\n... 12000 lines truncated; full content saved to {SAVED} ..."
    output = TerminalOutput(text, cuts=output_cuts(text))
    assert output._visible_text().startswith("1746 lorem ipsum\n")
    assert output._marker().plain == "▲ 1,745 earlier lines hidden · show all (13,944 lines) [a]"


def test_a_v2_shell_cut_left_out_the_first_lines() -> None:
    """The v2 shell keeps the last lines of the output, then its note."""
    text = "\n".join(f"{n} lorem ipsum" for n in range(12000, 13945))
    text += f"\n\n[output truncated; full output saved to: {SAVED}]"
    output = TerminalOutput(text, cuts=output_cuts(text))
    assert output._visible_text().startswith("13747 lorem ipsum\n")
    assert output._marker().plain == \
        "▲ 1,747 earlier lines hidden, more cut by the server · show all (1,945 lines sent) [a]"


def test_without_a_cut_the_counts_are_the_lines_of_the_text() -> None:
    text = "\n".join(f"line {n}" for n in range(13944))
    assert TerminalOutput(text, cuts=output_cuts(text))._marker().plain == \
        "▲ 13,744 earlier lines hidden · show all (13,944 lines) [a]"


def shell_call(text: str, metadata: dict[str, object]) -> ToolCall:
    return ToolCall(id="c1", name="bash", status="completed", input={"command": "seq 1 20000"},
                    metadata=metadata,
                    content=[ToolContent(text=text), ToolContent(text="Command exited with code 0.")])


def note(call: ToolCall) -> str:
    notes = [w for w in shell.render(call, BodyOptions()) if w.has_class("-note")]
    assert len(notes) == 1 and isinstance(notes[0], Static)
    content = notes[0].visual
    assert isinstance(content, Content)
    return content.plain


def test_the_note_says_where_the_server_saved_the_whole_output() -> None:
    # 1.18.33: ``outputPaths`` (kept in ``metadata`` by the dialect), its capture limit's ``truncated``
    call = shell_call(server_cut_118(), {"exit": 0, "truncated": True, "outputPaths": [SAVED]})
    assert note(call) == f"✂ output truncated by the server; full output saved to {SAVED}"
    # 1.18.33 past its tool-output limit only: ``truncated`` is false, the path says it was cut
    call = shell_call(server_cut_118(), {"exit": 0, "truncated": False, "outputPaths": [SAVED]})
    assert note(call) == f"✂ output truncated by the server; full output saved to {SAVED}"
    # v2: ``metadata.outputPath``; the v2 shell says it only in its note in the output
    call = shell_call("a\nb", {"exit": 0, "truncated": True, "outputPath": SAVED})
    assert note(call) == f"✂ output truncated by the server; full output saved to {SAVED}"
    text = f"a\nb\n\n[output truncated; full output saved to: {SAVED}]"
    call = shell_call(text, {"exit": 0, "truncated": True})
    assert note(call) == f"✂ output truncated by the server; full output saved to {SAVED}"
    # a cut the server names no file for
    assert note(shell_call("a", {"exit": 0, "truncated": True})) == "✂ output truncated by the server"


def test_the_saved_path_is_shown_as_data() -> None:
    hostile = "/home/dev/[b]x[/b]\x1b]0;pwned\x07\u202e.txt"
    call = shell_call("a", {"exit": 0, "truncated": True, "outputPath": hostile})
    assert note(call) == \
        "✂ output truncated by the server; full output saved to /home/dev/[b]x[/b]␛]0;pwned␇<U+202E>.txt"


@pytest.mark.parametrize(("text", "shown"), [
    ("x\x1b[2K\rdone", "done"),  # a progress line cleared, then written again (a review found
    ("\r\x1b[KDownloading 10%\r\x1b[Kok", "ok"),  # "doneK" and "␛[Kokwnloading 100%" here)
    ("\x1b[2K\rProgress 10%\x1b[2K\rDone", "Done"),
    ("abcdef\rxy\x1b[1K", "   def"),  # erased up to the cursor
    ("日本\rab", "ab本"),  # a wide character takes two columns
    ("日本\ra", "a 本"),  # ... and half of one written over blanks the other
    ("ab\r日", "日"),
])
def test_an_erase_in_line_and_wide_characters_draw_as_in_a_terminal(text: str, shown: str) -> None:
    assert overstrike(text) == shown


def test_another_escape_is_kept_whole_where_it_was_written() -> None:
    """Not obeyed (shown as a token later), never cut: an overwrite left 'K' of 'ESC[2K' as
    text of its own."""
    assert overstrike("abc\r\x1b]0;title\x07Z") == "\x1b]0;title\x07Zc"
    assert overstrike("abc\r\x1b[5n") == "\x1b[5nbc"
