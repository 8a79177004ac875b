"""Provides ``TextFieldEditor`` for ``string`` fields: free text, or a select with options."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.widgets import Input, Select

from tui.text.sanitize import clean_text, one_line
from widgets.asks.form_field.base import LONG_PLACEHOLDER, FieldEditor
from widgets.plain import plain_line

_FORMAT_HINTS = {
    "email": "name@example.com",
    "uri": "https://…",
    "date": "YYYY-MM-DD",
    "date-time": "YYYY-MM-DDTHH:MM:SS",
}


class TextFieldEditor(FieldEditor):
    """An Input; with ``options`` a Select, plus an Input for a typed answer when ``custom``."""

    def compose_control(self) -> ComposeResult:
        f = self.form_field
        initial = "" if self.initial is None else str(self.initial)
        option_values = [o.value for o in f.options or []]
        if f.options:
            picked = initial if initial in option_values else Select.NULL
            yield Select(
                [(plain_line(o.label or o.value, 60), o.value) for o in f.options],
                value=picked,
                prompt="Pick one",
                classes="field-select",
                compact=True,
            )
        if not f.options or f.custom:
            typed = "" if f.options and initial in option_values else initial
            placeholder = f.placeholder or _FORMAT_HINTS.get(f.format or "", "")
            if f.options:
                placeholder = placeholder or "or type your own answer"
            long = self.keep_out_long(typed)
            yield Input(
                value=clean_text("" if long else typed),
                placeholder=one_line(LONG_PLACEHOLDER if long else placeholder, 80),
                max_length=f.maxLength or 0,
                classes="field-input",
                compact=True,
            )
            yield from self.long_default_note()

    @property
    def value(self) -> Any:
        typed = self.query(".field-input").results(Input)
        for box in typed:
            if box.value.strip():
                return box.value
        for select in self.query(".field-select").results(Select):
            if select.value is not Select.NULL:
                return str(select.value)
        return self.long_default or ""

    @on(Input.Changed)
    @on(Select.Changed)
    def _edited(self, event: Input.Changed | Select.Changed) -> None:
        event.stop()
        if isinstance(event, Select.Changed) and event.value is not Select.NULL:
            # A pick is the answer: what the box held (a default, typed text) would win over it.
            for box in self.query(".field-input").results(Input):
                box.value = ""
            self.box_edited()
        elif isinstance(event, Input.Changed):
            self.box_edited()
        self.changed()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        # Enter moves on to the next field instead of submitting the whole form.
        event.stop()
        self.screen.focus_next()
