"""Rendering one markdown piece to Textual strips, and guessing its height without rendering.

Rich's markdown renderer is the expensive part of showing an answer (≈ 1 ms/KB for prose,
20–35 ms/KB for code and tables), so each piece is rendered once per width, and only when it is
on screen or about to be (see ``TextBlockView``); the parser is shared (``markdown_parse``), and
a table is drawn from cached rows (``markdown_table``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from markdown_it.token import Token
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, ListElement, ListItem, MarkdownElement
from rich.markdown import Markdown as RichMarkdown
from rich.segment import Segment
from rich.syntax import Syntax

from tui.text.sanitize import clean_text
from widgets._textual_compat import PreparsedMarkdown
from widgets.transcript.code_rows import Replay, block_rows, code_tokens
from widgets.transcript.markdown_parse import CODE_SYNTAX_THEME, CODE_THEME, MAX_NESTING, References, parse
from widgets.transcript.markdown_seal import NUMBERED_FROM, SENTINEL, Piece, markdown_lexer
from widgets.transcript.markdown_table import (
    CachedTableElement,
    streamed_table,
    streamed_table_lines,
    streamed_table_tokens,
)
from widgets.transcript.rendered_line import Line, as_line, line_segments, line_text, plain_line


class _CodeBlock(CodeBlock):
    """Rich's code block with a lexer looked up once per language (Rich looks it up per block),
    and only its trailing newlines dropped (Rich drops all trailing blanks): a block cut in two
    pieces ends the first piece on a line whose spaces the whole block keeps. Its rows are made
    from its tokens where Syntax would draw them alike (``code_rows``: a third of the cost)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip("\n")
        lexer = markdown_lexer(self.lexer_name) or markdown_lexer("text")
        tokens = None if lexer is None else code_tokens(lexer, code)
        rows = None if tokens is None else block_rows(console, tokens, options.max_width)
        if rows is None:
            # Fed the tokens made above, not tokenized again (unless the lexer changed the text)
            drawn_by = lexer if tokens is None else Replay(tokens)
            yield Syntax(code, drawn_by or self.lexer_name, theme=CODE_SYNTAX_THEME, word_wrap=True,
                         padding=1)
            return
        new_line = Segment.line()
        for row in rows:
            yield from line_segments(row)
            yield new_line


class NumberedList(ListElement):
    """Rich's numbered list, with each number followed by the list's own delimiter ("1." or
    "1)", as written: Rich draws a bare "1", which reads as a stray digit beside OpenCode's
    TUI), and in a list that reaches ten each number taking its own width, two digits at least:
    Rich sizes them all by the list's last number, so every item of a list would move one
    column right when its hundredth came (a list of 10–98 items numbered from 1 looks as Rich
    sizes it). A list cut into pieces (``markdown_seal``) renders like the whole only so, and a
    piece that goes on a list numbers it from its ``Piece.number``."""

    delimiter = "."

    @classmethod
    def create(cls, markdown: RichMarkdown, token: Token) -> ListElement:
        element = super().create(markdown, token)
        if isinstance(element, NumberedList) and token.markup == ")":
            element.delimiter = ")"
        if isinstance(markdown, _Markdown) and token is markdown.numbered:
            element.list_start = markdown.number
        return element

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        start = 1 if self.list_start is None else self.list_start
        # (only numbered lists are made of this class) Rich's gutter is as wide as one past the
        # last number; from NUMBERED_FROM on, as the item's own number, two digits at least.
        whole = start + len(self.items) < NUMBERED_FROM
        for index, item in enumerate(self.items):
            number = start + index
            widest = start + len(self.items) if whole else max(number, NUMBERED_FROM)
            yield from self._item(item, console, options, number, len(str(widest)) + 3)

    def _item(self, item: ListItem, console: Console, options: ConsoleOptions, number: int,
              gutter: int) -> RenderResult:
        """One item: its number and delimiter right-aligned in ``gutter`` cells and a space,
        then its blocks, the lines after the first indented as far."""
        style = console.get_style("markdown.item.number", default="none")
        lines = console.render_lines(item.elements, options.update(width=options.max_width - gutter),
                                     style=item.style)
        numeral = Segment(f"{number}{self.delimiter}".rjust(gutter - 1) + " ", style)
        indent = Segment(" " * gutter, style)
        new_line = Segment.line()
        for row, line in enumerate(lines):
            yield indent if row else numeral
            yield from line
            yield new_line


def _indent(tokens: list[Token]) -> int:
    """How many cells Rich's deepest quote or list item is indented by (a quote takes 4, an item
    its bullet or number and 2): a width below that leaves its text no room at all."""
    stack: list[int] = []
    deepest = 0
    for token in tokens:
        if token.type in ("blockquote_open", "list_item_open"):
            # (a numbered item's gutter: its digits, the delimiter and two spaces, 5 wide at
            # least from number 10 on, as NumberedList draws it: an estimate, 4 below it)
            item = max(5, len(token.info) + 3) if token.info else 3  # (a bullet's info is empty)
            stack.append(4 if token.type == "blockquote_open" else item)
            deepest = max(deepest, sum(stack))
        elif token.type in ("blockquote_close", "list_item_close") and stack:
            stack.pop()
    return deepest


def too_deep(tokens: list[Token], width: int) -> bool:
    """Whether the parse stopped at the nesting limit, or ``width`` leaves the text no room: the
    piece is then shown as its plain text."""
    return bool(tokens) and (max(token.level for token in tokens) >= MAX_NESTING - 1
                             or _indent(tokens) > width - 4)


def _plain_paragraph(text: str) -> list[Token]:
    """``text`` as it is, one paragraph (lines kept): what is nested too deep to parse."""
    inline = Token("inline", "", 0, content=text, children=[Token("text", "", 0, content=text)])
    return [Token("paragraph_open", "p", 1), inline, Token("paragraph_close", "p", -1)]


class _Markdown(PreparsedMarkdown):
    """``rich.markdown.Markdown`` with the shared parser (no parser built per piece)."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **PreparsedMarkdown.elements, "fence": _CodeBlock, "code_block": _CodeBlock,
        "table_open": CachedTableElement, "ordered_list_open": NumberedList}

    def __init__(self, markup: str, width: int, *, plain: bool = False, number: int | None = None,
                 references: References | None = None) -> None:
        """``plain``: ``markup`` shown as it is, not parsed (what is known to be too deep);
        ``number``: where its first numbered list's numbers start (``Piece.number``);
        ``references``: the link reference definitions of the whole answer (``markdown_parse``)."""
        # A tail that is one table streaming is parsed and drawn row by row (``markdown_table``),
        # its cells' links with no definitions: not while the answer has some.
        self.streamed = None if plain or references else streamed_table(markup)
        tokens = [] if plain else streamed_table_tokens(self.streamed) if self.streamed else \
            parse(markup, references)
        self.too_deep = too_deep(tokens, width)
        parsed = _plain_paragraph(markup) if plain or self.too_deep else tokens
        super().__init__(markup, parsed, CODE_THEME)
        self.number = number
        # The numbered list the piece goes on with: its first at the top level.
        self.numbered = None if number is None else next(
            (token for token in parsed if token.type == "ordered_list_open" and token.level == 0), None)


def render_markdown(console: Console, markdown: str, width: int) -> list[Line]:
    """``markdown`` as full-width lines (every segment with a real style, as Textual's filters expect)."""
    return _render(console, _Markdown(clean_text(markdown), width), width)


def _render(console: Console, rich_markdown: _Markdown, width: int) -> list[Line]:
    options = console.options.update(width=width, max_width=width, height=None)
    table = rich_markdown.streamed
    if table is not None and not rich_markdown.too_deep:
        # Its rows' lines as they are kept, not through Rich's markdown again: what Rich draws
        # for it is the sentinel paragraph, the blank line before a table, and the table.
        lines = streamed_table_lines(console, options, table)
        if lines is not None:
            above = _render(console, _Markdown(SENTINEL, width), width) if table.after_sentinel else []
            return [*above, plain_line("", width), *lines]
    return [as_line(line, width) for line in console.render_lines(rich_markdown, options, pad=False,
                                                                  new_lines=False)]


def render_piece(console: Console, piece: Piece, width: int,
                 references: References | None = None) -> list[Line]:
    """The lines ``piece`` adds to the text above it (its separation included), its links resolved
    with the answer's ``references``."""
    rich_markdown = _Markdown(clean_text(piece.markdown), width, number=piece.number, references=references)
    if rich_markdown.too_deep:  # its own text as it is: the lines to trim are not there to trim
        return _render(console, _Markdown(clean_text(piece.source), width, plain=True), width)
    lines = _render(console, rich_markdown, width)
    top = piece.trim_top
    if piece.trim_blank and lines and not line_text(lines[0]).strip():
        top += 1
    return lines[top:len(lines) - piece.trim_bottom]


def _plain(source: str) -> str:
    """Server text made inert (it is drawn as is in a placeholder), tabs as spaces."""
    return clean_text(source).expandtabs(4)


def estimate_height(piece: Piece, width: int) -> int:
    """Roughly how many lines ``piece`` renders to: used until it is rendered (off screen).

    One line per source line and per ``width`` characters, plus the separation. Fences, tables
    and headings come out close; paragraphs re-flow, so they are the rough part.
    """
    source = _plain(piece.source)
    if not source.strip():
        return 0
    usable = max(8, width - 4)
    lines = sum(1 + len(line) // usable for line in source.strip("\n").split("\n"))
    return lines + (1 if piece.markdown.startswith(SENTINEL) else 0)  # the blank line before it


def placeholder_lines(piece: Piece, width: int) -> list[str]:
    """The piece's source cut to the width, as many lines as ``estimate_height`` says.

    Drawn for a piece that is on screen before it could be rendered (an answer streaming faster
    than Rich renders, or a fast scroll through a long one), for a frame or two.
    """
    source = _plain(piece.source)
    if not source.strip():
        return []
    usable = max(8, width - 4)
    lines = [""] if piece.markdown.startswith(SENTINEL) else []
    for line in source.strip("\n").split("\n"):
        last = len(line) // usable * usable  # a line of exactly k·usable gets an empty k+1-th part
        lines.extend(line[start:start + usable] for start in range(0, last + 1, usable))
    return lines


# Loading a language's lexer the first time costs 2–40 ms (module import and regex compilation;
# Python's is the slowest): a stall in the middle of the first answer with a code block in that
# language. Only the most common one is loaded ahead: each load stalls the loop too, and one
# that lands while an answer streams is no better.
WARM_LANGUAGES = ("python",)


def warm_lexers(schedule: Callable[[float, Callable[[], None]], object], index: int = 0) -> None:
    """Load one common lexer now, and the next one a little later (``schedule(delay, callback)``)."""
    if index < len(WARM_LANGUAGES):
        markdown_lexer(WARM_LANGUAGES[index])
        schedule(0.1, lambda: warm_lexers(schedule, index + 1))
