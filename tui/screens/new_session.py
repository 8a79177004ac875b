"""Provides ``NewSessionScreen``: start a session in a chosen directory with a chosen agent and model.

Dismisses with a ``NewSessionRequest`` or ``None``. The lists of agents and models are passed in
(the caller fetched them); "server default" leaves the choice to the server.
"""

from __future__ import annotations

import os
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Select, Static

from tui.app.session_actions import NewSessionRequest
from tui.protocol.models import ModelRef
from tui.screens.confirm import ACTIONS_CSS
from tui.text.sanitize import clean_text
from widgets.plain import plain, plain_line

__all__ = ["NewSessionScreen"]


class NewSessionScreen(ModalScreen[NewSessionRequest | None]):
    """Directory input, agent and model selects; ctrl+s or "Create" submits, Esc cancels."""

    CSS_PATH = ACTIONS_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", show=False),
        Binding("ctrl+s", "create", "Create", show=False),
    ]

    def __init__(self, directory: str, agents: list[str], models: list[ModelRef]) -> None:
        super().__init__(classes="action-dialog")
        self.directory = directory
        self.agents = agents
        self.models = {m.label: m for m in models}

    def compose(self) -> ComposeResult:
        with Vertical(id="action-box"):
            yield Static(Content.assemble(("New session", "bold")), id="action-title")
            yield Static("Directory", classes="field-label")
            yield Input(clean_text(self.directory), id="new-directory", placeholder="/path/to/project")
            yield Static("Agent", classes="field-label")
            yield Select([(plain_line(a, 60), a) for a in self.agents], id="new-agent",
                         prompt="server default", allow_blank=True, compact=True)
            yield Static("Model", classes="field-label")
            yield Select([(plain_line(label, 80), label) for label in self.models], id="new-model",
                         prompt="server default", allow_blank=True, compact=True)
            yield Static("", id="new-error", classes="action-hint")
            with Horizontal(id="action-buttons"):
                yield Button(Content("Create [ctrl+s]"), id="create", variant="primary", compact=True)
                yield Button(Content("Cancel [esc]"), id="cancel", compact=True)

    def request(self) -> NewSessionRequest | None:
        """The form as a request, or ``None`` (with the reason shown) when the directory is bad."""
        raw = self.query_one("#new-directory", Input).value.strip()
        # No local isdir check: the server may be remote; it answers for its own file system.
        directory = os.path.expanduser(raw) if raw else ""
        if not os.path.isabs(directory):
            self.query_one("#new-error", Static).update(
                plain(f"Give an absolute directory (the server's path): {raw or '(empty)'}"))
            return None
        agent = self.query_one("#new-agent", Select).value
        model = self.query_one("#new-model", Select).value
        return NewSessionRequest(
            directory=directory,
            agent=agent if isinstance(agent, str) else None,
            model=self.models.get(model) if isinstance(model, str) else None,
        )

    def action_create(self) -> None:
        request = self.request()
        if request is not None:
            self.dismiss(request)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted, "#new-directory")
    def _submitted(self) -> None:
        self.action_create()

    @on(Button.Pressed, "#create")
    def _create(self) -> None:
        self.action_create()

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)
