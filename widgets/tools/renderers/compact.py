"""Provides the body of read/grep/glob/list/webfetch/websearch/todowrite: their output."""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from tui.state.transcript import ToolCall
from tui.text.tools import kind_of
from widgets.plain import plain_line
from widgets.tools.renderers import BodyOptions
from widgets.tools.terminal_output import TerminalOutput

_TODO_MARKS = {"completed": "✓", "in_progress": "▶", "cancelled": "✗"}


def _todos(call: ToolCall) -> list[Widget]:
    todos = call.input.get("todos") if isinstance(call.input, dict) else None
    rows: list[Content] = []
    for todo in todos if isinstance(todos, list) else []:
        if not isinstance(todo, dict):
            continue
        status = str(todo.get("status", ""))
        mark = _TODO_MARKS.get(status, "○")
        style = "$foreground-muted strike" if status in ("completed", "cancelled") else ""
        rows.append(Content.assemble(f"{mark} ", plain_line(str(todo.get("content", "")), 200, style)))
    return [Static(Content("\n").join(rows), classes="-text")] if rows else []


def render(call: ToolCall, options: BodyOptions) -> list[Widget]:
    if kind_of(call.name) == "todo" and (todos := _todos(call)):
        return todos
    meta = call.metadata if isinstance(call.metadata, dict) else {}
    text = call.output_text
    if not text and isinstance(meta.get("content"), str):
        text = meta["content"]  # 1.18 read: the file is in structured.content
    if not text:
        return []
    return [TerminalOutput(text, show_all=options.show_all, plain=True, classes="-plain")]
