"""A code block's rows as Rich's ``Syntax`` draws them (padding 1, word wrap), made from its tokens.

Syntax costs about three times the tokenizing for laying out what it tokenized: it builds a
``Text`` of the whole code, splits it into lines, wraps each one and pads it. But it draws each
line of a code block on its own, and a line that fits in one row is always drawn alike: the
padding, each token in the look Syntax gives its type, the fill to the width, the padding. Those
looks (a style number each) are learnt from the lines Syntax draws; a line is made here once the
looks of all its tokens are known, and any other line (longer than a row, a look not learnt yet)
is drawn by Syntax fed that line's tokens (``Replay``), its looks learnt then.

``block_rows`` draws a whole code block so (Rich's markdown code block, ``markdown_chunk``); the
growing fence draws an open fence's last lines with the same parts. Their tests compare every
row, cell for cell and segment for segment, with what Syntax draws for the same code.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pygments.lexer import Lexer
from pygments.token import Token as PygmentsToken
from rich.cells import cell_len
from rich.console import Console
from rich.syntax import Syntax

from tui.text.lexer_guard import LexerStuck, progressing
from widgets.transcript.markdown_parse import CODE_SYNTAX_THEME
from widgets.transcript.markdown_seal import token_lines
from widgets.transcript.rendered_line import Line, as_line, shared_pair, style_of

Token = tuple[Any, str]
TAB_SIZE = 4  # Syntax's default, which Rich's markdown code block keeps
MIN_WIDTH = 3  # narrower, a code block is drawn by Syntax (no cell for code between the paddings)


class Replay(Lexer):
    """A lexer that gives back tokens already made: Rich's ``Syntax`` draws them as its own."""

    def __init__(self, tokens: list[Token]) -> None:
        super().__init__()
        self.tokens = tokens

    def get_tokens(self, text: str, unfiltered: bool = False) -> Iterator[Token]:
        return iter(self.tokens)


def processed(code: str) -> str:
    """``code`` as ``Syntax`` hands it to the lexer (a newline at the end, tabs expanded)."""
    return (code if code.endswith("\n") else code + "\n").expandtabs(TAB_SIZE)


def code_tokens(lexer: Lexer, code: str) -> list[Token] | None:
    """``code`` tokenized as ``Syntax`` tokenizes it; None if the tokens are not the code's own
    characters (a lexer that changes them: Syntax is left to draw that code). A lexer that makes
    no progress on it (``lexer_guard``) leaves it plain text."""
    text = processed(code)
    try:
        tokens = list(progressing(lexer.get_tokens(text)))
    except LexerStuck:
        return [(PygmentsToken.Text, text)]
    if "".join(value for _kind, value in tokens) != text:
        return None
    return tokens


def visible(line: list[Token]) -> list[Token]:
    """A code line's tokens that draw something (its newline dropped)."""
    return [(kind, value.rstrip("\n")) for kind, value in line if value.rstrip("\n")]


def fitting_cells(values: list[str], inner: int) -> int | None:
    """The cells of a line made of ``values``, if it fits in one row ``inner`` cells wide as
    Syntax draws it; else None."""
    text = "".join(values)
    cells = cell_len(text)
    if cells != sum(cell_len(value) for value in values):
        return None  # (a character and its variation selector in two tokens: measured apart, as
        # the row's segments are, they take another width than together, as Rich pads the line)
    # (Rich crops the spaces at the end of a line longer than the width in characters, not
    # cells: a line with combining marks may fit and still lose them)
    return None if cells > inner or len(text) > inner else cells


def fitting_row(line: list[Token], width: int) -> Line | None:
    """One code line's row as Syntax draws a line that fits (the padding, each token in its
    look, the fill to the width, the padding), or None: a look not learnt yet, or too long."""
    pad, fill = _LOOKS.get(_PAD), _LOOKS.get(_FILL)
    if pad is None or width < MIN_WIDTH:
        return None
    inner = width - 2
    edge = shared_pair(" ", pad)
    parts: list[tuple[str, int]] = [edge]
    for kind, value in visible(line):
        look = _LOOKS.get(kind)
        if look is None:
            return None
        parts.append(shared_pair(value, look))
    cells = fitting_cells([value for value, _look in parts[1:]], inner)
    if cells is None or (cells < inner and fill is None):
        return None
    if cells < inner and fill is not None:
        parts.append(shared_pair(" " * (inner - cells), fill))
    parts.append(edge)
    return tuple(parts)


_CODE_BACKGROUND = CODE_SYNTAX_THEME.get_background_style().bgcolor


def padding_column(line: Line) -> int | None:
    """Where a code row's left padding is (Syntax draws a blank cell each side of the code; a
    block in a list or a quote is indented before it), in characters; None for a row that is
    not code. A copy leaves it out (QA: every whole line of pasted Python was one space in)."""
    column = 0
    for text, number in line:
        if style_of(number).bgcolor == _CODE_BACKGROUND:
            return column if text.startswith(" ") else None
        column += len(text)
    return None


def draw(console: Console, tokens: list[Token], width: int) -> list[Line]:
    """The rows Syntax draws for the whole code lines ``tokens`` make, and the padding under them;
    the look of the blank rows above and under a block is learnt from them."""
    # Code that ends with a newline is drawn with one more line, a blank one: the tokens'
    # text always does (as the whole code's does once Syntax added its newline).
    code = "".join(value for _kind, value in tokens)
    syntax = Syntax(code, Replay(tokens), theme=CODE_SYNTAX_THEME, word_wrap=True, padding=1)
    options = console.options.update(width=width, max_width=width, height=None)
    rows = [as_line(row, width) for row in console.render_lines(syntax, options, pad=False, new_lines=False)]
    if len(rows) >= 2 and rows[0] == rows[-1] == ((" " * width, rows[0][0][1]),):
        _LOOKS[_EDGE] = rows[0][0][1]  # the padding above and under a block: one blank segment
    # (the padding above is not these lines', nor the blank line before the padding under)
    return [*rows[1:-2], rows[-1]]


def syntax_rows(console: Console, line: list[Token], width: int) -> list[Line]:
    """The rows Syntax draws for one code line (the padding under them left out), its looks
    learnt."""
    drawn = draw(console, line, width)
    _learn(line, drawn, width)
    return drawn[:-1]


def _run_rows(console: Console, lines: list[list[Token]], width: int) -> list[Line]:
    """The rows Syntax draws for code lines in a row, the looks of each learnt where each line
    took one row."""
    if len(lines) == 1:
        return syntax_rows(console, lines[0], width)
    drawn = draw(console, [token for line in lines for token in line], width)
    if len(drawn) == len(lines) + 1:
        for line, row in zip(lines, drawn, strict=False):
            _learn(line, [row, drawn[-1]], width)
    return drawn[:-1]


def block_rows(console: Console, tokens: list[Token], width: int) -> list[Line] | None:
    """A code block's rows (``tokens``: its code's, ``code_tokens``) as ``Syntax(code,
    word_wrap=True, padding=1)`` draws them at ``width``, the paddings above and under included;
    None: let Syntax draw it (fed the same tokens), which costs less when most of its lines are
    longer than a row (a line drawn here by Syntax costs a Syntax of its own)."""
    if width < MIN_WIDTH:
        return None
    lines = token_lines(tokens)
    rows = [fitting_row(line, width) for line in lines]  # (None also for a look not learnt yet)
    # Measured again only where no row was made: most lines fit, and their looks are known.
    inner = width - 2
    longer = sum(1 for line, row in zip(lines, rows, strict=True)
                 if row is None and fitting_cells([value for _kind, value in visible(line)], inner) is None)
    if 2 * longer > len(lines):
        return None
    body: list[Line] = []
    run: list[list[Token]] = []  # lines in a row that Syntax draws: in one go (each call costs)
    for line, row in zip(lines, rows, strict=True):
        if row is None:
            run.append(line)
            continue
        if run:
            body.extend(_run_rows(console, run, width))
            run = []
        body.append(row)
    if run:
        body.extend(_run_rows(console, run, width))
    edge = _LOOKS.get(_EDGE)
    if edge is None:
        return None  # (learnt from the first line Syntax drew above: not seen yet only if none was)
    padding: Line = ((" " * width, edge),)
    return [padding, *body, padding]


# Each token type's look in the code theme, as Syntax draws it (a style number), and the padding's,
# the fill's and the blank rows' above and under a block: learnt from the lines Syntax draws, so
# that a line that fits in one row is made here.
_LOOKS: dict[Any, int] = {}
_PAD, _FILL, _EDGE = object(), object(), object()


def _learn(line: list[Token], drawn: list[Line], width: int) -> None:
    """Learn the looks of ``line``'s tokens from its rows as Syntax drew them: only from a line
    that fits in one row, in cells and in characters (else Rich may have cropped its last spaces,
    and the fill would be taken for them)."""
    if len(drawn) != 2 or len(drawn[0]) < 2:
        return
    row = drawn[0]
    (left, pad), (right, right_pad) = row[0], row[-1]
    parts = visible(line)
    if fitting_cells([value for _kind, value in parts], width - 2) is None:
        return
    middle = row[1:-1]
    if left != " " or right != " " or pad != right_pad or len(middle) not in (len(parts), len(parts) + 1):
        return
    if any(text != value for (text, _look), (_kind, value) in zip(middle, parts, strict=False)):
        return
    if len(middle) > len(parts):
        fill, look = middle[-1]
        if fill.strip(" "):
            return
        _LOOKS[_FILL] = look
    _LOOKS[_PAD] = pad
    for (_text, look), (kind, _value) in zip(middle, parts, strict=False):
        if CODE_SYNTAX_THEME.get_style_for_token(kind):  # (a token with no style may join a neighbour
            # with none either, in one segment: never learnt, its lines are left to Syntax)
            _LOOKS[kind] = look
