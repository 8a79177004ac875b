"""Provides ``ChoiceList``: the option list of one question (single or multiple choice)."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.events import Key
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.state.asks import QuestionState
from tui.text.sanitize import clean_text
from widgets.plain import plain_cut, plain_line


class ChoiceList(OptionList):
    """Options drawn with a radio or checkbox mark; 1-9 pick, space toggles, enter confirms.

    The list edits a shared ``QuestionState`` (pure) and reports with ``Changed``/``Confirmed``.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "confirm", "Confirm", show=False),
        Binding("space", "toggle_choice", "Toggle", show=False),
    ]

    class Changed(Message):
        """The selection changed."""

        def __init__(self, choice_list: ChoiceList) -> None:
            super().__init__()
            self.choice_list = choice_list

        @property
        def control(self) -> ChoiceList:
            return self.choice_list

    class Confirmed(Message):
        """Enter: the user is done with this question."""

        def __init__(self, choice_list: ChoiceList) -> None:
            super().__init__()
            self.choice_list = choice_list

        @property
        def control(self) -> ChoiceList:
            return self.choice_list

    def __init__(self, state: QuestionState, *, id: str | None = None) -> None:
        self.state = state
        super().__init__(*self._build_options(), id=id, classes="choice-list")

    def _prompt(self, index: int) -> Content:
        option = self.state.item.options[index]
        chosen = index in self.state.selected
        if self.state.multiple:
            mark = "[x]" if chosen else "[ ]"
        else:
            mark = "(•)" if chosen else "( )"
        number = f"{index + 1}." if index < 9 else "  "
        parts: list[str | Content | tuple[str, str]] = [
            (f"{number} ", "dim"),
            (mark, "$text-accent" if chosen else ""),
            " ",
            plain_line(option.label, 100, "bold" if chosen else ""),
        ]
        if option.description:
            parts.extend(["\n       ", plain_cut(clean_text(option.description), style="dim")])
        return Content.assemble(*parts)

    def _build_options(self) -> list[Option]:
        return [Option(self._prompt(i)) for i in range(len(self.state.item.options))]

    def refresh_marks(self) -> None:
        """Redraw the marks after the state changed elsewhere (typed answer)."""
        for index in range(self.option_count):
            self.replace_option_prompt_at_index(index, self._prompt(index))

    def _apply(self, index: int) -> None:
        self.state.pick(index)
        self.highlighted = index
        self.refresh_marks()
        self.post_message(self.Changed(self))

    def action_select(self) -> None:
        """Mouse click (and the inherited select action): pick or toggle the highlighted option."""
        if self.highlighted is not None:
            self._apply(self.highlighted)

    def action_toggle_choice(self) -> None:
        self.action_select()

    def action_confirm(self) -> None:
        if not self.state.multiple and self.highlighted is not None:
            if self.highlighted not in self.state.selected or self.state.custom_text.strip():
                self._apply(self.highlighted)
        self.post_message(self.Confirmed(self))

    def on_key(self, event: Key) -> None:
        if event.character and event.character in "123456789":
            index = int(event.character) - 1
            if index < self.option_count:
                event.stop()
                event.prevent_default()
                self._apply(index)
