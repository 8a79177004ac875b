"""Provides DiffView: one file's unified patch as a unified or side-by-side diff."""

from __future__ import annotations

from functools import lru_cache
from typing import ClassVar

from textual.content import Content
from textual.geometry import Size
from textual.highlight import highlight
from textual.reactive import var
from textual.selection import Selection
from textual.style import Style
from textual.widget import Widget

from tui.text.lexer_guard import makes_progress
from tui.text.tools import DiffFile, DiffLine, Hunk, split_pairs
from widgets._textual_compat import BoundedLineCache
from widgets.plain import plain

__all__ = ["DiffView"]

MAX_ROWS = 1000
"""Rows drawn per file; the rest is summarised on one line."""

RowLines = tuple[DiffLine | None, ...] | None
"""A drawn row's diff lines: ``(line,)`` unified, ``(old, new)`` side by side, None for others."""

_SIGNS = {"added": "+", "removed": "-", "context": " ", "note": "\\"}
# The sign in its colour too: with 16 or 256 colours the rows' tinted backgrounds map to nearly
# the same colour (QA: added, removed and context rows alike), a coloured sign does not.
_SIGN_STYLES = {"added": "bold $text-success", "removed": "bold $text-error"}



@lru_cache(maxsize=256)
def language_for_path(path: str | None) -> str:
    """The Pygments alias for ``path`` by its file name alone.

    Textual's ``guess_language`` falls back to guessing from the code, which imports every lexer
    Pygments has (about half a second, on the first diff shown); the name is enough for a diff.
    """
    if not path:
        return "default"
    if path.endswith(".tcss"):
        return "scss"  # Textual's own CSS, unknown to Pygments
    from pygments.lexers import find_lexer_class_for_filename

    lexer = find_lexer_class_for_filename(path)
    if lexer is None:
        return "default"
    return lexer.aliases[0] if lexer.aliases else lexer.name


def _lexes(language: str, text: str) -> bool:
    """Whether ``highlight`` gets to the end of ``text``: some lexers make no progress on some
    text (``lexer_guard``), and Textual's ``highlight`` would never return."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(language, stripnl=False, ensurenl=True)
    except ClassNotFound:
        return True  # (highlight draws it as plain text)
    return makes_progress(lexer, text)


class DiffView(BoundedLineCache, Widget):
    """A diff of one file from parsed hunks, with old/new line numbers and syntax colours (up to
    MAX_ROWS rows; the styled copy Textual keeps of each row drawn is kept only near the view).

    Split (side by side) when ``split`` is ``True``, or when it is ``None`` and the widget is
    at least ``SPLIT_WIDTH`` columns wide; unified otherwise.
    """

    SPLIT_WIDTH: ClassVar[int] = 120

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff-view--header",
        "diff-view--hunk",
        "diff-view--added",
        "diff-view--removed",
        "diff-view--context",
        "diff-view--number",
        "diff-view--filler",
        "diff-view--separator",
    }

    DEFAULT_CSS = """
    DiffView { height: auto; text-wrap: nowrap; text-overflow: clip; }
    """

    split: var[bool | None] = var(None)
    """Forced layout, or ``None`` for automatic by width."""

    def __init__(
        self,
        diff: DiffFile,
        *,
        split: bool | None = None,
        show_header: bool = True,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.diff = diff
        self.show_header = show_header
        self.set_reactive(DiffView.split, split)
        self._code: dict[int, Content] | None = None
        self._cache: tuple[int, bool, Content, list[RowLines]] | None = None
        last = max((n for h in diff.hunks for ln in h.lines for n in (ln.old_no, ln.new_no) if n), default=1)
        self._number_width = max(3, len(str(last)))

    # -- layout -------------------------------------------------------------------------------

    def is_split(self, width: int | None = None) -> bool:
        """The effective layout at ``width`` (default: the current width)."""
        if self.split is not None:
            return self.split
        return (self.size.width if width is None else width) >= self.SPLIT_WIDTH

    def _total_rows(self, split: bool) -> int:
        rows = 1 if self.show_header else 0
        if not self.diff.hunks:
            return rows + 1
        for hunk in self.diff.hunks:
            rows += 1 + (len(split_pairs(hunk)) if split else len(hunk.lines))
        return rows

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        total = self._total_rows(self.is_split(width))
        return MAX_ROWS + 1 if total > MAX_ROWS else total

    def watch_split(self) -> None:
        self._cache = None
        self.refresh(layout=True)

    def on_resize(self) -> None:
        self.refresh(layout=True)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache = None

    # -- rendering ----------------------------------------------------------------------------

    def _highlighted(self) -> dict[int, Content]:
        """Syntax-coloured text per diff line (keyed by ``id``), each side lexed as a whole."""
        if self._code is not None:
            return self._code
        code: dict[int, Content] = {}
        language = language_for_path(self.diff.path)
        for hunk in self.diff.hunks:
            for kinds in (("context", "removed"), ("context", "added")):
                lines = [ln for ln in hunk.lines if ln.kind in kinds]
                if not lines:
                    continue
                text = "\n".join(ln.text for ln in lines)
                coloured = highlight(text, language=language) if _lexes(language, text) else plain(text)
                parts = coloured.split("\n")
                if len(parts) < len(lines):  # never trust a lexer with our line count
                    parts = [plain(ln.text) for ln in lines]
                for line, part in zip(lines, parts, strict=False):
                    code[id(line)] = part
        self._code = code
        return code

    def _style(self, name: str) -> Style:
        return self.get_visual_style(name, partial=True)

    def _cell(self, line: DiffLine | None, numbers: list[int | None], width: int) -> Content:
        """One side (or the whole unified row) of a line, exactly ``width`` cells."""
        if line is None:
            return Content(" " * width).stylize(self._style("diff-view--filler"))
        gutter = " ".join(f"{n:>{self._number_width}}" if n else " " * self._number_width
                          for n in numbers)
        kind = line.kind
        if kind == "note":
            text = plain(line.text, "italic")
        else:
            text = self._highlighted().get(id(line)) or plain(line.text)
        body = Content.assemble(
            Content(gutter + " ").stylize(self._style("diff-view--number")),
            (_SIGNS[kind], _SIGN_STYLES.get(kind, "")), " ", text,
        )
        body = body.truncate(width, ellipsis=True, pad=True)
        style = {"added": "diff-view--added", "removed": "diff-view--removed"}.get(kind)
        return body.stylize_before(self._style(style or "diff-view--context"))

    def _header(self, width: int) -> Content:
        diff = self.diff
        head = Content.assemble(
            plain(diff.path, "bold"), "  ", plain(diff.status, "italic"), "  ",
            (f"+{diff.additions}", "$text-success"), " ",
            (f"−{diff.deletions if diff.deletions_known else '?'}", "$text-error"),
        )
        return head.truncate(width, ellipsis=True, pad=True).stylize_before(
            self._style("diff-view--header"))

    def _hunk_rows(self, hunk: Hunk, split: bool, width: int) -> list[tuple[Content, RowLines]]:
        rows: list[tuple[Content, RowLines]] = [(
            plain(f"⋯ {hunk.header}").truncate(width, ellipsis=True, pad=True)
            .stylize_before(self._style("diff-view--hunk")), None)]
        if not split:
            rows.extend((self._cell(ln, [ln.old_no, ln.new_no], width), (ln,)) for ln in hunk.lines)
            return rows
        left_width = (width - 1) // 2
        right_width = width - 1 - left_width
        sep = Content("│").stylize(self._style("diff-view--separator"))
        for old, new in split_pairs(hunk):
            left = self._cell(old, [old.old_no if old else None], left_width)
            right = self._cell(new, [new.new_no if new else None], right_width)
            rows.append((Content.assemble(left, sep, right), (old, new)))
        return rows

    def _build(self, width: int, split: bool) -> tuple[Content, list[RowLines]]:
        rows: list[tuple[Content, RowLines]] = [(self._header(width), None)] if self.show_header else []
        if not self.diff.hunks:
            rows.append((Content.styled("(no textual changes)", "$foreground-muted italic"), None))
        for hunk in self.diff.hunks:
            rows.extend(self._hunk_rows(hunk, split, width))
            if len(rows) > MAX_ROWS:
                break
        total = self._total_rows(split)
        if total > MAX_ROWS:
            rows = rows[:MAX_ROWS]
            cut = Content.styled(f"… diff cut at {MAX_ROWS} rows (of {total})", "$foreground-muted")
            rows.append((cut, None))
        return Content("\n").join(row for row, _ in rows), [lines for _, lines in rows]

    def _built(self) -> tuple[int, Content, list[RowLines]]:
        """(the layout's width, its rows drawn, each row's diff lines), built once per width."""
        width = max(1, self.size.width)
        split = self.is_split(width)
        if self._cache is None or self._cache[:2] != (width, split):
            self._cache = (width, split, *self._build(width, split))
        return width, self._cache[2], self._cache[3]

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The code a mouse selection covers: each line without its numbers, sign and padding,
        and whole where a row shows it cut short (copied as drawn, a diff brought all of those,
        and both sides of a side-by-side one). Side by side, the side the drag began on."""
        width, content, row_lines = self._built()
        drawn = content.plain.split("\n")
        start, end = selection
        split = self.is_split(width)
        left_width = (width - 1) // 2
        side = 1 if split and start is not None and start.x > left_width else 0
        prefix = self._number_width + 3 if split else 2 * self._number_width + 4  # "12 + " / "1 2 + "
        code_start = prefix + (left_width + 1 if side else 0)
        side_end = left_width if split and not side else width  # where the side's cells end
        first = start.y if start is not None else 0
        last = min(len(drawn) - 1, end.y if end is not None else len(drawn) - 1)
        copied: list[str] = []
        for y in range(first, last + 1):
            span = selection.get_span(y)
            lines = row_lines[y]
            if span is None:
                continue
            begin, stop = span
            if lines is None:  # the file's header, a hunk's, a note about the diff: as drawn
                copied.append((drawn[y][begin:] if stop == -1 else drawn[y][begin:stop]).rstrip())
                continue
            line = lines[side] if split else lines[0]
            if line is None or line.kind == "note" or (stop != -1 and stop <= code_start):
                continue  # the other side's line only, "\ No newline at end of file", or no code
            text = line.text
            low = max(0, begin - code_start)
            high = len(text) if stop == -1 or stop >= side_end else stop - code_start
            copied.append(text[low:high])
        return "\n".join(copied), "\n"

    def render(self) -> Content:
        return self._built()[1]
