"""Composer drafts that survive reconnects and restarts (no Textual here).

The main screen tells a :class:`DraftKeeper` whenever the composer text changes (``note``) and
when it switches views (``switch``). Writes to the state dir (``tui.storage.saved_state.SavedState``) are
debounced: the screen calls ``flush`` from a timer ``delay`` seconds after the last change, and
once more on exit. Drafts are keyed by session id, or ``"new"`` for the home screen. A state
dir that cannot be written never breaks typing: the error is kept in ``last_error`` and handed
once to the screen (``take_problem``), which says it. Drafts have no size cap.
"""

from __future__ import annotations

import logging
import threading

from tui.storage.saved_state import DraftTooLarge, SavedState

__all__ = ["HOME_KEY", "DraftKeeper", "draft_key"]

log = logging.getLogger("octui.drafts")

HOME_KEY = "new"
DEBOUNCE_S = 0.5


def draft_key(session_id: str | None) -> str:
    """The state key of a view: the session id, or ``"new"`` for the home screen."""
    return session_id or HOME_KEY


class DraftKeeper:
    """Remembers the unsent text of each view; writes at most once per debounce window."""

    def __init__(self, state: SavedState | None = None, *, delay: float = DEBOUNCE_S) -> None:
        self._state = state
        self.delay = delay
        self._pending: dict[str, str] = {}  # key -> text not yet written
        self.last_error: str | None = None
        self._unsaid: str | None = None  # a problem the user has not been told about yet
        self._lock = threading.Lock()  # flush runs in a thread; one writer at a time

    @property
    def state(self) -> SavedState:
        if self._state is None:
            self._state = SavedState()  # OCTUI_STATE_DIR or the platform state dir
        return self._state

    @property
    def dirty(self) -> bool:
        return bool(self._pending)

    def load(self, session_id: str | None) -> str:
        """The draft of a view: an unwritten one first, else the saved one ("" if none)."""
        key = draft_key(session_id)
        if key in self._pending:
            return self._pending[key]
        try:
            return self.state.load_draft(key)
        except DraftTooLarge as exc:
            self._problem(str(exc))
            return ""
        except OSError as exc:  # load_draft already treats a corrupt state.json as empty
            self._problem(f"cannot read the saved draft in {self.state.root}: "
                          f"{exc.strerror or type(exc).__name__}")
            return ""

    def note(self, session_id: str | None, text: str) -> None:
        """The composer of ``session_id``'s view now holds ``text`` (write it on the next flush)."""
        self._pending[draft_key(session_id)] = text

    def move(self, source: str | None, target: str | None) -> None:
        """Hand a draft to another view (the home screen's text becomes the new session's)."""
        text = self.load(source)
        self.note(source, "")
        self.note(target, text)

    def flush(self) -> bool:
        """Write every pending draft (blank text deletes it). True when all were written."""
        with self._lock:
            pending, self._pending = self._pending, {}
            ok = True
            for key, text in pending.items():
                try:
                    self.state.save_draft(key, text)
                except OSError as exc:
                    self._pending.setdefault(key, text)  # keep it: retried on the next flush
                    self._problem(f"cannot save the draft in {self.state.root}: "
                                  f"{exc.strerror or type(exc).__name__}")
                    ok = False
            return ok

    def take_problem(self) -> str | None:
        """A problem not reported to the user yet (each distinct one once), or None."""
        text, self._unsaid = self._unsaid, None
        return text

    def _problem(self, text: str) -> None:
        if text != self.last_error:
            log.warning("%s", text)
            self._unsaid = text
        self.last_error = text
