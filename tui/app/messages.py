"""Textual messages the app posts to itself from the session service's callbacks."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from tui.session.connect import StreamState


@dataclass
class ConnectionChanged(Message):
    state: StreamState


@dataclass
class BootFailed(Message):
    """Start-up could not reach a usable server; the app exits with this text."""

    text: str
    code: int = 1
