"""Provides the edit/write/apply_patch body: one diff per changed file."""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Collapsible

from tui.state.transcript import ToolCall
from tui.text.tools import diff_files, edit_preview
from widgets.plain import as_markup_arg, plain
from widgets.tools.diff_view import DiffView
from widgets.tools.renderers import BodyOptions, text_block


def render(call: ToolCall, options: BodyOptions) -> list[Widget]:
    files = diff_files(call) or edit_preview(call)
    if not files:
        return [text_block(call.output_text)] if call.output_text else []
    if len(files) == 1:
        return [DiffView(files[0], split=options.split)]
    widgets: list[Widget] = []
    for diff in files:
        title = plain(f"{diff.path}  {diff.status}  {diff.counts}")
        widgets.append(Collapsible(
            DiffView(diff, split=options.split, show_header=False),
            title=as_markup_arg(title),
            collapsed=False,
            classes="-file",
        ))
    return widgets
