"""The prompt editor: Enter sends (steers while busy), Alt+Enter queues, Ctrl+J newline."""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea


class Composer(TextArea):
    """Multi-line prompt input with history."""

    DEFAULT_CLASSES = "composer"
    BINDINGS = [
        Binding("alt+enter", "submit('queue')", "Queue", show=False),
        Binding("ctrl+j,shift+enter", "newline", "Newline", show=False),
        Binding("ctrl+up", "history(-1)", "Previous prompt", show=False),
        Binding("ctrl+down", "history(1)", "Next prompt", show=False),
    ]

    @dataclass
    class Submitted(Message):
        text: str
        delivery: str  # steer | queue

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, tab_behavior="focus", show_line_numbers=False,
                         compact=True, placeholder="Ask anything… (Enter send · Alt+Enter queue)")
        self.prompt_history: list[str] = []
        self._history_index = 0

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.prevent_default()
            event.stop()
            self.action_submit("steer")
            return
        if event.key in ("up", "down") and self._at_edge(event.key):
            event.prevent_default()
            event.stop()
            self.action_history(-1 if event.key == "up" else 1)
            return
        await super()._on_key(event)

    def _at_edge(self, key: str) -> bool:
        row, _ = self.cursor_location
        if key == "up":
            return row == 0 and (not self.text or self._history_index < len(self.prompt_history))
        return row == self.document.line_count - 1 and self._history_index < len(self.prompt_history)

    def action_submit(self, delivery: str) -> None:
        text = self.text.strip()
        if not text:
            return
        if not self.prompt_history or self.prompt_history[-1] != text:
            self.prompt_history.append(text)
        self._history_index = len(self.prompt_history)
        self.post_message(self.Submitted(text, delivery))

    def action_newline(self) -> None:
        self.insert("\n")

    def action_history(self, step: int) -> None:
        if not self.prompt_history:
            return
        index = max(0, min(len(self.prompt_history), self._history_index + step))
        self._history_index = index
        self.text = self.prompt_history[index] if index < len(self.prompt_history) else ""
        self.move_cursor(self.document.end)
