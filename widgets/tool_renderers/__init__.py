"""Provides per-tool body renderers: ``build_body(call, options)`` returns the body widgets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.widget import Widget
from textual.widgets import Static

from tui.plain import plain
from tui.state.transcript import ToolCall
from tui.tools import ToolKind, kind_of

__all__ = ["BodyOptions", "build_body", "text_block"]


@dataclass(frozen=True)
class BodyOptions:
    """View state the row keeps across repaints (attributes down)."""

    show_all: bool = False
    """Show every output line instead of the capped tail."""
    split: bool | None = None
    """Forced diff layout, or ``None`` for automatic by width."""


Renderer = Callable[[ToolCall, BodyOptions], list[Widget]]


def text_block(text: str, classes: str = "-text") -> Static:
    """Server text shown literally (never parsed as markup), hidden characters made visible."""
    return Static(plain(text), classes=classes)


def _renderers() -> dict[ToolKind, Renderer]:
    from widgets.tool_renderers import compact, diffs, generic, question, shell, subagent

    return {
        "shell": shell.render,
        "edit": diffs.render,
        "write": diffs.render,
        "patch": diffs.render,
        "read": compact.render,
        "search": compact.render,
        "list": compact.render,
        "web": compact.render,
        "todo": compact.render,
        "question": question.render,
        "subagent": subagent.render,
        "unknown": generic.render,
    }


def build_body(call: ToolCall, options: BodyOptions) -> list[Widget]:
    """The widgets of an expanded row. Never raises on odd metadata: falls back to generic."""
    widgets: list[Widget] = []
    if call.status == "streaming":
        return [text_block(call.input_text or "…", "-input-stream")]
    if call.status == "error" and call.error is not None:
        widgets.append(text_block("✗ " + (call.error.message or call.error.type), "-error-text"))
    renderer = _renderers()[kind_of(call.name)]
    try:
        widgets.extend(renderer(call, options))
    except Exception:  # odd metadata from a plugin must not take the transcript down
        from widgets.tool_renderers import generic

        widgets.extend(generic.render(call, options))
    return widgets
