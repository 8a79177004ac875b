"""The main screen's reading state: scroll places per session, the "new below" chip, older history."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button

from widgets.transcript.transcript import Transcript, TranscriptPosition

if TYPE_CHECKING:
    from tui.app.app import OctuiApp


class ReadingPlaces(Screen[None]):
    """Mixed into ``MainScreen``; expects ``session_id`` and ``octui``.

    Where the reader was in each session (which messages were mounted, the message at the top of
    the view and its offset, or "at the bottom, following") is kept in memory by session id, so
    switching to another session and back puts them where they were.
    """

    session_id: str | None
    places: dict[str, TranscriptPosition]

    if TYPE_CHECKING:
        @property
        def octui(self) -> OctuiApp: ...

    def remember_place(self) -> None:
        """Note where the reader is in the session being left."""
        transcript = self.query_one(Transcript)
        # Not while a "loading…" placeholder stands in for it: that is no place in the session.
        if self.session_id is not None and transcript.state is not None \
                and transcript.state.id == self.session_id:
            self.places[self.session_id] = transcript.position()

    def place_of(self, session_id: str) -> TranscriptPosition | None:
        return self.places.get(session_id)

    @on(Transcript.Unseen)
    def _unseen(self, event: Transcript.Unseen) -> None:
        chip = self.query_one("#new-activity", Button)
        chip.display = event.count > 0
        chip.label = Content(f"↓ {event.count:,} new below — click to follow")

    @on(Button.Pressed, "#new-activity")
    def _follow(self, event: Button.Pressed) -> None:
        event.stop()
        self.query_one(Transcript).jump_to_end()

    @on(Transcript.LoadOlder)
    def _load_older(self, event: Transcript.LoadOlder) -> None:
        session = self.octui.session
        if session.is_ready and self.session_id is not None:
            session.load_older(self.session_id, event.everything)
