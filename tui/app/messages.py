"""Textual messages of the app: the controller's callbacks to the app, and the store's changes to
the main screen (one message per family of ``Change``, posted once per frame by the app)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from tui.client.stream import StreamState
from tui.state.transcript import Change


@dataclass
class StoreChanged(Message):
    """The store moved; ``changes`` says what (coalesced by the app before repainting)."""

    changes: list[Change]


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


class TranscriptFrame(ChangeFrame):
    """Messages and parts added or changed, or a whole transcript rebuilt (the transcript panel)."""


class SessionsFrame(ChangeFrame):
    """A session's info, busy state or pending inputs; a resync; a (re)connect (status, tree)."""


class AsksFrame(ChangeFrame):
    """Permission requests, questions and forms came or went (the ask flow)."""


class ToastsFrame(ChangeFrame):
    """Toasts the store raised (``detail`` the text, ``part_key`` the severity)."""


class PromptFrame(ChangeFrame):
    """Text a server command asked to append to the composer."""


class CatalogFrame(ChangeFrame):
    """Models, agents, commands or skills changed on the server (``detail`` the event type)."""


class SelectFrame(ChangeFrame):
    """The server asked the client to show a session."""


FAMILIES: dict[str, type[ChangeFrame]] = {
    "transcript": TranscriptFrame, "message": TranscriptFrame, "part": TranscriptFrame,
    "session": SessionsFrame, "resynced": SessionsFrame, "connected": SessionsFrame,
    "asks": AsksFrame,
    "toast": ToastsFrame,
    "prompt.append": PromptFrame,
    "catalog": CatalogFrame,
    "select": SelectFrame,
}
"""Change kind -> the message that carries it; kinds not listed concern no widget (logged only)."""


def change_messages(changes: list[Change]) -> list[ChangeFrame]:
    """One message per family present in ``changes``, in the order each family first appears."""
    grouped: dict[type[ChangeFrame], list[Change]] = {}
    for change in changes:
        family = FAMILIES.get(change.kind)
        if family is not None:
            grouped.setdefault(family, []).append(change)
    return [family(items) for family, items in grouped.items()]
