"""Streaming text into one live tail as ``TextBlockView`` does, every grown frame checked
against Rich: the oracle of the growing paragraph's and the growing fence's tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

from rich.console import Console
from rich.style import Style

from widgets.transcript.markdown_chunk import render_piece
from widgets.transcript.markdown_seal import SENTINEL, Piece
from widgets.transcript.piece_lines import PieceLines
from widgets.transcript.rendered_line import Line, _styles

CONSOLE = Console(width=200, color_system="truecolor", force_terminal=True, legacy_windows=False)


def cells(lines: list[Line]) -> list[list[tuple[str, Style]]]:
    """Each line as its cells: (character, style); segment boundaries do not show."""
    return [[(char, _styles[number]) for text, number in line for char in text] for line in lines]


@contextmanager
def syntax_only() -> Iterator[None]:
    """Code blocks drawn by Rich's ``Syntax`` itself, not made from their tokens (``code_rows``):
    the oracle."""
    with mock.patch("widgets.transcript.markdown_chunk.code_tokens", return_value=None):
        yield


def rich_piece(console: Console, piece: Piece, width: int) -> list[Line]:
    """``render_piece`` with every code block drawn by ``Syntax``."""
    with syntax_only():
        return render_piece(console, piece, width)


def piece(source: str, sentinel: bool) -> Piece:
    return Piece(source, SENTINEL + source, 1) if sentinel else Piece(source, source)


def grow_all(chunks: list[str], width: int, sentinel: bool = False, *, head: str = "",
             same_segments: bool = False) -> PieceLines:
    """Stream ``chunks`` after ``head`` into one tail piece; every tail ``PieceLines.grow`` takes
    from the one before must be what Rich renders for it, cell for cell (``same_segments``: and
    segment for segment, so a line that did not change is not repainted)."""
    pieces = PieceLines()
    pieces.set_width(width)
    source = head
    for chunk in chunks:
        old = pieces.pieces[0] if len(pieces) else None
        old_lines = pieces.rendered_lines(0) if len(pieces) else None
        if len(pieces):
            pieces.pop()
        source += chunk
        pieces.push(piece(source, sentinel))
        if old is not None and old_lines is not None and pieces.grow(0, old, old_lines, CONSOLE):
            grown = pieces.rendered_lines(0)
            assert grown is not None
            expected = rich_piece(CONSOLE, pieces.pieces[0], width)
            assert cells(grown) == cells(expected), (source, width)
            assert not same_segments or grown == expected, (source, width)
            assert pieces.heights.total == len(expected)
        else:
            pieces.render(0, CONSOLE)
    return pieces
