"""Provides per-tool body renderers: ``build_body(call, options)`` returns the body widgets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.widget import Widget
from textual.widgets import Static

from tui.state.transcript import ToolCall
from tui.text.tools import ToolKind, kind_of
from widgets.plain import plain

__all__ = ["BodyOptions", "build_body", "text_block"]


@dataclass(frozen=True)
class BodyOptions:
    """View state the row keeps across repaints (attributes down)."""

    show_all: bool = False
    """Show every output line instead of the capped tail."""
    split: bool | None = None
    """Forced diff layout, or ``None`` for automatic by width."""
    child_status: str | None = None
    """A subagent call: its child session's real status (``tui.state.tree.NodeStatus``)."""


Renderer = Callable[[ToolCall, BodyOptions], list[Widget]]
STREAMING_INPUT_CHARS = 4000  # of a tool input still streaming, the end shown


def text_block(text: str, classes: str = "-text") -> Static:
    """Server text shown literally (never parsed as markup), hidden characters made visible."""
    return Static(plain(text), classes=classes)


def _renderers() -> dict[ToolKind, Renderer]:
    from widgets.tools.renderers import compact, diffs, generic, question, shell, subagent

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
    if call.status == "streaming":  # the input as it streams: its end (a file being written is huge)
        tail = call.input_text[-STREAMING_INPUT_CHARS:]
        shown = "…" + tail if len(tail) < len(call.input_text) else tail
        return [text_block(shown or "…", "-input-stream")]
    if call.status == "error" and call.rejected:  # (the server's error only says "interrupted")
        said = call.error.message if call.error is not None else ""
        widgets.append(text_block("✗ Rejected: its permission was refused" + (f" ({said})" if said else ""),
                                  "-error-text"))
    elif call.status == "error" and call.error is not None:
        widgets.append(text_block("✗ " + (call.error.message or call.error.type), "-error-text"))
    renderer = _renderers()[kind_of(call.name)]
    try:
        widgets.extend(renderer(call, options))
    except Exception:  # odd metadata from a plugin must not take the transcript down
        from widgets.tools.renderers import generic

        widgets.extend(generic.render(call, options))
    return widgets
