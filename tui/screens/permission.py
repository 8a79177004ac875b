"""Provides ``PermissionScreen``: approve or reject one permission request."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from tui.protocol.models import PermissionRequest
from tui.sanitize import clean_text, one_line
from tui.state.asks import (
    DiffKind,
    PermissionAnswer,
    PermissionPreview,
    PermissionReplyKind,
    permission_preview,
)
from tui.state.transcript import ToolCall

STYLES = Path(__file__).resolve().parent.parent.parent / "styles"

_DIFF_STYLES: dict[DiffKind, str] = {
    "add": "$text-success",
    "del": "$text-error",
    "hunk": "$text-accent",
    "meta": "bold dim",
    "ctx": "",
}


def diff_content(preview: PermissionPreview) -> Content:
    """Unified diff lines coloured by kind (green adds, red removals)."""
    parts: list[str | tuple[str, str]] = []
    for kind, line in preview.diff:
        parts.append((line or " ", _DIFF_STYLES[kind]) if _DIFF_STYLES[kind] else line)
        parts.append("\n")
    if preview.truncated:
        parts.append((f"… {preview.truncated} more lines", "dim"))
    return Content.assemble(*parts).rstrip()


class PermissionScreen(ModalScreen[PermissionAnswer | None]):
    """Who asks, for what, on which resources, with the command or diff; dismissed with the reply.

    Esc dismisses with ``None``: the ask stays pending (inbox). Allow once is the focused default.
    """

    CSS_PATH = str(STYLES / "dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o,1", "reply('once')", "Allow once"),
        Binding("a", "reply('always')", "Allow always"),
        Binding("r", "reply('reject')", "Reject"),
        Binding("m", "message", "Reject with message"),
        Binding("escape", "cancel", "Later"),
    ]

    def __init__(
        self,
        ask: PermissionRequest,
        *,
        tool: ToolCall | None,
        session_title: str,
        subagent_label: str | None = None,
    ) -> None:
        super().__init__(classes="ask-dialog")
        self.ask = ask
        self.ask_id = ask.id
        self.tool = tool
        self.session_title = session_title
        self.subagent_label = subagent_label
        self.preview = permission_preview(ask, tool)

    @property
    def can_always(self) -> bool:
        return bool(self.ask.save)

    def compose(self) -> ComposeResult:
        ask = self.ask
        action = one_line(ask.action or (self.tool.name if self.tool else "") or "permission", 40)
        with Vertical(id="dialog", classes="-permission"):
            yield Static(Content.assemble(("Permission ", "bold"), ("· ", "dim"), action),
                         id="dialog-title")
            yield Static(self._who(), id="who")
            if ask.resources:
                yield Static("Resources", classes="section-title")
                yield Static("\n".join(clean_text(r) for r in ask.resources), id="resources")
            with VerticalScroll(id="preview"):
                if self.preview.command is not None:
                    yield Static("Command", classes="section-title")
                    yield Static(Content.assemble(("$ ", "dim"), self.preview.command),
                                 id="command")
                elif self.preview.diff:
                    yield Static("Changes", classes="section-title")
                    yield Static(diff_content(self.preview), id="diff")
            if self.can_always:
                yield Static(self._always_note(), id="save-patterns")
            with Horizontal(id="buttons"):
                yield Button(Content("Allow once [o]"), id="once", variant="primary", compact=True)
                if self.can_always:
                    yield Button(Content("Allow always [a]"), id="always", variant="warning", compact=True)
                yield Button(Content("Reject [r]"), id="reject", variant="error", compact=True)
                yield Button(Content("Reject with message [m]"), id="message", compact=True)
            yield Input(placeholder="Tell the model why (Enter sends, Esc cancels)", id="reject-message")
            always = "a always · " if self.can_always else ""
            yield Static(f"o/1 once · {always}r reject · m reject with message · esc later (stays in inbox)",
                         classes="dialog-hint")

    def _always_note(self) -> Content:
        action = one_line(self.ask.action or "this action", 30)
        parts: list[str | tuple[str, str]] = [
            (f"Allow always saves these {action} patterns for the project;", "$text-warning"),
            (" matching requests will not ask again:", "$text-warning"),
        ]
        for pattern in self.ask.save or []:
            parts += ["\n  ", (clean_text(pattern), "bold")]
            if pattern.strip() in ("*", "**"):
                parts.append(("   (everything)", "$text-warning"))
        return Content.assemble(*parts)

    def _who(self) -> Content:
        parts: list[str | tuple[str, str]] = [("session ", "dim"), (one_line(self.session_title, 60), "bold")]
        if self.subagent_label:
            parts += [("  ·  subagent ", "dim"), (one_line(self.subagent_label, 40), "bold")]
        if self.tool is not None and self.tool.name:
            parts += [("  ·  tool ", "dim"), one_line(self.tool.name, 30)]
        return Content.assemble(*parts)

    def on_mount(self) -> None:
        self.query_one("#once", Button).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "reply" and parameters and parameters[0] == "always":
            return self.can_always
        return True

    def action_reply(self, reply: PermissionReplyKind) -> None:
        if reply == "always" and not self.can_always:
            return
        self.dismiss(PermissionAnswer(reply))

    def action_message(self) -> None:
        box = self.query_one("#reject-message", Input)
        self.add_class("-messaging")
        box.focus()

    def action_cancel(self) -> None:
        if self.has_class("-messaging"):
            self.remove_class("-messaging")
            self.query_one("#reject", Button).focus()
            return
        self.dismiss(None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "message":
            self.action_message()
        elif event.button.id in ("once", "always", "reject"):
            self.action_reply(event.button.id)  # type: ignore[arg-type]

    @on(Input.Submitted, "#reject-message")
    def _send_message(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        self.dismiss(PermissionAnswer("reject", text or None))

    def close_answered_elsewhere(self, reply: str | None = None) -> None:
        """The server says another client answered: close without answering and toast it."""
        how = f" ({one_line(reply, 20)})" if reply else ""
        self.app.notify(f"Permission answered elsewhere{how}", title="Permission")
        self.dismiss(None)
