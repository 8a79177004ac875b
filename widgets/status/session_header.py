"""Provides ``SessionHeader``: which session is open, in which directory, on which server.

One line at the top of the main screen. When it does not fit, it gives up detail in this order:
the server goes first, then the directory is shortened in the middle (``/home/…/project``, the
last folder stays), then the title is shortened at its end, then the directory goes. It repaints
only when what it shows (or its width) changes, never per frame.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.content import Content
from textual.widgets import Static

from widgets.plain import chars_in_cells, ellipsize, plain_line

__all__ = ["SessionHeader", "header_content", "middle_ellipsis"]

ELLIPSIS = "…"
GAP = "  "
MUTED = "$foreground-muted"
MIN_DIRECTORY = 12
"""A directory shorter than this (with its ellipsis) says nothing: drop it instead."""
MIN_TITLE = 12
DIRECTORY_MAX = 400


def _middle_split(text: str, width: int) -> tuple[int, int]:
    """How many characters of ``text`` to keep before and after a middle ellipsis, ``width``
    cells in all (more of the end: the last folder of a path is the one that names the project)."""
    room = width - 1
    tail = (room + 1) // 2
    last_folder = cell_len(text[max(text.rstrip("/").rfind("/"), 0):])  # "/project", with its slash
    tail = max(tail, min(last_folder, room - min(4, room // 3)))
    return chars_in_cells(text, room - tail), chars_in_cells(text, tail, from_end=True)


def middle_ellipsis(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells by an ellipsis in the middle, keeping more of the end."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    head, tail = _middle_split(text, width)
    return text[:head] + ELLIPSIS + text[len(text) - tail:]


def _middle_cut(content: Content, width: int) -> Content:
    """``middle_ellipsis`` of server text already made visible (no token is cut in half)."""
    if content.cell_length <= width:
        return content
    if width <= 1:
        return Content(ELLIPSIS[:width])
    return ellipsize(content, *_middle_split(content.plain, width), style=MUTED)


def _end_cut(content: Content, width: int, style: str) -> Content:
    if content.cell_length <= width:
        return content
    return ellipsize(content, chars_in_cells(content.plain, max(0, width - 1)), style=style)


def _directory_line(directory: str) -> Content:
    """The directory on one line, at most ``DIRECTORY_MAX`` characters: a longer one keeps its
    start and its end (the last folder names the project), cut in the middle."""
    if len(directory) <= DIRECTORY_MAX:
        return plain_line(directory, DIRECTORY_MAX, MUTED)
    half = DIRECTORY_MAX // 2
    return Content.assemble(plain_line(directory[:half], half, MUTED), (ELLIPSIS, MUTED),
                            plain_line(directory[-half:], half, MUTED))


def header_content(title: str, directory: str, server: str, width: int) -> Content:
    """The widest header that fits in ``width`` cells (see the module docstring for the order).

    All three are the server's (or the user's) text: one line each, through ``widgets.plain``, so a
    hidden character is a visible token and a ``[`` is a bracket."""
    title_line = plain_line(title, 200, "bold")
    dir_line = _directory_line(directory)
    server_line = plain_line(server, 80, MUTED)

    def assemble(title_part: Content, dir_part: Content, server_part: Content) -> Content:
        left = Content.assemble(title_part, GAP, dir_part) if dir_part.plain else title_part
        if not server_part.plain:
            return left
        pad = max(len(GAP), width - left.cell_length - server_part.cell_length)
        return Content.assemble(left, " " * pad, server_part)

    full = assemble(title_line, dir_line, server_line)
    if full.cell_length <= width:
        return full
    title_len, dir_len = title_line.cell_length, dir_line.cell_length
    room = width - title_len - len(GAP)  # the server is gone: what is left for the directory
    if room >= min(dir_len, MIN_DIRECTORY):
        return assemble(title_line, _middle_cut(dir_line, room), Content(""))
    title_room = width - MIN_DIRECTORY - len(GAP)
    if title_room >= MIN_TITLE and dir_len:
        return assemble(_end_cut(title_line, title_room, "bold"),
                        _middle_cut(dir_line, min(dir_len, MIN_DIRECTORY)), Content(""))
    return assemble(_end_cut(title_line, width, "bold"), Content(""), Content(""))


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
