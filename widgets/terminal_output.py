"""Provides TerminalOutput: command output with SGR colours and a line cap."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalGroup
from textual.content import Content
from textual.events import Click
from textual.message import Message
from textual.widgets import Static

from tui.plain import plain, plain_ansi

__all__ = ["TerminalOutput", "ansi_to_content"]

DEFAULT_CAP = 200
"""Lines shown before the "show all" toggle."""


def ansi_to_content(text: str) -> Content:
    """Server output to Content: SGR colours kept, every other escape and control (``\\r``
    included) a visible token: nothing in it is obeyed or hidden."""
    return plain_ansi(text)


class TerminalOutput(VerticalGroup):
    """A block of terminal output. Shows the last ``cap`` lines unless ``show_all``."""

    class ShowAll(Message):
        """The user asked for the hidden lines (clicked the marker)."""

        def __init__(self, output: TerminalOutput) -> None:
            super().__init__()
            self.output = output

        @property
        def control(self) -> TerminalOutput:
            return self.output

    def __init__(
        self,
        text: str,
        *,
        show_all: bool = False,
        cap: int = DEFAULT_CAP,
        placeholder: str = "(no output)",
        ansi: bool = True,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._text = text.rstrip("\n")
        self._show_all = show_all
        self._cap = cap
        self._placeholder = placeholder
        self._ansi = ansi
        """SGR colours are drawn (shell output); otherwise every escape is shown as a token."""

    @property
    def total_lines(self) -> int:
        return self._text.count("\n") + 1 if self._text else 0

    @property
    def hidden_lines(self) -> int:
        return 0 if self._show_all else max(0, self.total_lines - self._cap)

    def _visible_text(self) -> str:
        hidden = self.hidden_lines
        if not hidden:
            return self._text
        # Parse only the tail: a huge log stays cheap while collapsed.
        return self._text.split("\n", hidden)[-1]

    def _marker(self) -> Content:
        return Content.assemble(
            (f"▲ {self.hidden_lines:,} earlier lines hidden · ", "$text-muted"),
            (f"show all ({self.total_lines:,} lines)", "underline $text-primary"),
            (" [a]", "$text-muted"),
        )

    def compose(self) -> ComposeResult:
        yield Static(self._marker(), classes="-more")
        yield Static(self._render_output(), classes="-output")

    def _render_output(self) -> Content:
        if not self._text.strip():
            return plain(self._placeholder, "$text-muted italic")
        text = self._visible_text()
        return ansi_to_content(text) if self._ansi else plain(text)

    def on_mount(self) -> None:
        self._sync_marker()

    def _sync_marker(self) -> None:
        marker = self.query_one(".-more", Static)
        marker.display = bool(self.hidden_lines)
        marker.update(self._marker())

    def update_output(self, text: str, *, show_all: bool | None = None) -> None:
        """Replace the output (the app feeds growing output while the command runs)."""
        if show_all is not None:
            self._show_all = show_all
        text = text.rstrip("\n")
        if text == self._text and show_all is None:
            return
        self._text = text
        self.query_one(".-output", Static).update(self._render_output())
        self._sync_marker()

    def on_click(self, event: Click) -> None:
        widget = event.widget
        if widget is not None and widget.has_class("-more"):
            event.stop()
            self.post_message(self.ShowAll(self))
