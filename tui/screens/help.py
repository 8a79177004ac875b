"""Provides ``HelpScreen``: every key binding, generated from the live bindings (never hand-written).

``help_sections(screen)`` walks the app, the screen and each of our widgets on it (those from the
``widgets``/``tui`` packages) and reads their bindings, so a new or remapped key shows up here by
itself. Keys that run the same action are joined on one row.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingsMap, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Static

from tui.app.palette import action_label
from widgets._textual_compat import keymapped_bindings
from widgets.plain import plain_rich

__all__ = ["HelpRow", "HelpScreen", "binding_rows", "help_sections", "is_ours"]

_ROOT = __name__.removesuffix("tui.screens.help")
"""Where octui's packages sit: "" in a checkout, "octui." when installed (``tui/_octui``)."""
OUR_PACKAGES = (f"{_ROOT}widgets.", f"{_ROOT}tui.")


@dataclass(frozen=True)
class HelpRow:
    section: str
    keys: str
    description: str
    action: str


def _title(node: DOMNode) -> str:
    explicit = getattr(node, "HELP_TITLE", None)
    if isinstance(explicit, str):
        return explicit
    if isinstance(node, App):
        return "Everywhere"
    if isinstance(node, Screen):
        return "Session screen" if type(node).__name__ == "MainScreen" else type(node).__name__
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", type(node).__name__)


def _describe(binding: Binding) -> str:
    return action_label(binding)  # the palette's words too (tui/app/palette.py)


def binding_rows(sections: Iterable[tuple[str, BindingsMap]],
                 app: App[Any] | None = None) -> list[HelpRow]:
    """One row per (section, action, description); keys for the same action joined with ", "."""
    rows: list[HelpRow] = []
    for title, bindings in sections:
        keys_for: dict[tuple[str, str], list[str]] = {}
        for _, binding in bindings:
            display = app.get_key_display(binding) if app is not None else binding.key
            item = keys_for.setdefault((binding.action, _describe(binding)), [])
            if display not in item:
                item.append(display)
        rows += [HelpRow(title, ", ".join(keys), description, action)
                 for (action, description), keys in keys_for.items()]
    return rows


def is_ours(kind: type) -> bool:
    """Whether ``kind`` is one of octui's classes (its keys are listed), not Textual's."""
    return kind.__module__.startswith(OUR_PACKAGES)


def help_sections(screen: Screen[Any]) -> list[tuple[str, BindingsMap]]:
    """The app's, the screen's and our widgets' bindings on ``screen``, one section per class."""
    sections: list[tuple[str, BindingsMap]] = [(_title(screen.app), keymapped_bindings(screen.app)),
                                               (_title(screen), keymapped_bindings(screen))]
    # A priority key of the app's or the screen's is theirs before any widget sees it: a widget's
    # binding of it never runs, and is not listed (the prompt's F6/F7 selections, Ctrl+E, Ctrl+K).
    taken = {key for _, bindings in sections for key, binding in bindings if binding.priority}
    seen: set[type] = set()
    for widget in screen.walk_children():
        kind = type(widget)
        if kind in seen or not is_ours(kind):
            continue
        seen.add(kind)
        bindings = BindingsMap.from_keys({key: found for key, found in
                                          keymapped_bindings(widget).key_to_bindings.items()
                                          if key not in taken})
        if bindings.key_to_bindings:
            sections.append((_title(widget), bindings))
    return sections


class HelpScreen(ModalScreen[None]):
    """A scrollable table of every key; Esc, F1 or q closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q", "close", "Close help", show=False),
    ]

    def __init__(self, rows: list[HelpRow]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(id="help"):
            yield Static(Content.styled("Help: every key", "bold"), id="help-title")
            yield DataTable(id="help-table", cursor_type="row", zebra_stripes=True)
            yield Static("↑↓ PgUp PgDn scroll · Esc close · Ctrl+P lists every action", id="help-hint")

    def on_mount(self) -> None:
        table: DataTable[str | Text] = self.query_one(DataTable)
        table.add_column("Where", width=max([5, *(len(r.section) for r in self.rows)]))
        table.add_column("Keys", width=min(30, max([4, *(len(r.keys) for r in self.rows)])))
        table.add_column("Does")
        previous = None
        for row in self.rows:
            where = row.section if row.section != previous else ""
            previous = row.section
            table.add_row(plain_rich(where, "bold"), plain_rich(row.keys, "bold"),
                          plain_rich(row.description))
        table.focus()

    def action_close(self) -> None:
        self.dismiss(None)
