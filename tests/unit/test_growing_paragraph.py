"""A growing paragraph's lines, drawn from its newest text, equal Rich's rendering of the tail.

Rich is the oracle: every time ``PieceLines.grow`` takes a tail's lines from the tail it grew
from, they must be, cell for cell and style for style, what rendering the new tail gives.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.tail_growth import CONSOLE, cells, grow_all
from widgets.transcript.growing_paragraph import ADVANCE, GrowingParagraph, _closed
from widgets.transcript.markdown_chunk import render_piece
from widgets.transcript.markdown_seal import Piece
from widgets.transcript.piece_lines import PieceLines

# Plain words, and everything that makes a paragraph's growth not plain: markup, block starts,
# line breaks, quotes (link titles), non-ASCII, wide characters, words longer than the width.
WORDS = ["word", "streaming", "a", "of", "text,", "end.", "x=1", "50%", "well-known", "9", " ", "  ",
         "**", "*", "_", "`", "[", "]", "(", ")", "](http://x)", "\\", "&amp;", "&", '"', "'", "~~",
         "<b>", "<", ">", "!", "|", "#", "\n", "\n\n", "\n- ", "\n1. ", "\n> ", "\n    ", "\n```\n",
         "\n===", "\n---", "\t", "é", "日本語", "e\u0301", "Supercalifragilisticexpialidocious" * 3,
         ";", "amp", "&#32;", "[a]:\nhttp://x", "[a]:", " " * 12, "[1]", "a[0]", "][", "\\]",
         "[x [y] z]"]

PLAIN_WORDS = ["the", "and", "longer", "words", "x", "a", "streaming,", "end.", "  ", "q",
               "Supercalifragilistic" * 2, "the   "]
# Mostly plain words (so paragraphs grow for many chunks and wrap), with markup mixed in.
TOKEN = st.one_of(*[st.sampled_from(PLAIN_WORDS)] * 3, st.sampled_from(WORDS))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(TOKEN, min_size=1, max_size=3).map(" ".join), min_size=1, max_size=60),
       st.integers(min_value=3, max_value=70), st.booleans())
def test_grown_tail_is_what_rich_renders(chunks: list[str], width: int, sentinel: bool) -> None:
    grow_all(chunks, width, sentinel)


def test_a_plain_paragraph_grows_without_rich() -> None:
    words = ("streaming text with **bold words**, `inline code` and plain ones that wrap across "
             "the width of the terminal like a real answer does. ") * 4
    chunks = [words[i:i + 5] for i in range(0, len(words), 5)]
    pieces = grow_all(chunks, 40, sentinel=True)
    # Only the first chunk is rendered whole (there is no tail before it to grow from).
    assert pieces.grown == len(chunks) - 1 and pieces.rendered_count == 1


QUOTE_WORDS = ("quoted text with **bold words**, `inline code`, a [link](http://x.com) and plain "
               "ones that wrap like a real answer ")


@pytest.mark.parametrize("prefix", ["", "> ", "> > ", ">"])
def test_a_long_quote_grows_from_its_last_lines(prefix: str) -> None:
    """A quote's lines are one paragraph: each frame renders its newest text, not all of it."""
    text = "".join(f"{prefix}line {n}: {QUOTE_WORDS}\n" for n in range(24))
    chunks = [text[i:i + 7] for i in range(0, len(text), 7)]
    pieces = grow_all(chunks, 72, sentinel=True)
    assert pieces.grown == len(chunks) - 1, (pieces.grown, len(chunks))
    growing = pieces.growing
    assert growing is not None and len(text) - len(growing.head) < 2 * ADVANCE  # its window is short


LINE_WORDS = ["word", "streaming", "a", "of", "text,", "**bold**", "**", "*", "_x_", "`code`", "`",
              "[link](http://x)", "[", "]", "~~s~~", "&amp;", "\\", "x=1", "50%", "é", "Super" * 12,
              "2024.", "1.", "-", "*", "#", "|", "=", "```", "  ", "e\u0301", "日本", "&#32;", "&amp;",
              "[1]", "a[0]", "]("]


@st.composite
def quotes(draw: st.DrawFn) -> tuple[str, list[int]]:
    """A block quote (or a paragraph) of several lines, and where the stream cuts it."""
    prefix = draw(st.sampled_from(["", "> ", "> > ", ">", " > "]))
    word = st.one_of(*[st.sampled_from(PLAIN_WORDS)] * 4, st.sampled_from(LINE_WORDS))
    lines = draw(st.lists(st.lists(word, min_size=1, max_size=12).map(" ".join), min_size=1, max_size=12))
    text = "".join(prefix + line + "\n" for line in lines)
    cuts = sorted(set(draw(st.lists(st.integers(1, len(text)), min_size=1, max_size=40))))
    return text, cuts


@settings(max_examples=150, deadline=None)
@given(quotes(), st.integers(min_value=3, max_value=70), st.booleans())
def test_a_growing_quote_is_what_rich_renders(quote: tuple[str, list[int]], width: int,
                                              sentinel: bool) -> None:
    text, cuts = quote
    grow_all([text[a:b] for a, b in zip([0, *cuts], cuts, strict=False)], width, sentinel)


def test_each_paragraph_of_a_quote_is_followed_from_the_frame_after_it_starts() -> None:
    """A quote of several paragraphs: at each new paragraph the tail is rendered once with Rich
    (its window has a line of markers only), then the new paragraph is found and followed."""
    paragraphs = 8
    text = "".join(f"> {QUOTE_WORDS * 3}\n>\n" for _ in range(paragraphs))
    chunks = [text[i:i + 11] for i in range(0, len(text), 11)]
    pieces = grow_all(chunks, 72, sentinel=False)
    assert pieces.rendered_count <= 1 + 2 * paragraphs, (pieces.rendered_count, len(chunks))


def test_a_tail_whose_last_line_starts_a_block_is_not_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A table, a list or code streaming line by line: the last line says no paragraph ends the
    tail, without parsing it (a parse of a 16 K tail costs ~6 ms, at every row)."""
    from widgets.transcript import growing_paragraph

    def parse(_text: str) -> None:
        raise AssertionError("parsed")

    monkeypatch.setattr(growing_paragraph.PARSER, "parse", parse)
    for tail in ("| a | b |\n|---|---|\n| 1 | 2", "- one\n- two", "1. one\n2. two", "    code",
                 "> - quoted item", "text\n", "> quote\n>"):
        piece = Piece(tail, tail)
        assert GrowingParagraph.start(CONSOLE, piece, [((" " * 40, 0),)], 40) is None, tail


def test_a_paragraph_followed_in_one_tail_is_not_taken_for_the_next_one() -> None:
    """Counter-example a review found: the tail replaced by a new one whose text starts the same
    but whose numbered list above goes on from another number drew the old numbers."""
    from widgets.transcript.markdown_seal import Sealer

    width = 40
    paragraph = "foo " + "word " * 18
    text = "1. xxxxxx\n" * 9 + "1. " + "x" * 16 + "\n" + "1. a\n\n" + paragraph
    chunks = [text[i:i + 5] for i in range(0, len(text), 5)]
    chunks += ["\n\n5. y\n" + "1. y\n" * 4 + "1. a\n\n", "fo", "o", " wor", "d word"]
    sealer, pieces, streamed = Sealer(), PieceLines(), ""
    pieces.set_width(width)
    for chunk in chunks:
        tail = len(pieces) - 1
        old = pieces.pieces[tail] if len(pieces) else None
        old_lines = pieces.rendered_lines(tail) if len(pieces) else None
        if len(pieces):
            pieces.pop()
        streamed += chunk
        for piece in sealer.feed(streamed):
            pieces.push(piece)
        pieces.push(sealer.tail(streamed))
        grown = (old is not None and old_lines is not None and len(pieces) - 1 == tail
                 and pieces.grow(tail, old, old_lines, CONSOLE))
        for index in range(len(pieces)):
            if not pieces.is_rendered(index):
                pieces.render(index, CONSOLE)
        if grown:
            expected = render_piece(CONSOLE, pieces.pieces[-1], width)
            assert cells(pieces.rendered_lines(len(pieces) - 1) or []) == cells(expected), streamed


def test_a_paragraph_that_cannot_be_drawn_so_is_not_looked_for_at_every_frame(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An emoji, a hard break or an open link the window cannot move past: one look per line,
    not a parse of the tail and a render of its paragraph at every frame."""
    calls: list[int] = []
    start = GrowingParagraph.start.__func__  # type: ignore[attr-defined]

    def counted(cls: type[GrowingParagraph], *args: object) -> GrowingParagraph | None:
        calls.append(1)
        return start(cls, *args)

    monkeypatch.setattr(GrowingParagraph, "start", classmethod(counted))
    for text in ("A paragraph with an emoji 🙂 near its start, " + "and words " * 120,
                 "Line one  \nline two " + "and words " * 120,
                 "An open [link text " + "and words " * 500):
        calls.clear()
        chunks = [text[i:i + 6] for i in range(0, len(text), 6)]
        grow_all(chunks, 60, sentinel=False)
        assert len(calls) <= 4, (text[:20], len(calls), len(chunks))


@pytest.mark.parametrize("prefix,hard_break", [("", "  "), ("> ", "\\"), ("> > ", "   "), ("", "\\")])
def test_lines_ending_in_hard_breaks_grow_from_the_last_line(prefix: str, hard_break: str) -> None:
    """A paragraph of lines that each end in a hard break (a poem, an address, "key: value"
    lines): the lines above the last break are kept, each frame draws the line after it."""
    text = "".join(f"{prefix}line {n} of a poem with *some* words &amp; a `code` span{hard_break}\n"
                   for n in range(25))
    chunks = [text[i:i + 7] for i in range(0, len(text), 7)]
    pieces = grow_all(chunks, 40, sentinel=True)
    assert pieces.grown == len(chunks) - 1, (pieces.grown, len(chunks))
    growing = pieces.growing
    assert growing is not None and len(text) - len(growing.head) < 80  # the last line or two


def test_a_paragraph_with_entities_grows_from_its_newest_text() -> None:
    text = "Tom &amp; Jerry &lt;tag&gt; &copy; 10&nbsp;km&#x2003;words and more words " * 50
    chunks = [text[i:i + 5] for i in range(0, len(text), 5)]
    pieces = grow_all(chunks, 50, sentinel=False)
    # An entity at the end of the window may draw as a space (taken for the padding): rendered.
    assert pieces.grown >= len(chunks) * 3 // 4, (pieces.grown, len(chunks))
    growing = pieces.growing
    assert growing is not None and len(text) - len(growing.head) < 2 * ADVANCE


@pytest.mark.parametrize("text,size", [
    ("[<http://]> " + "word " * 30 + "a](u)", 1),  # an autolink's "]" closes no link text
    ("> [<http://]> " + "word " * 30 + "a](u)", 1),
    # A paragraph that starts with "[" may turn into a link reference definition (drawn as
    # nothing) once its destination or title is closed, or once "]:" and a destination come.
    ("[a]: <" + "word " * 33 + ">", 1),
    ("[a]:\n<" + "word " * 33 + ">", 1),
    ("[ab]: u '" + "word " * 33 + "'", 3),
    ("[1]: https://example.com/a", 1),
    ("> [1]: https://example.com/a", 1),
], ids=["autolink", "autolink-quoted", "definition-angle", "definition-next-line", "definition-title",
        "definition-grown", "definition-quoted"])
def test_what_a_review_found_about_brackets_grows_as_rich_renders(text: str, size: int) -> None:
    for sentinel in (False, True):
        grow_all([text[i:i + size] for i in range(0, len(text), size)], 40, sentinel)


def test_a_paragraph_with_closed_brackets_grows_from_its_newest_text() -> None:
    """Citations, indexes and check boxes in prose ([1], arr[0], [x]) are closed brackets: no
    link can start at them any more, so the window moves past them."""
    text = "As shown [1] and in arr[0], the [x] box and [a [nested] one] are text, words " * 50
    chunks = [text[i:i + 5] for i in range(0, len(text), 5)]
    pieces = grow_all(chunks, 50, sentinel=False)
    assert pieces.grown == len(chunks) - 1, (pieces.grown, len(chunks))
    growing = pieces.growing
    assert growing is not None and len(text) - len(growing.head) < 2 * ADVANCE


def test_what_is_not_a_growing_paragraph_is_rendered_again() -> None:
    """Indented code, a list item, a lazy line, a heading, a table, a hard break under open
    emphasis, an image, a tab, a hidden character, a character of no cell (which Rich joins to
    the one before it): rendered as usual (a fence grows as one: ``test_growing_fence.py``)."""
    for start, added in [("    code", " more"), ("> quote\nlazy", " more"),
                         ("text\n\n    code", " more"), ("- item", " more"), ("# Title", " more"),
                         ("| a | b |\n|---|---|\n| 1 | 2", " more"), ("*line  \nnext", " more"),
                         ("text", " ![i](x.png)"), ("text", "\tmore"), ("text", " \x1b[31m"),
                         ("text", " e\u0301"), ("text", " 日本語\u200b"),
                         ("text", " ❤\ufe0f"), ("> quote", "\n> - item"), ("text", "\n# Title")]:
        pieces = PieceLines()
        pieces.set_width(40)
        old = Piece(start, start)
        pieces.push(old)
        pieces.render(0, CONSOLE)
        old_lines = pieces.rendered_lines(0)
        assert old_lines is not None
        pieces.pop()
        pieces.push(Piece(start + added, start + added))
        assert not pieces.grow(0, old, old_lines, CONSOLE), (start, added)


WIDE = "流式输出的基准文本，包含**粗体**与`代码`，😀 表情符号和全角字符会换行。"


@pytest.mark.parametrize("width", [72, 71, 29, 13])
def test_a_cjk_paragraph_grows_from_its_newest_text(width: int) -> None:
    """CJK prose (two cells a character, no spaces between words) grows as any paragraph does:
    its window moves on between two wide characters, and the lines above it are kept."""
    text = WIDE * 12 + "checkpoint 7 在这里。"
    chunks = [text[i:i + 5] for i in range(0, len(text), 5)]
    pieces = grow_all(chunks, width, sentinel=True)
    assert pieces.grown == len(chunks) - 1 and pieces.rendered_count == 1, (pieces.grown, len(chunks))
    growing = pieces.growing
    assert growing is not None and len(text) - len(growing.head) < 2 * ADVANCE


@pytest.mark.parametrize(("run", "width", "chunk"), [(160, 20, 7), (160, 16, 3), (40, 20, 1), (41, 13, 7)])
def test_a_folded_cjk_word_ending_at_the_edge_is_what_rich_renders(run: int, width: int, chunk: int) -> None:
    """A review: a CJK run filling its last row exactly, then a space: Rich folds the word with
    its space, which spills onto the next row (``" word"``); the rest of the word wrapped alone
    gave ``"word"``."""
    text = "一" * run + " word and more words here " * 3
    for sentinel in (False, True):
        grow_all([text[i:i + chunk] for i in range(0, len(text), chunk)], width, sentinel)


# CJK words (no spaces), wide punctuation, emoji, full-width forms, and what may not be split.
WIDE_WORDS = ["流式输出", "基准文本", "，", "。", "😀", "全角字符会换行", "一" * 40, "ｈｅｌｌｏ", "\u3000",
              "表情", "的", "、", "「引用」", "（括号）"]
WIDE_MARKUP = ["**", "*", "_", "`", "[", "]", "](http://x)", "<http://例子>", "<b>", "<", ">", " ", "\n",
               "\n\n", "\n> ", "word", "e\u0301", "\U0001F1EF\U0001F1F5", "👍\U0001F3FD", "~~", "\\",
               "&#x4E00;", "  \n", "[1]", "\u200b"]
WIDE_TOKEN = st.one_of(*[st.sampled_from(WIDE_WORDS)] * 4, st.sampled_from(WIDE_MARKUP))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(WIDE_TOKEN, min_size=1, max_size=4).map("".join), min_size=1, max_size=60),
       st.integers(min_value=3, max_value=50), st.booleans(), st.sampled_from(["", "> "]))
def test_a_growing_cjk_paragraph_is_what_rich_renders(chunks: list[str], width: int, sentinel: bool,
                                                      prefix: str) -> None:
    grow_all([prefix + chunks[0], *chunks[1:]], width, sentinel)


def test_the_window_moves_only_past_closed_text() -> None:
    """Emphasis or a code span still open (or a bracket a link could go on from) keeps the window
    from moving past it: what comes later could change how it is drawn."""
    for text in ("plain words and **bold** and `code` and [a](http://x)", "as shown [1] and [2]",
                 "use arr[0] here", "a [x] box", "nested [a [b] c] done", "a] stray", "see `[a`] ok"):
        assert _closed(text), text
    for text in ("an **open one", "a `code span", "a [link text", "an *emphasis", "x ~~struck", "a*b",
                 "[a [b] c", "see [1](http://x", '[a](u "a title', "[a][ref", "[a \\] b",
                 "an \\] escaped [x", "[a `]` b", "[<http://]> word"):
        assert not _closed(text), text
    text = "An **open emphasis " + "and many more words " * 30
    grow_all([text[i:i + 9] for i in range(0, len(text), 9)] + [" closed** here."], 40, sentinel=False)


@pytest.mark.parametrize("chunks,width", [
    (["Tom &amp", "; Jerry"], 40),  # ";" ends an entity
    (["foo&#32;", "bar"], 40),  # an entity that renders as a space, at the end
    (["Intro text.\n\n[a]:\nhttp://x.com", " b"], 40),  # a definition's URL line grows
    (["x" * 11 + " " * 12 + "ab", "cdefgh"], 10),  # a last line of folded trailing spaces
    (["the", "the   "], 4),  # trailing spaces added: the paragraph's end is trimmed, not folded
    (["the", "the ` `"], 4),  # a code span of a space at the end: the text's own, not padding
    (["the", "the\n"], 3),  # too narrow for markdown: the piece is shown as its plain text
    # Hard breaks: the lines above one are kept only if nothing before it is still open.
    (["an *open  \nline", " two* end"], 40),  # emphasis across the break
    (["a `code  \nspan", "` b"], 40),  # a code span across it (not a break inside one)
    (["two \\\\\nbackslashes", " b"], 40),  # an escaped backslash: a soft break, no hard one
    (["foo&#32;  \nbar", " baz"], 40),  # an entity drawn as a space before the break
    (["foo &#32;", "\\\nbar"], 40),  # ... and before a backslash break
    (["foo &nbsp;", " bar"], 40),  # a space-like entity at the window's end
    (["ab", "ab&#10;"], 4),  # a newline at the end: drawn as nothing
    (["ab", "ab&#10;  \nc"], 4),  # ... before a hard break
    # Found by a review of the hard-break change:
    (["foo *\\\nbar", "* baz"], 40),  # an emphasis a backslash break lets open ...
    (["x ~~\\\nfoo", "~~ bar"], 40),  # ... or a strikethrough
    (["foo\\  \nbar", " baz"], 40),  # an escaped space: one space left, a soft break
    (["foo\xa0  \nbar", " baz"], 40),  # a no-break space before the break (stripped, alone)
    (["foo  \n&#10;bar  \nbaz", " q"], 40),  # an entity that breaks the line
    (["foo  \n[a]: http://x\nmo", "re words"], 40),  # text after a break, alone a definition
    (["> foo  \n> [a]: /u\n> bar", " baz"], 40),
    (["&#x4E00;&#x4E00; e&#x301", ";e&#x301;"], 4),  # a wide and a zero-width character ...
    (["一一 e\u0301", "e\u0301"], 4),  # ... from entities or not: as many cells as characters
])
def test_growth_that_changes_what_came_before_is_rendered_again(chunks: list[str], width: int) -> None:
    """Counter-examples a review found: each once took the shortcut and drew what Rich does not."""
    for sentinel in (False, True):
        grow_all(chunks, width, sentinel)
