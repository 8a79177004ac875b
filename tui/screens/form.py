"""Provides ``FormScreen``: fill in a server form, with live ``when`` conditions and validation."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tui.protocol.models import FormField, FormInfo
from tui.screens.permission import STYLES
from tui.state.asks import (
    FormAnswer,
    FormDismissed,
    FormValues,
    build_form_answer,
    initial_values,
    validate_form,
    visible_keys,
)
from tui.text.sanitize import one_line
from widgets.asks.form_field import FieldEditor, editor_for, field_id
from widgets.plain import toast


class FormScreen(ModalScreen[FormAnswer | FormDismissed | None]):
    """Every field kind of a v2 form; Ctrl+S (or Submit) validates and returns ``FormAnswer``.

    Esc leaves it for later (``None``: it stays in the inbox); Ctrl+R or Cancel cancels it
    (``FormDismissed``). Fields hide and show as ``when`` conditions change; errors
    appear inline after the first submit attempt and update live from then on.
    """

    CSS_PATH = str(STYLES / "dialogs.tcss")
    # No focus of Textual's choosing: it was the field list (the first focusable widget), and
    # focusing it, then moving on to the first field (on_mount), restyled every field twice,
    # ~40 % of the styling a form costs to open.
    AUTO_FOCUS = ""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "submit", "Submit"),
        # Esc leaves the form for later (it stays in the inbox), as the other asks do; cancelling
        # it ends what waits on it, so it takes a key of its own.
        Binding("escape", "later", "Later"),
        Binding("ctrl+r", "cancel", "Cancel"),
    ]

    def __init__(self, form: FormInfo, *, session_title: str = "", values: FormValues | None = None) -> None:
        super().__init__(classes="ask-dialog")
        # An answer holds one value a key: a field under a key already asked is left out (said in
        # the dialog), everywhere (defaults, visibility, checks, the answer), so the first rules.
        fields: dict[str, FormField] = {}
        self.repeated: list[str] = []
        for form_field in form.fields:
            if form_field.key in fields:
                self.repeated.append(form_field.key)
            else:
                fields[form_field.key] = form_field
        self.form = form.model_copy(update={"fields": list(fields.values())}) if self.repeated else form
        self.ask_id = form.id
        self.session_title = session_title
        # A form reopened from the inbox shows what was filled in when it was left for later.
        self._initial = initial_values(self.form) | {key: value for key, value in (values or {}).items()
                                                     if key in fields}
        self._attempted = False
        self.left: FormValues | None = None
        """What was filled in when it was left for later (Esc)."""

    def compose(self) -> ComposeResult:
        title: list[str | tuple[str, str]] = [(one_line(self.form.title or "Form", 80), "bold")]
        if self.session_title:
            title += [("  ·  session ", "dim"), one_line(self.session_title, 60)]
        shown = visible_keys(self.form, self._initial)
        with Vertical(id="dialog", classes="-form"):
            yield Static(Content.assemble(*title), id="dialog-title")
            with VerticalScroll(id="form-fields"):
                ids: set[str] = set()
                for number, form_field in enumerate(self.form.fields):
                    widget_id = field_id(form_field.key)
                    while widget_id in ids:  # (a key that reads like another's digest)
                        widget_id += f"-{number}"
                    ids.add(widget_id)
                    editor = editor_for(form_field, self._initial.get(form_field.key), id=widget_id)
                    editor.display = form_field.key in shown
                    yield editor
                if self.repeated:
                    names = ", ".join(one_line(key, 40) for key in dict.fromkeys(self.repeated))
                    yield Static(Content.styled(
                        f"⚠ The server asked {len(self.repeated)} more field(s) under a name already asked "
                        f"({names}): an answer has one value a name, so only the first is shown.",
                        "$text-warning"), id="repeated-fields")
            # Docked (the title too, in the stylesheet), as in the other ask dialogs: in a small
            # terminal the fields scroll and the buttons and keys stay (at 60x15 they were cut off).
            with Vertical(id="dialog-foot"):
                with Horizontal(id="buttons"):
                    yield Button(Content("Submit [ctrl+s]"), id="submit", variant="primary", compact=True)
                    yield Button(Content("Cancel [ctrl+r]"), id="cancel", compact=True)
                yield Static("tab next field · ctrl+s submit · esc later   (* required)",
                             classes="dialog-hint")

    def on_mount(self) -> None:
        fields = self.query_one("#form-fields", VerticalScroll)
        for editor in self.editors():
            if editor.display and editor.form_field.type != "external":
                # The field from its title: focusing scrolled to the control alone, and at 60x12
                # the title and description were above the view as the form opened (a review).
                editor.focus_control(scroll_visible=False)
                self.call_after_refresh(lambda shown=editor: shown.scroll_visible(
                    animate=False, top=True, immediate=True))
                # Tab goes from field to field and to the buttons: the list itself is no stop
                # (it scrolls to the focused field; the wheel scrolls it too).
                fields.can_focus = False
                break
        else:  # nothing to fill in (links, hidden fields): the list, so the keys scroll it
            fields.focus()

    def editors(self) -> list[FieldEditor]:
        return list(self.query(FieldEditor).results(FieldEditor))

    def values(self) -> FormValues:
        """Current raw values of every editor (hidden ones too; asks.py ignores them)."""
        out: dict[str, Any] = {}
        for editor in self.editors():
            if editor.form_field.type != "external":
                out[editor.key] = editor.value
        return out

    def _refresh(self) -> dict[str, str]:
        values = self.values()
        shown = visible_keys(self.form, values)
        errors = validate_form(self.form, values) if self._attempted else {}
        for editor in self.editors():
            editor.display = editor.key in shown
            editor.set_error(errors.get(editor.key))
        return errors

    @on(FieldEditor.Changed)
    def _changed(self, event: FieldEditor.Changed) -> None:
        event.stop()
        self._refresh()

    def action_submit(self) -> None:
        self._attempted = True
        errors = self._refresh()
        if errors:
            first = next(e for e in self.editors() if e.key in errors)
            first.focus_control()
            first.scroll_visible()
            toast(self, f"{len(errors)} field(s) need attention", severity="warning", timeout=3)
            return
        self.dismiss(build_form_answer(self.form, self.values()))

    def action_later(self) -> None:
        self.left = self.values()  # read now: the fields are gone once it is dismissed
        self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(FormDismissed())

    @on(Button.Pressed, "#submit")
    def _submit_pressed(self) -> None:
        self.action_submit()

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    def close_answered_elsewhere(self, why: str = "answered elsewhere") -> None:
        """Settled by the server (another client answered, or its turn ended): close and say
        ``why``, send nothing."""
        toast(self.app, f"Form {one_line(why, 60)}.", title="Form")
        self.dismiss(FormDismissed(elsewhere=True))
