"""One attached local file above the composer; Enter, Delete or a click removes it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from tui.text.sanitize import one_line
from widgets.plain import plain


class AttachmentChip(Static, can_focus=True):
    """A focusable ``name · kind · size ✕`` chip; posts ``Remove`` when dismissed."""

    DEFAULT_CLASSES = "attachment-chip"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,delete,backspace,x", "remove", "Remove attachment"),
    ]

    @dataclass
    class Remove(Message):
        key: str

    def __init__(self, key: str, name: str, detail: str) -> None:
        super().__init__(Content.assemble((one_line(name, 40), "bold"), "  ",
                                          plain(detail, "$foreground-muted"), "  ", ("✕", "$text-error")))
        self.key = key
        self.tooltip = "Remove (Enter/Delete or click)"

    def action_remove(self) -> None:
        self.post_message(self.Remove(self.key))

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_remove()
