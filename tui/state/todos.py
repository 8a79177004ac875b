"""The agent's plan: the newest todo list of a session, as its todo tool last wrote it.

Pure (no Textual). OpenCode's own TUI keeps the list in a sidebar; octui says how far it has
got and what is being done now on the status line (``todo_progress``), while the list is
unfinished.
A server with a todo tool (1.18.33's ``todowrite``; the recorded 2.x server offers none) carries
the whole list in each call's input, so the newest such call is the plan; 1.18's
``todo.updated`` event says the same thing again.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui.state.transcript import SessionState, ToolCall
from tui.text.tools import kind_of


@dataclass(frozen=True)
class TodoProgress:
    done: int
    total: int  # the items not cancelled
    doing: str  # the item in progress ("" when none is)

    @property
    def finished(self) -> bool:
        return self.done >= self.total


def todo_progress(state: SessionState) -> TodoProgress | None:
    """The plan of the session's newest todo tool call that did not fail (``None`` when there is
    none, or it has no item). Every message is looked through: one long turn is hundreds of
    steps, each a message (a review), and the scan costs ~0.1 ms for 2,000 of them; the status
    line asks when a tool call or a message of the open session changes."""
    for message in reversed(state.messages.values()):
        if message.reverted:
            continue
        for part in reversed(message.parts):
            # A failed call (its input refused, an unknown tool, cut off by an interrupt) was no
            # plan, whatever its input held (a review: 2.x keeps the input of an unknown tool).
            if isinstance(part, ToolCall) and kind_of(part.name) == "todo" and part.status != "error":
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
                        total=len(live), doing=doing.strip() if isinstance(doing, str) else "")
