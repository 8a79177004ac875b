"""Provides ToolBody: the expandable part of a tool row, built by the per-tool renderers."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalGroup

from tui.state.transcript import ToolCall
from widgets.tools.renderers import BodyOptions, build_body

__all__ = ["ToolBody"]


class ToolBody(VerticalGroup):
    """Rebuilt from the call when shown; left alone (and empty) while the row is collapsed."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._call: ToolCall | None = None
        self._options = BodyOptions()

    def compose(self) -> ComposeResult:
        if self._call is not None:
            yield from build_body(self._call, self._options)

    def show(self, call: ToolCall | None, options: BodyOptions) -> None:
        """Render ``call`` (``None`` empties the body, e.g. when collapsing)."""
        self._call = call
        self._options = options
        self.refresh(recompose=True)
