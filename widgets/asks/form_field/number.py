"""Provides ``NumberFieldEditor`` for ``number`` and ``integer`` fields."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.widgets import Input

from tui.text.sanitize import clean_text, one_line
from widgets.asks.form_field.base import LONG_PLACEHOLDER, FieldEditor


def _bound(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


class NumberFieldEditor(FieldEditor):
    """An Input restricted to numeric characters; range shown as the placeholder."""

    def compose_control(self) -> ComposeResult:
        f = self.form_field
        low = _bound(f.minimum) if f.minimum is not None else ""
        high = _bound(f.maximum) if f.maximum is not None else ""
        hint = f"{low}…{high}" if low or high else ("whole number" if f.type == "integer" else "number")
        initial = "" if self.initial is None else str(self.initial)
        long = self.keep_out_long(initial)
        yield Input(
            value=clean_text("" if long else initial),
            placeholder=one_line(LONG_PLACEHOLDER if long else f.placeholder or hint, 80),
            type="integer" if f.type == "integer" else "number",
            classes="field-input",
            compact=True,
        )
        yield from self.long_default_note()

    @property
    def value(self) -> Any:
        return self.query_one(Input).value or self.long_default or ""

    @on(Input.Changed)
    def _edited(self, event: Input.Changed) -> None:
        event.stop()
        self.box_edited()
        self.changed()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.screen.focus_next()
