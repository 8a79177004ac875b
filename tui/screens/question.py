"""Provides ``QuestionScreen``: answer the questions of a question request, one tab each."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, ContentSwitcher, Static, Tab, Tabs

from tui.protocol.models import QuestionRequest
from tui.screens.docked_dialog import DockedDialog, rows_shown
from tui.screens.permission import STYLES, hidden_warning
from tui.state.asks import (
    QuestionAnswer,
    QuestionDismissed,
    QuestionState,
    build_question_answer,
    validate_questions,
)
from tui.text.sanitize import one_line
from widgets.asks.form_field import QuestionPane
from widgets.plain import plain_line, toast

TOO_SMALL = "Too small to show the question: make the terminal larger."
BODY_MIN_ROWS = 2
"""Rows of the question's body the dialog must show for an answer to be sent (the rest scrolls)."""


class QuestionScreen(DockedDialog[QuestionAnswer | QuestionDismissed | None]):
    """Tabs of questions; Enter confirms a question and moves on, the last one submits.

    Submitting (Ctrl+S, the button, Enter on the last question) sends nothing while a question
    that needs an answer has none (``tui.state.asks.validate_questions``): it goes to the first
    of them and says why in its pane and a toast; errors then update live, as in the form dialog.
    Esc leaves it for later (``None``: it stays in the inbox, the turn waits), as the permission
    dialog does: a reflexive Esc must not end the turn. Ctrl+R or the Dismiss button rejects it
    (``QuestionDismissed``). A question-kind form is shown here after
    ``tui.state.asks.question_from_form``; convert the result back with ``asks.answer_for``.
    """

    CSS_PATH = str(STYLES / "dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "later", "Later"),
        Binding("ctrl+r", "dismiss_questions", "Dismiss"),
        Binding("ctrl+s", "submit", "Submit"),
        Binding("left", "tab(-1)", "Previous", show=False),
        Binding("right", "tab(1)", "Next", show=False),
        # Before the option list's own (a review: its page was the whole list, now it is as
        # tall as its options, so PgDn jumped to the last one and nothing brought the question back).
        Binding("pagedown", "scroll_body(1)", "Scroll down", show=False, priority=True),
        Binding("pageup", "scroll_body(-1)", "Scroll up", show=False, priority=True),
    ]

    def __init__(self, ask: QuestionRequest, *, session_title: str = "",
                 states: list[QuestionState] | None = None) -> None:
        super().__init__(classes="ask-dialog")
        self.ask = ask
        self.ask_id = ask.id
        self.session_title = session_title
        # A dialog reopened from the inbox shows what was picked and typed when it was left.
        if states is None or [state.item for state in states] != list(ask.questions):
            states = [QuestionState(item) for item in ask.questions]
        self.states = states
        self._attempted = False
        """A submit was refused: from then on unanswered questions say so as they change."""

    def compose(self) -> ComposeResult:
        count = len(self.states)
        with Vertical(id="dialog", classes="-question"):
            # As in the permission dialog, head and foot are docked: however long the questions and
            # their options, the title, the buttons and the keys stay on screen, and the body between
            # them scrolls (QA: at 80x24 the buttons, the last option and the typed-answer box were
            # cut off, out of reach, and a digit typed after Tab went into the hidden box).
            with Vertical(id="dialog-head"):
                title: list[str | tuple[str, str]] = [("Question", "bold")]
                if count > 1:
                    title.append((f" · {count} questions", "dim"))
                if self.session_title:
                    title += [("  ·  session ", "dim"), one_line(self.session_title, 60)]
                yield Static(Content.assemble(*title), id="dialog-title")
                warning = hidden_warning(self._shown_texts(), strict=False, before="answering")
                if warning is not None:
                    yield Static(warning, id="hidden-warning")
                yield Tabs(*[Tab(self._tab_label(i), id=f"qt-{i}") for i in range(count)],
                           id="question-tabs")
            with VerticalScroll(id="dialog-body", can_focus=False):
                with ContentSwitcher(initial="q-0" if count else None, id="question-panes"):
                    for i, state in enumerate(self.states):
                        yield QuestionPane(state, id=f"q-{i}")
            with Vertical(id="dialog-foot"):
                yield Static(Content.styled("↕ Scroll for the rest (wheel, PgUp/PgDn)", "bold $text-warning"),
                             id="scroll-cue")
                yield Static(Content.styled(
                    f"⚠ {TOO_SMALL} esc leaves it for later.",
                    "bold $text-error"), id="cramped-note")
                with Horizontal(id="buttons"):
                    yield Button(Content("Submit [ctrl+s]"), id="submit", variant="primary", compact=True)
                    yield Button(Content("Dismiss [ctrl+r]"), id="dismiss", compact=True)
                yield Static(
                    "1-9 pick · ↑↓ move · space toggle · enter next · ←→ questions · esc later",
                    classes="dialog-hint",
                )

    def _shown_texts(self) -> list[str]:
        """Every server string the dialog shows (for the hidden-character warning): an option's
        label is also what the answer sends back."""
        texts: list[str] = []
        for state in self.states:
            item = state.item
            texts += [item.question, item.header]
            for option in item.options:
                texts += [option.label, option.description or ""]
        return texts

    def _tab_label(self, index: int) -> Content:
        state = self.states[index]
        header = plain_line(state.item.header or f"Q{index + 1}", 24)  # (tokens in reverse, as warned)
        if state.answered:
            mark = Content.styled("✓ ", "$text-success")
        elif self._attempted and state.error:
            mark = Content.styled("! ", "bold $text-error")
        else:
            mark = Content.styled("• ", "dim")
        return Content.assemble(mark, header)

    def on_mount(self) -> None:
        self._focus_pane()

    def lacks_room(self) -> bool:
        """Under ``BODY_MIN_ROWS`` of the body shown, submitting is refused (and says why) until
        the terminal is larger; Esc still leaves it for later, Ctrl+R still dismisses it."""
        return rows_shown(self, self.query_one("#dialog-body").region) < BODY_MIN_ROWS

    def cramped_changed(self, cramped: bool) -> None:
        self.query_one("#submit", Button).disabled = cramped

    @property
    def current(self) -> int:
        active = self.query_one(Tabs).active or "qt-0"
        return int(active.removeprefix("qt-"))

    def _focus_pane(self) -> None:
        if self.states:
            self.query_one(f"#q-{self.current}", QuestionPane).focus_first()

    @on(Tabs.TabActivated)
    def _tab_changed(self, event: Tabs.TabActivated) -> None:
        event.stop()
        if event.tab.id:
            self.query_one(ContentSwitcher).current = "q-" + event.tab.id.removeprefix("qt-")
            self._focus_pane()

    @on(QuestionPane.Changed)
    def _changed(self, event: QuestionPane.Changed) -> None:
        event.stop()
        index = int((event.pane.id or "q-0").removeprefix("q-"))
        self.query_one(f"#qt-{index}", Tab).label = self._tab_label(index)
        if self._attempted:
            event.pane.set_error(self.states[index].error)

    @on(QuestionPane.Confirmed)
    def _confirmed(self, event: QuestionPane.Confirmed) -> None:
        event.stop()
        if self.current >= len(self.states) - 1:
            self.action_submit()
        else:
            self.action_tab(1)

    def action_tab(self, step: int) -> None:
        if self.states:
            target = max(0, min(len(self.states) - 1, self.current + step))
            self.query_one(Tabs).active = f"qt-{target}"

    def action_submit(self) -> None:
        if self.cramped:
            toast(self, TOO_SMALL, title="Question",
                  severity="warning", timeout=4)
            return
        errors = validate_questions(self.states)
        if errors:
            self._show_errors(errors)
            return
        self.dismiss(build_question_answer(self.states))

    def _show_errors(self, errors: dict[int, str]) -> None:
        """Mark every question still to answer (pane and tab), go to the first, name them all."""
        self._attempted = True
        for index in range(len(self.states)):
            self.query_one(f"#q-{index}", QuestionPane).set_error(errors.get(index))
            self.query_one(f"#qt-{index}", Tab).label = self._tab_label(index)
        first = min(errors)
        self.query_one(Tabs).active = f"qt-{first}"
        self.query_one(ContentSwitcher).current = f"q-{first}"
        pane = self.query_one(f"#q-{first}", QuestionPane)
        pane.focus_first()
        pane.scroll_visible()
        names = ", ".join(one_line(self.states[i].item.header or f"Q{i + 1}", 24) for i in sorted(errors))
        toast(self, f"Still to answer: {names}", title="Question", severity="warning", timeout=4)

    def action_later(self) -> None:
        self.dismiss(None)

    def action_dismiss_questions(self) -> None:
        self.dismiss(QuestionDismissed())

    @on(Button.Pressed, "#submit")
    def _submit_pressed(self) -> None:
        self.action_submit()

    @on(Button.Pressed, "#dismiss")
    def _dismiss_pressed(self) -> None:
        self.action_dismiss_questions()

    def close_answered_elsewhere(self, why: str = "answered elsewhere") -> None:
        """Settled by the server (another client answered, or its turn ended): close and say
        ``why``, send nothing."""
        toast(self.app, f"Question {one_line(why, 60)}.", title="Question")
        self.dismiss(QuestionDismissed(elsewhere=True))
