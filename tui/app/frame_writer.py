"""Write only what changed on the terminal: a shadow of the screen, row diffs, scrolled bands.

Textual (8.2.8) writes every cell of every region marked dirty: a streaming block repainted for
one appended word, the whole transcript after it scrolls by a line, chrome refreshed with the
same text. ``FrameWriter`` keeps what the terminal shows (one rendered row per screen line) and,
for each update the compositor hands over, writes only the cells whose rendering differs. When
most of the changed rows are rows of the last frame moved up or down (the transcript following
a stream), it scrolls that band of the terminal (DECSTBM margins + IND / RI, VT100) and writes
only the rows that came in and the cells that differ (a scrollbar thumb).

``DiffedOutput`` (an ``App`` mixin) routes Textual's frames through it and wraps each frame that
writes anything in synchronized output (DEC mode 2026): when the terminal answered Textual's
DECRQM query, and inside tmux, which does not answer that query but honours the mode in recent
versions and ignores it in older ones, as terminals do with unknown private modes.

The private Textual and Rich API this needs (``App._display`` and its guards, the compositor's
update classes, ``Compositor._get_renders``, ``Console._color_system``) is used only through
``widgets/_textual_compat.py``, which has a canary for each.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from functools import lru_cache
from os.path import commonprefix
from typing import Any, TypeVar

from rich.cells import cell_len
from rich.color import ColorSystem
from rich.console import Console
from rich.segment import Segment
from textual import events, on
from textual.driver import Driver
from textual.geometry import Offset
from textual.screen import Screen
from textual.strip import Strip

from widgets._textual_compat import (
    SYNC_END,
    SYNC_START,
    ChopsUpdate,
    DisplayHookApp,
    LayoutUpdate,
    console_color_system,
    install_cropped_renders,
    install_light_strips,
    report_exception,
    terminal_sync_available,
)

ReturnType = TypeVar("ReturnType")
SCROLL_MIN_ROWS = 3  # fewer changed rows than this are never worth a scroll
_render_style = Strip.render_style


class _Row:
    """One screen line as written: its segments, and each one's text, cells and rendering, and
    the line as a ``Strip`` (worked out when first asked for: a row found the same as the one on
    screen by its segments, as most rows a frame repaints are, needs none of them; a Strip makes
    seven caches as it is built)."""

    __slots__ = ("segments", "width", "_strip", "_color_system", "_texts", "_cells", "_parts", "_styles",
                 "_rendered", "_plain")

    def __init__(self, segments: list[Segment], width: int, color_system: ColorSystem) -> None:
        self.segments = segments
        self.width = width
        self._strip: Strip | None = None
        self._color_system = color_system
        self._texts: list[str] = []
        self._cells: list[int] = []
        self._parts: list[str] | None = None
        self._styles: list[Any] = []
        self._rendered: str | None = None
        self._plain: str | None = None

    @classmethod
    def of(cls, strip: Strip, color_system: ColorSystem) -> _Row:
        row = cls(list(strip), strip.cell_length, color_system)
        row._strip = strip
        return row

    @property
    def strip(self) -> Strip:
        if self._strip is None:
            self._strip = Strip(self.segments, self.width)
        return self._strip

    def same(self, other: _Row) -> bool:
        """Whether the two rows look the same on the terminal."""
        return self.segments == other.segments or self.rendered == other.rendered

    def _split(self) -> list[str]:
        texts: list[str] = []
        cells: list[int] = []
        parts: list[str] = []
        styles: list[Any] = []
        color_system = self._color_system
        for text, style, _control in self.segments:  # control segments are never rendered (Strip.render)
            texts.append(text)
            cells.append(cell_len(text))
            parts.append(text if style is None else _render_style(style, text, color_system))
            styles.append(style)
        self._texts, self._cells, self._parts, self._styles = texts, cells, parts, styles
        return parts

    @property
    def parts(self) -> list[str]:
        """Each segment as written (its SGR, its text, a reset)."""
        return self._split() if self._parts is None else self._parts

    @property
    def texts(self) -> list[str]:
        if self._parts is None:
            self._split()
        return self._texts

    @property
    def cells(self) -> list[int]:
        if self._parts is None:
            self._split()
        return self._cells

    @property
    def styles(self) -> list[Any]:
        if self._parts is None:
            self._split()
        return self._styles

    @property
    def rendered(self) -> str:
        if self._rendered is None:
            self._rendered = "".join(self.parts)
        return self._rendered

    @property
    def plain(self) -> str:
        if self._plain is None:
            self._plain = "".join(text for text, _style, _control in self.segments)
        return self._plain


def _cut(segments: Iterable[Segment], start: int, end: int,
         cells: list[int] | None = None) -> tuple[list[Segment], int]:
    """The segments of cells [start, end) of a line and how many cells they take, cut as
    ``Strip.crop`` cuts (``Segment.split_cells`` where a cut falls inside a segment; a cut that
    reaches the line's end keeps what follows, zero-width segments such as a lone combining
    mark included), without the Strips a crop and a join build (each Strip makes seven caches:
    most of what splicing a span into a row cost). ``cells``: each segment's width, when known."""
    items = list(segments)
    sizes = cells if cells is not None else [cell_len(segment.text) for segment in items]
    length = sum(sizes)
    if start <= 0 and end >= length:
        return items, length
    to_end = end >= length  # everything after start, as crop keeps it
    out: list[Segment] = []
    pos = 0
    for segment, size in zip(items, sizes, strict=True):
        segment_end = pos + size
        if segment_end <= start:
            pos = segment_end
            continue
        if pos >= end and not to_end:
            break
        if pos < start:
            segment = segment.split_cells(start - pos)[1]
            pos = start
        if segment_end > end:
            segment = segment.split_cells(end - pos)[0]
            segment_end = end
        out.append(segment)
        pos = segment_end
    return out, max(0, min(pos, end) - start)


def _measured_cells(strip: Strip) -> int:
    """The cells ``strip``'s segments take, as ``_cut`` counts them (a Strip's ``cell_length`` is
    what its maker said: a line cut by characters, not cells, says less than CJK text takes).
    Printable ASCII (most lines) is counted in C: one cell a character."""
    text = strip.text
    if text.isascii() and text.isprintable():
        return len(text)
    return sum(cell_len(segment.text) for segment in strip)


def _sgr(style: Any, color_system: ColorSystem) -> str:
    """The SGR sequence that sets ``style`` from a reset ("" for the default look)."""
    if style is None:
        return ""
    sequence = _render_style(style, "", color_system)
    return sequence[:-4] if sequence.endswith("\x1b[0m") else sequence


# SGR parameters Rich emits, by what they set: a colour (38/48/58 and the 16-colour codes) or one
# attribute. Each slot that a style drops is turned off by its own code when it is one of these.
_OFF = {"1": "22", "2": "22", "3": "23", "4": "24", "7": "27", "9": "29", "fg": "39", "bg": "49"}


def _slots(sgr: str) -> dict[str, str] | None:
    """The parameters of an SGR sequence by slot ("fg", "bg", "ul" or the attribute's code);
    None when it holds something not understood here (then the style is set from a reset)."""
    tokens = sgr[2:-1].split(";")
    slots: dict[str, str] = {}
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in ("38", "48", "58"):
            size = 3 if tokens[i + 1:i + 2] == ["5"] else 5 if tokens[i + 1:i + 2] == ["2"] else 0
            if not size or i + size > len(tokens):
                return None
            slots[{"38": "fg", "48": "bg", "58": "ul"}[token]] = ";".join(tokens[i:i + size])
            i += size
            continue
        if not token.isdigit():
            return None
        code = int(token)
        if 30 <= code <= 39 or 90 <= code <= 97:
            slots["fg"] = token
        elif 40 <= code <= 49 or 100 <= code <= 107:
            slots["bg"] = token
        else:
            slots[token] = token
        i += 1
    return slots


@lru_cache(maxsize=4096)  # a screen has a few hundred styles: the same changes come back every frame
def sgr_change(current: str, target: str) -> str:
    """The shortest SGR that takes the terminal from ``current`` to ``target`` (both SGR
    sequences as ``_sgr`` makes them, "" for the default look): from a reset, or only what
    differs (a new foreground on the same background: just the foreground)."""
    if not target:
        return "\x1b[0m" if current else ""
    if not current:
        return target
    full = "\x1b[0;" + target[2:]
    before, after = _slots(current), _slots(target)
    if before is None or after is None:
        return full
    dropped = [slot for slot in before if slot not in after]
    if any(slot not in _OFF for slot in dropped):
        return full
    offs = sorted({_OFF[slot] for slot in dropped})
    codes = list(offs)
    for slot, value in after.items():  # 22 turns off bold and dim both: set again what stays
        if before.get(slot) != value or ("22" in offs and slot in ("1", "2")):
            codes.append(value)
    if not codes:
        return ""
    change = "\x1b[" + ";".join(codes) + "m"
    return change if len(change) < len(full) else full


ERASE_MIN = 8  # a run of this many blank cells is erased (ECH / EL with its background), not written
_INVISIBLE_ON_BLANK = ("reverse", "underline", "underline2", "strike", "overline", "conceal", "blink",
                       "blink2", "frame", "encircle")


def _erasable(style: Any) -> bool:
    """Whether a space of ``style`` looks like an erased cell (which takes only the background)."""
    return not any(getattr(style, name) for name in _INVISIBLE_ON_BLANK)


def render_cells(strip: Strip, color_system: ColorSystem, current: str = "",
                 to_end: bool = False) -> tuple[str, str]:
    """``strip`` as terminal output, an SGR sequence only where the style changes.

    ``Strip.render`` wraps every segment in its own SGR and reset; neighbours of the same style
    (a highlighted code line is dozens of them) repeat it. Here the style is changed only where
    it differs from the one in force (``current``, carried from the previous run: a cursor move
    keeps it), by the shortest sequence (``sgr_change``), so the cells look exactly as
    ``Strip.render`` leaves them (blanks take only their background: ``blank_sgr``). Runs of
    ``ERASE_MIN`` or more spaces whose style shows nothing on a blank (no reverse, underline, …)
    are erased with the style's background instead of written: ECH and a cursor move, or EL
    when the run ends the strip and the strip ends at the right edge of the screen (``to_end``),
    or ECH alone when it ends the strip elsewhere: the cursor is then left inside the strip, and
    every caller moves it before writing again.
    Unstyled runs are written (Textual gives every cell a style: they are rare). Links keep
    their own wrapping. Returns the output and the SGR in force after it.
    """
    out: list[str] = []
    runs = _style_runs(strip, color_system)
    last = len(runs) - 1
    for index, (text, style, sgr) in enumerate(runs):
        if style is not None and style.link:
            out.append("\x1b[0m" if current else "")
            out.append(_render_style(style, text, color_system))
            current = ""
            continue
        # A combining mark at the start of the next run is drawn with this run's last cell: that
        # cell is written, in its own style (review: a mark after a blank took its colour).
        marked = index < last and _attached(runs[index + 1][0], 0)
        blank = style is not None and not marked and not text.strip(" ") and _erasable(style)
        if blank:
            sgr = blank_sgr(current, sgr)  # a blank shows only its background
        if sgr != current:
            out.append(sgr_change(current, sgr))
            current = sgr
        if len(text) < ERASE_MIN or " " * ERASE_MIN not in text or style is None or not _erasable(style):
            out.append(text)
            continue
        parts = _SPACE_RUNS.split(text)  # text, run, text, run, …, text
        for number, part in enumerate(parts):
            if number % 2 == 0:
                out.append(part)
            elif _attached(parts[number + 1], 0) or (marked and number == len(parts) - 2 and not parts[-1]):
                out.append(part)  # its last space carries the mark that follows it
            elif index == last and number == len(parts) - 2 and not parts[-1]:
                # The run ends the strip: erased to the end of the line when that is where the
                # strip ends, else erased with no cursor move after it (nothing follows).
                out.append("\x1b[K" if to_end else f"\x1b[{len(part)}X")
            else:
                out.append(f"\x1b[{len(part)}X\x1b[{len(part)}C")
    return "".join(out), current


_SPACE_RUNS = re.compile(f"( {{{ERASE_MIN},}})")


def _style_runs(strip: Strip, color_system: ColorSystem) -> list[tuple[str, Any, str]]:
    """The strip's text, style and SGR, neighbours of the same SGR joined (a code line's
    padding comes as several segments: one run of blanks is erased, not erased and written)."""
    runs: list[tuple[str, Any, str]] = []
    for text, style, _control in strip:
        if not text:
            continue
        sgr = _sgr(style, color_system)
        if runs and runs[-1][2] == sgr and not (style is not None and style.link):
            before, before_style, _ = runs[-1]
            if not (before_style is not None and before_style.link):
                runs[-1] = (before + text, before_style, sgr)
                continue
        runs.append((text, style, sgr))
    return runs


_UNSEEN_ON_BLANK = ("fg", "bg", "ul", "1", "2", "3")  # slots a blank cell does not show: kept


@lru_cache(maxsize=4096)
def blank_sgr(current: str, target: str) -> str:
    """The SGR blank cells of ``target`` need after ``current``: a blank (of a style that shows
    nothing on one, ``_erasable``) shows only its background, so the foreground, bold, dim and
    italics in force stay (what shows on a blank, as reverse or underline, is turned off), and
    nothing changes when the background is already the one (a code line's
    padding after its last token was a foreground change, then the next line's indent another).
    Only a terminal that draws its own selection in reverse video shows a blank's foreground: in
    such a selection a code block's padding may take the colours of the tokens before it."""
    before = _slots(current) if current else {}
    after = _slots(target) if target else {}
    if before is None or after is None:
        return target
    background = after.get("bg")
    if before.get("bg") == background and all(slot in _UNSEEN_ON_BLANK for slot in before):
        return current
    slots = {slot: value for slot, value in before.items() if slot in _UNSEEN_ON_BLANK and slot != "bg"}
    if background is not None:
        slots["bg"] = background
    return "\x1b[" + ";".join(slots.values()) + "m" if slots else ""


def _attached(text: str, index: int) -> bool:
    """Whether the character at ``index`` is zero-width (a combining mark of the one before)."""
    return index < len(text) and cell_len(text[index]) == 0


def changed_cells(old: _Row, new: _Row, color_system: ColorSystem) -> tuple[int, int]:
    """The cell range ``[start, end)`` of ``new`` that differs from ``old`` (empty: identical).

    Both rows are the full screen width. Identical leading and trailing segments are skipped
    whole; inside the first (last) differing pair of the same style, the common characters too.
    The bounds always fall between characters in both rows (wide ones stay whole, combining marks
    stay with their base), so cropping ``new`` there and writing it is exact.
    """
    o_parts, n_parts = old.parts, new.parts
    n_cells = new.cells
    width = sum(n_cells)
    if sum(old.cells) != width:
        return 0, width
    o_len, n_len = len(o_parts), len(n_parts)
    i = 0
    start = 0
    while i < o_len and i < n_len and o_parts[i] == n_parts[i]:
        start += n_cells[i]
        i += 1
    if i == o_len and i == n_len:
        return start, start
    head = 0  # characters of segment i common to both
    if i < o_len and i < n_len and _sgr(old.styles[i], color_system) == _sgr(new.styles[i], color_system):
        a, b = old.texts[i], new.texts[i]
        head = len(commonprefix([a, b]))
        # A crop puts a combining mark with the cell after it: neither side of the cut may be one.
        while head and (_attached(a, head) or _attached(b, head) or _attached(b, head - 1)):
            head -= 1
        start += cell_len(b[:head])
    j = 0
    tail_cells = 0
    while (j < o_len - i and j < n_len - i and o_parts[o_len - 1 - j] == n_parts[n_len - 1 - j]):
        tail_cells += n_cells[n_len - 1 - j]
        j += 1
    oi, ni = o_len - 1 - j, n_len - 1 - j
    if oi >= i and ni >= i and _sgr(old.styles[oi], color_system) == _sgr(new.styles[ni], color_system):
        a, b = old.texts[oi], new.texts[ni]
        limit = min(len(a), len(b))
        if oi == i and ni == i:
            limit -= head  # the same pair from both ends: the common head and tail must not overlap
        tail = min(limit, len(commonprefix([a[::-1], b[::-1]])))
        while tail and (_attached(b, len(b) - tail) or _attached(b, len(b) - tail - 1)):
            tail -= 1
        tail_cells += cell_len(b[len(b) - tail:]) if tail else 0
    end = max(start, width - tail_cells)
    return start, end


RUN_GAP = 8  # identical cells fewer than this between two changes are written over (a move costs as much)
REFINE_CELLS = 16  # a changed range wider than this is split into runs of changed cells
Cell = tuple[str, str]  # characters (a base and its marks; "" for a wide one's second half), SGR


def _cells(row: _Row, color_system: ColorSystem) -> list[Cell]:
    cells: list[Cell] = []
    for text, style in zip(row.texts, row.styles, strict=True):
        sgr = _sgr(style, color_system)
        if text.isascii():
            cells.extend([(char, sgr) for char in text])
            continue
        for char in text:
            width = cell_len(char)
            if width == 0 and cells:
                at = -2 if cells[-1][0] == "" and len(cells) > 1 else -1
                cells[at] = (cells[at][0] + char, cells[at][1])
            else:
                cells.append((char, sgr))
                if width == 2:
                    cells.append(("", sgr))
    return cells


def _marked_before(cells: list[Cell], x: int) -> bool:
    """Whether the character ending at cell ``x`` carries combining marks (a crop at ``x`` puts
    them on the right-hand side)."""
    k = x - 1
    if k > 0 and cells[k][0] == "":
        k -= 1
    return k >= 0 and len(cells[k][0]) > 1


def changed_runs(old: _Row, new: _Row, color_system: ColorSystem) -> list[tuple[int, int]]:
    """The cell ranges of ``new`` that differ from ``old``, each written with one cursor move:
    the range ``changed_cells`` finds, split where ``RUN_GAP`` or more cells in it are the same
    (a new line over a blank one: only its text, not the spaces after it)."""
    start, end = changed_cells(old, new, color_system)
    if end - start <= REFINE_CELLS:
        return [(start, end)] if end > start else []
    a, b = _cells(old, color_system), _cells(new, color_system)
    if len(a) != len(b):
        return [(start, end)]
    width = len(b)
    runs: list[list[int]] = []
    for x in range(start, end):
        if a[x] != b[x]:
            if runs and x - runs[-1][1] < RUN_GAP:
                runs[-1][1] = x + 1
            else:
                runs.append([x, x + 1])
    out: list[tuple[int, int]] = []
    for left, right in runs:
        # Never cut a wide character in two, nor a character from its marks.
        while left > 0 and (b[left][0] == "" or a[left][0] == "" or _marked_before(b, left)):
            left -= 1
        while right < width and (b[right][0] == "" or a[right][0] == "" or _marked_before(b, right)):
            right += 1
        if out and left <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], right))
        else:
            out.append((left, right))
    return out


class FrameWriter:
    """The terminal's screen as last written; turns compositor updates into minimal output."""

    def __init__(self) -> None:
        self._rows: list[_Row | None] = []
        self._width = 0
        self._cursor: Offset | None = None
        self.frames = 0  # frames that wrote anything
        self.chars = 0  # characters written (escape sequences included)
        self.scrolls = 0  # frames that scrolled a band instead of rewriting it

    def reset(self) -> None:
        """Forget what the terminal shows (resized, resumed, or written by someone else)."""
        self._rows = []
        self._width = 0
        self._cursor = None

    # ------------------------------------------------------------------ frames
    def frame(self, update: LayoutUpdate | ChopsUpdate, width: int, height: int, console: Console,
              cursor: Offset) -> str:
        """The terminal output for ``update`` (empty when nothing visible changed)."""
        if width != self._width or height != len(self._rows):
            self._rows = [None] * height
            self._width = width
            self._cursor = None
        color_system = console_color_system(console) or ColorSystem.TRUECOLOR
        early: list[tuple[int, int, Strip]] = []  # spans written as they are (rows of unknown content)
        fresh = self._new_rows(update, width, height, color_system, early)
        rows = self._rows
        out: list[str] = []
        sgr = ""  # the SGR in force on the terminal while this frame is written
        for y, x, strip in early:
            out.append(f"\x1b[{y + 1};{x + 1}H")
            text, sgr = render_cells(strip, color_system, sgr)
            out.append(text)
        # (told by segments: a row that only looks the same is written as a diff, which is empty)
        changed = [y for y, row in fresh.items() if (old := rows[y]) is None or old.segments != row.segments]
        if len(changed) >= SCROLL_MIN_ROWS and not early:  # early writes would move with the band
            scroll = self._scroll(fresh, changed, width, color_system)
            if scroll:
                out.append(scroll)  # written from a reset (the erased lines take the background)
        for y in sorted(fresh):
            new = fresh[y]
            old = rows[y]
            rows[y] = new
            if old is None:
                runs = [(0, width)]
            elif old.same(new):
                continue
            else:
                runs = changed_runs(old, new, color_system)
            for start, end in runs:
                out.append(f"\x1b[{y + 1};{start + 1}H")
                text, sgr = render_cells(new.strip.crop(start, end), color_system, sgr, end == width)
                out.append(text)
        if sgr:
            out.append("\x1b[0m")
        if out or cursor != self._cursor:
            out.append(f"\x1b[{cursor.y + 1};{cursor.x + 1}H")
            self._cursor = cursor
        text = "".join(out)
        if text:
            self.frames += 1
            self.chars += len(text)
        return text

    def _new_rows(self, update: LayoutUpdate | ChopsUpdate, width: int, height: int,
                  color_system: ColorSystem, early: list[tuple[int, int, Strip]]) -> dict[int, _Row]:
        """The rows this update touches, as they will be (spans of rows of unknown content go to
        ``early``, to be written as they are, and the rows stay unknown)."""
        fresh: dict[int, _Row] = {}
        if isinstance(update, LayoutUpdate):
            region = update.region
            for y, line in enumerate(update.strips, region.y):
                if 0 <= y < height:
                    strip = Strip.join(line)
                    if region.x == 0 and strip.cell_length == width:
                        fresh[y] = _Row.of(strip, color_system)
                    else:
                        self._rows[y] = None
                        early.append((y, region.x, strip))
            return fresh
        chops, chop_ends = update.chops, update.chop_ends
        for y, x1, x2 in update.spans:
            if not 0 <= y < height:
                continue
            pieces: list[tuple[int, list[Segment], int]] = []  # (x, segments, cells)
            covered = x1  # how far the pieces cover the span without a hole
            for end, (x, chop) in zip(chop_ends[y], chops[y].items(), strict=False):
                if chop is None or end <= x1 or x >= x2:
                    continue
                left, right = max(x1, x), min(x2, end)
                if left == x and right == end and _measured_cells(chop) == end - x:
                    pieces.append((left, list(chop), end - x))  # the whole chop (most are): no cut to make
                else:
                    pieces.append((left, *_cut(chop, left - x, right - x)))
                if left == covered:
                    covered = min(x2, end)
            row = fresh.get(y) or self._rows[y]
            middle = [segment for _, piece, _ in pieces for segment in piece]
            whole = covered == x2 and sum(size for _, _, size in pieces) == x2 - x1
            if whole and x1 == 0 and x2 == width:
                fresh[y] = _Row(middle, width, color_system)  # the whole line: known from now on
                continue
            if row is None or not whole:
                self._rows[y] = None  # not a whole picture of the span, or of the row: write as is
                earlier = fresh.pop(y, None)  # an earlier span of this line, not written yet
                if earlier is not None:
                    early.append((y, 0, earlier.strip))
                early.extend((y, piece_x, Strip(piece, size)) for piece_x, piece, size in pieces)
                continue
            if _cut(row.segments, x1, x2, row.cells)[0] == middle:
                continue  # the span shows these very segments already (a scrollbar repainted the same)
            before, _ = _cut(row.segments, 0, x1, row.cells)
            after, _ = _cut(row.segments, x2, width, row.cells)
            fresh[y] = _Row([*before, *middle, *after], width, color_system)
        return fresh

    # ------------------------------------------------------------------ scrolling
    def _scroll(self, fresh: dict[int, _Row], changed: list[int], width: int,
                color_system: ColorSystem) -> str:
        """Scroll a band of the terminal when most changed rows are old rows moved by k lines:
        the sequence that does it ("" when rewriting the rows is cheaper)."""
        rows = self._rows
        where: dict[str, list[int]] = {}
        for y, row in enumerate(rows):
            if row is not None and row.plain.strip():
                where.setdefault(row.plain, []).append(y)
        votes: dict[int, list[int]] = {}
        for y in changed:
            new = fresh[y]
            for old_y in where.get(new.plain, ()) if new.plain.strip() else ():
                if old_y != y:
                    votes.setdefault(old_y - y, []).append(y)
        if not votes:
            return ""
        shift, voters = max(votes.items(), key=lambda item: len(item[1]))
        if len(voters) < SCROLL_MIN_ROWS:
            return ""
        height = len(rows)
        top = min(voters) if shift > 0 else min(voters) + shift
        bottom = max(voters) + shift if shift > 0 else max(voters)
        top, bottom = max(0, top), min(height - 1, bottom)
        if bottom - top < abs(shift):
            return ""
        band = range(top, bottom + 1)
        # What each line of the band shows once scrolled: the line ``shift`` away, or a blank one
        # (lines scrolled in are erased to the default look: the SGR is reset before the scroll).
        blank = _Row([Segment(" " * width)], width, color_system)
        moved = [rows[y + shift] if top <= y + shift <= bottom else blank for y in band]

        def cost(y: int, old: _Row | None) -> int:
            new = fresh.get(y)
            if new is None:  # not repainted by this frame: it must show what it shows now
                new = rows[y]
                if new is None:
                    return width
            if old is None:
                return width
            if old.same(new):
                return 0
            start, end = changed_cells(old, new, color_system)
            return end - start

        scrolled = sum(cost(y, old) for y, old in zip(band, moved, strict=True)) + 16
        stay = 0
        for y in band:  # (summed only until it is more: each row's cost takes a diff)
            stay += cost(y, rows[y])
            if stay > scrolled:
                break
        if scrolled >= stay:
            return ""
        keep = {y: rows[y] for y in band if y not in fresh}  # rows the frame did not repaint
        if shift > 0:  # content moves up: index at the bottom margin
            sequence = f"\x1b[{top + 1};{bottom + 1}r\x1b[{bottom + 1};1H" + "\x1bD" * shift + "\x1b[r"
        else:  # content moves down: reverse index at the top margin
            sequence = f"\x1b[{top + 1};{bottom + 1}r\x1b[{top + 1};1H" + "\x1bM" * -shift + "\x1b[r"
        for y, old in zip(band, moved, strict=True):
            rows[y] = old
        for y, row in keep.items():  # unchanged by the frame but moved by the scroll: put it back
            if row is not None:
                fresh[y] = row
        self.scrolls += 1
        return sequence


install_cropped_renders()  # each widget renders only the rows a frame repaints
install_light_strips()  # a Strip's seven caches made as dicts


class DiffedOutput(DisplayHookApp[ReturnType]):
    """App mixin: frames go through a ``FrameWriter``, wrapped in synchronized output."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.frame_writer = FrameWriter()
        self.sync_assumed = bool(os.environ.get("TMUX"))  # tmux: no DECRQM answer, mode honoured

    @on(events.Mount)
    def _reset_writer_on_resume(self, event: events.Mount) -> None:
        # A resumed terminal (suspend, Ctrl+Z) shows nothing the shadow knows of.
        self.app_resume_signal.subscribe(self, lambda _app: self.frame_writer.reset(), immediate=True)

    @property
    def synchronized_output(self) -> bool:
        """Whether frames are wrapped in DEC mode 2026."""
        return terminal_sync_available(self) or self.sync_assumed

    def display_bypassed(self) -> None:
        self.frame_writer.reset()  # written another way: the shadow no longer matches

    def display_update(self, screen: Screen[Any], update: LayoutUpdate | ChopsUpdate,
                       driver: Driver) -> None:
        writer = self.frame_writer
        try:
            size = screen.outer_size
            cursor = self.screen.outer_size.clamp_offset(self.cursor_position)
            frame = writer.frame(update, size.width, size.height, self.console, cursor)
        except Exception as error:
            writer.reset()
            report_exception(self, error)
            return
        if frame and not self.is_headless:
            driver.write(f"{SYNC_START}{frame}{SYNC_END}" if self.synchronized_output else frame)
            driver.flush()
