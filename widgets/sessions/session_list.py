"""Provides ``SessionList``: the scrolling list of sessions in the session browser.

Each session is a two-line row: the title (with a ``↳`` marker for child sessions and a busy
badge), then a muted line with age, agent, model and id. A final "more" row stands for the next
page; reaching it (keyboard, mouse click or scrolling to the end) posts ``MoreRequested``.

The widget never loads anything itself: its screen sets rows with ``show``/``extend``/
``set_busy`` (attributes down) and reacts to ``Selected``/``MoreRequested`` (messages up).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.app import clock
from tui.protocol.models import SessionInfo
from widgets.plain import plain_line

__all__ = ["SessionList", "format_age"]

MORE_ID = "-more"


def format_age(then_ms: float, now_ms: float) -> str:
    """A short relative age: ``just now``, ``3m ago``, ``5h ago``, ``2d ago``, ``3w ago``, ``1y ago``."""
    if not then_ms > 0 or not math.isfinite(now_ms - then_ms):  # unknown, NaN or infinity
        return "—"
    seconds = max(0.0, (now_ms - then_ms) / 1000.0)
    for limit, unit, label in (
        (60 * 60, 60, "m"),
        (24 * 3600, 3600, "h"),
        (7 * 86400, 86400, "d"),
        (365 * 86400, 7 * 86400, "w"),
    ):
        if seconds < limit:
            if unit == 60 and seconds < 60:
                return "just now"
            return f"{int(seconds // unit)}{label} ago"
    return f"{int(seconds // (365 * 86400))}y ago"


class SessionList(OptionList):
    """Sessions as selectable two-line rows, plus a "load more" row when more pages exist."""

    @dataclass
    class Selected(Message):
        """The user chose a session (Enter or click)."""

        session_list: SessionList
        session_id: str

        @property
        def control(self) -> SessionList:
            return self.session_list

    @dataclass
    class MoreRequested(Message):
        """The user reached the end of the list and another page exists."""

        session_list: SessionList

        @property
        def control(self) -> SessionList:
            return self.session_list

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select", "Open", tooltip="Open the highlighted session"),
    ]

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, markup=False)
        self._sessions: list[SessionInfo] = []
        self._busy: set[str] = set()
        self._has_more = False
        self._loading_more = False
        self.prefer: str | None = None
        """The session highlighted when the list first shows it (the one the user is in)."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide "Open" from the footer while there is nothing to open."""
        if action == "select" and self.option_count == 0:
            return False
        return super().check_action(action, parameters)

    # ----------------------------------------------------------------------------- state

    @property
    def sessions(self) -> list[SessionInfo]:
        """The sessions shown, in display order."""
        return list(self._sessions)

    @property
    def has_more(self) -> bool:
        """Whether a "more" row is shown."""
        return self._has_more

    @property
    def highlighted_session_id(self) -> str | None:
        """Id of the highlighted session (``None`` on the more row or when empty)."""
        option = self.highlighted_option
        if option is None or option.id in (None, MORE_ID):
            return None
        return option.id

    def show(self, sessions: Iterable[SessionInfo], *, busy: set[str], has_more: bool) -> None:
        """Replace every row, keeping the highlight on the same session when it is still there."""
        keep = self.highlighted_session_id
        self._sessions = _unique(sessions)
        self._busy = set(busy)
        self._has_more = has_more
        self._loading_more = False
        self._rebuild()
        ids = [s.id for s in self._sessions]
        if self._sessions:
            # The first time, the session the user is in (they come back to it, or move from it).
            target = keep if keep in ids else self.prefer if self.prefer in ids else None
            self.highlighted = ids.index(target) if target is not None else 0
        else:
            self.highlighted = None

    def extend(self, sessions: Iterable[SessionInfo], *, has_more: bool) -> None:
        """Append the next page (duplicates dropped), keeping the highlight where it is."""
        keep = self.highlighted
        known = {s.id for s in self._sessions}
        fresh = [s for s in _unique(sessions) if s.id not in known]
        self._sessions.extend(fresh)
        self._has_more = has_more and bool(fresh)
        self._loading_more = False
        self._rebuild()
        if keep is not None and self.option_count:
            self.highlighted = min(keep, self.option_count - 1)

    def set_busy(self, busy: set[str]) -> None:
        """Update busy badges, repainting only the rows that changed."""
        changed = busy ^ self._busy
        self._busy = set(busy)
        for session in self._sessions:
            if session.id in changed:
                self.replace_option_prompt(session.id, self._prompt(session))

    def set_loading_more(self, loading: bool) -> None:
        """Show or clear "Loading more…" on the more row."""
        self._loading_more = loading
        if self._has_more:
            self.replace_option_prompt(MORE_ID, self._more_prompt())

    def refresh_rows(self) -> None:
        """Re-render every row (ages move on)."""
        for session in self._sessions:
            self.replace_option_prompt(session.id, self._prompt(session))

    # --------------------------------------------------------------------------- render

    def _rebuild(self) -> None:
        options = [Option(self._prompt(session), id=session.id) for session in self._sessions]
        if self._has_more:
            options.append(Option(self._more_prompt(), id=MORE_ID))
        self.set_options(options)
        self.refresh_bindings()

    def _more_prompt(self) -> Content:
        label = "Loading more…" if self._loading_more else "Load more sessions…"
        return Content.assemble(("  " + label, "italic $foreground-muted"))

    def _prompt(self, session: SessionInfo) -> Content:
        title = plain_line(session.title, 200, "bold")
        first = Content.assemble(
            ("↳ " if session.parentID else "", "$foreground-muted"),
            title if title else Content.styled("(untitled)", "italic $foreground-muted"),
        )
        if session.id in self._busy:
            first = first + Content.assemble("  ", (" ● busy ", "bold $text-warning on $warning-muted"))
        stamp = session.time.updated or session.time.created
        details = [Content(format_age(stamp, clock.now_ms()))]
        if session.agent:
            details.append(plain_line(session.agent, 40))
        if session.model is not None and session.model.label:
            details.append(plain_line(session.model.label, 60))
        details.append(plain_line(session.id, 60))
        second = Content.assemble("  ", Content(" · ").join(details)).stylize_before("$foreground-muted")
        return Content("\n").join([first, second])

    # ------------------------------------------------------------------------- messages

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id == MORE_ID:
            self._request_more()
        elif event.option.id is not None:
            self.post_message(self.Selected(self, event.option.id))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option.id == MORE_ID:
            self._request_more()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if new_value > old_value and self.max_scroll_y > 0 and new_value >= self.max_scroll_y:
            self._request_more()

    def _request_more(self) -> None:
        if self._has_more and not self._loading_more:
            self.set_loading_more(True)
            self.post_message(self.MoreRequested(self))


def _unique(sessions: Iterable[SessionInfo]) -> list[SessionInfo]:
    seen: set[str] = set()
    result: list[SessionInfo] = []
    for session in sessions:
        if session.id not in seen:
            seen.add(session.id)
            result.append(session)
    return result
