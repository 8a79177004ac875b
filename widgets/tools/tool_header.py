"""Provides ToolHeader: the one-line summary of a tool call (icon, name, title, time)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from rich.cells import cell_len
from textual.content import Content
from textual.timer import Timer
from textual.widget import Widget

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

__all__ = ["HeaderParts", "ToolHeader"]

TITLE_MIN = 12
"""The title keeps this many cells (its gap included) before anything else is given room."""
SUMMARY_SHARE = 0.45
"""A narrow row shortens the summary (to this share of the row) before the title disappears."""
_STATUS_LOOKS = ("running", "completed", "error")
"""The statuses whose icon has a colour of its own."""


@dataclass(frozen=True)
class HeaderParts:
    """What the header says, part by part, before it is laid out in a row."""

    chevron: str
    icon: str
    icon_status: str  # the status the icon shows: a command that exited non-zero shows failed
    name: Content
    title: Content
    summary: Content
    badge: str
    badge_ok: bool
    elapsed: str


class ToolHeader(Widget):
    """Chevron, status icon, tool name, title, summary/badge and elapsed time, on one line.

    One widget that draws its line itself: a row of labels made every tool row cost twice as
    much to mount and lay out. The title takes the room left; it and the summary end in ``…``
    when cut. Ticks once a second while the call is not finished (and only then), reading
    ``tui.app.clock``.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "tool-header--chevron",
        "tool-header--icon",
        "tool-header--icon-running",
        "tool-header--icon-completed",
        "tool-header--icon-error",
        "tool-header--name",
        "tool-header--title",
        "tool-header--title-streaming",
        "tool-header--summary",
        "tool-header--summary-error",
        "tool-header--badge-ok",
        "tool-header--badge-bad",
        "tool-header--elapsed",
    }
    """Each part's look; the icon's, the title's and the summary's follow the call's status."""

    def __init__(self, call: ToolCall, *, child_status: str | None = None, asking: bool = False,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._call = call
        self._child_status = child_status
        self._asking = asking
        self._expanded = False
        self._timer: Timer | None = None
        self._ready = False
        self._parts: HeaderParts | None = None

    def on_mount(self) -> None:
        self._ready = True
        self.show(self._call, child_status=self._child_status, asking=self._asking)

    def show(self, call: ToolCall, *, child_status: str | None = None, asking: bool = False) -> None:
        """Repaint from ``call`` (a subagent child's real status; ``asking``: a permission for the
        call waits on the user) and start/stop the ticker."""
        self._call = call
        self._child_status = child_status
        self._asking = asking
        self._parts = None
        if not self._ready:
            return
        self.refresh()
        if call.finished and self._timer is not None:
            self._timer.stop()
            self._timer = None
        elif not call.finished and self._timer is None:
            self._timer = self.set_interval(1.0, self._tick)

    def set_expanded(self, expanded: bool) -> None:
        if expanded != self._expanded:
            self._expanded = expanded
            self._parts = None
            self.refresh()

    @property
    def parts(self) -> HeaderParts:
        """What the header shows, part by part: built when first read after a change, and again
        for each tick of a running call's time."""
        if self._parts is None:
            self._parts = self._build_parts()
        return self._parts

    def _build_parts(self) -> HeaderParts:
        call = self._call
        badge, ok = self._badge(call)
        elapsed = elapsed_ms(call, clock.now_ms())
        # A command that exited non-zero (or timed out) failed: a green tick beside a red
        # "exit 2" said both (QA). The server calls the tool call itself completed.
        icon_status = "error" if badge and not ok else call.status
        return HeaderParts(
            chevron="▾" if self._expanded else "▸",
            icon=status_icon(icon_status),
            icon_status=icon_status,
            name=plain_line(call.name or "tool", 40),
            title=plain_line(tool_title_source(call), 200, strict=True, breaks=True),
            summary=plain(self._summary(call)),
            badge=badge,
            badge_ok=ok,
            elapsed="" if elapsed is None else format_duration(elapsed),
        )

    def _summary(self, call: ToolCall) -> str:
        kind = kind_of(call.name)
        if call.status == "streaming":
            return "writing input…"
        if self._asking and not call.finished:  # (its timer alone read as a command still running)
            return "waiting for your approval"
        if kind == "question":
            state, answers = question_state(call)
            if state == "answered":
                # A question left unanswered (an optional one) is "–", not an empty "Red; " (QA).
                return "answered: " + "; ".join(", ".join(a) if a else "–" for a in answers)
            return "rejected" if state == "rejected" else "waiting for answer"
        if kind == "subagent":
            child = call.child_session_id
            # (a call that ended without one, "Unknown tool: task" say, has none to wait for)
            link = f"→ {one_line(child, 40)}" if child else "no child" if call.finished else "no child yet"
            return f"{subagent_status(call, self._child_status)} {link}"
        if call.status == "error" and call.rejected:
            return "rejected"
        if call.status == "error" and call.error is not None:
            return one_line(call.error.message, 60) or "failed"
        return tool_summary(call)

    @staticmethod
    def _badge(call: ToolCall) -> tuple[str, bool]:
        """A finished shell command's exit code (or its timeout): the text and whether it is good."""
        if kind_of(call.name) == "shell" and call.finished:
            if timed_out(call):
                return "timeout", False
            code = exit_code(call)
            if code is not None:
                return f"exit {code}", code == 0
        return "", True

    def _tick(self) -> None:
        if self._ready:
            self._parts = None
            self.refresh()

    # -- drawing ------------------------------------------------------------------------------

    def _part(self, content: Content | str, look: str) -> Content:
        """``content`` in a part's look (under its own styles: a hidden character's token stays)."""
        name = f"tool-header--{look}"
        # The colour from the whole style: ``$text-muted`` is an "auto" colour, picked to read on
        # the background under it, which a partial style does not know (it would pick near-white,
        # unreadable in a light theme).
        whole = self.get_visual_style(name)
        style = replace(self.get_visual_style(name, partial=True), foreground=whole.foreground)
        return plain(content).stylize_before(style)

    def render(self) -> Content:
        parts = self.parts
        status = self._call.status
        width = self.size.width
        # Each part is followed by a one-cell gap; the badge has a cell each side in its colour,
        # the time its gap before it. The title takes what is left, but never less than TITLE_MIN.
        fixed_cells = cell_len(parts.chevron) + cell_len(parts.icon) + parts.name.cell_length + 3
        summary_cells = min(parts.summary.cell_length + 1, int(width * SUMMARY_SHARE))
        badge_cells = len(parts.badge) + 2 if parts.badge else 0
        time_cells = len(parts.elapsed) + 1
        title_cells = max(TITLE_MIN, width - fixed_cells - summary_cells - badge_cells - time_cells)
        title_look = "title-streaming" if status == "streaming" else "title"
        summary_look = "summary-error" if status == "error" else "summary"
        icon_look = f"icon-{parts.icon_status}" if parts.icon_status in _STATUS_LOOKS else "icon"
        gap = Content(" ")
        pieces = [
            self._part(parts.chevron, "chevron"), gap,
            self._part(parts.icon, icon_look), gap,
            self._part(parts.name, "name"), gap,
            self._part(parts.title.truncate(title_cells - 1, ellipsis=True, pad=True), title_look), gap,
            self._part(parts.summary.truncate(max(0, summary_cells - 1), ellipsis=True, pad=True),
                       summary_look), gap,
        ]
        if parts.badge:
            # The whole style, not a partial one: a partial style's see-through background would
            # be blended twice, and the badge drawn paler than its colour.
            badge = self.get_visual_style(f"tool-header--badge-{'ok' if parts.badge_ok else 'bad'}")
            pieces += [plain(text).stylize(badge) for text in (" ", parts.badge, " ")]
        pieces += [gap, self._part(parts.elapsed, "elapsed")]
        return Content.assemble(*pieces).truncate(width)

