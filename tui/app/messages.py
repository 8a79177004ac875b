"""Textual messages of the app: the session service's callbacks to the app, and the store's changes
to the main screen (one message per family of typed changes, posted once a frame by the app)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from tui.session.connect import StreamState
from tui.state.changes import (
    AsksChanged,
    CatalogChanged,
    Change,
    MessageChanged,
    PartChanged,
    PromptAppended,
    Resynced,
    ServerConnected,
    SessionChanged,
    SessionSelected,
    ToastShown,
    TranscriptChanged,
)


@dataclass
class ConnectionChanged(Message):
    state: StreamState


@dataclass
class BootFailed(Message):
    """Start-up could not reach a usable server; the app exits with this text."""

    text: str
    code: int = 1


# ---------------------------------------------------------------------------- one frame's changes
@dataclass
class ChangeFrame(Message):
    """The changes of one family in one frame, in the order they happened."""

    changes: list[Change]
    bubble = False  # the main screen handles them; nothing above it does


@dataclass
class TranscriptFrame(ChangeFrame):
    """Messages and parts added or changed, whole transcripts rebuilt (the transcript panel)."""

    changes: list[TranscriptChanged | MessageChanged | PartChanged]  # type: ignore[assignment]


@dataclass
class SessionsFrame(ChangeFrame):
    """A session's info, busy state or pending inputs; a resync; a (re)connect (status, tree)."""

    changes: list[SessionChanged | Resynced | ServerConnected]  # type: ignore[assignment]


@dataclass
class AsksFrame(ChangeFrame):
    """Permission requests, questions and forms came or went (the ask flow)."""

    changes: list[AsksChanged]  # type: ignore[assignment]


@dataclass
class ToastsFrame(ChangeFrame):
    """Toasts the store raised."""

    changes: list[ToastShown]  # type: ignore[assignment]


@dataclass
class PromptFrame(ChangeFrame):
    """Text a server command asked to append to the composer."""

    changes: list[PromptAppended]  # type: ignore[assignment]


@dataclass
class CatalogFrame(ChangeFrame):
    """Models, agents, commands or skills changed on the server."""

    changes: list[CatalogChanged]  # type: ignore[assignment]


@dataclass
class SelectFrame(ChangeFrame):
    """The server asked the client to show a session."""

    changes: list[SessionSelected]  # type: ignore[assignment]


FAMILIES: dict[type[Change], type[ChangeFrame]] = {
    TranscriptChanged: TranscriptFrame, MessageChanged: TranscriptFrame, PartChanged: TranscriptFrame,
    SessionChanged: SessionsFrame, Resynced: SessionsFrame, ServerConnected: SessionsFrame,
    AsksChanged: AsksFrame,
    ToastShown: ToastsFrame,
    PromptAppended: PromptFrame,
    CatalogChanged: CatalogFrame,
    SessionSelected: SelectFrame,
}
"""Change class -> the message that carries it; classes not listed concern no widget (logged only)."""


def change_messages(changes: list[Change]) -> list[ChangeFrame]:
    """One message per family present in ``changes``, in the order each family first appears."""
    grouped: dict[type[ChangeFrame], list[Change]] = {}
    for change in changes:
        family = FAMILIES.get(type(change))
        if family is not None:
            grouped.setdefault(family, []).append(change)
    return [family(items) for family, items in grouped.items()]
