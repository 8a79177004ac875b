"""Link reference definitions hold for the whole answer, however it is cut into pieces: frame by
frame, ``PieceLines`` fed as ``TextBlockView._seal`` feeds it (the tail popped and pushed again,
new pieces sealed, the definitions gathered once) draws what Rich draws for the text so far."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit.tail_growth import cells
from tests.unit.test_markdown_seal import BLOCKS, CONSOLE, WIDTH
from widgets.transcript.markdown_chunk import render_markdown
from widgets.transcript.markdown_seal import Sealer
from widgets.transcript.piece_lines import PieceLines
from widgets.transcript.rendered_line import Line

USES = st.sampled_from([
    "See [x], [the y][y] and [Y].",
    "> see [foo\n> bar] now, a label over two quoted lines",
    "- an item that cites [foo\n  bar] on its next line",
    "Escaped line break in [a\\\nb] here.",
    "A hidden character in [a\x1bb] and a lone \r in [c\rd].",
    "Plain paragraph text that goes on for a while.",
])
DEFINITIONS = st.sampled_from([
    "[x]: http://example.com/x",
    "[y]:\n  /y 'a title'",
    "[foo bar]: /foo-bar",
    "[a\\\nb]: /a-b",
    "[a\x1bb]: /escape\n[c\rd]: /cr",
    "> [x]: /quoted-x-first",
    "[x]: /second-x-is-not-used",
])


@st.composite
def answers(draw: st.DrawFn) -> str:
    blocks = draw(st.lists(st.one_of(USES, DEFINITIONS, BLOCKS), min_size=2, max_size=10))
    separators = draw(st.lists(st.sampled_from(["\n\n", "\n"]), min_size=len(blocks), max_size=len(blocks)))
    return "".join(block + sep for block, sep in zip(blocks, separators, strict=True))


def drawn(pieces: PieceLines) -> list[Line]:
    for index in range(len(pieces)):
        if not pieces.is_rendered(index):
            pieces.render(index, CONSOLE)
    assert pieces.unrendered == 0
    return [line for index in range(len(pieces)) for line in pieces.rendered_lines(index) or []]


def stream(text: str, chunk: int, minimum: int) -> None:
    sealer = Sealer(minimum=minimum, limit=minimum * 4, fence_minimum=minimum)
    pieces = PieceLines()
    pieces.set_width(WIDTH)
    has_tail = False
    for end in [*range(chunk, len(text), chunk), len(text)]:
        final = end == len(text)
        tail = len(pieces) - 1
        old = (pieces.pieces[tail], pieces.rendered_lines(tail)) if has_tail else None
        if has_tail:
            pieces.pop()
        for piece in sealer.feed(text, final=final, end=end):
            pieces.push(piece)
        has_tail = not final
        if has_tail:
            pieces.push(sealer.tail(text, end))
            if old is not None and old[1] is not None and len(pieces) - 1 == tail:
                pieces.grow(tail, old[0], old[1], CONSOLE)  # as the view does: the same tail grown
        pieces.gather_references()
        pieces.take_stale()
        # (cell for cell: a grown tail's lines may be cut into segments otherwise)
        assert cells(drawn(pieces)) == cells(render_markdown(CONSOLE, text[:end], WIDTH)), repr(text[:end])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answers(), st.integers(min_value=1, max_value=40), st.integers(min_value=1, max_value=60))
def test_every_frame_draws_the_links_as_the_whole_text_does(text: str, chunk: int, minimum: int) -> None:
    stream(text, chunk, minimum)


def test_a_label_over_quoted_lines_is_drawn_again_when_its_definition_comes() -> None:
    stream("> see [foo\n> bar] now\n\nmiddle para\n\n[foo bar]: /x\n", 5, 1)
    stream("See [a\\\nb] here.\n\nmiddle words\n\n[a\\\nb]: /x\n", 1, 1)
    stream("see [a\x1bb] and more words\n\nmiddle\n\n[a\x1bb]: /x\n", 3, 1)
    stream("[x]: /x\rfoo\n\nPara [x] with words.\n\nMore words here.\n", 1, 1)


def test_a_definition_in_the_tail_makes_nothing_stale_until_it_changes() -> None:
    """The tail is popped and pushed again every frame: a definition it holds, unchanged, makes
    no piece that uses it unrendered; one that comes or changes makes those that use it (only
    them) unrendered."""
    uses = "".join(f"Point {n} cites [src].\n\nPoint {n} cites nothing.\n\n" for n in range(10))
    sealer = Sealer(minimum=1, limit=4)
    pieces = PieceLines()
    pieces.set_width(WIDTH)

    def frame(text: str) -> int | None:
        if len(pieces):
            pieces.pop()
        for piece in sealer.feed(text):
            pieces.push(piece)
        pieces.push(sealer.tail(text))
        pieces.gather_references()
        return pieces.take_stale()

    assert frame(uses) is None
    drawn(pieces)
    assert frame(uses + "[src]: /s") == 0  # the definition came: the first piece that uses it

    def unrendered_sealed() -> list[str]:  # (not the last two: the tail before, sealed now, and the tail)
        return [piece.source for index, piece in enumerate(pieces.pieces[:-2])
                if not pieces.is_rendered(index)]

    assert unrendered_sealed() == [f"Point {n} cites [src].\n\n" for n in range(10)]
    drawn(pieces)
    text = uses + "[src]: /s"
    for more in ("\n", "[other]: /o\n", "\nMore", " words."):
        text += more
        assert frame(text) is None and unrendered_sealed() in ([], ["[src]: /s\n[other]: /o\n\n"])
        drawn(pieces)  # (only what the frame added: the tail, and the definitions once sealed)
    sealer = Sealer(minimum=1, limit=4)  # (the same answer, its definition changed: a new text)
    pieces.clear()
    frame(uses)
    drawn(pieces)
    frame(uses + "[src]: /s")
    drawn(pieces)
    assert frame(uses + "[src]: /s2") == 0
    assert unrendered_sealed() == [f"Point {n} cites [src].\n\n" for n in range(10)]
