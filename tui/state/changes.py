"""What moved in the store, so the UI repaints only that: one frozen dataclass per kind.

``Store.apply`` (and every other reducer) returns a list of these. Each class names its kind in
``kind`` (a class constant, for logs and quick checks). ``NeedMessage`` and ``CheckActive`` are
the store asking the session service for a follow-up; they never reach the UI.

The stream's hot path builds a ``PartChanged`` or ``MessageChanged`` for nearly every frame:
``part_changed``/``message_changed`` share equal ones (building the dataclass costs more than
applying a whole text delta, and every delta of one block reports the same change).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

Severity = Literal["information", "warning", "error"]
HistoryPage = Literal["", "older", "older-failed"]


@dataclass(frozen=True, slots=True)
class SessionChanged:
    """Info, busy state, usage or inbox of ``session_id`` changed."""

    kind: ClassVar[str] = "session"
    session_id: str


@dataclass(frozen=True, slots=True)
class MessageChanged:
    """``message_id`` of ``session_id`` was added or replaced."""

    kind: ClassVar[str] = "message"
    session_id: str
    message_id: str


@dataclass(frozen=True, slots=True)
class PartChanged:
    """Part ``part_key`` (``text:0``, ``tool:call_1`` …) of a message changed."""

    kind: ClassVar[str] = "part"
    session_id: str
    message_id: str
    part_key: str


@dataclass(frozen=True, slots=True)
class TranscriptChanged:
    """The whole transcript of ``session_id`` was rebuilt; ``page``: older messages were paged in
    (``older``) or could not be (``older-failed``)."""

    kind: ClassVar[str] = "transcript"
    session_id: str
    page: HistoryPage = ""


@dataclass(frozen=True, slots=True)
class AsksChanged:
    """Pending asks changed: ``ask_id`` was asked (``how="asked"``) or settled (``how`` says how);
    no ``ask_id``: the pending list was replaced wholesale (a resync)."""

    kind: ClassVar[str] = "asks"
    session_id: str | None = None
    ask_id: str | None = None
    how: str | None = None


@dataclass(frozen=True, slots=True)
class ToastShown:
    """The server asked the UI to show a toast."""

    kind: ClassVar[str] = "toast"
    text: str
    severity: Severity = "information"


@dataclass(frozen=True, slots=True)
class PromptAppended:
    """The server asked the UI to append ``text`` to the prompt box."""

    kind: ClassVar[str] = "prompt.append"
    text: str


@dataclass(frozen=True, slots=True)
class SessionSelected:
    """The server asked the UI to show ``session_id``."""

    kind: ClassVar[str] = "select"
    session_id: str


@dataclass(frozen=True, slots=True)
class TurnFailed:
    """A live ``step.failed``/``execution.failed`` turned ``message_id`` into a failure (logged)."""

    kind: ClassVar[str] = "failed"
    session_id: str
    message_id: str


@dataclass(frozen=True, slots=True)
class CatalogChanged:
    """Models, agents, commands or skills changed on the server (``event_type`` says which)."""

    kind: ClassVar[str] = "catalog"
    event_type: str


@dataclass(frozen=True, slots=True)
class ServerConnected:
    """The server's own ``server.connected`` event."""

    kind: ClassVar[str] = "connected"


@dataclass(frozen=True, slots=True)
class Resynced:
    """The session service re-read what the stream cannot replay (after a (re)connect)."""

    kind: ClassVar[str] = "resynced"


@dataclass(frozen=True, slots=True)
class LogLine:
    """A warning of the stream (a bad frame, a failed resync): logged; the UI may show it."""

    kind: ClassVar[str] = "log"
    text: str


@dataclass(frozen=True, slots=True)
class NeedMessage:
    """Internal: the store heard of a message it does not have; the service fetches it."""

    kind: ClassVar[str] = "need_message"
    session_id: str
    message_id: str


@dataclass(frozen=True, slots=True)
class CheckActive:
    """Internal: a turn may have ended silently (1.18); the service asks which sessions are busy."""

    kind: ClassVar[str] = "check_active"
    session_id: str | None = None


Change = (SessionChanged | MessageChanged | PartChanged | TranscriptChanged | AsksChanged
          | ToastShown | PromptAppended | SessionSelected | TurnFailed | CatalogChanged | ServerConnected
          | Resynced | LogLine | NeedMessage | CheckActive)
"""Any change a reducer returns."""

INTERNAL = (NeedMessage, CheckActive)
"""Follow-ups the session service handles; they never reach the UI."""

_PARTS: dict[tuple[str, str, str], PartChanged] = {}
_MESSAGES: dict[tuple[str, str], MessageChanged] = {}
_SESSIONS: dict[str, SessionChanged] = {}
_CACHE_MAX = 4096  # bounded: a long run must not keep every change ever made


def part_changed(session_id: str, message_id: str, part_key: str) -> PartChanged:
    """``PartChanged(...)``, shared: equal changes (every delta of one block) reuse one object."""
    key = (session_id, message_id, part_key)
    found = _PARTS.get(key)
    if found is None:
        if len(_PARTS) >= _CACHE_MAX:
            _PARTS.clear()
        found = _PARTS[key] = PartChanged(session_id, message_id, part_key)
    return found


def session_changed(session_id: str) -> SessionChanged:
    """``SessionChanged(...)``, shared (busy and usage change with most durable events)."""
    found = _SESSIONS.get(session_id)
    if found is None:
        if len(_SESSIONS) >= _CACHE_MAX:
            _SESSIONS.clear()
        found = _SESSIONS[session_id] = SessionChanged(session_id)
    return found


def severity_of(variant: str | None) -> Severity:
    """A server toast's ``variant`` as a toast severity (``success`` and unknown ones: information)."""
    return "error" if variant == "error" else "warning" if variant == "warning" else "information"


def message_changed(session_id: str, message_id: str) -> MessageChanged:
    """``MessageChanged(...)``, shared like ``part_changed``."""
    key = (session_id, message_id)
    found = _MESSAGES.get(key)
    if found is None:
        if len(_MESSAGES) >= _CACHE_MAX:
            _MESSAGES.clear()
        found = _MESSAGES[key] = MessageChanged(session_id, message_id)
    return found
