"""Provides ``DockedDialog``: an ask dialog whose head and foot are docked and whose body scrolls.

However much the server sends, the title and the buttons and keys stay on screen (``#dialog-head``
and ``#dialog-foot``, docked), and what grows with server data scrolls between them
(``#dialog-body``, a ``VerticalScroll``): with a scrollbar and a cue line (``-body-scrolls``), and
PgUp/PgDn. Under ``TINY_ROWS`` rows the dialog drops its blank lines and its key hint (``-tiny``);
where even then what must be read does not show (``lacks_room``), it is ``-cramped``: the
subclass refuses to answer and a note says why (QA: at 60x15 a permission was allowed with its
command never shown; a review: at 40x12 a question was answered, never seen).
"""

from __future__ import annotations

from typing import Any, TypeVar

from textual.containers import VerticalScroll
from textual.content import Content
from textual.geometry import Region
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

TINY_ROWS = 20
"""Under this many rows an ask dialog drops its blank lines and its key hint."""

READ_TO_END = Content.styled("✓ Scrolled to the end (wheel, PgUp/PgDn to read it again)", "$text-success")

ResultType = TypeVar("ResultType")


def rows_shown(dialog: Screen[Any], region: Region) -> int:
    """How many rows of ``region`` (inside the dialog's scrolling ``#dialog-body``) show between
    its docked ``#dialog-head`` and ``#dialog-foot`` (0 or less: none)."""
    head = dialog.query_one("#dialog-head").region
    foot = dialog.query_one("#dialog-foot").region
    body = dialog.query_one("#dialog-body").region
    top, bottom = max(body.y, head.bottom), min(body.bottom, foot.y)
    return min(bottom, region.bottom) - max(top, region.y)


class DockedDialog(ModalScreen[ResultType]):
    """The frame of the permission and question dialogs (see the module's docstring)."""

    BODY_TAKES_FOCUS = False
    """Whether the body, when it scrolls, is a focus stop (Tab, then the arrow keys scroll it)."""
    _cue_text: Any = None  # the cue to scroll, as the dialog composed it

    def on_mount(self) -> None:
        body = self.query_one("#dialog-body", VerticalScroll)
        self.watch(body, "show_vertical_scrollbar", self._body_scrolls)
        self.watch(body, "scroll_y", self._body_scrolled)
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        self.set_class(self.app.size.height < TINY_ROWS, "-tiny")
        self.call_after_refresh(self._check_room)

    def _check_room(self) -> None:
        if not self.is_attached:
            return
        cramped = self.lacks_room()
        if cramped != self.cramped:
            self.set_class(cramped, "-cramped")
            self.cramped_changed(cramped)

    def lacks_room(self) -> bool:
        """Whether what must be read before answering does not show (laid out, as it opened)."""
        return False

    def cramped_changed(self, cramped: bool) -> None:
        """Grey out (or give back) what answers: the subclass's buttons."""

    @property
    def cramped(self) -> bool:
        return self.has_class("-cramped")

    def _body_scrolls(self, scrolls: bool) -> None:
        self.query_one("#dialog-body", VerticalScroll).can_focus = scrolls and self.BODY_TAKES_FOCUS
        self.set_class(scrolls, "-body-scrolls")
        self._body_scrolled()

    def _body_scrolled(self) -> None:
        """The cue to scroll says when the end has been reached (QA: it kept asking to scroll
        after the end was read). Its text changes, not its size: the body keeps its rows."""
        body = self.query_one("#dialog-body", VerticalScroll)
        ended = body.max_scroll_y > 0 and body.scroll_y >= body.max_scroll_y
        for cue in self.query("#scroll-cue").results(Static):
            if self._cue_text is None:
                self._cue_text = cue.content
            cue.update(READ_TO_END if ended else self._cue_text, layout=False)

    def action_scroll_body(self, pages: int) -> None:
        body = self.query_one("#dialog-body", VerticalScroll)
        if pages < 0:
            body.scroll_page_up()
        else:
            body.scroll_page_down()
