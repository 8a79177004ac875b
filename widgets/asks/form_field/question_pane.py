"""Provides ``QuestionPane``: one question, its choices and the typed-answer line."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static

from tui.state.asks import QuestionState
from tui.text.sanitize import clean_text
from widgets.asks.form_field.choice_list import ChoiceList
from widgets.plain import plain, plain_cut


class QuestionPane(Vertical):
    """Question text, a hint (or the error, ``set_error``), a ``ChoiceList`` and (unless ``custom``
    is False) an Input."""

    class Confirmed(Message):
        """The user pressed Enter on this question."""

        def __init__(self, pane: QuestionPane) -> None:
            super().__init__()
            self.pane = pane

        @property
        def control(self) -> QuestionPane:
            return self.pane

    class Changed(Message):
        """The answer to this question changed."""

        def __init__(self, pane: QuestionPane) -> None:
            super().__init__()
            self.pane = pane

        @property
        def control(self) -> QuestionPane:
            return self.pane

    def __init__(self, state: QuestionState, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="question-pane")
        self.state = state

    def compose(self) -> ComposeResult:
        item = self.state.item
        yield Static(plain_cut(item.question or item.header), classes="question-text")
        if item.options:
            hint = "Pick any: space toggles" if self.state.multiple else "Pick one"
            yield Static(hint, classes="question-hint")
        # Shown after a submit that this question held up, on the hint's line (the dialog fills
        # an 80x24 terminal: one more line would push the buttons out of it).
        yield Static("", classes="question-error")
        if item.options:
            yield ChoiceList(self.state)
        if self.state.allows_custom:
            yield Input(
                clean_text(self.state.custom_text),
                placeholder="Type your own answer",
                classes="question-custom",
            )

    def set_error(self, message: str | None) -> None:
        """Say why this question cannot be sent yet (None: clear it)."""
        self.set_class(bool(message), "-invalid")
        self.query_one(".question-error", Static).update(plain(f"⚠ {message}" if message else ""))

    def focus_first(self) -> None:
        """Focus the options (or the typed answer) and show the question from its start: focusing
        a list taller than the dialog's body scrolled the question itself out of sight."""
        for widget in self.query("ChoiceList, Input"):
            widget.focus(scroll_visible=False)
            self.scroll_visible(top=True, animate=False, immediate=True)
            return

    @on(ChoiceList.Changed)
    def _picked(self, event: ChoiceList.Changed) -> None:
        event.stop()
        if not self.state.multiple:
            for box in self.query(Input).results(Input):
                with box.prevent(Input.Changed):
                    box.value = ""
        self.post_message(self.Changed(self))

    @on(ChoiceList.Confirmed)
    @on(Input.Submitted)
    def _confirmed(self, event: ChoiceList.Confirmed | Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Confirmed(self))

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self.state.set_custom(event.value)
        for choices in self.query(ChoiceList).results(ChoiceList):
            choices.refresh_marks()
        self.post_message(self.Changed(self))
