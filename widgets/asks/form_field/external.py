"""Provides ``ExternalFieldEditor``: a link the user opens themselves (no value, no network)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Static

from tui.text.sanitize import one_line
from widgets.asks.form_field.base import FieldEditor


class ExternalFieldEditor(FieldEditor):
    """Shows the title as link text and the URL in full, so the user can copy it."""

    def compose_control(self) -> ComposeResult:
        url = one_line(self.form_field.url or "", 300)
        yield Static(
            Content.assemble(("↗ ", "$text-accent"), (url or "(no url)", "underline")),
            classes="field-link",
        )
