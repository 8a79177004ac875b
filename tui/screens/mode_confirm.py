"""Provides ``ModeConfirmScreen`` (switching a session to full access) and ``ModeCommands``.

``ModeConfirmScreen`` is shown once per session (root), the first time it goes to full access; it
dismisses with ``True`` to switch. ``ModeCommands`` puts the permission modes in the command
palette of any screen that has ``set_permission_mode(mode)`` and ``cycle_permission_mode()``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tui.state.modes import Mode
from tui.text.sanitize import one_line
from widgets.plain import highlight_match, palette_help, plain

STYLES = Path(__file__).resolve().parent.parent.parent / "styles"

__all__ = ["ModeCommands", "ModeConfirmScreen"]


class ModeConfirmScreen(ModalScreen[bool]):
    """Asks before octui starts answering every permission request of a session by itself."""

    CSS_PATH = str(STYLES / "dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "choose(True)", "Switch"),
        Binding("n,escape", "choose(False)", "Cancel"),
    ]

    def __init__(self, session_title: str) -> None:
        super().__init__(classes="ask-dialog")
        self.session_title = session_title

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="-permission"):
            yield Static(Content.assemble(("Full access ", "bold"), ("· ", "dim"), "permission mode"),
                         id="dialog-title")
            yield Static(Content.assemble(("session ", "dim"), (one_line(self.session_title, 60), "bold")),
                         id="who")
            yield Static(Content.assemble(
                "octui will allow ", ("every", "bold"), " permission request of this session and its",
                " subagents by itself — shell commands, file edits, paths outside the project — once",
                " each, without asking you.\n",
                ("Each one is still listed in the transcript and the inbox. Questions still ask you.",
                 "dim"), "\n",
                ("Nothing is saved as an \"always\" rule. Interrupting (Esc) still rejects what is pending.",
                 "dim"),
            ), id="mode-warning")
            with Horizontal(id="buttons"):
                yield Button(Content("Switch to full access [y]"), id="yes", variant="warning", compact=True)
                yield Button(Content("Cancel [n]"), id="no", compact=True)
            yield Static("y switch · n/esc keep the current mode · asked once per session",
                         classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()  # the safe choice is the default

    def action_choose(self, yes: bool) -> None:
        self.dismiss(yes)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")


class ModeCommands(Provider):
    """Command palette entries: "Permission mode: …" for each mode, and "cycle"."""

    def _commands(self) -> list[tuple[str, str, Callable[[], Any]]]:
        screen = self.screen
        setter = getattr(screen, "set_permission_mode", None)
        cycle = getattr(screen, "cycle_permission_mode", None)
        commands: list[tuple[str, str, Callable[[], Any]]] = []
        if callable(cycle):
            commands.append(("Permission mode: cycle",
                             "supervised → auto-accept edits → full access", cycle))
        if callable(setter):
            for mode in Mode:
                commands.append((f"Permission mode: {mode.label}", mode.help, partial(setter, mode)))
        return commands

    async def discover(self) -> Hits:
        for name, help_text, callback in self._commands():
            yield DiscoveryHit(plain(name), callback, help=palette_help(help_text))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, highlight_match(matcher, name), callback, help=palette_help(help_text))
