"""Provides the subagent/task body: the linked child session and its final text."""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from tui.state.transcript import ToolCall
from tui.text.tools import subagent_status, subagent_text
from widgets.plain import plain, plain_line
from widgets.tools.renderers import BodyOptions, text_block

MUTED = "$foreground-muted"


def render(call: ToolCall, options: BodyOptions) -> list[Widget]:
    child = call.child_session_id
    data = call.input if isinstance(call.input, dict) else {}
    agent = str(data.get("agent") or data.get("subagent_type") or "")
    # Every gap ends a segment (or stands alone), never starts one: a renderer that trims a
    # segment's leading blanks cannot run two fields together.
    line = Content.assemble(
        ("agent ", MUTED), plain_line(agent or "?", 40, "bold"), (" ", "bold"), ("· ", MUTED),
        plain(f"{subagent_status(call, options.child_status)} ", "bold"), ("· ", MUTED),
        *((("child ", MUTED), plain_line(child, 60, "underline $text-primary"), " ",
           ("· Enter opens it", MUTED)) if child
          else (("no child session" if call.finished else "no child session yet", MUTED),)),
    )
    widgets: list[Widget] = [Static(line, classes="-subagent")]
    if call.finished and (text := subagent_text(call)):
        widgets.append(text_block(text))
    return widgets
