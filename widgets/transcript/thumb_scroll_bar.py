"""A scrollbar repainted when the bar it draws changes, not whenever the text under it grows."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from math import ceil
from typing import Self

from rich.console import RenderableType
from rich.segment import Segment
from textual.geometry import Region
from textual.reactive import Reactive
from textual.scrollbar import ScrollBar


class ThumbScrollBar(ScrollBar):
    """Textual's ``ScrollBar``, repainted only when its thumb moves on screen.

    Textual repaints a scrollbar, every row of it through the styles pipeline (~0.5 ms for 26
    rows, the costliest widget of a frame that adds a line), whenever the size it scrolls over,
    the window or the position changes, and its owner asks for a repaint each time its content
    grows: each new line of a streaming answer. The thumb is drawn in eighths of a cell, so in a
    long transcript most new lines move it by less than that: the same picture. Here those
    three are set without a repaint, and the owner's repaint (``geometry_only``) is one only
    when the segments the renderer draws for them differ from those it drew last. Anything else
    (hover, a grab, the theme, a resize) repaints it as in Textual.
    """

    window_virtual_size: Reactive[int] = Reactive(100, repaint=False)
    window_size: Reactive[int] = Reactive(0, repaint=False)
    position: Reactive[float] = Reactive(0, repaint=False)

    def __init__(self, vertical: bool = True, name: str | None = None, *, thickness: int = 1) -> None:
        self._drawn: tuple[Segment, ...] | None = None  # the bar of the last render
        self._geometry_only = False
        super().__init__(vertical, name, thickness=thickness)

    def _bar(self) -> tuple[Segment, ...]:
        """The segments the renderer draws for the current sizes and position (in its default
        colours: the geometry is what is compared), as ``_render_bar`` and the renderer ask."""
        window_size = self.window_size if self.window_size < self.window_virtual_size else 0
        width, height = self.size
        bar = self.renderer.render_bar(
            size=height if self.vertical else width, virtual_size=ceil(self.window_virtual_size),
            window_size=ceil(window_size), position=self.position,
            thickness=width if self.vertical else height, vertical=self.vertical)
        return tuple(bar.segments)

    def _repaint_if_moved(self) -> None:
        if self._bar() != self._drawn:
            super().refresh()

    def watch_window_virtual_size(self) -> None:
        self._repaint_if_moved()

    def watch_window_size(self) -> None:
        self._repaint_if_moved()

    def watch_position(self) -> None:
        self._repaint_if_moved()

    @contextmanager
    def geometry_only(self) -> Iterator[None]:
        """Within it, a plain ``refresh()`` repaints the bar only if its thumb moved (the owner's
        scroll update asks for one whether or not it did)."""
        self._geometry_only = True
        try:
            yield
        finally:
            self._geometry_only = False

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Self:
        if self._geometry_only and not regions and repaint and not layout and not recompose:
            self._repaint_if_moved()
            return self
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def render(self) -> RenderableType:
        self._drawn = self._bar()
        return super().render()
