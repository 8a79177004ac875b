"""Provides the subagent/task body: the linked child session and its final text."""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from tui.plain import plain
from tui.sanitize import one_line
from tui.state.transcript import ToolCall
from tui.tools import subagent_status, subagent_text
from widgets.tool_renderers import BodyOptions, text_block


def render(call: ToolCall, options: BodyOptions) -> list[Widget]:
    child = call.child_session_id
    data = call.input if isinstance(call.input, dict) else {}
    agent = one_line(str(data.get("agent") or data.get("subagent_type") or ""), 40)
    line = Content.assemble(
        ("agent ", "$text-muted"), (agent or "?", "bold"), ("  status ", "$text-muted"),
        plain(subagent_status(call)), ("  child ", "$text-muted"),
        (one_line(child, 60), "underline $text-primary") if child else ("not linked", "$text-muted"),
        ("  (enter: open)" if child else "", "$text-muted"),
    )
    widgets: list[Widget] = [Static(line, classes="-subagent")]
    if call.finished and (text := subagent_text(call)):
        widgets.append(text_block(text))
    return widgets
