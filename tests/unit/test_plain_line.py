"""``plain_line`` and ``one_line`` read only the start of a long string, and show what they showed
reading it all.

A one-line label (a title, a file name, a streamed tool input in a row's header, a failure's
cause) of a huge string used to clean the whole string to show its first characters: O(size) for
every repaint, ~0.3 s for a megabyte of hostile text.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tui.text.sanitize
from tui.text.sanitize import one_line
from widgets.plain import plain_line

PIECES = ["a", "b", "漢", " ", "  ", "\t", "\n", "\r\n", "\x1b", "\x1b[31m", "\x07", "\u202e", "\u200d",
          "\u200d\u200d", "👍", "\u0301", "\u00a0", "\u3000", "<U+202E>", "…", "x" * 9,
          "\r", "\x85", "\u2028", "\x0b", "\x1c", "\u2000", "\ud800", "<U+"]


def whole(text: str, limit: int, strict: bool, breaks: bool = False) -> str:
    """What ``plain_line`` showed reading the whole string (its window as long as the text)."""
    saved = tui.text.sanitize.LINE_WINDOW
    tui.text.sanitize.LINE_WINDOW = (0, len(text) + 1)
    try:
        return plain_line(text, limit, strict=strict, breaks=breaks).markup
    finally:
        tui.text.sanitize.LINE_WINDOW = saved


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=80).map("".join), st.integers(min_value=1, max_value=30),
       st.booleans(), st.integers(min_value=0, max_value=3), st.integers(min_value=0, max_value=20),
       st.booleans())
def test_the_start_shows_what_the_whole_showed(text: str, limit: int, strict: bool, factor: int,
                                               extra: int, breaks: bool) -> None:
    saved = tui.text.sanitize.LINE_WINDOW
    tui.text.sanitize.LINE_WINDOW = (factor, extra)  # small windows: every boundary is met
    try:
        start = plain_line(text, limit, strict=strict, breaks=breaks).markup
    finally:
        tui.text.sanitize.LINE_WINDOW = saved
    assert start == whole(text, limit, strict, breaks)


@pytest.mark.parametrize("strict", [False, True])
def test_a_huge_string_costs_what_its_line_shows(strict: bool) -> None:
    huge = "\u202e[/b]\x1b]0;x\x07 word " * 200_000  # 3.2 MB of hostile text
    line = plain_line(huge, 60, strict=strict)
    assert line.plain.endswith("…") and len(line.plain) == 60
    assert line.markup == whole(huge, 60, strict)
    started = time.process_time()
    for _ in range(100):
        plain_line(huge, 60, strict=strict)
    # Reading it all took ~0.5 s a call here; the start alone takes microseconds.
    assert time.process_time() - started < 1.0


def one_line_whole(text: str, limit: int, breaks: bool = False) -> str:
    """What ``one_line`` showed reading the whole string (its window as long as the text)."""
    saved = tui.text.sanitize.LINE_WINDOW
    tui.text.sanitize.LINE_WINDOW = (0, len(text) + 1)
    try:
        return one_line(text, limit, breaks=breaks)
    finally:
        tui.text.sanitize.LINE_WINDOW = saved


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=80).map("".join), st.integers(min_value=1, max_value=30),
       st.integers(min_value=0, max_value=3), st.integers(min_value=0, max_value=20), st.booleans())
def test_one_line_from_the_start_is_what_the_whole_showed(text: str, limit: int, factor: int,
                                                          extra: int, breaks: bool) -> None:
    saved = tui.text.sanitize.LINE_WINDOW
    tui.text.sanitize.LINE_WINDOW = (factor, extra)
    try:
        start = one_line(text, limit, breaks=breaks)
    finally:
        tui.text.sanitize.LINE_WINDOW = saved
    assert start == one_line_whole(text, limit, breaks)


def test_one_line_of_a_huge_string_costs_what_it_shows() -> None:
    huge = "\u202e[/b]\x1b]0;x\x07 word " * 200_000
    line = one_line(huge, 60)
    assert line.endswith("…") and len(line) <= 60
    assert line == one_line_whole(huge, 60)
    started = time.process_time()
    for _ in range(100):
        one_line(huge, 60)
    assert time.process_time() - started < 1.0  # ~0.5 s a call reading it all


def test_a_cr_cut_from_its_lf_by_the_window_is_read_again() -> None:
    """The one way a start shows something the whole does not: a CR whose LF is past the window
    is a 2-character token there, a blank in the whole. The margin past the cut covers it.
    (``strict`` shows every CR as a token: its start has no such edge.)"""
    text = "a" * 10 + " " * 93 + "\r\n" + "b"  # the window (4 * 10 + 64) ends on the CR
    assert one_line(text, 10) == one_line_whole(text, 10) == "aaaaaaaaa…"
    assert plain_line(text, 10).markup == whole(text, 10, False) == "aaaaaaaaa…"
    text = "a" * 10 + " " * 93 + "\r\n"
    assert one_line(text, 10) == one_line_whole(text, 10) == "aaaaaaaaaa"
    assert plain_line(text, 10).markup == whole(text, 10, False) == "aaaaaaaaaa"


@pytest.mark.parametrize("text", ["a\r\nb", "a \r\n b", "\r\nx", "x\r\n", "a\rb", "x\r",
                                  "a\r\r\nb", "a\n\rb", "[b]x[/b]\r\n\x1b[31my"])
def test_plain_line_reads_a_line_as_one_line_does(text: str) -> None:
    """A CRLF is a line break (a blank on one line) in both; a CR on its own is a token in both.
    Under ``strict`` (a command to approve) every CR stays a token."""
    assert plain_line(text).plain == one_line(text)
    assert plain_line(text, strict=True).plain.count("\\r") == text.count("\r")


def test_a_cut_never_leaves_half_a_token() -> None:
    """A lone CR is the 2-character token ``\\r``: a cut between its two characters left a bare
    backslash before the ``…``, as a cut inside ``<U+202E>`` would leave ``<U+2``."""
    assert one_line("xxxxx\ra", 7) == "xxxxx…"
    assert one_line("xxxxx\u202eabc", 8) == "xxxxx…"
    assert one_line("xxxxx\\yy", 7) == "xxxxx\\…"  # a backslash of the text is kept
    for limit in range(1, 12):
        text = "ab\rcd\u202eef\x1bgh"
        assert plain_line(text, limit).plain == one_line(text, limit)


@pytest.mark.parametrize("command", ["echo a\nrm -rf x", "echo a\n\n  \nrm -rf x\n", "\necho a\r\nrm -rf x"])
def test_a_command_of_two_lines_never_reads_as_one(command: str) -> None:
    """QA: a collapsed tool row showed ``echo a⏎rm -rf x`` as ``echo a rm -rf x``, one harmless
    echo. Each line break (blank lines with it) is a ``⏎`` token, in the row's header (styled as
    a token: typed, the same character looks different) and in the inbox's one-line summary."""
    shown = plain_line(command, 80, strict=True, breaks=True)
    crlf = "\\r" if "\r" in command else ""  # (strict: a CR is a token of its own)
    assert shown.plain == f"echo a{crlf} ⏎ rm -rf x"
    assert [span for span in shown.spans if shown.plain[span.start:span.end] == "⏎"]
    assert one_line(command, 80, breaks=True) == "echo a ⏎ rm -rf x"
    assert one_line(command, 80) == "echo a rm -rf x"  # (prose: a line break is a blank)
