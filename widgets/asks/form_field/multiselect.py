"""Provides ``MultiSelectFieldEditor`` for ``multiselect`` fields."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.widgets import Input, SelectionList

from tui.text.sanitize import clean_text
from widgets.asks.form_field.base import FieldEditor
from widgets.plain import plain_line


class MultiSelectFieldEditor(FieldEditor):
    """A selection list (space toggles); with ``custom`` an Input for extra, comma-separated values."""

    def compose_control(self) -> ComposeResult:
        f = self.form_field
        initial = [str(v) for v in self.initial] if isinstance(self.initial, list) else []
        known = {o.value for o in f.options or []}
        yield SelectionList[str](
            *[(plain_line(o.label or o.value, 60), o.value, o.value in initial) for o in f.options or []],
            classes="field-multi",
        )
        if f.custom:
            extra = ", ".join(v for v in initial if v not in known)
            yield Input(value=clean_text(extra), placeholder="others, comma separated", classes="field-input",
                        compact=True)

    @property
    def value(self) -> Any:
        picked: list[str] = list(self.query_one(SelectionList).selected)
        for box in self.query(Input).results(Input):
            picked.extend(part.strip() for part in box.value.split(",") if part.strip())
        return picked

    @on(SelectionList.SelectedChanged)
    @on(Input.Changed)
    def _edited(self, event: SelectionList.SelectedChanged[str] | Input.Changed) -> None:
        event.stop()
        self.changed()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.screen.focus_next()
