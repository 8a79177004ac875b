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

LONG_DEFAULT = 4_096
"""A default longer than this is not put in the field's box: Textual's ``Input`` measures its whole
value on every paint (a megabyte of hostile text took six seconds to show, a tenth of a second a
key). The box starts empty, a note shows the default's start and length, and an empty box answers
with it (made visible, as a default in the box would be) until it is edited: then the box is the
answer, empty included, as it is once a default in the box is changed or cleared."""

LONG_PLACEHOLDER = "type to replace the default below"


class FieldEditor(Vertical):
    """Title (with a required marker), description, the kind's control and an error line.

    Subclasses implement ``compose_control`` and ``value``, and post ``Changed`` on edits.
    """

    show_title = True
    """Booleans put the title on the checkbox itself."""

    _long_default: str | None = None
    """A default too long for the box (``LONG_DEFAULT``), as the server sent it."""
    _long_answer: str | None = None
    """``_long_default`` made visible, once."""
    _box_edited = False
    """Whether the user edited the box (or picked an option)."""

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

    def keep_out_long(self, default: str) -> bool:
        """Whether ``default`` is too long for the box (``LONG_DEFAULT``). If so the box starts
        empty (with ``LONG_PLACEHOLDER``) and the default is the answer until the box is edited
        (``long_default``; ``long_default_note`` shows it and says which)."""
        if len(default) <= LONG_DEFAULT:
            return False
        self._long_default = default
        return True

    def long_default_note(self) -> ComposeResult:
        """A line under the box for a long default: what it is, its length, its start."""
        if self._long_default is not None:
            yield Static(self._long_default_line(), classes="field-default")

    def _long_default_line(self) -> Content:
        default = self._long_default or ""
        state = "replaced by the box" if self._box_edited else "sent while the box is untouched"
        lead = f"{state}, the default ({len(default):,} characters): "
        return Content.assemble((lead, "$text-muted"), plain_line(default, 40))

    def box_edited(self) -> None:
        """The user edited the box (or picked an option): a long default is no longer the answer,
        as a default in the box would be gone; its note says so."""
        if self._box_edited:
            return
        self._box_edited = True
        if self._long_default is not None:
            for note in self.query(".field-default").results(Static):
                note.update(self._long_default_line())

    @property
    def long_default(self) -> str | None:
        """The answer of an untouched box for a long default, made visible (cleaned once: the form
        reads every value on every key); None once the box was edited."""
        if self._long_default is None or self._box_edited:
            return None
        if self._long_answer is None:
            self._long_answer = clean_text(self._long_default)
        return self._long_answer

    @property
    def value(self) -> Any:
        return None

    def focus_control(self, *, scroll_visible: bool = True) -> None:
        """Focus the first focusable control of this editor (``scroll_visible``: and scroll to it)."""
        for widget in self.query("*"):
            if widget.focusable:
                widget.focus(scroll_visible=scroll_visible)
                return

    def set_error(self, message: str | None) -> None:
        if message and self.long_default is not None:
            # The box is empty: what broke the rule is the default in the note above this line.
            message = f"{message} (the default above; type in the box to replace it)"
        self.set_class(bool(message), "-invalid")
        self.query_one(".field-error", Static).update(plain(message))

    def changed(self) -> None:
        self.post_message(self.Changed(self))


ID_KEY_CHARS = 64
"""A field's widget id keeps this much of its key (a megabyte key made a megabyte id, and every
query of it parsed that); a longer key gets the digest, as any key changed to make its id does."""


def field_id(key: str) -> str:
    """A widget id for the field ``key``: Textual takes ASCII letters, digits, ``-`` and ``_``
    only, so any other key ("é", "a b") gets a digest of itself, and two keys that read the same
    once cleaned ("a b", "a_b") still get different ids. (Two fields with one key: see the form.)"""
    safe = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_") else "_" for ch in key[:ID_KEY_CHARS])
    if safe != key or not safe:
        safe += "-" + hashlib.blake2s(key.encode("utf-8", "surrogatepass"), digest_size=4).hexdigest()
    return f"field-{safe}"
