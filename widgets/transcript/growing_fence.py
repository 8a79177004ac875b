"""A code fence growing at the end of the live tail, drawn from its last lines only.

A tail that ends in a code fence still open is rendered again on every frame: Rich parses the
piece, tokenizes the whole fence and lays out each of its lines, though only the last line grew
(up to ``markdown_seal.FENCE_PIECE`` characters and more, every frame, in a long code answer).

Rich draws each line of a code block on its own (its tokens, wrapped to the width, padded), so
the rows of a line stay as they were as long as its tokens do. Here the fence is tokenized as
Rich tokenizes it (the same lexer, the same code), and when the tokens up to the start of the
last line drawn are the ones of the frame before, only the lines from there on are drawn; the
rows above are kept. A line is drawn as ``code_rows`` draws a code block's lines: made of its
tokens' looks when it fits in one row, else by Rich's own ``Syntax`` fed its tokens. A line longer
than a row that grows (minified JSON, a long command) keeps its rows too (``_Wrapped``): Rich lays out
each row of a wrapped line from its own characters and styles, so the rows up to a break that
the line had and still has (``rich_divide_line``, as ``Text.wrap`` breaks it), over the same
tokens, stay as they were; and it wraps greedily, so the rest is drawn as a line of its own from
that break, except where it would not wrap as that line does (``_grown_rows``). Anything else,
and the caller renders the piece with Rich, as before:

* the piece ends with a fence at the top level (not in a list or a quote), opened at the margin
  and not closed: every line after its opener is code (``follows``; a line that closes it ends
  the following);
* the rows Rich drew for the piece end with the last line's rows and the padding under it, as
  drawn here (checked once, when the fence is found);
* a token before the last line changed (a string or a comment that one of the lexer's rules
  matches with its closer only: a heredoc, ``/* … */``): the whole fence looks different now.

``tests/unit/test_growing_fence.py`` checks every frame against Rich's rendering of the piece.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pygments.lexer import Lexer
from rich.cells import cell_len
from rich.console import Console

from tui.text.sanitize import clean_text
from widgets._textual_compat import rich_divide_line
from widgets.transcript.code_rows import (
    Token,
    code_tokens,
    draw,
    fitting_row,
    processed,
    syntax_rows,
    visible,
)
from widgets.transcript.markdown_parse import PARSER
from widgets.transcript.markdown_seal import Piece, markdown_lexer, token_lines
from widgets.transcript.rendered_line import Line

_OPENER = re.compile(r"(`{3,}|~{3,})")
_WORD = re.compile(r"\S+\s*")  # a word and its blanks, from a character that is not one (Rich's
# is ``\s*\S+\s*``: the same from there)


def _open_code(markdown: str, head: str, closing: re.Pattern[str]) -> str | None:
    """The fence's code in ``markdown`` (after ``head``, its opener line included), as Rich's
    code block gets it; None once a line of it closes the fence."""
    rest = clean_text(markdown[len(head):])  # (the closing line is looked for here: "\r\n" is a
    # newline only once cleaned)
    if closing.search(rest):
        return None  # closed: what comes next is another block
    last = rest.rfind("\n") + 1
    if not rest[last:].strip(" \t"):
        rest = rest[:last]  # markdown-it reads no last line of blanks without a newline
    return rest.rstrip("\n")


def _slice(tokens: list[Token], start: int, end: int) -> list[Token]:
    """The tokens of characters ``start`` to ``end`` of their text (a token across either cut there)."""
    out: list[Token] = []
    position = 0
    for kind, value in tokens:
        after = position + len(value)
        if after > start and position < end:
            out.append((kind, value[max(0, start - position):end - position]))
        position = after
        if position >= end:
            break
    return out


@dataclass
class _Wrapped:
    """A code line longer than a row, as last drawn: where it starts in the code, its tokens,
    where Rich broke it into rows, and those rows."""

    start: int
    tokens: list[Token]
    breaks: list[int]
    rows: list[Line]


@dataclass
class GrowingFence:
    """The open code fence a live tail ends in, with the rows above its last line kept."""

    width: int
    trim_top: int
    number: int | None
    head: str  # the piece's markdown up to the fence's code (its opener line included)
    lexer: Lexer
    closing: re.Pattern[str]  # a line that closes the fence
    tokens: list[Token] = field(default_factory=list)  # the last code drawn, tokenized
    last_start: int = 0  # where its last line starts in the tokens' text
    above: list[Line] = field(default_factory=list)  # the piece's rows above that line's
    pad: Line = ()  # the padding under the code
    wrapped: _Wrapped | None = None  # the last line Syntax drew over rows (kept for as long as it grows)

    @classmethod
    def start(cls, console: Console, piece: Piece, lines: list[Line], width: int) -> GrowingFence | None:
        """The open fence ``piece`` (rendered as ``lines``) ends in; None if it does not end in
        one that can be followed (see the module docstring)."""
        text = piece.markdown
        if piece.trim_bottom or piece.trim_blank or not lines or not _OPENER.search(text):
            return None
        tokens = PARSER.parse(clean_text(text))  # the structure only (same lines as ``text``)
        if not tokens or tokens[-1].type != "fence" or tokens[-1].level != 0 or tokens[-1].map is None:
            return None
        fence = tokens[-1]
        source = text.split("\n")
        opener = fence.map[0] if fence.map else 0
        if opener >= len(source) - 1 or not source[opener].startswith(fence.markup):
            return None  # indented (its code lines lose that indent), or no code line yet
        head = "\n".join(source[:opener + 1]) + "\n"
        closing = re.compile(rf"^ {{0,3}}{re.escape(fence.markup[0])}{{{len(fence.markup)},}}[ \t]*$", re.M)
        code = _open_code(text, head, closing)
        if code is None:
            return None
        name = fence.info.partition(" ")[0]  # as rich.markdown.CodeBlock reads it
        lexer = markdown_lexer(name) or markdown_lexer("text")
        if lexer is None:
            return None
        grown = cls(width=width, trim_top=piece.trim_top, number=piece.number, head=head, lexer=lexer,
                    closing=closing)
        if fence.content.rstrip("\n") != code:
            return None  # (the code must be the fence's as Rich gets it)
        lexed = grown._tokens(code)
        if lexed is None:
            return None
        grown.tokens, grown.last_start, end = lexed
        drawn = draw(console, _slice(grown.tokens, grown.last_start, end), width)
        if len(lines) < len(drawn) or lines[-len(drawn):] != drawn:
            return None
        grown.above, grown.pad = lines[:-len(drawn)], drawn[-1]
        return grown

    def follows(self, piece: Piece, width: int) -> bool:
        """Whether ``piece`` is the tail this fence was found in, grown at its end."""
        return (width == self.width and piece.trim_top == self.trim_top and not piece.trim_bottom
                and not piece.trim_blank and piece.number == self.number
                and piece.markdown.startswith(self.head))

    def lines(self, console: Console, piece: Piece) -> list[Line] | None:
        """The lines of ``piece`` (which ``follows`` this), or None: render it with Rich."""
        code = _open_code(piece.markdown, self.head, self.closing)
        lexed = None if code is None else self._tokens(code)
        if lexed is None:
            return None
        tokens, last_start, end = lexed
        if last_start < self.last_start or _slice(tokens, 0, self.last_start) != _slice(self.tokens, 0,
                                                                                         self.last_start):
            return None  # a line above the last one is drawn otherwise now, or gone ("\r" + "\n")
        if last_start > self.last_start:  # new lines: the ones before the last are kept from now on
            self.above = [*self.above, *self._rows(console, _slice(tokens, self.last_start, last_start),
                                                   self.last_start)]
        self.tokens, self.last_start = tokens, last_start
        return [*self.above, *self._rows(console, _slice(tokens, last_start, end), last_start), self.pad]

    def _tokens(self, code: str) -> tuple[list[Token], int, int] | None:
        """``code`` tokenized as ``Syntax`` does, where its last line starts, and its length;
        None if the tokens are not the code's own characters (a lexer that changes them)."""
        tokens = code_tokens(self.lexer, code)
        if tokens is None:
            return None
        text = processed(code)
        return tokens, text.rfind("\n", 0, len(text) - 1) + 1, len(text)

    def _rows(self, console: Console, tokens: list[Token], start: int) -> list[Line]:
        """The rows of the whole code lines ``tokens`` make (starting at ``start`` in the code):
        each line that fits in one row made of its tokens' looks (``_row``), a longer one from
        the rows it had (``_grown_rows``), the others drawn by Syntax (their looks learnt)."""
        rows: list[Line] = []
        for line in token_lines(tokens):
            row = fitting_row(line, self.width)
            if row is not None:
                rows.append(row)
            else:
                rows.extend(self._grown_rows(console, line, start) or self._drawn_rows(console, line, start))
            start += sum(len(value) for _kind, value in line)
        return rows

    def _drawn_rows(self, console: Console, line: list[Token], start: int) -> list[Line]:
        """The rows of one code line drawn by Syntax, remembered when it wraps."""
        rows = syntax_rows(console, line, self.width)
        breaks = self._breaks(line)[1]
        wraps = bool(breaks) and len(rows) == len(breaks) + 1
        self.wrapped = _Wrapped(start, line, breaks, rows) if wraps else None
        return rows

    def _breaks(self, line: list[Token]) -> tuple[str, list[int]]:
        """A code line's text and where Rich breaks it into rows (``Text.wrap``'s breaks)."""
        text = "".join(value for _kind, value in visible(line))
        return text, rich_divide_line(text, self.width - 2, fold=True)

    def _grown_rows(self, console: Console, line: list[Token], start: int) -> list[Line] | None:
        """The rows of a code line longer than a row that grew from the one drawn last (the same
        start, more characters): the rows up to the last break both have over the same tokens,
        kept, and the rest drawn as a line of its own. Syntax wraps greedily, so from a break on
        it draws the rest as it draws a line that starts there (a word, or a piece of one folded),
        but for the two cases below. None: the line is drawn whole."""
        old = self.wrapped
        if old is None or old.start != start:
            return None
        text, breaks = self._breaks(line)
        kept = 0
        while kept < min(len(breaks), len(old.breaks)) and breaks[kept] == old.breaks[kept]:
            kept += 1
        if not kept:
            return None
        cut = breaks[kept - 1]
        # A word folded over rows goes on in pieces of a row's width, its blanks too, where the
        # same characters starting a line wrap otherwise: a piece that starts in the blanks (no
        # word here) is one word with what follows them, which may not fit where the pieces did;
        # and a word's tail that fits a row only without its blanks is put whole on one row, its
        # blanks past the edge, with what follows on the next. (The second check also turns down
        # some plain breaks, a word whose blanks run past the edge, which would wrap alike.)
        word = _WORD.match(text, cut)
        if word is None or cell_len(word.group().rstrip()) <= self.width - 2 < cell_len(word.group()):
            return None
        if _slice(line, 0, cut) != _slice(old.tokens, 0, cut):
            return None  # the rows above the cut look different now
        rest = _slice(line, cut, sum(len(value) for _kind, value in line))
        row = fitting_row(rest, self.width)
        rows = [*old.rows[:kept], *([row] if row is not None else syntax_rows(console, rest, self.width))]
        if len(rows) != len(breaks) + 1:
            return None  # (a safeguard, not reached in fuzzing: the rest wrapped otherwise)
        self.wrapped = _Wrapped(start, line, breaks, rows)
        return rows
