"""Assistant text: streamed markdown that settles on the authoritative text."""

from __future__ import annotations

from textual.widgets import Markdown

from tui.sanitize import clean_text
from tui.state.transcript import TextBlock


class TextBlockView(Markdown):
    """Renders one text block. Streaming appends only the new suffix; ``*.ended`` re-renders once."""

    DEFAULT_CLASSES = "text-block"

    def __init__(self, block: TextBlock, *, id: str | None = None) -> None:
        super().__init__(clean_text(block.text), id=id)
        self._rendered = block.text
        self._version = block.version
        self._streaming = block.streaming

    def sync(self, block: TextBlock) -> None:
        if block.version == self._version and block.streaming == self._streaming:
            return
        self._version = block.version
        was_streaming, self._streaming = self._streaming, block.streaming
        text = block.text
        if block.streaming and text.startswith(self._rendered):
            suffix = text[len(self._rendered):]
            if suffix:
                self.append(clean_text(suffix))
        elif text != self._rendered or was_streaming:
            # Authoritative text: one full render (also clears stale fences of the stream).
            self.update(clean_text(text))
        self._rendered = text
