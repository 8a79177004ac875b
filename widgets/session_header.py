"""Provides ``SessionHeader``: which session is open, in which directory, on which server.

One line at the top of the main screen. When it does not fit, it gives up detail in this order:
the server goes first, then the directory is shortened in the middle (``/home/…/project``, the
last folder stays), then the title is shortened at its end, then the directory goes. It repaints
only when what it shows (or its width) changes, never per frame.
"""

from __future__ import annotations

from textual import events
from textual.content import Content
from textual.widgets import Static

from tui.sanitize import one_line

__all__ = ["SessionHeader", "header_content", "middle_ellipsis"]

ELLIPSIS = "…"
GAP = "  "
MIN_DIRECTORY = 12
"""A directory shorter than this (with its ellipsis) says nothing: drop it instead."""
MIN_TITLE = 12


def middle_ellipsis(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells by an ellipsis in the middle, keeping more of the end
    (the last folder of a path is the one that names the project)."""
    if len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    room = width - 1
    tail = (room + 1) // 2
    last_folder = len(text) - max(text.rstrip("/").rfind("/"), 0)  # "/project", with its slash
    tail = max(tail, min(last_folder, room - min(4, room // 3)))
    head = room - tail
    return text[:head] + ELLIPSIS + text[len(text) - tail:]


def _end_ellipsis(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)].rstrip() + ELLIPSIS


def header_content(title: str, directory: str, server: str, width: int) -> Content:
    """The widest header that fits in ``width`` cells (see the module docstring for the order)."""
    title, directory, server = one_line(title, 200), one_line(directory, 400), one_line(server, 80)

    def assemble(title_text: str, dir_text: str, server_text: str) -> Content:
        parts: list[tuple[str, str] | str] = [(title_text, "bold")]
        if dir_text:
            parts += [GAP, (dir_text, "$foreground-muted")]
        left = Content.assemble(*parts)
        if not server_text:
            return left
        pad = max(len(GAP), width - left.cell_length - len(server_text))
        return Content.assemble(left, " " * pad, (server_text, "$foreground-muted"))

    full = assemble(title, directory, server)
    if full.cell_length <= width:
        return full
    room = width - len(title) - len(GAP)  # the server is gone: what is left for the directory
    if room >= min(len(directory), MIN_DIRECTORY):
        return assemble(title, middle_ellipsis(directory, room), "")
    title_room = width - MIN_DIRECTORY - len(GAP)
    if title_room >= MIN_TITLE and directory:
        return assemble(_end_ellipsis(title, title_room),
                        middle_ellipsis(directory, min(len(directory), MIN_DIRECTORY)), "")
    return assemble(_end_ellipsis(title, width), "", "")


class SessionHeader(Static):
    """Title, directory and server of the open session (or of the home view)."""

    DEFAULT_CLASSES = "session-header"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self._shown: tuple[str, str, str, int] | None = None
        self._values = ("", "", "")

    @property
    def values(self) -> tuple[str, str, str]:
        """``(title, directory, server)`` as last given."""
        return self._values

    def show(self, title: str, directory: str, server: str) -> None:
        """Show these; a no-op when nothing changed."""
        self._values = (title, directory, server)
        self._repaint()

    def _repaint(self) -> None:
        width = self.content_region.width or self.app.size.width
        key = (*self._values, width)
        if key == self._shown:
            return
        self._shown = key
        self.update(header_content(*self._values, width))

    def on_resize(self, event: events.Resize) -> None:
        self._repaint()
