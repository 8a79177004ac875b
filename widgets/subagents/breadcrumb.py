"""Provides ``Breadcrumb``: ``root › child › grandchild`` with clickable ancestors.

The screen feeds it ``tui.state.tree_nav.breadcrumb(store, sid)``; a click on an ancestor posts
``Breadcrumb.Navigate(session_id)``. When the path is wider than the widget, middle segments
fold into ``…`` (the root and the current session stay visible).
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import events
from textual.content import Content
from textual.message import Message
from textual.style import Style
from textual.widgets import Static

from tui.text.sanitize import flatten
from widgets.plain import plain

__all__ = ["Breadcrumb"]

SEPARATOR = " › "
ELLIPSIS = "…"
MAX_SEGMENT = 40
"""Longest title shown for one segment, in characters."""


def _shorten(title: str, limit: int) -> str:
    return title if len(title) <= limit else title[: max(1, limit - 1)].rstrip() + ELLIPSIS


class Breadcrumb(Static):
    """Where the current session sits in its family; ancestors are links."""

    class Navigate(Message):
        """The user clicked an ancestor segment."""

        def __init__(self, breadcrumb: Breadcrumb, session_id: str) -> None:
            self.breadcrumb = breadcrumb
            self.session_id = session_id
            """The session to open."""
            super().__init__()

        @property
        def control(self) -> Breadcrumb:
            return self.breadcrumb

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__("", name=name, id=id, classes=classes, disabled=disabled, markup=False)
        self._path: list[tuple[str, str]] = []

    @property
    def path(self) -> list[tuple[str, str]]:
        """``[(session_id, title), …]`` from the root to the current session."""
        return list(self._path)

    def show_path(self, path: Sequence[tuple[str, str]]) -> None:
        """Show ``path`` (root first); the last segment is the current session."""
        self._path = [(sid, flatten(title)) for sid, title in path]
        self.set_class(len(self._path) <= 1, "-root")
        self.update(self._content(self.size.width or 200))

    def _content(self, width: int) -> Content:
        """The widest rendering that fits: fold middle ancestors, then shorten titles."""
        count = len(self._path)
        if not count:
            return Content("")
        attempts: list[tuple[list[int | None], int, int]] = []
        for keep in range(count - 1, 0, -1):  # trailing segments kept besides the root
            shown: list[int | None] = [0, *([None] if keep < count - 1 else []),
                                       *range(count - keep, count)]
            attempts.append((shown, MAX_SEGMENT, MAX_SEGMENT))
        tight: list[int | None] = [0, None, count - 1] if count > 2 else list(range(count))
        attempts += [(tight, limit, MAX_SEGMENT) for limit in (24, 16, 10)]
        attempts += [(tight, 10, limit) for limit in (24, 16, 10)]
        content = Content("")
        for shown, ancestor_limit, current_limit in attempts:
            content = self._assemble(shown, ancestor_limit, current_limit)
            if content.cell_length <= width:
                break
        return content

    def _assemble(self, shown: list[int | None], ancestor_limit: int, current_limit: int) -> Content:
        parts: list[str | Content | tuple[str, str | Style]] = []
        last = len(self._path) - 1
        for position, index in enumerate(shown):
            if position:
                parts.append((SEPARATOR, "$foreground-muted"))
            if index is None:
                parts.append((ELLIPSIS, "$foreground-muted"))
                continue
            sid, title = self._path[index]
            text = _shorten(title or sid, current_limit if index == last else ancestor_limit)
            if index == last:
                parts.append(plain(text, "bold"))
            else:
                parts.append(plain(text).stylize(Style.from_meta({"@click": f"navigate({sid!r})"})))
        return Content.assemble(*parts)

    def on_resize(self, event: events.Resize) -> None:
        if self._path:
            self.update(self._content(event.size.width))

    def action_navigate(self, session_id: str) -> None:
        """Post ``Navigate`` for an ancestor link."""
        self.post_message(self.Navigate(self, session_id))
