"""Provides ``RenameScreen``: edit a session title. Dismisses with the new title or ``None``."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from tui.screens.confirm import ACTIONS_CSS
from tui.text.sanitize import one_line

__all__ = ["MAX_TITLE", "RenameScreen"]

MAX_TITLE = 200


class RenameScreen(ModalScreen[str | None]):
    """One input with the current title; Enter saves (blank or unchanged = cancel), Esc cancels."""

    CSS_PATH = ACTIONS_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self, title: str) -> None:
        super().__init__(classes="action-dialog")
        self.old_title = title

    def compose(self) -> ComposeResult:
        with Vertical(id="action-box"):
            yield Static(Content.assemble(("Rename session", "bold")), id="action-title")
            yield Input(one_line(self.old_title, MAX_TITLE), id="rename-input", max_length=MAX_TITLE,
                        placeholder="Session title")
            yield Static("Enter saves · Esc cancels", classes="action-hint")

    @on(Input.Submitted, "#rename-input")
    def _submitted(self, event: Input.Submitted) -> None:
        title = " ".join(event.value.split())
        self.dismiss(title if title and title != self.old_title else None)

    def action_cancel(self) -> None:
        self.dismiss(None)
