"""A markdown table drawn from cached rows (``widgets/transcript/markdown_table.py``) draws what
Rich's own ``TableElement`` draws from a whole parse, for any table, at any width, as it streams."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.markdown import TableElement

from widgets.transcript import markdown_chunk, markdown_table
from widgets.transcript.markdown_chunk import render_markdown
from widgets.transcript.markdown_seal import SENTINEL
from widgets.transcript.markdown_table import streamed_table
from widgets.transcript.rendered_line import Line

CONSOLE = Console(width=120, color_system="truecolor", force_terminal=True, legacy_windows=False)


@pytest.fixture(autouse=True)
def fresh_caches() -> None:
    """Each test starts from empty caches (what it counts must not depend on the tests before)."""
    markdown_table._rows.clear()
    markdown_table._blocks.clear()
    markdown_table._measures.clear()
    markdown_table._measured = None


def rich_own(markdown: str, width: int) -> list[Line]:
    """What Rich draws: its ``TableElement``, from a parse of the whole text."""
    elements = markdown_chunk._Markdown.elements
    saved = elements["table_open"], markdown_chunk.streamed_table
    elements["table_open"] = TableElement
    markdown_chunk.streamed_table = lambda markup: None
    try:
        return render_markdown(CONSOLE, markdown, width)
    finally:
        elements["table_open"], markdown_chunk.streamed_table = saved


def table(rows: int, *, note: str = "some **bold** note text and `code`") -> str:
    return "| name | value | note |\n|---|---:|:-:|\n" + "".join(
        f"| row {n} | `{n * 7}` | {note} {n} |\n" for n in range(rows))


def streamed(text: str, step: int = 7) -> Iterator[str]:
    for end in range(1, len(text) + step, step):
        yield text[:end]


def test_a_streamed_table_draws_as_rich_does_at_every_step_and_width() -> None:
    text = table(24)
    for width in (120, 33, 5):
        for markdown in streamed(text, 11):
            for shown in (markdown, SENTINEL + markdown, markdown + "\n\n"):
                assert render_markdown(CONSOLE, shown, width) == rich_own(shown, width), (width, shown[-30:])


def test_the_table_a_tail_streams_is_parsed_row_by_row() -> None:
    assert streamed_table(table(3)) is not None
    assert streamed_table(SENTINEL + table(3) + "| partial `co") is not None
    assert streamed_table(SENTINEL + table(3) + "\n\n") is not None  # a sealed table piece
    # Anything else is parsed whole: text before the table, after it, rows without a leading
    # pipe (a block could start there), a header that opens no table, more cells to fill in
    # than markdown-it fills.
    for other in ("Intro\n\n" + table(3), table(3) + "\nAfter.\n", table(3) + "a | b | c\n",
                  "| a | b |\n|---|\n| x | y |\n", "| a |\n| b |\n", "plain words\n",
                  "|" + "a|" * 300 + "\n" + "|-" * 300 + "|\n" + "|\n" * 300):
        assert streamed_table(other) is None, other[:40]


def test_a_row_with_more_or_fewer_cells_and_escaped_pipes() -> None:
    text = ("| a | b | c |\n|:--|:-:|--:|\n| one |\n| 1 | 2 | 3 | 4 | 5 |\n| `x \\| y` | a \\| b | |\n"
            "|||\n| **bold | not | closed** |\n| &#x202e; | \x1b[31m | <b>html</b> |\n")
    assert streamed_table(text) is not None
    for width in (80, 20, 6):
        for markdown in streamed(text, 3):
            assert render_markdown(CONSOLE, markdown, width) == rich_own(markdown, width), (width, markdown)


def test_an_image_in_a_cell_is_drawn_above_the_table_as_rich_does() -> None:
    # Rich draws a cell's image above the table: rows parsed alone would lose it.
    in_row = "| a | b |\n|---|---|\n| ![picA](http://x/y.png) | z |\n"
    in_header = "| ![picB](u) | b |\n|---|---|\n| x | y |\n"
    for text, alt in ((in_row, "picA"), (in_header, "picB")):
        assert streamed_table(text) is None
        for width in (80, 12):
            shown = render_markdown(CONSOLE, text, width)
            assert shown == rich_own(text, width)
            assert alt in "".join(chunk for line in shown for chunk, _style in line)


def test_a_table_wider_than_the_screen_wraps_its_cells_as_rich_does() -> None:
    long = "a long cell " * 20
    text = f"| first | second |\n|---|---|\n| {long} | {long} |\n| x | Supercalifragilistic{'x' * 90} |\n"
    for width in (100, 40, 9, 3, 1):
        assert render_markdown(CONSOLE, text, width) == rich_own(text, width), width


def test_a_finished_table_parsed_whole_draws_as_rich_does() -> None:
    text = "Intro paragraph.\n\n" + table(35) + "\nAfter it.\n\n" + table(3, note="日本語 and emoji 🙂")
    assert streamed_table(text) is None
    for width in (120, 50, 14):
        assert render_markdown(CONSOLE, text, width) == rich_own(text, width), width


cell = st.lists(st.sampled_from([*"ab xyz*_`|\\~-:#>![]()", "日", "🙂", "&amp;", "\t", "word", "  ",
                                 "![i](u)", "[l](u)", "<http://a>"]), max_size=10).map("".join)


@st.composite
def tables(draw: st.DrawFn) -> str:
    columns = draw(st.integers(1, 5))
    head = "|".join(draw(st.lists(cell, min_size=columns, max_size=columns)))
    aligns = draw(st.lists(st.sampled_from(["---", ":--", "--:", ":-:"]), min_size=columns, max_size=columns))
    edge = draw(st.booleans())
    lines = [f"|{head}|" if edge or "|" not in head else head, ("|" if edge else "") + "|".join(aligns)
             + ("|" if edge else "")]
    for _ in range(draw(st.integers(0, 40))):
        cells = draw(st.lists(cell, min_size=0, max_size=columns + 2))
        lines.append("|" + "|".join(cells) + ("|" if draw(st.booleans()) else ""))
    text = "\n".join(lines) + "\n"
    cut = draw(st.integers(0, len(text)))
    return (SENTINEL if draw(st.booleans()) else "") + text[:cut]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.integers(1, 130))
def test_any_table_any_width_draws_as_rich_does(markdown: str, width: int) -> None:
    assert render_markdown(CONSOLE, markdown, width) == rich_own(markdown, width)


def test_the_caches_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(markdown_table, "BLOCKS_KEPT", 4)
    monkeypatch.setattr(markdown_table, "ROWS_KEPT", 10)
    for rows in range(60, 80):
        render_markdown(CONSOLE, table(rows, note=f"n{rows}"), 120)
    assert len(markdown_table._blocks[CONSOLE]) == 4
    assert len(markdown_table._rows[CONSOLE]) == 10


def test_a_grown_table_parses_and_draws_its_new_rows_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """One row more on a long table: that row parsed and drawn, not 300 rows; once its block of
    16 is whole, the block drawn once."""
    parsed: list[str] = []
    drawn: list[int] = []
    parse_rows, draw_block = markdown_table._parsed, markdown_table._block

    def counting_parse(console: Console, options: object, markup: str) -> object:
        parsed.append(markup)
        return parse_rows(console, options, markup)  # type: ignore[arg-type]

    def counting_block(*args: object) -> object:
        drawn.append(len(args[-1]))  # type: ignore[arg-type]
        return draw_block(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(markdown_table, "_parsed", counting_parse)
    monkeypatch.setattr(markdown_table, "_block", counting_block)
    text = table(300)
    render_markdown(CONSOLE, text, 120)
    assert len(parsed) == 301 and sum(drawn) == 300  # the header and every row, once
    parsed.clear()
    drawn.clear()
    grown = text + "| new | x | y |\n"
    assert render_markdown(CONSOLE, grown, 120) == rich_own(grown, 120)
    assert parsed == [text.split("\n", 2)[0] + "\n" + text.split("\n", 2)[1] + "\n| new | x | y |\n"]
    assert drawn == [1]  # the new row alone (rows 288-300 are drawn one by one until 16)
    for number in range(3):
        grown += f"| more {number} | x | y |\n"
        render_markdown(CONSOLE, grown, 120)
    assert drawn == [1, 1, 1, 16]  # the block of rows 288-303 is whole: drawn once, with the rows
