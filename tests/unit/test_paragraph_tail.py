"""A grown paragraph's lines taken from the old ones equal Rich's rendering of the new text.

Rich is the oracle: every time ``PieceLines.grow`` takes a tail's lines from the tail it grew
from, they must be, cell for cell and style for style, what rendering the new tail gives.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.style import Style

from widgets.transcript.markdown_chunk import render_piece
from widgets.transcript.markdown_seal import SENTINEL, Piece
from widgets.transcript.paragraph_tail import extend_paragraph, plain_growth
from widgets.transcript.piece_lines import PieceLines
from widgets.transcript.rendered_line import Line, _styles

CONSOLE = Console(width=200, color_system="truecolor", force_terminal=True, legacy_windows=False)

# Plain words, and everything that makes a paragraph's growth not plain: markup, block starts,
# line breaks, quotes (link titles), non-ASCII, wide characters, words longer than the width.
WORDS = ["word", "streaming", "a", "of", "text,", "end.", "x=1", "50%", "well-known", "9", " ", "  ",
         "**", "*", "_", "`", "[", "]", "(", ")", "](http://x)", "\\", "&amp;", "&", '"', "'", "~~",
         "<b>", "<", ">", "!", "|", "#", "\n", "\n\n", "\n- ", "\n1. ", "\n> ", "\n    ", "\n```\n",
         "\n===", "\n---", "\t", "é", "日本語", "e\u0301", "Supercalifragilisticexpialidocious" * 3,
         ";", "amp", "&#32;", "[a]:\nhttp://x", "[a]:", " " * 12]


def cells(lines: list[Line]) -> list[list[tuple[str, Style]]]:
    """Each line as its cells: (character, style); segment boundaries do not show."""
    return [[(char, _styles[number]) for text, number in line for char in text] for line in lines]


def piece(source: str, sentinel: bool) -> Piece:
    return Piece(source, SENTINEL + source, 1) if sentinel else Piece(source, source)


def grow_all(chunks: list[str], width: int, sentinel: bool) -> PieceLines:
    """Stream ``chunks`` into one tail piece as ``TextBlockView`` does; check every grown tail."""
    pieces = PieceLines()
    pieces.set_width(width)
    source = ""
    for chunk in chunks:
        old = pieces.pieces[0] if len(pieces) else None
        old_lines = pieces.rendered_lines(0) if len(pieces) else None
        if len(pieces):
            pieces.pop()
        source += chunk
        pieces.push(piece(source, sentinel))
        if old is not None and old_lines is not None and pieces.grow(0, old, old_lines):
            grown = pieces.rendered_lines(0)
            assert grown is not None
            expected = render_piece(CONSOLE, pieces.pieces[0], width)
            assert cells(grown) == cells(expected), (source, width)
            assert pieces.heights.total == len(expected)
        else:
            pieces.render(0, CONSOLE)
    return pieces


PLAIN_WORDS = ["the", "and", "longer", "words", "x", "a", "streaming,", "end.", "  ", "q",
               "Supercalifragilistic" * 2, "the   "]
# Mostly plain words (so paragraphs grow for many chunks and wrap), with markup mixed in.
TOKEN = st.one_of(*[st.sampled_from(PLAIN_WORDS)] * 3, st.sampled_from(WORDS))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(TOKEN, min_size=1, max_size=3).map(" ".join), min_size=1, max_size=60),
       st.integers(min_value=4, max_value=70), st.booleans())
def test_grown_tail_is_what_rich_renders(chunks: list[str], width: int, sentinel: bool) -> None:
    grow_all(chunks, width, sentinel)


def test_a_plain_paragraph_grows_without_rich() -> None:
    words = ("streaming text with **bold words**, `inline code` and plain ones that wrap across "
             "the width of the terminal like a real answer does. ") * 4
    chunks = [words[i:i + 5] for i in range(0, len(words), 5)]
    pieces = grow_all(chunks, 40, sentinel=True)
    # Chunks with a backtick or an asterisk, and those after one, are rendered; most are not.
    assert pieces.grown > len(chunks) // 2
    assert pieces.rendered_count < len(chunks) // 2


def test_not_plain_growth_is_refused() -> None:
    old = Piece("Some text", "Some text")
    assert plain_growth(old, Piece("Some text and", "Some text and")) == " and"
    for added in ("*", "`x", "\nmore", " [a]", " (x)", ' "t"', " é", "\t"):
        assert plain_growth(old, Piece("Some text" + added, "Some text" + added)) is None
    for start in ("- item", "1. one", "# head", "> quote", ""):
        assert plain_growth(Piece(start, start), Piece(start + " x", start + " x")) is None
    # The text ends with a delimiter: the character after it decides what it is ("_a b_" is
    # emphasis, "_a b_c" is not).
    emphasis = Piece("_a b_", "_a b_")
    assert plain_growth(emphasis, Piece("_a b_c", "_a b_c")) is None


def test_a_long_word_folded_onto_the_last_line_is_rendered_again() -> None:
    long_word = "x" * 50
    old = Piece(long_word, long_word)
    old_lines = render_piece(CONSOLE, old, 20)
    assert extend_paragraph(old, old_lines, Piece(long_word + "y", long_word + "y"), 20) is None


def test_only_a_paragraph_grows() -> None:
    """Plain words added to code (indented or fenced) or a quote's lazy line: rendered again."""
    for start in ("    code", "```\ncode", "> quote\nlazy", "text\n\n    code"):
        pieces = PieceLines()
        pieces.set_width(40)
        old = Piece(start, start)
        pieces.push(old)
        pieces.render(0, CONSOLE)
        old_lines = pieces.rendered_lines(0)
        assert old_lines is not None
        pieces.pop()
        pieces.push(Piece(start + " more", start + " more"))
        assert not pieces.grow(0, old, old_lines), start


@pytest.mark.parametrize("chunks,width", [
    (["Tom &amp", "; Jerry"], 40),  # ";" ends an entity
    (["foo&#32;", "bar"], 40),  # an entity that renders as a space, at the end
    (["Intro text.\n\n[a]:\nhttp://x.com", " b"], 40),  # a definition's URL line grows
    (["x" * 11 + " " * 12 + "ab", "cdefgh"], 10),  # a last line of folded trailing spaces
    (["the", "the   "], 4),  # trailing spaces added: the paragraph's end is trimmed, not folded
])
def test_growth_that_changes_what_came_before_is_rendered_again(chunks: list[str], width: int) -> None:
    """Counter-examples a review found: each once took the shortcut and drew what Rich does not."""
    for sentinel in (False, True):
        grow_all(chunks, width, sentinel)
