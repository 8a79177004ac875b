"""Textual messages the app posts to itself from the controller's callbacks."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from tui.session.connect import StreamState
from tui.state.changes import Change


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
