"""Markdown rendered once per width into cached strips, growing by whole pieces.

Textual re-renders a ``Static`` holding a Rich renderable whenever layout or scrolling asks,
which for markdown means re-parsing it every time. This widget renders each piece of its text
once for a given width (Rich's markdown renderer) and serves cached lines. Appending a piece
renders only that piece, so a long streamed answer costs one widget and no re-parsing of what
is already on screen; only a resize renders everything again.
"""

from __future__ import annotations

from rich.markdown import Markdown as RichMarkdown
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from tui.sanitize import clean_text


class MarkdownChunk(Widget):
    """Markdown pieces (split at block boundaries) with a per-width cache of rendered lines."""

    DEFAULT_CSS = "MarkdownChunk { height: auto; }"

    def __init__(self, text: str = "", *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self._pieces: list[str] = [text] if text.strip() else []
        self._width = -1
        self._strips: list[Strip] = []

    @property
    def text(self) -> str:
        return "".join(self._pieces)

    def set_text(self, text: str) -> None:
        """Replace everything (the live tail of a stream)."""
        pieces = [text] if text.strip() else []
        if pieces == self._pieces:
            return
        self._pieces = pieces
        self._width = -1
        self.refresh(layout=True)

    def append_piece(self, text: str) -> None:
        """Add a finished piece; only it is rendered."""
        if not text.strip():
            return
        self._pieces.append(text)
        if self._width > 0:
            self._strips.extend(self._render_piece(text, self._width, bool(self._strips)))
        self.refresh(layout=True)

    def _render_piece(self, text: str, width: int, gap: bool) -> list[Strip]:
        console = self.app.console
        options = console.options.update(width=width, max_width=width, height=None)
        markdown = RichMarkdown(clean_text(text), code_theme="monokai", hyperlinks=False)
        lines = console.render_lines(markdown, options, pad=False, new_lines=False)
        # Every segment gets a real style: Textual's filters (opacity, dim) expect one.
        null = Style.null()
        strips = [Strip([Segment(text, style or null, control)
                         for text, style, control in Segment.adjust_line_length(line, width)])
                  for line in lines]
        return ([Strip.blank(width)] if gap and strips else []) + strips

    def _lines(self, width: int) -> list[Strip]:
        width = max(1, width)
        if width != self._width:
            self._width = width
            self._strips = []
            for piece in self._pieces:
                self._strips.extend(self._render_piece(piece, width, bool(self._strips)))
        return self._strips

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    def render_line(self, y: int) -> Strip:
        strips = self._lines(self.content_size.width)
        return strips[y] if 0 <= y < len(strips) else Strip.blank(self.content_size.width)
