"""The agent's plan: the newest todo list of a session, as its todo tool last wrote it.

Pure (no Textual). OpenCode's own TUI keeps the list in a sidebar; octui says how far it has
got and what is being done now on the status line (``todo_progress``), while the list is unfinished.
Both dialects carry the list in the todo tool's input (``todowrite``: the whole list each time),
so the newest such call is the plan; 1.18's ``todo.updated`` event says the same thing again.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui.state.transcript import SessionState, ToolCall
from tui.text.tools import kind_of

SCAN_MESSAGES = 200
"""How many of the newest messages are looked through for the plan: the status line asks on every
frame, and a plan older than that is no longer the turn's."""


@dataclass(frozen=True)
class TodoProgress:
    done: int
    total: int  # the items not cancelled
    doing: str  # the item in progress ("" when none is)

    @property
    def finished(self) -> bool:
        return self.done >= self.total


def todo_progress(state: SessionState) -> TodoProgress | None:
    """The plan of the newest todo tool call among the last ``SCAN_MESSAGES`` messages (``None``
    when there is none, or it has no item)."""
    for index, message in enumerate(reversed(state.messages.values())):
        if index >= SCAN_MESSAGES:
            return None
        for part in reversed(message.parts):
            if isinstance(part, ToolCall) and kind_of(part.name) == "todo" and not message.reverted:
                progress = _progress(part)
                if progress is not None:  # (an emptied list is the plan too: there is none now)
                    return progress if progress.total else None
    return None


def _progress(call: ToolCall) -> TodoProgress | None:
    """The list a todo call wrote (``None``: it wrote none, as a read does)."""
    todos = call.input.get("todos") if isinstance(call.input, dict) else None
    if not isinstance(todos, list):
        return None  # (a todo read: its input holds no list)
    items = [todo for todo in todos if isinstance(todo, dict)]
    live = [todo for todo in items if todo.get("status") != "cancelled"]
    doing = next((todo.get("content") for todo in live if todo.get("status") == "in_progress"), "")
    return TodoProgress(done=sum(1 for todo in live if todo.get("status") == "completed"),
                        total=len(live), doing=doing if isinstance(doing, str) else "")
