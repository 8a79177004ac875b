"""The composer's completion dropdown: slash commands and skills, ``@`` file paths, local paths.

A plain ``OptionList`` that never takes focus: the ``Composer`` keeps the cursor and drives it
(↑/↓ move, Tab/Enter accept, Esc closes). It does no I/O; the screen fills it with ``Completion``
items and the composer inserts the chosen one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.text.sanitize import one_line
from widgets.plain import plain

__all__ = ["Completion", "CompletionMenu"]

MAX_ITEMS = 50


@dataclass(frozen=True)
class Completion:
    """One choice. ``value`` replaces the token being completed (``/name``, ``@path`` or a path)."""

    kind: Literal["slash", "mention", "path"]
    value: str
    label: str
    description: str = ""
    is_dir: bool = False
    """A directory: accepting it keeps completing below it instead of attaching it."""
    tag: str = ""
    """A short badge shown after the label (``skill`` marks a server skill among the commands)."""
    runs_bare: bool = False
    """octui's own command: typed in full, Enter runs it. A server command or skill typed in full
    is completed for its arguments: sent bare, it is a model's turn, paid and not taken back."""


class CompletionMenu(OptionList, can_focus=False):
    """Dropdown of ``Completion`` items shown above the composer."""

    DEFAULT_CLASSES = "completion-menu"
    DEFAULT_CSS = """
    CompletionMenu {
        display: none;
        height: auto;
        max-height: 12;
        border: round $primary 60%;
        padding: 0;
        background: $surface;
    }
    CompletionMenu:focus { border: round $primary 60%; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[Completion] = []
        self.context_key: tuple[str, str] | None = None
        """``(kind, query)`` the items answer; the composer ignores answers to older queries."""

    @property
    def is_open(self) -> bool:
        return bool(self.display and self.items)

    def show_items(self, items: list[Completion], context_key: tuple[str, str] | None = None) -> None:
        """Replace the choices; an empty list closes the menu."""
        self.items = items[:MAX_ITEMS]
        self.context_key = context_key
        self.clear_options()
        if not self.items:
            self.display = False
            return
        self.add_options([Option(self._render_item(item)) for item in self.items])
        self.highlighted = 0
        self.display = True

    def close(self) -> None:
        self.items = []
        self.context_key = None
        self.clear_options()
        self.display = False

    def move(self, step: int) -> None:
        if not self.items:
            return
        current = self.highlighted if self.highlighted is not None else -step
        self.highlighted = (current + step) % len(self.items)

    @property
    def selected(self) -> Completion | None:
        index = self.highlighted
        if index is None or not 0 <= index < len(self.items):
            return None
        return self.items[index]

    @staticmethod
    def _render_item(item: Completion) -> Content:
        label = one_line(item.label)
        if item.is_dir and not label.endswith("/"):
            label += "/"
        tag: list[str | Content] = ["  ", plain(item.tag, "italic $text-accent")] if item.tag else []
        if not item.description:
            return Content.assemble(label, *tag)
        return Content.assemble((label, "bold"), *tag, "  ",
                                (one_line(item.description), "$foreground-muted"))
