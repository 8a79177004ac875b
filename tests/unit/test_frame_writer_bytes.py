"""The frame writer's byte savings leave the terminal exactly as the long form would: an SGR
change by difference (``sgr_change``) and blank runs erased instead of written. Replayed in pyte."""

from __future__ import annotations

from typing import Any

import pyte
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rich.color import ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from tests.unit.cell_looks import look
from tui.app.frame_writer import ERASE_MIN, _sgr, render_cells, sgr_change

W = 60
colors = st.sampled_from([None, "red", "bright_cyan", "color(80)", "color(233)", "#102030", "default"])
styles = st.builds(
    lambda fg, bg, bold, dim, italic, underline, reverse, strike: Style(
        color=fg, bgcolor=bg, bold=bold, dim=dim, italic=italic, underline=underline,
        reverse=reverse, strike=strike),
    colors, colors, st.booleans(), st.booleans(), st.booleans(), st.booleans(), st.booleans(),
    st.booleans())
systems = st.sampled_from([ColorSystem.STANDARD, ColorSystem.EIGHT_BIT, ColorSystem.TRUECOLOR])


def cells(output: str) -> list[Any]:
    screen = pyte.Screen(W, 2)
    pyte.ByteStream(screen).feed(output.encode())
    return [look(screen.buffer[y][x]) for y in range(2) for x in range(W)]


@settings(max_examples=300, deadline=None)
@given(styles, styles, systems)
def test_a_change_by_difference_sets_what_a_reset_would(before: Style, after: Style,
                                                         system: ColorSystem) -> None:
    current, target = _sgr(before, system), _sgr(after, system)
    change = sgr_change(current, target)
    ours = current + "ab" + change + "cd"
    theirs = current + "ab" + "\x1b[0m" + target + "cd"
    assert cells(ours) == cells(theirs)
    assert len(change) <= len("\x1b[0;" + target[2:])  # never longer than from a reset


def test_a_new_foreground_on_the_same_background_is_only_the_foreground() -> None:
    system = ColorSystem.EIGHT_BIT
    current = _sgr(Style(color="color(231)", bgcolor="color(235)"), system)
    target = _sgr(Style(color="color(204)", bgcolor="color(235)"), system)
    assert sgr_change(current, target) == "\x1b[38;5;204m"


MARK = "\u0301"  # a combining acute accent: drawn with the cell before it


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "bc", " " * 3, " " * ERASE_MIN, " " * 20, MARK,
                                           " " * ERASE_MIN + MARK + " " * ERASE_MIN]), styles),
                min_size=1, max_size=6), st.booleans(), styles)
def test_blank_runs_erased_show_what_spaces_would(parts: list[tuple[str, Style]], to_end: bool,
                                                  before: Style) -> None:
    """From any style in force (the run before's), blanks erased or left in the colour in force,
    and combining marks after them, show what each segment written from a reset shows."""
    assume(not parts[0][0].startswith(MARK))  # a strip never starts with a mark (it has a base)
    segments = [Segment(text, style) for text, style in parts]
    width = sum(len(text.replace(MARK, "")) for text, _ in parts)
    assume(width < W)  # a strip is never wider than the screen
    line = Strip(segments, width)
    padding = W - width if to_end else 1  # to_end: the strip ends at the screen's right edge
    current = _sgr(before, ColorSystem.TRUECOLOR)
    out, sgr = render_cells(line, ColorSystem.TRUECOLOR, current, to_end=to_end)
    prefix = f"\x1b[1;{padding + 1}H"
    ours = cells(current + "Q" + prefix + out + "\x1b[0m")
    theirs = cells(current + "Q" + "\x1b[0m" + prefix +
                   "".join(_sgr(s, ColorSystem.TRUECOLOR) + t + "\x1b[0m" for t, s in parts))
    assert ours == theirs


def test_only_blanks_that_show_nothing_are_erased() -> None:
    shown = Strip([Segment("x" + " " * 20, Style(bgcolor="blue")), Segment(" " * 20, Style(reverse=True)),
                   Segment(" " * 19, Style(underline=True))], W)
    out, _ = render_cells(shown, ColorSystem.TRUECOLOR, to_end=True)
    assert "\x1b[20X\x1b[20C" in out  # the plain background run
    assert " " * 20 in out and " " * 19 in out  # reverse and underline spaces are drawn
    ends = Strip([Segment("x" + " " * (W - 1), Style(bgcolor="blue"))], W)
    assert render_cells(ends, ColorSystem.TRUECOLOR, to_end=True)[0].endswith("x\x1b[K")
    assert render_cells(ends, ColorSystem.TRUECOLOR)[0].endswith(f"x\x1b[{W - 1}X")  # the line goes on
    plain = Strip([Segment("x" + " " * (W - 1))], W)
    assert render_cells(plain, ColorSystem.TRUECOLOR, to_end=True)[0] == plain.text  # unstyled: written


def test_a_code_lines_padding_costs_no_colour_change() -> None:
    """A blank shows only its background: a code line's padding after its last token (another
    foreground) changes nothing, and its pieces are erased as one run (QA of the fences burst:
    each line paid a foreground change, an erase, a cursor move and one more space)."""
    system = ColorSystem.EIGHT_BIT
    code = Style(color="color(231)", bgcolor="color(235)")
    padding = Style(color="color(253)", bgcolor="color(235)")
    line = Strip([Segment(" ", padding), Segment("x = 1;", code), Segment(" " * 20, padding),
                  Segment(" ", padding)], 28)
    out, sgr = render_cells(line, system)
    assert out == "\x1b[48;5;235m \x1b[38;5;231mx = 1;\x1b[21X"  # the indent: its background only
    assert sgr == _sgr(code, system)  # what is in force: the next line's indent needs no change
    struck = Strip([Segment("a", Style(strike=True, bgcolor="color(235)")), Segment(" " * 3, padding)], 4)
    out, _ = render_cells(struck, system)
    assert out.endswith("\x1b[29m   ")  # a strike would show on blanks: turned off, nothing else
