"""Provides ``RevertScreen``: the staged revert — which prompt, which files — with redo and commit.

Dismisses with ``"clear"`` (redo: restore the messages and files), ``"commit"`` (make the revert
final) or ``None`` (close and keep it staged). The screen never calls the server.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tui.app.session_actions import RevertChoice
from tui.protocol.models import FileDiff
from tui.screens.confirm import ACTIONS_CSS
from tui.text.sanitize import one_line

__all__ = ["RevertScreen", "file_line", "file_mark"]

_STATUS_MARK = {"added": "A", "deleted": "D", "modified": "M"}


def file_mark(diff: FileDiff) -> Content:
    """``M``, ``A`` or ``D``: what the file's revert does."""
    return Content.styled(_STATUS_MARK.get(diff.status, "M"), "bold $text-warning")


def file_line(diff: FileDiff) -> Content:
    """``path  +3 -1`` for one staged file (the mark sits in its own column beside it)."""
    return Content.assemble(
        one_line(diff.file, 200) or "(unnamed)",
        ("  ", ""), (f"+{diff.additions}", "$text-success"), " ", (f"-{diff.deletions}", "$text-error"))


class RevertScreen(ModalScreen[RevertChoice | None]):
    """Shows a staged revert. ``r`` (or F8) redo, ``c`` commit, Esc keeps it staged."""

    CSS_PATH = ACTIONS_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r,f8", "choose('clear')", "Redo", show=False),  # f8 redoes on the main screen too
        Binding("c", "choose('commit')", "Commit", show=False),
        Binding("escape", "close", "Keep staged", show=False),
    ]

    def __init__(self, prompt: str, files: list[FileDiff], *, reverted_messages: int = 0,
                 files_known: bool = True) -> None:
        super().__init__(classes="action-dialog")
        self.prompt = prompt
        self.files = files
        self.reverted_messages = reverted_messages
        self.files_known = files_known

    def compose(self) -> ComposeResult:
        with Vertical(id="action-box", classes="-revert"):
            yield Static(Content.assemble(("Undo staged", "bold"),
                                          (f"  ·  {self.reverted_messages} messages hidden", "dim")
                                          if self.reverted_messages else ""), id="action-title")
            prompt = one_line(self.prompt, 300) or "(empty prompt)"
            yield Static(Content.assemble(("Back to: ", "dim"), prompt), id="revert-prompt")
            yield Static(Content.assemble(("Files restored from snapshots", "bold $foreground-muted")),
                         classes="section-title")
            with VerticalScroll(id="revert-files"):
                if self.files:
                    for diff in self.files:
                        # Two columns: a path too long for the line wraps under itself, not under the mark.
                        with Horizontal(classes="revert-file"):
                            yield Static(file_mark(diff), classes="file-mark")
                            yield Static(file_line(diff), classes="file-path")
                else:
                    yield Static(
                        "No file changes were staged." if self.files_known else
                        "The server did not list staged files.", classes="action-hint")
            yield Static("Nothing is final yet: redo brings everything back; commit deletes the "
                         "reverted messages for good.", classes="action-hint")
            with Horizontal(id="action-buttons"):
                yield Button(Content("Redo [r]"), id="redo", variant="primary", compact=True)
                yield Button(Content("Commit [c]"), id="commit", variant="warning", compact=True)
                yield Button(Content("Keep staged [esc]"), id="keep", compact=True)

    def on_mount(self) -> None:
        self.query_one("#keep", Button).focus()

    def action_choose(self, choice: RevertChoice) -> None:
        self.dismiss(choice)

    def action_close(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#redo")
    def _redo(self) -> None:
        self.dismiss("clear")

    @on(Button.Pressed, "#commit")
    def _commit(self) -> None:
        self.dismiss("commit")

    @on(Button.Pressed, "#keep")
    def _keep(self) -> None:
        self.dismiss(None)
