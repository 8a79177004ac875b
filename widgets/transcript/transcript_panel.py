"""``TranscriptPanel``: the transcript, where the reader was in each session, the "N new messages
below" chip, older history pages, and the store's transcript changes for the session on view.

Where the reader was in each session (which messages were mounted, the message at the top of the
view and its offset, or "at the bottom, following") is kept in memory by session id, so switching
to another session and back puts them where they were.
"""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Button

from tui.app.host import octui_app
from tui.state.changes import MessageChanged, PartChanged, TranscriptChanged
from tui.state.transcript import SessionState
from widgets.transcript.transcript import Transcript, TranscriptPosition

__all__ = ["EMPTY_SESSION", "TranscriptPanel"]

EMPTY_SESSION = "No messages yet — type a prompt below."


class TranscriptPanel(Widget):
    """Owns ``#transcript`` and ``#new-activity`` (found on the screen); a non-visual helper.

    The screen routes the transcript's ``Unseen`` and ``LoadOlder`` and the chip's press here.
    """

    DEFAULT_CSS = "TranscriptPanel { display: none; }"

    def __init__(self) -> None:
        super().__init__()
        self.places: dict[str, TranscriptPosition] = {}
        self.reasoning_collapsed = True

    @property
    def transcript(self) -> Transcript:
        return self.screen.query_one(Transcript)

    @property
    def chip(self) -> Button:
        return self.screen.query_one("#new-activity", Button)

    # ------------------------------------------------------------------ what is shown
    def show(self, state: SessionState | None, text: str | Content, session_id: str | None = None) -> None:
        """Show ``state`` (``None``: just ``text``), where the reader left ``session_id``."""
        place = self.places.get(session_id) if session_id is not None else None
        self.transcript.show(state, text, place)

    def remember_place(self, session_id: str | None) -> None:
        """Note where the reader is in ``session_id``, the session being left."""
        transcript = self.transcript
        # Not while a "loading…" placeholder stands in for it: that is no place in the session.
        if session_id is not None and transcript.state is not None and transcript.state.id == session_id:
            self.places[session_id] = transcript.position()

    def place_of(self, session_id: str) -> TranscriptPosition | None:
        return self.places.get(session_id)

    def apply(self, changes: list[TranscriptChanged | MessageChanged | PartChanged],
              session_id: str | None) -> None:
        """The store's transcript, message and part changes of ``session_id`` (one frame's)."""
        if session_id is None:
            return
        transcript = self.transcript
        seen: set[MessageChanged | PartChanged] = set()
        for change in changes:
            if change.session_id != session_id:
                continue
            if isinstance(change, TranscriptChanged):
                state = octui_app(self).store.session(session_id)
                if transcript.state is state:
                    transcript.history_changed(change.page or None)  # reloaded or older: keep the place
                else:
                    transcript.show(state, EMPTY_SESSION)
                continue
            if change in seen:  # every delta of one block reports the same change
                continue
            seen.add(change)
            if isinstance(change, MessageChanged):
                transcript.message_changed(change.message_id)
            else:
                transcript.part_changed(change.message_id, change.part_key)

    def set_child_states(self, states: dict[str, str]) -> None:
        self.transcript.set_child_states(states)

    def set_asking_calls(self, calls: set[str]) -> None:
        self.transcript.set_asking_calls(calls)

    def toggle_reasoning(self) -> None:
        self.reasoning_collapsed = not self.reasoning_collapsed
        self.transcript.set_reasoning_collapsed(self.reasoning_collapsed)

    def rendering_behind(self) -> bool:
        """Whether a streaming block shows placeholders that are being rendered."""
        return self.transcript.rendering_behind()

    def content_rows(self) -> int:
        """How tall the transcript's content is (the app paces frames by how fast it grows)."""
        transcript = self.transcript
        height = transcript.virtual_size.height
        if height > transcript.size.height:
            return height
        # The virtual height of content shorter than the view is the view's: an answer that fills
        # an empty screen would seem not to grow. Its children are all in view (cheap to find).
        shown = [child for child in transcript.children if child.display]
        return max((child.virtual_region_with_margin.bottom for child in shown), default=0)

    # ------------------------------------------------------------------ the reader's moves
    def unseen(self, count: int) -> None:
        """``Transcript.Unseen``: the chip says how many messages came or grew below the view."""
        chip = self.chip
        chip.display = count > 0
        noun = "message" if count == 1 else "messages"
        # "New text", not "new messages": the answer streaming below may be the one already
        # begun on screen (QA: "1 new message" for the message being read).
        chip.label = Content(f"↓ new text below, in {count:,} {noun} — click to follow")

    def follow(self) -> None:
        """The chip was pressed: back to the bottom, following."""
        self.transcript.jump_to_end()

    def load_older(self, session_id: str | None, everything: bool) -> None:
        """``Transcript.LoadOlder``: page older history of ``session_id`` in."""
        session = octui_app(self).session
        if session.is_ready and session_id is not None:
            session.load_older(session_id, everything)
