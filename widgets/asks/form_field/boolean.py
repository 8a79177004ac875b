"""Provides ``BooleanFieldEditor`` for ``boolean`` fields."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.widgets import Checkbox

from widgets.asks.form_field.base import FieldEditor


class BooleanFieldEditor(FieldEditor):
    """A checkbox labelled with the field title."""

    show_title = False

    def compose_control(self) -> ComposeResult:
        yield Checkbox(self.title_content(), value=bool(self.initial), classes="field-checkbox", compact=True)

    @property
    def value(self) -> Any:
        return self.query_one(Checkbox).value

    @on(Checkbox.Changed)
    def _edited(self, event: Checkbox.Changed) -> None:
        event.stop()
        self.changed()
