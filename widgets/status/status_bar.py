"""Bottom status line: connection, server, agent/model, busy, usage, pending asks (a click on
``⚑ N waiting`` opens the inbox, as Ctrl+B does)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from textual.content import Content
from textual.events import Click
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static

from tui.app import clock
from tui.text.tools import format_duration
from widgets.plain import plain, plain_line


@dataclass(frozen=True)
class StatusInfo:
    connection: str = "connecting"  # connecting | connected | reconnecting | unauthorized | stopped
    server: str = ""  # dialect and version, e.g. "1.18 preview"
    agent: str = ""
    model: str = ""
    busy: bool = False
    busy_since: float | None = None  # when its turn began (the prompt's time, epoch seconds)
    note: str = ""
    tokens: float = 0
    context_limit: float = 0
    context_used: float = 0
    cost: float = 0
    asks: int = 0
    mode: str = ""
    todos_done: int = 0  # the agent's plan (tui/state/todos.py), while it is unfinished
    todos_total: int = 0
    doing: str = ""  # its item in progress


def _tokens(value: float) -> str:
    if not math.isfinite(value):
        return "?"  # NaN or infinity: JSON from JavaScript never holds one, a broken server might
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    if value >= 1_000:
        return f"{value / 1_000:.1f}k"
    return f"{int(value)}"


class StatusBar(Static):
    """A one-line summary; everything it shows comes from ``StatusInfo``."""

    DEFAULT_CLASSES = "status-bar"
    info: reactive[StatusInfo] = reactive(StatusInfo, always_update=False)
    asks_span: tuple[int, int] | None = None
    """The columns (of the content) of ``⚑ N waiting`` as last drawn, end excluded; None: not
    shown."""
    _ticking: Timer | None = None  # repaints the turn's time once a second while busy

    def render(self) -> Content:
        info = self.info
        dot = {"connected": ("●", "$success"), "reconnecting": ("◌", "$warning"),
               "connecting": ("◌", "$warning")}.get(info.connection, ("✗", "$error"))
        # (what, drop order: higher goes first when the line is too wide; 0 always stays)
        parts: list[tuple[Content, int]] = [(plain(f"{dot[0]} {info.connection}", dot[1]), 0)]
        if info.server:
            parts.append((plain_line(info.server, 40), 4))
        if info.agent:
            parts.append((plain_line(info.agent, 20, "bold"), 1))
        if info.model:
            parts.append((plain_line(info.model, 40), 2))
        if info.mode:
            parts.append((plain_line(info.mode, 30, "$warning"), 0))
        parts.append((plain(self._busy_for(), "$accent bold") if info.busy
                      else Content.styled("idle", "dim"), 0))
        if info.note:
            parts.append((plain_line(info.note, 60, "$warning"), 3))
        if info.todos_total:
            parts.append((plain(f"☐ {info.todos_done}/{info.todos_total} todos", "$text-accent"), 3))
            if info.doing:
                parts.append((plain_line(info.doing, 40, "italic"), 4))  # before the usage
        usage = f"{_tokens(info.tokens)} tok"
        if info.context_limit and info.context_used:
            usage += f" · ctx {info.context_used / info.context_limit:.0%}"
        parts.append((plain(usage), 5))
        parts.append((plain(f"${info.cost:.4f}" if info.cost < 1 else f"${info.cost:.2f}"), 6))
        if info.asks:
            parts.append((Content.styled(f"⚑ {info.asks:d} waiting", "$error bold"), 0))
        width = self.content_region.width or 10_000
        line = _join(parts)
        for level in range(6, 0, -1):  # a narrow terminal drops details rather than cut the line
            if line.cell_length <= width:
                break
            line = _join([(p, rank) for p, rank in parts if rank < level])
        # (the last part, never dropped; a line still too wide is cut from the right: then off)
        flag = parts[-1][0].cell_length if info.asks else 0
        end = line.cell_length
        self.asks_span = (end - flag, end) if flag and end <= width else None
        return line

    def _busy_for(self) -> str:
        """"busy 12s": how long the turn has run, so a wait for the model's first word (or a
        provider retrying) is seen to go on, not a frozen screen (QA: 6 s of nothing moving)."""
        since = self.info.busy_since
        if since is None:
            return "busy"
        seconds = max(0.0, clock.now() - since)
        return f"busy {int(seconds)}s" if seconds < 60 else f"busy {format_duration(seconds * 1000)}"

    def watch_info(self, old: StatusInfo, new: StatusInfo) -> None:
        if new.busy and self._ticking is None:
            self._ticking = self.set_interval(1.0, self.refresh)  # (only while busy: idle is still)
        elif not new.busy and self._ticking is not None:
            self._ticking.stop()
            self._ticking = None

    async def on_click(self, event: Click) -> None:
        offset = event.get_content_offset(self)
        span = self.asks_span
        if span is not None and offset is not None and span[0] <= offset.x < span[1]:
            event.stop()
            await self.run_action("screen.inbox")  # (Ctrl+B's action)


def _join(parts: list[tuple[Content, int]]) -> Content:
    return Content(" │ ").join(p for p, _ in parts)
