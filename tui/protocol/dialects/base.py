"""The one interface every server generation implements, and what the UI may ask of it.

Above ``tui.protocol.dialects`` everything speaks the pinned v2 shapes (``openapi.json``,
PROTOCOL.md): events, history messages, pending-input items. A ``Dialect`` turns its generation's
frames and REST answers into those shapes and builds that generation's request bodies; its
``caps`` say which features the server has, so the UI offers only what works. A new generation
is one new module with one ``Dialect`` subclass, registered in ``tui.protocol.dialects``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Protocol

from tui.protocol.events import ProtocolError
from tui.protocol.frames import PlainDelta, plain_delta

Family = Literal["1.18", "2.x"]


@dataclass(frozen=True)
class Capabilities:
    """What a generation's server can do, as far as octui's UI cares."""

    flat_api: bool
    """2.x routes and bodies: flat prompt, ``/command``, ``/skill``, forms, ``DELETE``/rename of a session."""
    pending_route: str | None
    """Last path segment of the pending-input list under ``/api/session/{id}/`` (None: no list)."""
    pending_cancel: bool
    """A pending input can be withdrawn (``DELETE …/inbox/{id}``)."""
    pending_redeliver: bool
    """A pending input can switch between steer and queue after admission."""
    prompt_skills: bool
    """``skills`` is accepted in ``/prompt`` and ``/command`` bodies."""
    compaction: bool
    """``POST /compact`` summarises the session (1.18 answers 503)."""
    compaction_delivery: bool
    """The ``/compact`` body takes ``delivery``."""
    interrupt_continue: bool
    """``POST /interrupt`` takes ``?continue=``."""
    forms: bool
    """Forms (``form.created``, ``/api/form/request``, reply/cancel)."""
    subagents: bool
    """The server runs child sessions and filters ``GET /api/session`` by ``parentID``."""
    shell_output: bool
    """``GET /api/shell/{id}/output`` follows a running shell."""
    default_model: bool
    """``GET /api/model/default`` exists."""
    durable_history: bool
    """1.18 ``GET /api/session/{id}/history`` (a page of durable events)."""
    session_title: bool
    """``POST /api/session`` accepts ``title``."""
    text_files: bool
    """A text file attached to a prompt reaches the model as text. 1.18.33 hands it to the
    provider as media, which OpenAI-compatible providers refuse: that turn fails, and so does
    every later one of the session, the message being in its history."""
    reject_message: bool
    """A reject's ``message`` reaches the model. 1.18.33 drops it (the tool result the model gets
    is "Unable to …"), though the turn goes on, where a reject without one ends it."""


class FrameNormaliser(Protocol):
    """Per connection: one generation's frames in, pinned-v2 frames out."""

    identity: bool
    """True when ``event`` never changes a frame (the session service then skips the call)."""

    def event(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """The pinned-v2 form of a frame, or None for a frame that must be ignored.

        Raises ``ProtocolError`` when ``obj`` is not an object at all."""

    def plain_delta(self, obj: dict[str, Any]) -> PlainDelta | None:
        """``frames.plain_delta`` of the normalised frame when that is cheap, else None."""


class IdentityFrames:
    """Frames that already have the pinned shape."""

    identity = True

    def event(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        if not isinstance(obj, dict):
            raise ProtocolError(f"event frame is a {type(obj).__name__}, not an object")
        return obj

    def plain_delta(self, obj: dict[str, Any]) -> PlainDelta | None:
        return plain_delta(obj)


_PARAM = re.compile(r"\{[^}/]*\}|:[A-Za-z_][A-Za-z0-9_]*")


def route_key(path: str) -> str:
    """A route with its parameter names dropped: ``/api/session/{sessionID}/pending`` and
    ``/api/session/:id/pending`` are both ``/api/session/{}/pending``."""
    return _PARAM.sub("{}", path.split("?", 1)[0].rstrip("/") or "/")


class Dialect:
    """One server generation. Subclasses set the class attributes and override what differs.

    The defaults are the pinned v2 behaviour (``openapi.json``): shapes pass through unchanged.
    ``Dialect.V2``, ``Dialect.V2_0_PREVIEW`` and ``Dialect.PREVIEW`` are the registered
    generations (set by ``tui.protocol.dialects``).
    """

    name: ClassVar[str] = ""
    """Short stable identifier ("v2", "2.0-preview", "1.18")."""
    label: ClassVar[str] = ""
    """For people (status bar, messages)."""
    family: ClassVar[Family] = "2.x"
    caps: ClassVar[Capabilities]
    marker_types: ClassVar[frozenset[str]] = frozenset()
    """Event types only this generation sends: seeing one identifies it."""
    marker_prefixes: ClassVar[tuple[str, ...]] = ()
    spec_routes: ClassVar[frozenset[str]] = frozenset()
    """``route_key``s that this generation's served OpenAPI document lists and no other does."""
    startup: ClassVar[re.Pattern[str] | None] = None
    """The ``opencode serve`` start-up line of this family (group 1: the URL); None: not by line."""
    family_default: ClassVar[bool] = False
    """The guess for its family when only the family is known (health body, start-up line)."""

    # The registered generations (``tui.protocol.dialects`` sets them).
    V2: ClassVar[Dialect]
    V2_0_PREVIEW: ClassVar[Dialect]
    PREVIEW: ClassVar[Dialect]

    def __repr__(self) -> str:
        return f"<Dialect {self.name}>"

    def __str__(self) -> str:
        return self.name

    def __format__(self, spec: str) -> str:
        return format(self.name, spec)

    # -------------------------------------------------------------- events
    def frames(self) -> FrameNormaliser:
        """A fresh normaliser (one per stream connection: some keep per-connection state)."""
        return IdentityFrames()

    # -------------------------------------------------------------- REST answers
    def message(self, info: dict[str, Any]) -> dict[str, Any]:
        """One history item (``GET …/message``) in the pinned shape."""
        return info

    def session_info(self, info: dict[str, Any]) -> dict[str, Any]:
        return info

    def revert_state(self, revert: dict[str, Any]) -> dict[str, Any]:
        """A staged revert (``revert/stage`` answer) in the pinned shape."""
        return revert

    def pending_item(self, item: dict[str, Any]) -> dict[str, Any]:
        """One pending input (list item or ``/prompt`` answer) as ``Session.Inbox.*``:
        ``{id, sessionID, timeCreated, type, payload, delivery}``."""
        return item

    def permission_request(self, data: dict[str, Any]) -> dict[str, Any]:
        return data

    def question_request(self, data: dict[str, Any]) -> dict[str, Any]:
        return data

    # -------------------------------------------------------------- request bodies
    def prompt_body(self, body: dict[str, Any]) -> dict[str, Any]:
        """The ``/prompt`` body from the pinned flat form (``{text, files?, agents?, skills?, …}``)."""
        return body

    def command_body(self, body: dict[str, Any]) -> dict[str, Any]:
        """The ``/command`` body from the pinned form (``{command, arguments?, files?, …}``)."""
        return body

    def compact_body(self, delivery: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {}
        if delivery and self.caps.compaction_delivery:
            body["delivery"] = delivery
        return body


def without_skills(body: dict[str, Any]) -> dict[str, Any]:
    """A body minus ``skills`` (servers whose strict bodies reject it)."""
    return {k: v for k, v in body.items() if k != "skills"}


__all__ = ["Capabilities", "Dialect", "Family", "FrameNormaliser", "IdentityFrames", "route_key",
           "without_skills"]
