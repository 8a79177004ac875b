"""A markdown table drawn exactly as Rich draws it, at the cost of its new rows only.

A table streams as one block: it cannot be cut into pieces (its column widths depend on all its
rows), so the live tail holds the whole table and renders it again on every frame. Parsed and
drawn by markdown-it and Rich that costs ≈ 0.3 ms a row: 30 ms a frame for a table of 100 rows,
most of a 2-core machine's time for an answer that is one long table. Here it costs about the
new rows:

* **parsing.** A tail that is a table and nothing else (``streamed_table``: its first two lines
  open a table, every later line starts with ``|``, blank lines may follow; no image, which
  Rich draws above the table, no lone ``\r`` or NUL) is not parsed whole. markdown-it reads
  such a line as a body row of that table whatever the lines around it hold (no block can start
  with ``|``; a row's cells depend on its own line and the header's column count), so each row
  is parsed on its own, with the header and delimiter lines above it, once, and its cells kept.
  (markdown-it ends a table early once it has filled in 65,536 missing cells: a table that could
  reach that is parsed whole.)
* **column widths.** Rich's own width calculation, run on a stand-in table whose one cell per
  column measures as the widest of that column's cells: Rich takes the largest minimum and the
  largest maximum over a column's cells, and every later step is monotonic in them, so the
  widths are the same. Each cell's measure (its longest word and longest line) is kept.
* **drawing.** Rows in blocks of ``BLOCK_ROWS`` (the rows after the last whole block one by
  one), each block a Rich table of those rows at those widths, kept by the widths and the rows.
  At fixed widths Rich draws each row of a markdown table (``box.SIMPLE``, no row lines or row
  styles, no vertical padding) from its own cells alone, so the blocks joined (the top edge of
  each but the first dropped, and the bottom edge of each but the last) are the table's lines.
  While the widths hold, a frame draws only the row still growing, and a block once it is whole.

``tests/unit/test_markdown_table.py`` compares the result with Rich's own ``TableElement``.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import ClassVar, NamedTuple, TypeVar

from markdown_it.token import Token
from rich import box
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Markdown, MarkdownElement, TableElement
from rich.measure import Measurement
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from widgets._textual_compat import PreparsedMarkdown, table_column_widths, table_padding_width
from widgets.transcript.markdown_parse import CODE_THEME, PARSER, parse
from widgets.transcript.markdown_seal import SENTINEL
from widgets.transcript.rendered_line import Line, as_line, line_segments, pad_line

BLOCK_ROWS = 16
BLOCKS_KEPT = 1024  # per console: a few tables of a few hundred rows each, at one or two widths
ROWS_KEPT = 8192  # per console: the parsed cells of that many row lines
MEASURES_KEPT = 16384
MAX_AUTOCOMPLETED_CELLS = 0x10000  # markdown-it's table rule ends a table past this many
_SOURCE = "octui.table_lines"
K = TypeVar("K")
V = TypeVar("V")  # a streamed table's lines, in its table_open token's meta

Cells = tuple[Text, ...]


class _Block(NamedTuple):
    """Rows drawn at fixed widths, as numbered lines (no Segments kept: the garbage collector
    would walk every one on each full collection): as Rich yields them (``drawn``, the table's
    width) and padded to the width of the text (``lines``)."""

    drawn: list[Line]
    lines: list[Line]


@dataclass(frozen=True)
class StreamedTable:
    """A tail that is one table and nothing else, by its lines."""

    head: str
    delimiter: str
    rows: tuple[str, ...]
    after_sentinel: bool  # the piece starts with the sentinel paragraph (``markdown_seal``)


_measures: OrderedDict[str, tuple[int, int]] = OrderedDict()
_blocks: weakref.WeakKeyDictionary[Console, OrderedDict[Hashable, _Block]] = weakref.WeakKeyDictionary()
_rows: weakref.WeakKeyDictionary[Console, OrderedDict[tuple[str, str, str | None], Cells | None]] = (
    weakref.WeakKeyDictionary())


def _cached(cache: OrderedDict[K, V], key: K, limit: int, make: Callable[[], V]) -> V:
    """``cache[key]``, made by ``make`` the first time; past ``limit`` entries the least
    recently used is dropped."""
    if key in cache:
        cache.move_to_end(key)
        return cache[key]
    value = cache[key] = make()
    while len(cache) > limit:
        cache.popitem(last=False)
    return value


def _table(show_header: bool) -> Table:
    """The table Rich's ``TableElement`` builds (rich 15.0.0)."""
    return Table(box=box.SIMPLE, pad_edge=False, style="markdown.table.border", show_edge=True,
                 collapse_padding=True, show_header=show_header)


@lru_cache(maxsize=64)
def _paddings(columns: int) -> tuple[int, ...]:
    """The padding Rich's markdown table adds to each column (the first and last have less)."""
    table = _table(show_header=True)
    for _ in range(columns):
        table.add_column()
    return tuple(table_padding_width(table, index) for index in range(columns))


def _cell_key(text: Text) -> tuple[object, ...]:
    """What a cell's lines depend on, besides its width."""
    return (text.plain, tuple(text.spans), text.style, text.justify, text.overflow, text.no_wrap, text.end,
            text.tab_size)


def _measure(console: Console, options: ConsoleOptions, text: Text) -> tuple[int, int]:
    """Rich's own measure of ``text``, which depends on its plain text only."""
    def measure() -> tuple[int, int]:
        measured = text.__rich_measure__(console, options)
        return measured.minimum, measured.maximum

    return _cached(_measures, text.plain, MEASURES_KEPT, measure)


class _Widest:
    """A stand-in cell measuring as the widest of a column's cells."""

    def __init__(self, minimum: int, maximum: int) -> None:
        self.minimum, self.maximum = minimum, maximum

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(self.minimum, self.maximum)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        return iter(())  # measured, never drawn


# The columns' widest measures over a table's header and all its rows but the last, kept for
# the next frame of the same table: a streamed table grows at its end (its last row as it comes).
_measured: tuple[tuple[str, ...], tuple[Hashable, ...], list[int], list[int]] | None = None


def _widths(console: Console, options: ConsoleOptions, header: Sequence[Text],
            rows: Sequence[Sequence[Text]], keys: Sequence[Hashable]) -> list[int]:
    global _measured
    head = tuple(cell.plain for cell in header)
    start = 0
    if _measured is not None and _measured[0] == head and len(_measured[1]) <= len(keys) \
            and tuple(keys[:len(_measured[1])]) == _measured[1]:
        start, minimums, maximums = len(_measured[1]), list(_measured[2]), list(_measured[3])
    else:
        measures = [_measure(console, options, cell) for cell in header]
        minimums, maximums = [m[0] for m in measures], [m[1] for m in measures]
    for number in range(start, len(rows)):
        if number == len(rows) - 1:
            _measured = (head, tuple(keys[:number]), list(minimums), list(maximums))
        for index, cell in enumerate(rows[number]):
            low, high = _measure(console, options, cell)
            if low > minimums[index]:
                minimums[index] = low
            if high > maximums[index]:
                maximums[index] = high
    stand_in = _table(show_header=True)
    for low, high in zip(minimums, maximums, strict=True):
        stand_in.add_column(_Widest(low, high))
    return table_column_widths(stand_in, console, options)


def _block(console: Console, options: ConsoleOptions, widths: list[int], header: Sequence[Text] | None,
           rows: Sequence[Sequence[Text]]) -> _Block:
    table = _table(show_header=header is not None)
    for index, (width, pad) in enumerate(zip(widths, _paddings(len(widths)), strict=True)):
        table.add_column(header[index] if header is not None else "", width=width - pad)
    for row in rows:
        table.add_row(*row)
    drawn = [as_line(line, Segment.get_line_length(line))
             for line in Segment.split_lines(console.render(table, options))]
    return _Block(drawn, [pad_line(line, options.max_width) for line in drawn])


Blocks = list[tuple[_Block, slice]]


def table_blocks(console: Console, options: ConsoleOptions, header: Sequence[Text],
                 rows: Sequence[Sequence[Text]], keys: Sequence[Hashable]) -> Blocks | None:
    """The blocks of the markdown table ``header`` + ``rows`` (``keys``: one per row, equal for
    rows with equal cells), each with the slice of its lines that is the table's; or None where
    this cannot promise Rich's lines (a row not as wide as the header, a column too narrow for
    its padding): the caller draws it with Rich."""
    if not header or any(len(row) != len(header) for row in rows):
        return None
    widths = _widths(console, options, header, rows, keys)
    if any(width - pad < 1 for width, pad in zip(widths, _paddings(len(widths)), strict=True)):
        return None
    cache = _blocks.setdefault(console, OrderedDict())
    # (what of the options a block's lines depend on: the box's characters, the cells' wrapping)
    where = (tuple(widths), tuple(_cell_key(cell) for cell in header), options.max_width, options.ascii_only,
             options.legacy_windows, options.encoding, options.justify, options.overflow, options.no_wrap,
             options.highlight, options.markup)
    blocks: Blocks = []
    # Whole blocks, then the rows after the last whole one block by block: a streamed table's
    # last row, still growing, is drawn again alone, and each block once it is whole.
    whole = len(rows) - len(rows) % BLOCK_ROWS
    spans = [(start, start + BLOCK_ROWS) for start in range(0, whole, BLOCK_ROWS)]
    spans += [(start, start + 1) for start in range(whole, len(rows))] or ([] if spans else [(0, 0)])
    for number, (start, end) in enumerate(spans):
        first, last = number == 0, number == len(spans) - 1
        block = _cached(cache, (where, first, tuple(keys[start:end])), BLOCKS_KEPT,
                        partial(_block, console, options, widths, header if first else None, rows[start:end]))
        count = len(block.drawn)
        blocks.append((block, slice(0 if first else 1, count if last else count - 1)))
    return blocks


# -- a streamed table's rows, parsed one by one -----------------------------------------------


@lru_cache(maxsize=256)
def _columns(head: str, delimiter: str) -> int:
    """How many columns the table these two lines open has (0: they open none)."""
    tokens = PARSER.parse(f"{head}\n{delimiter}\n")
    if not tokens or tokens[0].type != "table_open" or tokens[0].map != [0, 2] \
            or tokens[-1].type != "table_close":
        return 0
    return sum(1 for token in tokens if token.type == "th_open")


def streamed_table(markup: str) -> StreamedTable | None:
    """``markup`` by its lines when it is one table and nothing else (after the sentinel
    paragraph a piece may start with); None for anything else (it is parsed whole)."""
    table = markup[len(SENTINEL):] if markup.startswith(SENTINEL) else markup
    head, _, rest = table.partition("\n")
    if rest[:1] not in ("|", "-", ":") or "|" not in head or "\r" in table or "\0" in table or "![" in table:
        return None  # (Rich draws an image in a cell above the table: the rows alone would lose it)
    delimiter, _, body = rest.partition("\n")
    body = body.rstrip("\n")  # (a blank line after a table, as a sealed piece has, draws nothing)
    rows = body.split("\n") if body else []
    if not all(row.startswith("|") for row in rows):
        return None
    columns = _columns(head, delimiter)
    if not columns or columns * len(rows) > MAX_AUTOCOMPLETED_CELLS:
        return None
    return StreamedTable(head, delimiter, tuple(rows), after_sentinel=table is not markup)


def streamed_table_tokens(table: StreamedTable) -> list[Token]:
    """The tokens Rich walks for ``table``: the sentinel paragraph's (whose paragraph ends at its
    blank line), then the table's, its rows left for ``CachedTableElement`` to parse one by one."""
    tokens = parse(SENTINEL) if table.after_sentinel else []
    # (an empty header inside, as a parsed table has: Rich puts a blank line before a table
    # once an element inside it has closed, even at the top of the text)
    inside = [Token("thead_open", "thead", 1), Token("thead_close", "thead", -1)]
    return [*tokens, Token("table_open", "table", 1, meta={_SOURCE: table}), *inside,
            Token("table_close", "table", -1)]


class _Captured(TableElement):
    """A table element that hands itself over instead of drawing (to read its cells)."""

    sink: list[TableElement] | None = None

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> MarkdownElement:
        element = cls()
        element.sink = getattr(markdown, "sink", None)
        return element

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.sink is not None:
            self.sink.append(self)
        return iter(())


class _Capturing(PreparsedMarkdown):
    """Rich's markdown, its tables handed over (``_Captured``) instead of drawn."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **PreparsedMarkdown.elements, "table_open": _Captured}

    def __init__(self, markup: str) -> None:
        super().__init__(markup, parse(markup), CODE_THEME)
        self.sink: list[TableElement] = []


def _parsed(console: Console, options: ConsoleOptions, markup: str) -> list[TableElement]:
    """The table elements Rich builds for ``markup``, with their cells (drawn by nobody)."""
    markdown = _Capturing(markup)
    for _ in console.render(markdown, options):
        pass
    return markdown.sink


def _header_cells(element: TableElement) -> Cells:
    cells: list[Text] = []
    if element.header is not None and element.header.row is not None:
        for column in element.header.row.cells:
            heading = column.content.copy()
            heading.stylize("markdown.table.header")  # as TableElement does
            cells.append(heading)
    return tuple(cells)


def _row_cells(console: Console, options: ConsoleOptions, head: str, delimiter: str,
               row: str | None) -> Cells | None:
    """The header's cells (``row`` None) or one body row's, as Rich builds them; kept."""

    def parsed_cells() -> Cells | None:
        elements = _parsed(console, options, f"{head}\n{delimiter}\n" + ("" if row is None else f"{row}\n"))
        if len(elements) != 1:
            return None
        element = elements[0]
        if row is None and element.body is None:
            return _header_cells(element)
        if row is not None and element.body is not None and len(element.body.rows) == 1:
            return tuple(cell.content for cell in element.body.rows[0].cells)
        return None

    return _cached(_rows.setdefault(console, OrderedDict()), (head, delimiter, row), ROWS_KEPT, parsed_cells)


def _streamed_blocks(console: Console, options: ConsoleOptions, table: StreamedTable) -> Blocks | None:
    header = _row_cells(console, options, table.head, table.delimiter, None)
    found = [_row_cells(console, options, table.head, table.delimiter, line) for line in table.rows]
    rows = [cells for cells in found if cells is not None]
    if header is None or len(rows) != len(found):
        return None
    return table_blocks(console, options, header, rows, table.rows)


def streamed_table_lines(console: Console, options: ConsoleOptions,
                         table: StreamedTable) -> list[Line] | None:
    """``table``'s own lines (the blank line Rich puts before a table not included), numbered at
    ``options.max_width``, or None: it is drawn through Rich's markdown (``CachedTableElement``)."""
    blocks = _streamed_blocks(console, options, table)
    if blocks is None:
        return None
    return [line for block, part in blocks for line in block.lines[part]]


class CachedTableElement(TableElement):
    """Rich's markdown table element, drawn from the caches above: a table parsed whole (a
    finished one) by its cells, a streamed one (``streamed_table_tokens``) by its lines."""

    source: StreamedTable | None = None

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> MarkdownElement:
        element = cls()
        element.source = token.meta.get(_SOURCE) if token.meta else None
        return element

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.source is None:
            header = _header_cells(self)
            rows = [tuple(cell.content for cell in row.cells) for row in self.body.rows] if self.body else []
            keys = [tuple(map(_cell_key, row)) for row in rows]
            blocks = table_blocks(console, options, header, rows, keys)
            if blocks is None:
                yield from super().__rich_console__(console, options)
                return
        else:
            blocks = _streamed_blocks(console, options, self.source)
            if blocks is None:  # drawn as Rich draws it, from a parse of the whole table
                source = self.source
                whole = "\n".join((source.head, source.delimiter, *source.rows))
                for element in _parsed(console, options, whole):
                    yield from TableElement.__rich_console__(element, console, options)
                return
        yield from _joined(line_segments(line) for block, part in blocks for line in block.drawn[part])


def _joined(lines: Iterable[list[Segment]]) -> Iterator[Segment]:
    new_line = Segment.line()
    for line in lines:
        yield from line
        yield new_line
