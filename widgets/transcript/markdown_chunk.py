"""Rendering one markdown piece to Textual strips, and guessing its height without rendering.

Rich's markdown renderer is the expensive part of showing an answer (≈ 1 ms/KB for prose,
20–35 ms/KB for code and tables), so each piece is rendered once per width, and only when it is
on screen or about to be (see ``TextBlockView``). Rich builds a new markdown-it parser for every
``Markdown`` (≈ 0.5 ms, as much as rendering a short piece); here one parser is shared.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, MarkdownElement
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax

from tui.text.sanitize import clean_text, reveal
from widgets._textual_compat import PreparsedMarkdown
from widgets.transcript.markdown_seal import SENTINEL, Piece, markdown_lexer

CODE_THEME = "monokai"
# What RichMarkdown builds each time, but for how deep blocks may nest: markdown-it stops
# parsing at that depth and drops the rest of the text without a word (CommonMark's preset says
# 20, which eleven nested list levels reach). Deeper than this, or nested deeper than the width
# leaves room for (Rich then draws nothing of it), a piece is shown as plain text.
MAX_NESTING = 40
_PARSER = MarkdownIt(options_update={"maxNesting": MAX_NESTING}).enable("strikethrough").enable("table")


class _CodeBlock(CodeBlock):
    """Rich's code block with a lexer looked up once per language (Rich looks it up per block)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        lexer = markdown_lexer(self.lexer_name) or markdown_lexer("text")
        yield Syntax(code, lexer or self.lexer_name, theme=self.theme, word_wrap=True, padding=1)


def _balance_kbd(tokens: list[Token]) -> list[Token]:
    """Make inert the ``<kbd>`` and ``</kbd>`` tags that do not pair up within one inline run (a
    paragraph, a heading, a table cell).

    Rich's renderer enters a style at ``<kbd>`` and leaves one at ``</kbd>``: an answer with a
    lone ``</kbd>`` left a style it never entered and the render raised, one with a lone ``<kbd>``
    left the paragraph's style to the blocks after it. Other inline HTML Rich draws as nothing,
    and so it draws these now.
    """
    for block in tokens:
        opened: list[Token] = []
        for token in block.children or ():
            if token.type != "html_inline":
                continue
            if token.content == "<kbd>":
                opened.append(token)
            elif token.content == "</kbd>":
                if opened:
                    opened.pop()
                else:
                    token.content = ""
        for token in opened:
            token.content = ""
    return tokens


def _indent(tokens: list[Token]) -> int:
    """How many cells Rich's deepest quote or list item is indented by (a quote takes 4, an item
    its bullet or number and 2): a width below that leaves its text no room at all."""
    stack: list[int] = []
    deepest = 0
    for token in tokens:
        if token.type in ("blockquote_open", "list_item_open"):
            stack.append(4 if token.type == "blockquote_open" else max(3, len(token.info) + 2))
            deepest = max(deepest, sum(stack))
        elif token.type in ("blockquote_close", "list_item_close") and stack:
            stack.pop()
    return deepest


def _plain_paragraph(text: str) -> list[Token]:
    """``text`` as it is, one paragraph (lines kept): what is nested too deep to parse."""
    inline = Token("inline", "", 0, content=text, children=[Token("text", "", 0, content=text)])
    return [Token("paragraph_open", "p", 1), inline, Token("paragraph_close", "p", -1)]


def _reveal_decoded(tokens: list[Token]) -> list[Token]:
    """Hidden characters spelled as entities (``&#x202e;``, ``&rlm;``, ``&#x200b;``) made visible
    tokens, as ``clean_text`` makes them when typed as they are: markdown-it decodes entities
    after that ran on the source, and a bidi override would reach the screen raw. (Link targets
    come out percent-encoded, and titles and fence info strings are not drawn.)"""
    stack = [child for block in tokens for child in block.children or ()]
    while stack:
        token = stack.pop()
        if token.type == "text":
            token.content = reveal(token.content)
        if token.children:
            stack.extend(token.children)  # an image's alt text
    return tokens


class _Markdown(PreparsedMarkdown):
    """``rich.markdown.Markdown`` with the shared parser (no parser built per piece)."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **PreparsedMarkdown.elements, "fence": _CodeBlock, "code_block": _CodeBlock}

    def __init__(self, markup: str) -> None:
        tokens = _PARSER.parse(markup)
        if tokens and max(token.level for token in tokens) >= MAX_NESTING - 1:  # the parse stopped there
            tokens = _plain_paragraph(markup)
        tokens = _balance_kbd(tokens)
        super().__init__(markup, _reveal_decoded(tokens) if "&" in markup else tokens, CODE_THEME)


# One rendered line: (text, style number) pairs. Tuples of strings and ints are invisible to the
# garbage collector; Segments (which hold Styles) or Strips (seven caches each) are not, and a
# 1 MB answer is ~300,000 of them: every full collection walked them all (≈ 150 ms a pass).
Line = tuple[tuple[str, int], ...]
_style_numbers: dict[Style, int] = {}
_styles: list[Style] = []  # markdown themes give a few hundred distinct styles at most


def _number(style: Style) -> int:
    number = _style_numbers.get(style)
    if number is None:
        number = _style_numbers[style] = len(_styles)
        _styles.append(style)
    return number


def line_segments(line: Line) -> list[Segment]:
    styles = _styles
    return [Segment(text, styles[number]) for text, number in line]


def plain_line(text: str, width: int) -> Line:
    return ((text[:width].ljust(width), _number(Style.null())),)


def render_markdown(console: Console, markdown: str, width: int) -> list[Line]:
    """``markdown`` as full-width lines (every segment with a real style, as Textual's filters expect)."""
    options = console.options.update(width=width, max_width=width, height=None)
    rich_markdown = _Markdown(clean_text(markdown))
    if _indent(rich_markdown.parsed) > width - 4:  # nested too deep for the width: as plain text
        rich_markdown.parsed = _plain_paragraph(rich_markdown.markup)
    lines = console.render_lines(rich_markdown, options, pad=False, new_lines=False)
    null = Style.null()
    return [tuple([(text, _number(style or null))
                   for text, style, _control in Segment.adjust_line_length(line, width)])
            for line in lines]


def render_piece(console: Console, piece: Piece, width: int) -> list[Line]:
    """The lines ``piece`` adds to the text above it (its separation included)."""
    lines = render_markdown(console, piece.markdown, width)
    return lines[piece.trim_top:len(lines) - piece.trim_bottom]


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
