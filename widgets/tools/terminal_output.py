"""Provides TerminalOutput: command output with SGR colours and a line cap.

What is drawn is bounded whatever the output holds: the last ``cap`` lines and at most
``VISIBLE_MAX_CHARS`` characters (``SHOW_ALL_MAX_CHARS`` with "show all"), so one line of
megabytes cannot stall the event loop. Only that visible part is made visible (``widgets.plain``:
escapes and controls as tokens, SGR colours drawn unless ``plain``) and parsed; the marker
above it says what is not shown. The tool call in the store keeps all of the output (JSON export).
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import VerticalGroup
from textual.content import Content
from textual.events import Click
from textual.message import Message
from textual.widgets import Static

from tui.text.sanitize import overstrike, shows_nothing
from tui.text.tools import OutputCut
from widgets.plain import plain, plain_ansi
from widgets.tools.output_text import OutputText

__all__ = ["TerminalOutput", "ansi_to_content"]

DEFAULT_CAP = 200
"""Lines shown before the "show all" toggle."""
VISIBLE_MAX_CHARS = 20_000
"""Characters shown before the "show all" toggle (the end of the output)."""
SHOW_ALL_MAX_CHARS = 200_000
"""Characters shown with "show all": more would stall the event loop for seconds."""


def ansi_to_content(text: str) -> Content:
    """Server output to Content: a ``\\r`` returns to the line's start as in a terminal (later
    characters overwrite earlier ones), SGR colours kept, every other escape and control a visible
    token: nothing else in it is obeyed or hidden."""
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
        plain: bool = False,
        cuts: Sequence[OutputCut] = (),
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._plain = plain
        """No colours (read/unknown-tool output): every escape a visible token, SGR ones too."""
        self._show_all = show_all
        self._cap = cap
        self._placeholder = placeholder
        self._cuts = tuple(cuts)
        """Where the server cut the output and said so in it (``tui.text.tools.output_cuts``):
        its notes are not output lines, and the lines it says it left out are counted."""
        self._set_text(text)

    def _set_text(self, text: str) -> None:
        self._text = text.rstrip("\n")
        self._total = self._text.count("\n") + 1 if self._text else 0

    @property
    def total_lines(self) -> int:
        return self._total

    @property
    def hidden_lines(self) -> int:
        return 0 if self._show_all else max(0, self.total_lines - self._cap)

    def _visible_start(self) -> int:
        """Where the part drawn starts: the last ``cap`` lines (unless show all), and no more
        than the character cap."""
        text = self._text
        start = 0
        if self.hidden_lines:
            start = len(text)
            for _ in range(self._cap):  # back over the last lines only: a huge log stays cheap
                start = text.rfind("\n", 0, start)
                if start < 0:
                    break
            start += 1
        limit = SHOW_ALL_MAX_CHARS if self._show_all else VISIBLE_MAX_CHARS
        return max(start, len(text) - limit)

    def _visible_text(self) -> str:
        return self._text[self._visible_start():]

    def _output_lines(self, start: int | None = None) -> tuple[int, bool]:
        """The output's lines before ``start`` (all of them with ``None``), and whether the server
        left out some there without saying how many. The server's notes are not output lines;
        the lines it says it left out are."""
        text = self._text
        count = self._total if start is None else text.count("\n", 0, start)
        unknown = False
        for cut in self._cuts:
            if start is None or cut.end <= start:
                count -= cut.lines
            if start is None or cut.at < start:
                count += cut.omitted or 0
                unknown = unknown or cut.omitted is None
        return max(0, count), unknown

    def _marker(self) -> Content:
        start = self._visible_start()
        hidden_lines = self._text.count("\n", 0, start)
        partial = start > 0 and self._text[start - 1] != "\n"  # cut inside a line
        if self._show_all or (partial and not hidden_lines):
            what = (f"▲ the first {start:,} characters are not shown (too long to draw); "
                    "octui export --format json has all of them")
            if self._show_all:
                return Content.styled(what, "$foreground-muted")
            return Content.assemble((what + " · ", "$foreground-muted"),
                                    (f"show more ({self.total_lines:,} lines)", "underline $text-primary"),
                                    (" [a]", "$foreground-muted"))
        hidden, more_before = self._output_lines(start)
        total, more = self._output_lines()
        cut_before = ", more cut by the server" if more_before else ""
        return Content.assemble(
            (f"▲ {hidden:,} earlier lines hidden{cut_before} · ", "$foreground-muted"),
            (f"show all ({total:,} lines{' sent' if more else ''})", "underline $text-primary"),
            (" [a]", "$foreground-muted"),
        )

    def compose(self) -> ComposeResult:
        yield Static(self._marker(), classes="-more")
        yield OutputText(self._render_output(), classes="-output")

    def _render_output(self) -> Content:
        visible = self._visible_text()
        if not self._plain:
            visible = overstrike(visible)  # (so a lone "\r" draws nothing, as in a terminal)
        if shows_nothing(visible):
            return plain(self._placeholder, "$foreground-muted italic")
        return plain(visible) if self._plain else ansi_to_content(visible)

    def on_mount(self) -> None:
        self._sync_marker()

    def _sync_marker(self) -> None:
        marker = self.query_one(".-more", Static)
        marker.display = self._visible_start() > 0
        marker.update(self._marker())

    def update_output(self, text: str, *, show_all: bool | None = None,
                      cuts: Sequence[OutputCut] = ()) -> None:
        """Replace the output (the app feeds growing output while the command runs); ``cuts``
        are the new text's."""
        if show_all is not None:
            self._show_all = show_all
        if text.rstrip("\n") == self._text and show_all is None:
            return
        self._cuts = tuple(cuts)
        self._set_text(text)
        self.query_one(".-output", OutputText).update(self._render_output())
        self._sync_marker()

    def on_click(self, event: Click) -> None:
        widget = event.widget
        if widget is not None and widget.has_class("-more"):
            event.stop()
            self.post_message(self.ShowAll(self))
