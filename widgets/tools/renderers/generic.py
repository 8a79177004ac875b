"""Provides the body for unknown tools (MCP, plugins): input as ``key: value`` and text."""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from tui.state.transcript import ToolCall
from tui.text.tools import input_pairs
from widgets.plain import plain, plain_line
from widgets.tools.renderers import BodyOptions
from widgets.tools.terminal_output import TerminalOutput


def render(call: ToolCall, options: BodyOptions) -> list[Widget]:
    widgets: list[Widget] = []
    pairs = input_pairs(call)
    if pairs:
        rows = [Content.assemble(plain(f"{key}: ", "bold $foreground-muted"), plain(value))
                for key, value in pairs]
        widgets.append(Static(Content("\n").join(rows), classes="-input"))
    if text := call.output_text:
        widgets.append(TerminalOutput(text, show_all=options.show_all, plain=True, classes="-plain"))
    files = [c for c in call.content if c.type != "text"]
    for item in files:
        label = plain_line(item.name or item.uri or item.type, 200, strict=True)
        mime = Content.assemble(" (", plain_line(item.mime, 40), ")") if item.mime else Content("")
        widgets.append(Static(Content.assemble("file ", label, mime), classes="-text"))
    return widgets
