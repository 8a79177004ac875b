"""The pieces of one text block, their rendered lines at one width, and where each line is.

Not a widget: ``TextBlockView`` owns one and decides when pieces get rendered. A piece not
rendered yet has an estimated height and is drawn as its plain source text (cut to the width,
exactly as many lines as the estimate), so a screen can always be painted without waiting for
Rich. Every operation here is O(log n) or O(lines asked for), never O(pieces), except a width
change, which re-estimates all heights once, and a new link reference definition.

A link reference definition holds for the whole answer, wherever it stands (``markdown_parse``).
Each piece that may hold one is parsed for it as it comes, and each piece is rendered with those
of the whole answer, the first of each label. A definition that comes or changes makes the rendered pieces
that may use its label unrendered again (their old height stays, as an estimate).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rich.console import Console

from tui.text.sanitize import clean_text
from widgets.transcript.growing_fence import GrowingFence
from widgets.transcript.growing_paragraph import GrowingParagraph
from widgets.transcript.height_index import HeightIndex
from widgets.transcript.markdown_chunk import estimate_height, placeholder_lines, render_piece
from widgets.transcript.markdown_parse import References, definitions, label_key
from widgets.transcript.markdown_seal import Piece, may_define
from widgets.transcript.rendered_line import Line, plain_line


def piece_definitions(piece: Piece) -> References:
    """The link reference definitions ``piece`` holds (most pieces: none, known by a regex)."""
    if "]:" not in piece.markdown:  # (in every definition: its label, then a colon)
        return {}
    markdown = clean_text(piece.markdown)  # as it is rendered: labels with their hidden characters
    return definitions(markdown) if may_define(markdown) else {}


_LINE_MARKS = re.compile(r"^[ \t>]+", re.MULTILINE)  # a quote's markers, an item's indent


def uses_key(piece: Piece) -> str:
    """The piece's text as labels are matched, with the line starts a label may span (a quote's
    markers, an indent) taken out: every label the piece may use is in it."""
    return label_key(_LINE_MARKS.sub(" ", clean_text(piece.markdown)))


def first_of_each(each: Iterable[References]) -> References:
    """The definitions of an answer, from those of its pieces in order: the first of each label."""
    found: References = {}
    for references in each:
        for label, reference in references.items():
            found.setdefault(label, reference)
    return found


class PieceLines:
    """Pieces with per-width rendered lines (None until rendered) and a height index."""

    def __init__(self) -> None:
        self.pieces: list[Piece] = []
        self._lines: list[list[Line] | None] = []
        self.heights = HeightIndex()  # exact for rendered pieces, estimated for the others
        self.width = 0
        self.unrendered = 0
        self.rendered_count = 0  # pieces rendered with Rich, ever (benchmarks, tests)
        self._placeholders: dict[int, list[str]] = {}
        self._growing: GrowingParagraph | None = None  # the paragraph the tail ends in
        self._growing_index = -1  # the tail's index then
        self._not_growing = ""  # a tail that ended in no such paragraph (see ``grow``)
        self._fence: GrowingFence | None = None  # the open code fence the tail ends in
        self._fence_index = -1  # the tail's index then
        self._not_fence = ""  # a tail that ended in no such fence (see ``_grow_fence``)
        self.grown = 0  # pieces whose lines came from the piece they grew from (benchmarks, tests)
        self.references: References = {}  # the answer's link reference definitions, first of each label
        self._defines: list[References] = []  # each piece's own (most have none)
        self._defining: list[int] = []  # the pieces that have some, in order
        self._label_keys: dict[int, str] = {}  # a piece's text as labels are matched (when asked)
        self._last_scan: tuple[str, References] = ("", {})  # the tail is scanned again each frame
        self.stale_from: int | None = None  # the first piece made unrendered by a new definition

    def __len__(self) -> int:
        return len(self.pieces)

    @property
    def total(self) -> int:
        return self.heights.total

    def push(self, piece: Piece) -> None:
        self.pieces.append(piece)
        self._lines.append(None)
        self.unrendered += 1
        self.heights.append(estimate_height(piece, self.width or 80))
        own = self._definitions_of(piece)
        self._defines.append(own)
        if own:
            self._defining.append(len(self.pieces) - 1)

    def pop(self) -> None:
        index = len(self.pieces) - 1
        self.pieces.pop()
        if self._lines.pop() is None:
            self.unrendered -= 1
        self.heights.pop()
        self._placeholders.pop(index, None)
        self._label_keys.pop(index, None)
        if self._defines.pop():
            self._defining.pop()

    def clear(self) -> None:
        self._growing, self._not_growing = None, ""
        self._fence, self._not_fence = None, ""
        self.pieces.clear()
        self._lines.clear()
        self._placeholders.clear()
        self.heights = HeightIndex()
        self.unrendered = 0
        self.references, self._defines, self._defining = {}, [], []
        self._label_keys.clear()
        self.stale_from = None

    # ------------------------------------------------------------------ link reference definitions
    def _definitions_of(self, piece: Piece) -> References:
        if piece.markdown == self._last_scan[0]:  # (the tail, pushed again with no new text)
            return self._last_scan[1]
        found = piece_definitions(piece)
        self._last_scan = (piece.markdown, found)
        return found

    def gather_references(self) -> None:
        """The answer's definitions again (after the pieces of a frame are pushed: the tail is
        popped and pushed again each frame), the first of each label; the rendered pieces that
        may use a label that came or changed are made unrendered (``stale_from``: the first)."""
        gathered = first_of_each(self._defines[index] for index in self._defining)
        old = self.references
        if gathered == old:
            return
        self.references = gathered
        changed = [label for label in gathered.keys() | old.keys() if gathered.get(label) != old.get(label)]
        for index, lines in enumerate(self._lines):
            if lines is None:
                continue
            key = self._label_keys.get(index)
            if key is None:
                key = self._label_keys[index] = uses_key(self.pieces[index])
            if any(label in key for label in changed):
                self._lines[index] = None
                self.unrendered += 1
                self.stale_from = index if self.stale_from is None else min(self.stale_from, index)
        self._growing, self._not_growing = None, ""  # its lines were drawn with the old ones

    def take_stale(self) -> int | None:
        """The first piece a new definition made unrendered since the last call (None: none)."""
        stale, self.stale_from = self.stale_from, None
        return stale

    def set_width(self, width: int) -> None:
        """Forget every rendering; heights become estimates for ``width``."""
        self.width = width
        self._lines = [None] * len(self.pieces)
        self._placeholders.clear()
        self.unrendered = len(self.pieces)
        self.heights = HeightIndex([estimate_height(piece, width) for piece in self.pieces])

    def is_rendered(self, index: int) -> bool:
        return self._lines[index] is not None

    def rendered_lines(self, index: int) -> list[Line] | None:
        """The lines of piece ``index`` at the current width (None: not rendered yet)."""
        return self._lines[index]

    def same_lines_from(self, index: int, lines: list[Line]) -> int:
        """How many of ``lines`` the rendered pieces from ``index`` on start with, unchanged."""
        same = 0
        while index < len(self.pieces) and same < len(lines):
            rendered = self._lines[index]
            if rendered is None:
                break
            for line in rendered:
                if same >= len(lines) or line != lines[same]:
                    return same
                same += 1
            index += 1
        return same

    def render(self, index: int, console: Console) -> None:
        self._set_lines(index, render_piece(console, self.pieces[index], self.width, self.references))
        self.rendered_count += 1

    def _set_lines(self, index: int, lines: list[Line]) -> None:
        if self._lines[index] is None:
            self.unrendered -= 1
        self._lines[index] = lines
        self._placeholders.pop(index, None)
        self.heights.set(index, len(lines))

    @property
    def growing(self) -> GrowingParagraph | None:
        """The paragraph the tail ends in, followed as it grows (benchmarks, tests)."""
        return self._growing

    def grow(self, index: int, old: Piece, old_lines: list[Line], console: Console) -> bool:
        """Piece ``index`` is ``old`` (rendered as ``old_lines``) with text added at its end: take
        its lines from those and from its new text alone when it ends in a paragraph that grew
        (``growing_paragraph.py``). Returns whether it did; if not, it is rendered as usual."""
        new = self.pieces[index]
        fence = self._grow_fence(index, old, old_lines, console)
        if fence is not None:
            return fence
        if self.references and "[" in new.markdown:
            # The paragraph's new text is drawn alone, where its links would not know the answer's
            # definitions: the piece is rendered whole (cuts go on after a definition: it is short).
            self._growing, self._not_growing = None, ""
            return False
        growing = self._growing if index == self._growing_index else None  # (not an older tail's)
        fresh = growing is None or not growing.follows(new, self.width)
        if fresh:
            growing = None
            # Looked for again only when a line was started since the last miss (or the last
            # line had nothing but quote markers then): text added to a line seldom makes a
            # paragraph the last block ("-" may become "-1 is…"; only a shortcut is missed then).
            missed = self._not_growing
            line = missed.rfind("\n")
            if not (missed and old.markdown.startswith(missed) and old.markdown.rfind("\n") == line
                    and missed[line + 1:].strip(" >")):
                growing = GrowingParagraph.start(console, old, old_lines, self.width)
            if growing is None or not growing.follows(new, self.width):
                self._growing, self._not_growing = None, old.markdown
                return False
        assert growing is not None
        lines = growing.lines(console, new)
        if lines is None and not growing.waiting:
            # A paragraph just found that cannot be drawn so is not looked for again on this
            # line; one that could may have ended here (a new one is looked for next time).
            self._growing, self._not_growing = None, new.markdown if fresh else ""
            return False
        # Kept, also when it waits: drawable once more text comes (an entity at its end).
        self._growing, self._growing_index, self._not_growing = growing, index, ""
        if lines is None:
            return False
        self._set_lines(index, lines)
        self.grown += 1
        return True

    def _grow_fence(self, index: int, old: Piece, old_lines: list[Line], console: Console) -> bool | None:
        """``grow`` for a tail that ends in an open code fence (``growing_fence.py``): whether its
        lines were taken so; None if it does not end in one (a paragraph, maybe)."""
        new = self.pieces[index]
        fence = self._fence if index == self._fence_index else None  # (not an older tail's)
        if fence is None or not fence.follows(new, self.width):
            # Looked for again only once a line was started since the last miss: a fence's
            # opener is a line of its own.
            missed = self._not_fence
            if missed and old.markdown.startswith(missed) and old.markdown.count("\n") == missed.count("\n"):
                return None
            fence = GrowingFence.start(console, old, old_lines, self.width)
            if fence is None or not fence.follows(new, self.width):
                self._fence, self._not_fence = None, old.markdown
                return None
        lines = fence.lines(console, new)
        if lines is None:  # (closed, or a line above the last drawn otherwise: Rich draws it)
            self._fence, self._not_fence = None, ""
            return False
        self._fence, self._fence_index, self._not_fence = fence, index, ""
        self._set_lines(index, lines)
        self.grown += 1
        return True

    def line(self, y: int) -> Line | None:
        """Segments of line ``y`` (a placeholder if its piece is not rendered); None past the end."""
        index, offset = self.heights.find(y)
        if index >= len(self.pieces):
            return None
        lines = self._lines[index]
        if lines is not None:
            return lines[offset] if offset < len(lines) else None
        placeholder = self._placeholders.get(index)
        if placeholder is None:
            placeholder = self._placeholders[index] = placeholder_lines(self.pieces[index], self.width)
        if offset >= len(placeholder):
            return None
        return plain_line(placeholder[offset], self.width)

    def unrendered_between(self, top: int, bottom: int) -> list[int]:
        """Unrendered pieces with a line in ``[top, bottom)``, first to last."""
        found: list[int] = []
        line = max(0, top)
        while line < bottom:
            index, offset = self.heights.find(line)
            if index >= len(self.pieces):
                break
            if self._lines[index] is None:
                found.append(index)
            line += max(1, self.heights[index] - offset)
        return found

    def unrendered_at_end(self, height: int) -> list[int]:
        """Unrendered pieces among those filling the last ``height`` lines, newest first."""
        found: list[int] = []
        covered = 0
        for index in range(len(self.pieces) - 1, -1, -1):
            if self._lines[index] is None:
                found.append(index)
            covered += self.heights[index]
            if covered >= height:
                break
        return found

    def newest_unrendered(self, below: int) -> int | None:
        """The last unrendered piece before index ``below`` (walks back over rendered ones)."""
        for index in range(min(below, len(self.pieces)) - 1, -1, -1):
            if self._lines[index] is None:
                return index
        return None
