"""Provides ``ConfirmScreen``: a generic yes/no modal. Dismisses with ``True`` (yes) or ``False``."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

import styles
from widgets.plain import plain

__all__ = ["ACTIONS_CSS", "ConfirmScreen"]

ACTIONS_CSS = str(Path(styles.__file__).parent / "actions.tcss")


class ConfirmScreen(ModalScreen[bool]):
    """Ask one question. ``y``/Enter on "yes" confirms; ``n``/Esc cancels. The default is "no"."""

    CSS_PATH = ACTIONS_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", show=False),
        Binding("n,escape", "answer(False)", "No", show=False),
    ]

    def __init__(self, title: str, body: str = "", *, yes: str = "Yes", no: str = "Cancel",
                 danger: bool = False) -> None:
        super().__init__(classes="action-dialog")
        self.title_text = title
        self.body_text = body
        self.yes_label = yes
        self.no_label = no
        self.danger = danger

    def compose(self) -> ComposeResult:
        with Vertical(id="action-box", classes="-danger" if self.danger else ""):
            yield Static(plain(self.title_text, "bold"), id="action-title")
            if self.body_text:
                yield Static(plain(self.body_text), id="action-body")
            with Horizontal(id="action-buttons"):
                yield Button(plain(f"{self.yes_label} [y]"), id="yes",
                             variant="error" if self.danger else "primary", compact=True)
                yield Button(plain(f"{self.no_label} [n]"), id="no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()  # a stray Enter must never destroy anything

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)

    @on(Button.Pressed, "#yes")
    def _yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def _no(self) -> None:
        self.dismiss(False)
