"""Provides ``ChoiceList``: the option list of one question (single or multiple choice)."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.containers import ScrollableContainer
from textual.content import Content
from textual.events import Key
from textual.geometry import Offset, Region
from textual.message import Message
from textual.visual import Visual
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.state.asks import QuestionState
from widgets.hanging import Hanging
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
        self._follow = False  # the highlight moved: the dialog's body scrolls to it
        self._highlight_at: Region | None = None  # its rows in the list, as OptionList scrolls to them
        super().__init__(*self._build_options(), id=id, classes="choice-list")

    def on_mount(self) -> None:
        # Reopened from the inbox: the highlight on what was picked (on the first option, Enter
        # replaced the pick with it; a review).
        if self.state.selected:
            self.highlighted = min(self.state.selected)

    def _prompt(self, index: int) -> Visual:
        option = self.state.item.options[index]
        chosen = index in self.state.selected
        if self.state.multiple:
            mark = "[x]" if chosen else "[ ]"
        else:
            mark = "(•)" if chosen else "( )"
        number = f"{index + 1}." if index < 9 else "  "
        prefix = Content.assemble((f"{number} ", "dim"), (mark, "$text-accent" if chosen else ""), " ")
        # The label and description wrap under themselves, not under the number (QA: a wrapped
        # description went to column 0, where it read as the next option's text).
        body = plain_line(option.label, 100, "bold" if chosen else "")
        if option.description:
            body = Content.assemble(body, "\n", plain_cut(option.description, style="dim"))
        return Hanging(prefix, body)

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
        if self._highlight_at is not None and not self._highlight_shown():
            # A review: in a short terminal the question took the body's rows and Enter picked
            # an option never seen. The first Enter shows it; the next one confirms it.
            self._show_in_body(self._highlight_at)
            return
        if not self.state.multiple and self.highlighted is not None:
            if self.highlighted not in self.state.selected or self.state.custom_text.strip():
                self._apply(self.highlighted)
        self.post_message(self.Confirmed(self))

    def scroll_to_region(self, region: Region, **kwargs: Any) -> Offset:
        """The list is as tall as its options, inside the dialog's scrolling body (QA: a list of
        its own height was cut off by the dialog, and ↓ moved the highlight out of sight): the
        highlighted option is brought into view by the body."""
        moved = super().scroll_to_region(region, **kwargs)
        self._highlight_at = region  # (OptionList scrolls only to its highlighted option)
        if self._follow:  # (not as the dialog opens: it shows the question from its start)
            self.call_after_refresh(self._show_in_body, region)  # laid out: regions are current
        return moved

    def watch_highlighted(self, highlighted: int | None) -> None:
        self._follow = self.has_focus
        try:
            super().watch_highlighted(highlighted)
        finally:
            self._follow = False

    def _body(self) -> ScrollableContainer | None:
        return next((node for node in self.ancestors if isinstance(node, ScrollableContainer)), None)

    def _on_screen(self, region: Region) -> Region:
        """``region`` of the list (an option's rows) where it is on the screen."""
        return Region(self.region.x, self.region.y + region.y - self.scroll_offset.y,
                      self.region.width, region.height)

    def _highlight_shown(self) -> bool:
        """Whether a row of the highlighted option is on screen, inside the dialog's body."""
        region, body = self._highlight_at, self._body()
        if region is None or body is None or not self.region:
            return True
        return body.content_region.intersection(self._on_screen(region)).height > 0

    def _show_in_body(self, region: Region) -> None:
        body = self._body()
        if body is not None and self.region and body.region:
            rows = self._on_screen(region)
            top = rows.y - body.content_region.y + body.scroll_offset.y  # in the body's own rows
            body.scroll_to_region(Region(0, top, 1, rows.height), animate=False, immediate=True)

    def on_key(self, event: Key) -> None:
        if event.character and event.character in "123456789":
            index = int(event.character) - 1
            if index < self.option_count:
                event.stop()
                event.prevent_default()
                self._apply(index)
