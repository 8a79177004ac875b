"""The row of files attached to the next prompt, shown above the composer (hidden when empty)."""

from __future__ import annotations

from textual.containers import HorizontalGroup
from textual.widgets import Static

from widgets.composer.attachment_chip import AttachmentChip


class AttachmentBar(HorizontalGroup):
    """Holds one ``AttachmentChip`` per attached file; the screen owns the list and calls ``show``."""

    DEFAULT_CLASSES = "attachment-bar"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: list[tuple[str, str, str]] = []

    def show(self, items: list[tuple[str, str, str]]) -> None:
        """``items`` are ``(key, name, detail)``; an empty list hides the bar."""
        self.display = bool(items)
        if items == self._shown:
            return
        self._shown = list(items)
        self.remove_children()
        if items:
            self.mount(Static("attached:", classes="attachment-title"))
            self.mount_all(AttachmentChip(key, name, detail) for key, name, detail in items)
