"""Provides the question body: each question with its options and the answer given."""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from tui.state.transcript import ToolCall
from tui.text.sanitize import one_line
from tui.text.tools import question_state
from widgets.plain import plain
from widgets.tools.renderers import BodyOptions


def render(call: ToolCall, options: BodyOptions) -> list[Widget]:
    state, answers = question_state(call)
    questions = call.input.get("questions") if isinstance(call.input, dict) else None
    rows: list[Content] = []
    for index, item in enumerate(questions if isinstance(questions, list) else []):
        if not isinstance(item, dict):
            continue
        header = one_line(str(item.get("header") or ""), 80)
        question = one_line(str(item.get("question") or ""), 300)
        rows.append(Content.assemble((header + "  " if header else "", "bold"), question))
        opts = item.get("options")
        labels = [one_line(str(o.get("label", "")), 60) for o in opts if isinstance(o, dict)] \
            if isinstance(opts, list) else []
        if labels:
            rows.append(plain("  options: " + " · ".join(labels), "$foreground-muted"))
        if index < len(answers):
            rows.append(Content.assemble(("  → ", "$text-success"), plain(", ".join(answers[index]))))
    status = {"waiting": "waiting for an answer", "rejected": "rejected (no answer given)"}
    if state in status:
        rows.append(plain(status[state], "italic $text-warning"))
    return [Static(Content("\n").join(rows), classes="-text")]
