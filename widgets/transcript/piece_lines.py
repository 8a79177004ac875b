"""The pieces of one text block, their rendered lines at one width, and where each line is.

Not a widget: ``TextBlockView`` owns one and decides when pieces get rendered. A piece not
rendered yet has an estimated height and is drawn as its plain source text (cut to the width,
exactly as many lines as the estimate), so a screen can always be painted without waiting for
Rich. Every operation here is O(log n) or O(lines asked for), never O(pieces), except a width
change, which re-estimates all heights once.
"""

from __future__ import annotations

from rich.console import Console

from widgets.transcript.growing_fence import GrowingFence
from widgets.transcript.growing_paragraph import GrowingParagraph
from widgets.transcript.height_index import HeightIndex
from widgets.transcript.markdown_chunk import estimate_height, placeholder_lines, render_piece
from widgets.transcript.markdown_seal import Piece
from widgets.transcript.rendered_line import Line, plain_line


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

    def pop(self) -> None:
        index = len(self.pieces) - 1
        self.pieces.pop()
        if self._lines.pop() is None:
            self.unrendered -= 1
        self.heights.pop()
        self._placeholders.pop(index, None)

    def clear(self) -> None:
        self._growing, self._not_growing = None, ""
        self._fence, self._not_fence = None, ""
        self.pieces.clear()
        self._lines.clear()
        self._placeholders.clear()
        self.heights = HeightIndex()
        self.unrendered = 0

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
        self._set_lines(index, render_piece(console, self.pieces[index], self.width))
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
