"""A growing code fence's lines, drawn from its last lines only, equal Rich's rendering of the tail.

Rich is the oracle: every time ``PieceLines.grow`` takes a tail's lines from the tail it grew
from, they must be, cell for cell and style for style, what rendering the new tail gives.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from tests.unit.tail_growth import CONSOLE, grow_all
from widgets.transcript.growing_fence import GrowingFence
from widgets.transcript.markdown_chunk import render_piece
from widgets.transcript.markdown_seal import Piece
from widgets.transcript.rendered_line import Line

PYTHON = '''def main(argv: list[str]) -> int:
    """Say hello to each name given.

    A docstring over lines, with 'quotes' and "more"."""
    for name in argv:  # a comment
\tprint(f"hello {name!r}", end="\\n")
    return 0  # done


class Thing:
    value = 0x1F + 3.5e-2 * (1 if True else 2)
'''
BASH = ('cat <<EOF > out.txt\nhello $USER\nEOF\nawk -F\'[/:]\' \'{print $1}\' file | sort -u\n'
        'echo "a\nb" # c\n')
C = 'int main(void) {\n  /* a comment\n     over lines */\n  printf("%d\\n", 1);  // done\n}\n'
JS = "const a = `template ${x}\nover lines`;\nlet b = /re[a-z]+/g; // c\n"
HOSTILE = "x = '\x1b[31mred\x1b[0m'  # \u202eevil\u202c\nbell = '\x07'\n\ttab\t= 1\n日本語 = 'wide'\n"
LONG = "y = " + "+".join(f"value_{n}" for n in range(40)) + "\n"
MINIFIED = '{"items": [' + ", ".join(f'{{"id": {n}, "name": "item {n}"}}' for n in range(16)) + "]}\n"
FOLDED = "blob = '" + "QUJDRA" * 60 + "'  # one word over many rows\n"


def chunked(text: str, size: int) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize(("info", "code"), [("python", PYTHON), ("bash", BASH), ("c", C), ("js", JS),
                                            ("", PYTHON), ("nosuchlanguage", C), ("python", HOSTILE),
                                            ("python", LONG), ("py title", PYTHON), ("~~~", BASH),
                                            ("json", MINIFIED), ("python", FOLDED)])
@pytest.mark.parametrize("width", [12, 40, 80])
@pytest.mark.parametrize("size", [2, 7])
def test_a_growing_fence_is_what_rich_renders(info: str, code: str, width: int, size: int) -> None:
    opener = "~~~\n" if info == "~~~" else f"```{info}\n"
    grow_all(chunked(code, size), width, head="Some text first.\n\n" + opener, same_segments=True)


@pytest.mark.parametrize("head", ["```python\n", "# Title\n\n````python\n", "- item\n\n```python\n"])
def test_a_long_fence_is_drawn_from_its_last_line(head: str) -> None:
    """Code streamed 5 characters at a time: after the first frames, each frame takes the rows
    above the last line as they were and draws that line alone (no render of the piece)."""
    code = PYTHON * 3
    chunks = chunked(code, 5)
    pieces = grow_all(chunks, 80, True, head=head, same_segments=True)
    # Rendered with Rich: the first tail, and a frame or two where a line above the last one
    # changed look (a docstring opened and not closed yet), then found again.
    assert pieces.rendered_count <= 12, (pieces.rendered_count, len(chunks))
    assert pieces.grown >= len(chunks) - 12


@pytest.mark.parametrize(("info", "code"), [("json", MINIFIED), ("python", FOLDED), ("python", LONG * 4)])
def test_a_long_line_is_drawn_from_the_rows_it_had(info: str, code: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A line longer than a row, streamed 5 characters at a time: each frame keeps its rows up
    to the last break Rich made in it before and makes now, and draws only the rest (at most
    the last two rows and what came), not the whole line."""
    from widgets.transcript import growing_fence

    drawn: list[int] = []
    syntax_rows = growing_fence.syntax_rows

    def counted(console: Console, tokens: list[tuple[Any, str]], width: int) -> list[Line]:
        drawn.append(len("".join(value for _kind, value in tokens)))
        return syntax_rows(console, tokens, width)

    monkeypatch.setattr(growing_fence, "syntax_rows", counted)
    chunks = chunked(code, 5)
    pieces = grow_all(chunks, 40, head=f"```{info}\n", same_segments=True)
    assert pieces.grown >= len(chunks) - 3, (pieces.grown, len(chunks))
    assert drawn and max(drawn) <= 2 * 40 + 5, max(drawn)  # two rows and a chunk at most, each time


def test_a_word_folded_over_rows_goes_on_as_rich_wraps_it() -> None:
    """Width 20: 18 cells inside the padding. Where a word longer than that is folded, the rest of
    the line is not always what the same characters wrap into as a line of their own."""
    # 35 letters and three blanks are one word, folded into 18 letters, 17 letters and a blank,
    # then two blanks with "bb" after them. The same 17 letters and three blanks starting a line
    # are a word that fits, its blanks past the edge, and "bb" goes to the next row.
    grow_all(["a" * 30, "aaaaa ", "  bb", " cc", " dd", "\n"], 20, head="```text\n", same_segments=True)
    # 19 letters and 20 blanks: folded into 18 letters, a letter and 17 blanks, then three blanks
    # and, on the next row, the 16 b's that do not fit after them. Starting a line, the three
    # blanks and the b's are one word, folded after 15 b's.
    grow_all(chunked("a" * 19 + " " * 20 + "b" * 16 + "\n", 1), 20, head="```text\n", same_segments=True)


@st.composite
def codes(draw: st.DrawFn) -> tuple[str, str, list[int]]:
    """A fence's language, its code, and where the stream cuts it."""
    info = draw(st.sampled_from(["python", "bash", "c", "js", "json", "", "text", "rust", "diff"]))
    fragment = st.sampled_from(["x", " ", "  ", "\n", "\n\n", "\t", "=", "'", '"', '"""', "`", "```", "~~~",
                                "#", "//", "/*", "*/", "<<EOF", "EOF", "$x", "{", "}", "(", ")", "[", "]",
                                "0x1F", "3.5", "def", "class", "return", "if", "+", "-", "é", "日本",
                                "\x1b[31m", "\u202e", "  \n", "\\", "\\n", "word" * 12, ",", ";"])
    code = "".join(draw(st.lists(fragment, min_size=1, max_size=80)))
    cuts = sorted(set(draw(st.lists(st.integers(1, len(code)), min_size=1, max_size=40))))
    return info, code, cuts


@settings(max_examples=300, deadline=None)
@given(codes(), st.integers(min_value=3, max_value=70), st.booleans())
def test_any_growing_fence_is_what_rich_renders(case: tuple[str, str, list[int]], width: int,
                                                sentinel: bool) -> None:
    info, code, cuts = case
    chunks = [code[a:b] for a, b in zip([0, *cuts], cuts, strict=False)]
    grow_all(chunks, width, sentinel, head=f"```{info}\n", same_segments=True)


def test_what_is_not_an_open_top_level_fence_is_not_followed() -> None:
    def start(markdown: str) -> GrowingFence | None:
        piece = Piece(markdown, markdown)
        return GrowingFence.start(CONSOLE, piece, render_piece(CONSOLE, piece, 60), 60)

    assert start("```python\nx = 1\ny = 2") is not None
    assert start("~~~\nplain\n") is not None
    assert start("```python\nx = 1\n```\n") is None  # closed
    assert start("```python\nx = 1\n```") is None
    assert start("- item\n\n  ```python\n  x = 1\n") is None  # in a list item
    assert start("> ```python\n> x = 1\n") is None  # in a quote
    assert start("  ```python\n  x = 1\n") is None  # indented: its lines lose that indent
    assert start("```python") is None  # no code line yet
    assert start("just a paragraph\n") is None


def test_a_fence_stops_being_followed_when_it_closes() -> None:
    code = "```python\nx = 1\ny = 2\n"
    piece = Piece(code, code)
    fence = GrowingFence.start(CONSOLE, piece, render_piece(CONSOLE, piece, 60), 60)
    assert fence is not None
    for more in ("z", "```", "  ``` ", "````"):
        grown = Piece(code + more, code + more)
        assert fence.follows(grown, 60)
        assert (fence.lines(CONSOLE, grown) is None) == more.strip().startswith("```")
    assert not fence.follows(Piece(code, code), 61)  # another width


def test_a_line_above_that_changes_look_is_rendered_with_rich() -> None:
    """A bash heredoc is one token only once its end line comes: the lines it spans change look,
    so that frame is rendered with Rich, and the fence is followed again from there."""
    head = "```bash\ncat <<EOF\nhello\n"
    piece = Piece(head, head)
    fence = GrowingFence.start(CONSOLE, piece, render_piece(CONSOLE, piece, 60), 60)
    assert fence is not None
    closed = Piece(head + "EOF\n", head + "EOF\n")
    assert fence.lines(CONSOLE, closed) is None
    pieces = grow_all(chunked("cat <<EOF\nhello $USER\nEOF\necho done\n" * 4, 3), 60, head="```bash\n",
                      same_segments=True)
    assert pieces.grown > pieces.rendered_count


@pytest.mark.parametrize(("head", "code", "width"), [
    # Rich crops the spaces ending a line longer than the width in characters: combining marks
    # make this line 5 cells but 8 characters, so they go, and the padding takes their place.
    ("```markdown\n", "a} b\n\u0301\u0301\u00e9 \u0301}  x\n", 7),
    # A token type with no style of its own (yaml's lone quote) gets no span: its text is drawn
    # with the fill after it, as one segment.
    ("~~~yaml\n", "return[*]\t  \n\n\"\n\"x\n", 107),
])
def test_what_fuzzing_found_grows_as_rich_renders(head: str, code: str, width: int) -> None:
    grow_all(chunked(code, 1), width, head=head, same_segments=True)


def test_what_a_review_found_grows_as_rich_renders(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sequences a reviewer's fuzzer found, in order: the looks learnt in one fence are used in
    the next, so they start from none here."""
    from widgets.transcript import code_rows

    monkeypatch.setattr(code_rows, "_LOOKS", {})
    # A line whose last space Rich cropped (combining marks: longer in characters than the width)
    # taught the fill's look as a space token's; every later line with that token drew it so.
    grow_all(["```python\n", "a = $ + 2 # c\n", "x = 'y'\n", "z"], 20)
    grow_all(["```python\n", "a = 1\n", "e\u0301 = 1 ", "\n"], 8)
    grow_all(["```text\n", "hello world\n", "y", "y"], 40)
    grow_all(["```bash\n", "echo hello world\n", "echo a b", "\n"], 40)
    # A character and its variation selector in two tokens: one wide character, not two.
    grow_all(["```python\n", "a\n", "\u65e5\u2764\ufe0f", "\n"], 5)
    grow_all(["```python\n", "a = 1\n", "\u2764\ufe0f = 2", "\n"], 20)
    # "\r\n" is a newline: the fence closes on "```\r\n", and a "\r" then "\n" make one line, not two.
    grow_all(["```python\r\n", "x = 1\r\n", "```\r\n", "after"], 20)
    grow_all(["```\n", "a\n\r", "\n"], 12)
    grow_all(["```yaml\n", "x\n", "  v # c", "\n", "y"], 20)
    grow_all(["```yaml\n", "x\n", "v", "'", "\n"], 20)
