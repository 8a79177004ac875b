"""One rendered line of an answer: ``(text, style number)`` pairs, the whole width.

Tuples of strings and ints are invisible to the garbage collector; Segments (which hold Styles)
or Strips (seven caches each) are not, and a 1 MB answer is ~300,000 of them: every full
collection walked them all (≈ 150 ms a pass). Markdown themes give a few hundred distinct styles
at most, each numbered once.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style

Line = tuple[tuple[str, int], ...]
_style_numbers: dict[Style, int] = {}
_styles: list[Style] = []
_NULL = Style.null()


# A code answer's rows are mostly the same few dozen short pieces (a space, an indent, "=", "(",
# a keyword, a name used again and again, each in its look): 8,562 pieces in the 422 rows of a
# 20 KB one, 95 of them different. Each row holding the same tuple, not one of its own, keeps
# ~0.5 MB less for that answer. Bounded: pieces that repeat are short, and the table starts
# again when full (rows keep the tuples they hold), so a later answer's pieces are shared too.
_SHARED_MAX = 4096
_SHARED_CHARS = 16
_shared: dict[tuple[str, int], tuple[str, int]] = {}


def shared_pair(text: str, number: int) -> tuple[str, int]:
    """``(text, number)``, the very tuple of the rows that have it already when it is short."""
    made = (text, number)
    if len(text) > _SHARED_CHARS:
        return made
    found = _shared.get(made)
    if found is not None:
        return found
    if len(_shared) >= _SHARED_MAX:
        _shared.clear()
    _shared[made] = made
    return made


def style_number(style: Style) -> int:
    number = _style_numbers.get(style)
    if number is None:
        number = _style_numbers[style] = len(_styles)
        _styles.append(style)
    return number


# Each look over a widget's own colours (its background and text colour: Rich's styles from the
# markdown have none, and a line drawn without them shows the terminal's own), made once.
_OVER_MAX = 4096
_over: dict[tuple[Style, int], Style] = {}


def style_of(number: int) -> Style:
    """The look numbered ``number`` (``style_number``)."""
    return _styles[number]


def line_segments(line: Line, base: Style | None = None) -> list[Segment]:
    """The segments of ``line``, each look drawn over ``base`` (the widget's colours) if given."""
    styles = _styles
    if base is None:
        return [Segment(text, styles[number]) for text, number in line]
    over = _over
    segments = []
    for text, number in line:
        style = over.get((base, number))
        if style is None:
            if len(over) >= _OVER_MAX:
                over.clear()
            style = over[(base, number)] = base + styles[number]
        segments.append(Segment(text, style))
    return segments


def line_text(line: Line) -> str:
    """The characters ``line`` shows."""
    return "".join(text for text, _style in line)


def plain_line(text: str, width: int) -> Line:
    """``text`` alone on a line, cut or padded to ``width`` cells (wide characters count two)."""
    return ((set_cell_size(text, width), style_number(_NULL)),)


def pad_line(line: Line, width: int) -> Line:
    """``line`` cut or padded to ``width`` as ``as_line`` would have made it at that width."""
    length = sum(cell_len(text) for text, _style in line)
    if length < width:
        return (*line, (" " * (width - length), style_number(_NULL)))
    return line if length == width else as_line(line_segments(line), width)


def as_line(segments: Iterable[Segment], width: int) -> Line:
    """Rich's segments of one line, cut or padded to ``width`` as ``Segment.adjust_line_length``
    does (every segment with a real style, as Textual's filters expect)."""
    return tuple([shared_pair(text, style_number(style or _NULL))
                  for text, style, _control in Segment.adjust_line_length(list(segments), width)])
