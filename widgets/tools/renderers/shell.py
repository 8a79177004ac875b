"""Provides the shell/bash body: command line, coloured output, timeout/truncation markers."""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from tui.state.transcript import ToolCall
from tui.text.tools import output_cuts, output_path, shell_output, timed_out, truncated
from widgets.plain import plain, plain_cut
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
    output = shell_output(call)
    cut = truncated(call)
    cuts = output_cuts(output, output_path(call)) if cut else []
    if call.status != "error" or call.content:
        widgets.append(TerminalOutput(
            output,
            show_all=options.show_all,
            placeholder="(no output)" if call.finished else "waiting for output…",
            cuts=cuts,
        ))
    notes: list[Content] = []
    if timed_out(call):
        notes.append(Content("⏱ timed out before completion"))
    if cut:
        path = output_path(call, cuts)
        notes.append(Content.assemble("✂ output truncated by the server",
                                      *(("; full output saved to ", plain_cut(path, 1000, strict=True))
                                        if path else ())))
    if notes:
        widgets.append(Static(Content("  ·  ").join(notes), classes="-note"))
    return widgets
