"""Provides the shell/bash body: command line, coloured output, timeout/truncation markers."""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from tui.state.transcript import ToolCall
from tui.text.tools import shell_output, timed_out, truncated
from widgets.plain import plain
from widgets.tools.renderers import BodyOptions
from widgets.tools.terminal_output import TerminalOutput


def render(call: ToolCall, options: BodyOptions) -> list[Widget]:
    command = call.input.get("command") if isinstance(call.input, dict) else None
    widgets: list[Widget] = [
        Static(
            Content.assemble(("$ ", "bold $text-primary"), plain(str(command or ""), strict=True)),
            classes="-command",
        )
    ]
    if call.status != "error" or call.content:
        widgets.append(TerminalOutput(
            shell_output(call),
            show_all=options.show_all,
            placeholder="(no output)" if call.finished else "waiting for output…",
        ))
    notes = []
    if timed_out(call):
        notes.append("⏱ timed out before completion")
    if truncated(call):
        notes.append("✂ output truncated by the server")
    if notes:
        widgets.append(Static(plain("  ·  ".join(notes)), classes="-note"))
    return widgets
