"""Provides one editor widget per form-field kind, plus the question pane and choice list."""

from __future__ import annotations

from typing import Any

from tui.protocol.models import FormField
from widgets.asks.form_field.base import FieldEditor, field_id
from widgets.asks.form_field.boolean import BooleanFieldEditor
from widgets.asks.form_field.choice_list import ChoiceList
from widgets.asks.form_field.external import ExternalFieldEditor
from widgets.asks.form_field.multiselect import MultiSelectFieldEditor
from widgets.asks.form_field.number import NumberFieldEditor
from widgets.asks.form_field.question_pane import QuestionPane
from widgets.asks.form_field.text import TextFieldEditor

__all__ = [
    "BooleanFieldEditor",
    "ChoiceList",
    "ExternalFieldEditor",
    "FieldEditor",
    "MultiSelectFieldEditor",
    "NumberFieldEditor",
    "QuestionPane",
    "TextFieldEditor",
    "editor_for",
    "field_id",
]

_EDITORS: dict[str, type[FieldEditor]] = {
    "string": TextFieldEditor,
    "number": NumberFieldEditor,
    "integer": NumberFieldEditor,
    "boolean": BooleanFieldEditor,
    "multiselect": MultiSelectFieldEditor,
    "external": ExternalFieldEditor,
}


def editor_for(form_field: FormField, value: Any = None, *, id: str | None = None) -> FieldEditor:
    """The editor for ``form_field``'s kind (unknown kinds fall back to free text)."""
    return _EDITORS.get(form_field.type, TextFieldEditor)(form_field, value, id=id)
