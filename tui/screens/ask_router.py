"""Provides ``screen_for_ask``: the right dialog for any pending ask."""

from __future__ import annotations

from tui.protocol.models import FormInfo, PermissionRequest, QuestionRequest
from tui.screens.form import FormScreen
from tui.screens.permission import PermissionScreen
from tui.screens.question import QuestionScreen
from tui.state.asks import FormValues, QuestionState, is_question_form, question_from_form
from tui.state.transcript import Ask, ToolCall

AskScreen = PermissionScreen | QuestionScreen | FormScreen
Draft = list[QuestionState] | FormValues  # a dialog left for later: its answers so far


def screen_for_ask(
    ask: Ask,
    tool: ToolCall | None,
    session_title: str,
    subagent_label: str | None = None,
    draft: Draft | None = None,
    reject_message: bool = True,
) -> AskScreen:
    """A permission, question or form dialog for ``ask``.

    A form with ``metadata.kind == "question"`` (the question tool) gets a ``QuestionScreen``;
    pass its result through ``tui.state.asks.answer_for(ask, result)`` to get the ``FormAnswer``
    (or ``FormDismissed``) to send. ``draft``: the dialog's ``draft_of`` when it was left for
    later, what was picked, typed or filled in then. ``reject_message``: whether the server
    passes a reject's message to the model (``Capabilities.reject_message``).
    """
    states = draft if isinstance(draft, list) else None
    if isinstance(ask, PermissionRequest):
        return PermissionScreen(ask, tool=tool, session_title=session_title,
                                subagent_label=subagent_label, reject_message=reject_message)
    if isinstance(ask, QuestionRequest):
        return QuestionScreen(ask, session_title=session_title, states=states)
    if isinstance(ask, FormInfo) and is_question_form(ask):
        return QuestionScreen(question_from_form(ask), session_title=session_title, states=states)
    return FormScreen(ask, session_title=session_title, values=draft if isinstance(draft, dict) else None)


def draft_of(screen: AskScreen) -> Draft | None:
    """What a question or form dialog holds (picked, typed, filled in), to reopen it as it was left."""
    if isinstance(screen, QuestionScreen):
        return screen.states
    return screen.left if isinstance(screen, FormScreen) else None
