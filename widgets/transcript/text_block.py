"""Assistant text: markdown that streams cheaply, however long, and settles on the authoritative text.

Rendering markdown with Rich costs 1–35 ms per KB, so a 1 MB answer can be neither rendered in
one go nor re-rendered as it grows. The text is cut into pieces (``widgets/transcript/markdown_seal.py``)
that each render once per width, plus a small live tail, the only part re-rendered as deltas
arrive. The widget draws with the line API (``widgets/transcript/piece_lines.py``): a piece is rendered when
it is on screen or at the bottom of the block (where a streaming answer is read), within a time
slice per event-loop callback; one not rendered yet has an estimated height and shows its plain
source for a frame or two. Heights live in a Fenwick tree, so no frame walks the whole answer.
Once the text is quiet, the remaining pieces are rendered a slice at a time, so the scroll
extent becomes exact without stalling the event loop.

Work per event-loop callback is bounded whatever one delta holds: the new text is sealed a slice
at a time (``SEAL_SLICE_S``; a 20 MB delta is sealed over many frames, shown as it goes), no
piece outgrows ``markdown_seal.MAX_PIECE`` (a megabyte without a newline is cut), and past
``DISPLAY_MAX_CHARS`` the block shows a note instead of the rest: the store keeps all of it, and
copying and exporting use the store.
"""

from __future__ import annotations

import textwrap
import time

from rich.segment import Segment
from rich.style import Style
from textual.dom import NoScreen
from textual.geometry import Region, Size
from textual.selection import Selection
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from tui.state.transcript import TextBlock
from widgets.transcript.code_rows import padding_column
from widgets.transcript.light_repaint import LightRepaint
from widgets.transcript.markdown_seal import Sealer
from widgets.transcript.piece_lines import PieceLines
from widgets.transcript.rendered_line import line_segments, line_text

RENDER_SLICE_S = 0.010  # Rich rendering per callback, about (a single piece may take longer)
CATCH_UP_S = 1 / 30  # unrendered pieces on screen: the next slice after this long
BACKFILL_IDLE_S = 0.3  # pieces off screen: rendered once the text has been quiet this long
EAGER_CHARS = 4096  # a block shorter than this is rendered whole at once (exact from the start)
SEAL_SLICE_S = 0.008  # sealing new text per callback, about (the rest on the next ones)
SEAL_STEP = 16_384  # characters handed to the sealer at a time
DISPLAY_MAX_CHARS = 2_000_000  # shown of one block; past it a note (the store keeps everything)
_NOTE_STYLE = Style(italic=True, dim=True)
_last_backfill = 0.0  # all blocks share the backfill rate: 40 long messages must not add up


class TextBlockView(LightRepaint):
    """One text block: sealed pieces + a live tail, rendered lazily, drawn line by line."""

    DEFAULT_CLASSES = "text-block"
    DEFAULT_CSS = "TextBlockView { height: auto; }"
    KEEP_LINES_WHEN_TALLER = True  # every change marks its own lines (sync, _catch_up, _reset)
    paints = 0  # repaints asked for (one per sync that changed the text), for benchmarks

    def __init__(self, block: TextBlock, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._initial = block
        self._ready = False
        self._text = ""
        self._version = -1
        self._streaming = block.streaming
        self._sealer = Sealer()
        self._pieces = PieceLines()  # sealed pieces, then the tail while streaming
        self._has_tail = False
        self._base = Style.null()  # the widget's colours, read as each paint starts
        self._painted = (0, 0)  # content lines drawn by the last frame
        self._timer: Timer | None = None
        self._last_change = 0.0
        self._fed = 0  # characters of the text handed to the sealer so far
        self._note = ""  # said under the text when the display is cut
        self._wrapped_note: tuple[tuple[str, int], list[str]] = (("", 0), [])
        self._painting = False  # in render_lines (else render_line is asked by a hit test)
        self._selection: Selection | None = None  # the mouse selection over it, as this paint began

    @property
    def source(self) -> str:
        """The text currently shown."""
        return self._text

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """What a mouse selection over the block copies. Part of it: the characters it shows
        there, as a terminal copies them (each line without the blanks that pad it to the width).
        All of it (a drag across the whole block): its markdown, as written (QA: Textual copied
        the widget's name, "TextBlockView.text-block", for it)."""
        start, end = selection
        if start is None and end is None:
            return self._text, "\n"
        pieces = self._pieces
        total = pieces.total + len(self._note_lines())
        last = min(total - 1, end.y) if end is not None else total - 1
        first = start.y if start is not None else 0
        if last < first:
            return None
        # Lines still placeholders (scrolled past too fast to be painted) are rendered first.
        self._render_slice(pieces.unrendered_between(first, last + 1), slice_s=float("inf"))
        copied = []
        for y in range(first, last + 1):  # (not Selection.extract: it loses a last blank line)
            line = self._plain_line(y)
            span = selection.get_span(y)
            if span is None:
                continue
            start_x, end_x = span[0], len(line) if span[1] == -1 else span[1]
            pad = self._code_padding(y)
            if pad is not None and start_x <= pad < end_x:  # code: copied without its padding
                line, end_x = line[:pad] + line[pad + 1:], end_x - 1
            copied.append(line[start_x:end_x])
        return "\n".join(copied), "\n"

    def _code_padding(self, y: int) -> int | None:
        line = self._pieces.line(y)
        return None if line is None else padding_column(line)

    def _plain_line(self, y: int) -> str:
        line = self._pieces.line(y)
        if line is not None:
            return line_text(line).rstrip()
        note = self._note_lines()
        row = y - self._pieces.total
        return note[row].rstrip() if 0 <= row < len(note) else ""

    def on_mount(self) -> None:
        self._ready = True  # ``is_mounted`` is still False inside on_mount
        self.sync(self._initial)

    # ------------------------------------------------------------------ text in
    def sync(self, block: TextBlock) -> None:
        if not self._ready:
            self._initial = block  # on_mount renders the newest state
            return
        if block.version == self._version and block.streaming == self._streaming:
            return
        text = block.text
        if not self._continues(text, final=not block.streaming):
            self._reset()  # the authoritative text differs from what streamed: rebuild
        self._version = block.version
        self._streaming = block.streaming
        self._text = text
        self._last_change = time.monotonic()
        self._seal()

    @property
    def _shown(self) -> int:
        """How much of the text is displayed (the rest is said in the note)."""
        return min(len(self._text), DISPLAY_MAX_CHARS)

    def _seal(self) -> None:
        """Seal what is new, a bounded slice per call (the timer brings the rest), and repaint."""
        pieces = self._pieces
        text, shown = self._text, self._shown
        old_total, old_note = pieces.total, self._note
        first = len(pieces) - (1 if self._has_tail else 0)
        tail = first
        old_tail = pieces.rendered_lines(first) if self._has_tail else None
        old_piece = pieces.pieces[first] if self._has_tail else None
        if self._fed < shown or (self._has_tail and not self._streaming):  # new text, or the end
            if self._has_tail:  # the tail is re-sealed or replaced below
                pieces.pop()
            deadline = time.perf_counter() + SEAL_SLICE_S
            while True:
                end = min(shown, max(self._fed, self._sealer.consumed) + SEAL_STEP)
                final = end >= shown and not self._streaming
                for piece in self._sealer.feed(text, final=final, end=end):
                    pieces.push(piece)
                self._fed = end
                if end >= shown or time.perf_counter() > deadline:
                    break
            self._has_tail = not final
            if self._has_tail:
                pieces.push(self._sealer.tail(text, self._fed))
                if old_piece is not None and old_tail is not None and len(pieces) - 1 == tail:
                    pieces.grow(tail, old_piece, old_tail, self.app.console)  # a paragraph grew
        self._note = self._cut_note()
        pieces.gather_references()
        stale = pieces.take_stale()  # pieces drawn before a link reference definition came
        if stale is not None:
            first = min(first, stale)
            if pieces.width:  # those on screen now, not as placeholders for a frame
                self._render_slice(pieces.unrendered_between(*self._painted))
        if pieces.width and self._near_view():
            done = self._render_slice(pieces.unrendered_at_end(self.app.size.height))
            first = min([first, *done])  # older pieces rendered now changed too
        TextBlockView.paints += 1
        top = pieces.heights.start(first)
        if old_tail and first == tail:
            # Lines the old tail already showed, rendered the same, need no repaint: appending a
            # word to a paragraph repaints its last line, not the whole paragraph.
            top += pieces.same_lines_from(first, old_tail)
        total = pieces.total + len(self._note_lines())
        old = old_total + (len(self._note_lines()) if old_note else 0)
        self.refresh(Region(0, top, max(1, pieces.width), max(1, max(old, total) - top)),
                     layout=total != old)
        self._schedule()

    def _cut_note(self) -> str:
        hidden = len(self._text) - self._shown
        if hidden <= 0:
            return ""
        return (f"✂ display cut: the first {self._shown:,} of {len(self._text):,} characters are shown. "
                "All of it is kept: y (or F5 for the last answer) copies it, F7 exports the session.")

    def _note_lines(self) -> list[str]:
        """The note wrapped to the width (the way to get the rest must not be cut off)."""
        width = max(1, self._pieces.width)
        if not self._note:
            return []
        if self._wrapped_note[0] != (self._note, width):
            self._wrapped_note = ((self._note, width), textwrap.wrap(self._note, width) or [""])
        return self._wrapped_note[1]

    def _continues(self, text: str, *, final: bool) -> bool:
        """Whether ``text`` starts with what was sealed (checked in full once, when it is final)."""
        sealed = self._sealer.consumed
        if len(text) < sealed:
            return False
        if final:
            return text[:sealed] == self._text[:sealed]
        last = len(self._pieces) - (2 if self._has_tail else 1)
        if last < 0:
            return True
        piece = self._pieces.pieces[last].source
        return text.startswith(piece, sealed - len(piece))  # deltas only append: O(piece)

    def _reset(self) -> None:
        self._sealer = Sealer()
        self._pieces.clear()
        self._has_tail = False
        self._fed = 0
        self.refresh(layout=True)

    # ------------------------------------------------------------------ rendering
    def _render_slice(self, indices: list[int], slice_s: float = RENDER_SLICE_S) -> list[int]:
        """Render these pieces in order until about ``slice_s`` is spent; returns those rendered."""
        deadline = time.perf_counter() + slice_s
        console = self.app.console
        done: list[int] = []
        for index in indices:
            if done and time.perf_counter() > deadline:
                break
            if not self._pieces.is_rendered(index):
                self._pieces.render(index, console)
                done.append(index)
        return done

    @property
    def rendering_behind(self) -> bool:
        """Whether the end of the block (where a stream is read) shows placeholders that the
        next slice will replace (the app holds the terminal for it: one frame, not two)."""
        return bool(self._pieces.width and self._pieces.unrendered and self._near_view()
                    and self._pieces.unrendered_at_end(self.app.size.height))

    def _near_view(self) -> bool:
        """Whether the block's end may be on screen (not laid out yet counts as yes)."""
        region = self.region
        if not region:
            return True
        return region.y <= self.screen.size.height and region.bottom >= 0

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        pieces = self._pieces
        if width != pieces.width and width > 0:
            pieces.set_width(width)
            if len(self._text) <= EAGER_CHARS:
                self._render_slice(list(range(len(pieces))), slice_s=float("inf"))
            else:
                self._render_slice(pieces.unrendered_at_end(viewport.height))
            self._schedule()
        return pieces.total + len(self._note_lines())

    def on_resize(self) -> None:
        # Textual keeps a widget's box model per container size: back at a width it was laid out
        # at before, it takes the height it had then and asks get_content_height nothing, so the
        # lines stayed at the width in between (widening the terminal cut answers to the height
        # they had at the first width, their last lines hidden). A layout of its own asks again.
        if self.content_size.width != self._pieces.width and self.content_size.width > 0:
            self.refresh(layout=True)

    def render_lines(self, crop: Region) -> list[Strip]:
        top = self.styles.gutter.top
        self._painted = (crop.y - top, crop.bottom - top)
        # The widget's own colours under every line: the markdown's styles carry none, and the
        # answer was drawn in the terminal's default colours, a band of another background on a
        # terminal whose default is not the theme's (QA).
        self._base = self.rich_style
        if self._pieces.unrendered and self._timer is None:
            self._schedule()  # placeholders on screen, or the reader may be back at the bottom
        self._painting = True
        self._selection = self._mouse_selection()  # looked up once a paint, not once a line
        try:
            return super().render_lines(crop)
        finally:
            self._painting = False

    def render_line(self, y: int) -> Strip:
        strip = self._line_strip(y)
        selection = self._selection if self._painting else self._mouse_selection()
        if selection is not None and (span := selection.get_span(y)) is not None:
            strip = self._with_selection(strip, y, *span)
        if not self._painting:
            # Asked outside a paint: the compositor looks for the character under the pointer
            # (a mouse selection starts or ends there). Painted lines need no offsets: they
            # would cost a style per segment on every frame of a stream.
            strip = strip.apply_offsets(0, y)
        return strip

    def _mouse_selection(self) -> Selection | None:
        try:
            return self.text_selection
        except NoScreen:  # painted once more as it is taken off a screen (a session left)
            return None

    def _line_strip(self, y: int) -> Strip:
        line = self._pieces.line(y)
        base = self._base
        if line is None:
            note = self._note_lines()
            row = y - self._pieces.total
            width = self._pieces.width
            if 0 <= row < len(note):
                return Strip([Segment(note[row].ljust(width), base + _NOTE_STYLE)], width)
            return Strip([Segment(" " * width, base)], width)
        return Strip(line_segments(line, base), self._pieces.width)

    def _with_selection(self, strip: Strip, y: int, start: int, end: int) -> Strip:
        """``strip`` with the selected characters ``[start, end)`` in the selection's colours
        (``end`` -1: to the end of the line's text, not of the blanks that pad it)."""
        if end == -1:
            end = len(strip.text.rstrip())  # (the line this strip was drawn from, as _plain_line)
        if end <= start:
            return strip
        theme = self.screen.get_component_rich_style("screen--selection")
        # Its background; its text colour too where the theme gives one. The default theme's is
        # "transparent" (the text's own), which resolves to the background colour itself: the
        # selected text was drawn in its own background, unreadable (QA).
        selected = Style(bgcolor=theme.bgcolor) if theme.color == theme.bgcolor else \
            Style(color=theme.color, bgcolor=theme.bgcolor)
        segments: list[Segment] = []
        at = 0
        for segment in strip:
            text, style = segment.text, segment.style
            cut_from, cut_to = max(start - at, 0), min(end - at, len(text))
            at += len(text)
            if cut_from >= cut_to:
                segments.append(segment)
                continue
            mark = style + selected if style is not None else selected
            segments += [Segment(part, part_style) for part, part_style in (
                (text[:cut_from], style), (text[cut_from:cut_to], mark), (text[cut_to:], style)) if part]
        return Strip(segments, strip.cell_length)

    # ------------------------------------------------------------------ catching up
    def _schedule(self) -> None:
        """One timer renders what is left: soon for what is on screen, later for the rest."""
        more = self._fed < self._shown or (self._pieces.width and self._pieces.unrendered)
        if self._timer is None and more:
            self._timer = self.set_timer(CATCH_UP_S, self._catch_up)

    def _catch_up(self) -> None:
        global _last_backfill
        self._timer = None
        if not self.is_mounted:
            return
        if self._fed < self._shown:  # a long text still being sealed: the next slice
            self._seal()
            return
        pieces = self._pieces
        if not pieces.unrendered:
            return
        total = pieces.total
        wanted = pieces.unrendered_between(*self._painted)
        if self._near_view():
            wanted += pieces.unrendered_at_end(self.app.size.height)
        quiet = time.monotonic() - self._last_change
        if wanted:
            done = self._render_slice(wanted)
        elif quiet < BACKFILL_IDLE_S:
            self._timer = self.set_timer(BACKFILL_IDLE_S - quiet, self._catch_up)
            return
        elif not self._following():
            return  # a height corrected above what the reader reads would move it (next paint retries)
        elif time.monotonic() - _last_backfill < CATCH_UP_S:
            done = []  # another block had this turn
        else:
            # Off screen, newest first (the reader scrolls up from the bottom).
            _last_backfill = time.monotonic()
            backlog: list[int] = []
            index = pieces.newest_unrendered(len(pieces))
            while index is not None and len(backlog) < 16:
                backlog.append(index)
                index = pieces.newest_unrendered(index)
            done = self._render_slice(backlog)
        if done:
            self.refresh(layout=pieces.total != total)
        if pieces.unrendered:
            self._timer = self.set_timer(CATCH_UP_S, self._catch_up)

    def _following(self) -> bool:
        """Whether the nearest scrolling ancestor shows its bottom (the reader follows the stream)."""
        for node in self.ancestors:
            if isinstance(node, Widget) and node.allow_vertical_scroll:
                return node.scroll_y >= node.max_scroll_y
        return True
