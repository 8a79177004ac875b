"""Provides ``FieldEditor``, the base of every form-field editor."""

from __future__ import annotations

import hashlib
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from tui.protocol.models import FormField
from tui.text.sanitize import clean_text, one_line
from widgets.plain import plain, plain_cut, plain_line


class FieldEditor(Vertical):
    """Title (with a required marker), description, the kind's control and an error line.

    Subclasses implement ``compose_control`` and ``value``, and post ``Changed`` on edits.
    """

    show_title = True
    """Booleans put the title on the checkbox itself."""

    class Changed(Message):
        """The editor's value changed."""

        def __init__(self, editor: FieldEditor) -> None:
            super().__init__()
            self.editor = editor

        @property
        def control(self) -> FieldEditor:
            return self.editor

    def __init__(self, form_field: FormField, value: Any = None, *, id: str | None = None) -> None:
        super().__init__(classes="field-editor", id=id or field_id(form_field.key))
        self.form_field = form_field
        self.initial = value

    @property
    def key(self) -> str:
        return self.form_field.key

    @property
    def title_text(self) -> str:
        return one_line(self.form_field.title or self.form_field.key, 80)

    def title_content(self) -> Content:
        title = plain_line(self.form_field.title or self.form_field.key, 80)
        parts: list[Content | tuple[str, str]] = [title]
        if self.form_field.required:
            parts.append((" *", "$text-error"))
        return Content.assemble(*parts)

    def compose(self) -> ComposeResult:
        if self.show_title:
            yield Static(self.title_content(), classes="field-title")
        if self.form_field.description:
            yield Static(plain_cut(clean_text(self.form_field.description)), classes="field-description")
        yield from self.compose_control()
        yield Static("", classes="field-error")

    def compose_control(self) -> ComposeResult:
        yield from ()

    @property
    def value(self) -> Any:
        return None

    def focus_control(self) -> None:
        """Focus the first focusable control of this editor."""
        for widget in self.query("*"):
            if widget.focusable:
                widget.focus()
                return

    def set_error(self, message: str | None) -> None:
        self.set_class(bool(message), "-invalid")
        self.query_one(".field-error", Static).update(plain(message))

    def changed(self) -> None:
        self.post_message(self.Changed(self))


def field_id(key: str) -> str:
    """A widget id for the field ``key``: Textual takes ASCII letters, digits, ``-`` and ``_``
    only, so any other key ("é", "a b") gets a digest of itself, and two keys that read the same
    once cleaned ("a b", "a_b") still get different ids. (Two fields with one key: see the form.)"""
    safe = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_") else "_" for ch in key)
    if safe != key or not safe:
        safe += "-" + hashlib.blake2s(key.encode("utf-8", "surrogatepass"), digest_size=4).hexdigest()
    return f"field-{safe}"
