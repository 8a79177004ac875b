"""One rendered line of an answer: ``(text, style number)`` pairs, the whole width.

Tuples of strings and ints are invisible to the garbage collector; Segments (which hold Styles)
or Strips (seven caches each) are not, and a 1 MB answer is ~300,000 of them: every full
collection walked them all (≈ 150 ms a pass). Markdown themes give a few hundred distinct styles
at most, each numbered once.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style

Line = tuple[tuple[str, int], ...]
_style_numbers: dict[Style, int] = {}
_styles: list[Style] = []
_NULL = Style.null()


def style_number(style: Style) -> int:
    number = _style_numbers.get(style)
    if number is None:
        number = _style_numbers[style] = len(_styles)
        _styles.append(style)
    return number


def line_segments(line: Line) -> list[Segment]:
    styles = _styles
    return [Segment(text, styles[number]) for text, number in line]


def line_text(line: Line) -> str:
    """The characters ``line`` shows."""
    return "".join(text for text, _style in line)


def plain_line(text: str, width: int) -> Line:
    return ((text[:width].ljust(width), style_number(_NULL)),)


def pad_line(line: Line, width: int) -> Line:
    """``line`` cut or padded to ``width`` as ``as_line`` would have made it at that width."""
    length = sum(cell_len(text) for text, _style in line)
    if length < width:
        return (*line, (" " * (width - length), style_number(_NULL)))
    return line if length == width else as_line(line_segments(line), width)


def as_line(segments: Iterable[Segment], width: int) -> Line:
    """Rich's segments of one line, cut or padded to ``width`` as ``Segment.adjust_line_length``
    does (every segment with a real style, as Textual's filters expect)."""
    return tuple([(text, style_number(style or _NULL))
                  for text, style, _control in Segment.adjust_line_length(list(segments), width)])
