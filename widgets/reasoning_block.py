"""Reasoning ("thinking"): collapsed by default; rendered only while expanded."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Collapsible, Static

from tui.plain import as_markup_arg, plain
from tui.sanitize import clean_text
from tui.state.transcript import TextBlock


class ReasoningView(Collapsible):
    """A collapsible thinking block. Collapsed blocks skip text rendering entirely."""

    DEFAULT_CLASSES = "reasoning-block"

    def __init__(self, block: TextBlock, *, collapsed: bool = True, id: str | None = None) -> None:
        self._block = block
        self._version = -1
        self._body = Static("", classes="reasoning-text", markup=False)
        super().__init__(self._body, title=as_markup_arg(self._heading(block)), collapsed=collapsed, id=id)

    def on_mount(self) -> None:
        self.sync(self._block)

    def _heading(self, block: TextBlock) -> Content:
        words = len(block.text.split())
        return Content(f"Thinking… ({words} words)" if block.streaming else f"Thought ({words} words)")

    def sync(self, block: TextBlock) -> None:
        self._block = block
        self.title = as_markup_arg(self._heading(block))
        if not self.collapsed and block.version != self._version:
            self._version = block.version
            self._body.update(plain(clean_text(block.text)))

    def _watch_collapsed(self, collapsed: bool) -> None:
        super()._watch_collapsed(collapsed)
        if not collapsed:
            self.sync(self._block)
