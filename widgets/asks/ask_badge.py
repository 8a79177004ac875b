"""Provides ``AskBadge``: the status-bar count of asks waiting for the user."""

from __future__ import annotations

from textual.events import Click
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static


class AskBadge(Static):
    """``⚑ 3 waiting``; hidden at zero. A click posts ``AskBadge.Pressed`` (open the inbox)."""

    DEFAULT_CSS = """
    AskBadge {
        width: auto;
        height: 1;
        padding: 0 1;
        &.-pending { background: $warning-muted; color: $text-warning; text-style: bold; }
        &:hover { background: $warning; color: $foreground; }
    }
    """

    count: reactive[int] = reactive(0)
    """Number of pending permissions, questions and forms across every session."""

    class Pressed(Message):
        """The badge was clicked."""

        def __init__(self, badge: AskBadge) -> None:
            super().__init__()
            self.badge = badge

        @property
        def control(self) -> AskBadge:
            return self.badge

    def __init__(self, count: int = 0, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("", id=id, classes=classes)
        self.set_reactive(AskBadge.count, count)

    def on_mount(self) -> None:
        self.watch_count(self.count)

    def watch_count(self, count: int) -> None:
        self.set_class(count > 0, "-pending")
        self.display = count > 0
        self.update(f"⚑ {count} waiting" if count else "")
        self.tooltip = "Open the inbox" if count else None

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Pressed(self))
