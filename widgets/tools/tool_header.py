"""Provides ToolHeader: the one-line summary of a tool call (icon, name, title, time)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.timer import Timer
from textual.widgets import Label

from tui.app import clock
from tui.state.transcript import ToolCall
from tui.text.sanitize import one_line
from tui.text.tools import (
    elapsed_ms,
    exit_code,
    format_duration,
    kind_of,
    question_state,
    status_icon,
    subagent_status,
    timed_out,
    tool_summary,
    tool_title_source,
)
from widgets.plain import plain, plain_line

__all__ = ["ToolHeader"]


class ToolHeader(HorizontalGroup):
    """Chevron, status icon, tool name, title, summary/badge and elapsed time.

    Ticks once a second while the call is not finished (and only then), reading ``tui.app.clock``.
    """

    def __init__(self, call: ToolCall, *, child_status: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._call = call
        self._child_status = child_status
        self._timer: Timer | None = None
        self._ready = False

    def compose(self) -> ComposeResult:
        yield Label("▸", classes="-chevron")
        yield Label("", classes="-icon")
        yield Label("", classes="-name")
        yield Label("", classes="-title")
        yield Label("", classes="-summary")
        yield Label("", classes="-badge")
        yield Label("", classes="-elapsed")

    def on_mount(self) -> None:
        self._ready = True
        self.show(self._call, child_status=self._child_status)

    def show(self, call: ToolCall, *, child_status: str | None = None) -> None:
        """Repaint from ``call`` (and a subagent child's real status) and start/stop the ticker."""
        self._call = call
        self._child_status = child_status
        if not self._ready:
            return
        self._label("-icon").update(plain(status_icon(call.status)))
        self._label("-name").update(plain_line(call.name or "tool", 40))
        self._label("-title").update(plain_line(tool_title_source(call), 200, strict=True))
        self._label("-summary").update(plain(self._summary(call)))
        self._show_badge(call)
        self._tick()
        if call.finished and self._timer is not None:
            self._timer.stop()
            self._timer = None
        elif not call.finished and self._timer is None:
            self._timer = self.set_interval(1.0, self._tick)

    def set_expanded(self, expanded: bool) -> None:
        if self._ready:
            self._label("-chevron").update("▾" if expanded else "▸")

    def _label(self, cls: str) -> Label:
        return self.query_one(f".{cls}", Label)

    def _summary(self, call: ToolCall) -> str:
        kind = kind_of(call.name)
        if call.status == "streaming":
            return "writing input…"
        if kind == "question":
            state, answers = question_state(call)
            if state == "answered":
                return "answered: " + "; ".join(", ".join(a) for a in answers)
            return "rejected" if state == "rejected" else "waiting for answer"
        if kind == "subagent":
            child = call.child_session_id
            link = f"→ {one_line(child, 40)}" if child else "no child yet"
            return f"{subagent_status(call, self._child_status)} {link}"
        if call.status == "error" and call.error is not None:
            return one_line(call.error.message, 60) or "failed"
        return tool_summary(call)

    def _show_badge(self, call: ToolCall) -> None:
        badge = self._label("-badge")
        text, ok = "", True
        if kind_of(call.name) == "shell" and call.finished:
            code = exit_code(call)
            if timed_out(call):
                text, ok = "timeout", False
            elif code is not None:
                text, ok = f"exit {code}", code == 0
        badge.update(text)
        badge.display = bool(text)
        badge.set_class(ok, "-ok")
        badge.set_class(not ok, "-bad")

    def _tick(self) -> None:
        if not self._ready:
            return
        elapsed = elapsed_ms(self._call, clock.now_ms())
        self._label("-elapsed").update("" if elapsed is None else format_duration(elapsed))
