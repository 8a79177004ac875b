"""A code block made from its tokens (``code_rows``) is what Rich's ``Syntax`` draws for it.

Rich is the oracle: every row, cell for cell and segment for segment, wherever the block sits
(the top level, a list item, a quote, both), at any width, in any language, whatever its text.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.segment import Segment
from rich.style import Style

from tests.unit.tail_growth import CONSOLE, syntax_only
from widgets.transcript import code_rows
from widgets.transcript.markdown_chunk import render_markdown
from widgets.transcript.rendered_line import Line

PYTHON = ('def f(x: int) -> str:\n    """Doc."""\n\treturn f"{x!r}"  # done\n\n\n'
          "class A:  # 日本語\n    pass\n")
FRAGMENTS = ["x", " ", "  ", "\n", "\n\n", "\t", "=", "'", '"', '"""', "`", "#", "//", "/*", "*/", "<<EOF",
             "EOF", "$x", "{", "}", "(", ")", "0x1F", "3.5", "def", "class", "return", "if", "+", "-", "é",
             "e\u0301", "日本", "\u2764\ufe0f", "\x1b[31m", "\u202e", "  \n", "\\", "word" * 12, ",", ";",
             "~~~"]
CONTEXTS = ["{fence}", "Text first.\n\n{fence}", "- item\n\n{indented}", "1. step\n\n{indented3}",
            "> {quoted}", "- item\n\n  > {quoted_in_item}"]


def document(context: str, info: str, code: str) -> str:
    lines = [f"```{info}", *code.split("\n"), "```"]
    return context.format(fence="\n".join(lines) + "\n",
                          indented="".join(f"  {line}\n" for line in lines),
                          indented3="".join(f"   {line}\n" for line in lines),
                          quoted="> ".join(f"{line}\n" for line in lines),
                          quoted_in_item="  > ".join(f"{line}\n" for line in lines))


def both(markdown: str, width: int, console: Console = CONSOLE) -> tuple[list[Line], list[Line]]:
    made = render_markdown(console, markdown, width)
    with syntax_only():
        drawn = render_markdown(console, markdown, width)
    return made, drawn


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(CONTEXTS), st.sampled_from(["python", "bash", "c", "js", "json", "", "text", "yaml",
                                                   "diff", "markdown", "nosuchlanguage"]),
       st.lists(st.sampled_from(FRAGMENTS), max_size=60).map("".join), st.integers(min_value=1, max_value=90))
def test_a_code_block_is_what_syntax_draws(context: str, info: str, code: str, width: int) -> None:
    made, drawn = both(document(context, info, code), width)
    assert made == drawn, (context, info, code, width)


@pytest.mark.parametrize("width", [1, 2, 3, 4, 20, 80, 200])
def test_every_width_and_place_draws_as_syntax(width: int) -> None:
    for context in CONTEXTS:
        made, drawn = both(document(context, "python", PYTHON), width)
        assert made == drawn, (context, width)


def test_what_fits_is_made_without_syntax(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once its looks are known, a block whose lines fit is made from its tokens alone: Syntax
    draws only the line longer than a row."""
    render_markdown(CONSOLE, document("{fence}", "python", PYTHON), 80)  # the looks learnt
    drawn: list[str] = []
    draw = code_rows.draw

    def counted(console: Console, tokens: list[tuple[Any, str]], width: int) -> list[Line]:
        drawn.append("".join(value for _kind, value in tokens))
        return draw(console, tokens, width)

    monkeypatch.setattr(code_rows, "draw", counted)
    long_line = "total = " + " + ".join(f"value_{n}" for n in range(20))
    made = render_markdown(CONSOLE, document("{fence}", "python", PYTHON + long_line), 80)
    assert drawn == [long_line + "\n"]
    monkeypatch.setattr(code_rows, "draw", draw)
    assert made == both(document("{fence}", "python", PYTHON + long_line), 80)[1]


def test_looks_are_learnt_from_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first blocks of a session, no look known: each is still what Syntax draws."""
    monkeypatch.setattr(code_rows, "_LOOKS", {})
    for code in (PYTHON, "x", "", "\t\tdeep = 1", "日本語 = 'wide'", "a\n\n\nb"):
        made, drawn = both(document("{fence}", "python", code), 30)
        assert made == drawn, code


@pytest.mark.parametrize("width", [3, 5, 12, 40])
def test_lines_at_the_edge_of_a_row_draw_as_syntax(width: int) -> None:
    """Lines one cell short of the row, filling it, and one cell past it (wrapped by Syntax)."""
    inner = width - 2
    for cells in (inner - 1, inner, inner + 1, inner + 2):
        if cells < 1:
            continue
        wide = "日" * (cells // 2) + "x" * (cells % 2)
        comment = f"# {'c' * cells}"[:cells]
        lines = ("x" * cells, ("ab " * cells)[:cells], wide, "x" * (cells - 1) + " ", comment)
        for line in lines:
            for context in CONTEXTS:
                made, drawn = both(document(context, "python", f"a = 1\n{line}\nb = 2"), width)
                assert made == drawn, (context, line, width)


def test_rows_hold_one_tuple_for_each_short_piece(monkeypatch: pytest.MonkeyPatch) -> None:
    """A code answer's rows are mostly the same few short pieces: they share them (bounded)."""
    from widgets.transcript import rendered_line

    monkeypatch.setattr(rendered_line, "_shared", {})
    monkeypatch.setattr(rendered_line, "_SHARED_MAX", 3)
    first = rendered_line.shared_pair("=", 7)
    assert rendered_line.shared_pair("=", 7) is first and first == ("=", 7)
    assert rendered_line.shared_pair("=", 8) is not first  # another look
    long = "x" * (rendered_line._SHARED_CHARS + 1)
    assert rendered_line.shared_pair(long, 7) is not rendered_line.shared_pair(long, 7)  # long: its own
    rendered_line.shared_pair("a", 1)
    assert len(rendered_line._shared) == 3
    kept = rendered_line.shared_pair("b", 1)  # past the bound: the table starts again, from this one
    assert rendered_line._shared == {("b", 1): kept} and rendered_line.shared_pair("b", 1) is kept
    monkeypatch.setattr(rendered_line, "_shared", {})
    one, two = (rendered_line.as_line([Segment("=", Style(bold=True)), Segment(" x")], 3) for _ in range(2))
    assert one == two and all(a is b for a, b in zip(one, two, strict=True))
