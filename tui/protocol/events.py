"""Event envelope, the type → payload model catalogue (PROTOCOL.md §5.4) and the frame parser.

``parse_event`` never raises on bad data: a frame that is not an object is a ``ProtocolError``
for the caller to log, and a payload that does not fit its model, or a type nobody knows, becomes
an ``Unknown`` payload that keeps the raw data.

This is the hot path of the stream (issue #8: ≥ 100,000 events per CPU-second), so: one pydantic
validation per frame (the payload; pydantic-core beats any hand-written Python check-and-build
here), a plain slotted ``Event`` instead of a model, and the rarely read envelope fields
(``durable``, ``location``) validated lazily, on first access.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from tui.protocol.models import FileDiff, LocationRef
from tui.protocol.payloads import (
    AgentSelected,
    BlockDelta,
    BlockEnded,
    BlockStarted,
    Durable,
    ExecutionFailed,
    ExecutionInterrupted,
    ExecutionStarted,
    ExecutionSucceeded,
    InboxCancelled,
    InboxDelivered,
    InboxDeliveryChanged,
    InboxEnqueued,
    InboxItem,
    ModelSelected,
    Payload,
    ReasoningDelta,
    ReasoningEnded,
    ReasoningStarted,
    Refetch,
    ServerConnected,
    SessionCreated,
    SessionDeleted,
    SessionForked,
    SessionIdle,
    SessionMoved,
    SessionPayload,
    SessionRenamed,
    SessionStatus,
    SessionStatusInfo,
    SessionUpdated,
    StepEnded,
    StepFailed,
    StepPayload,
    StepStarted,
    TextDelta,
    TextEnded,
    TextStarted,
    ToolCalled,
    ToolFailed,
    ToolInputDelta,
    ToolInputEnded,
    ToolInputStarted,
    ToolPayload,
    ToolProgress,
    ToolSuccess,
    Unknown,
    UsageUpdated,
)
from tui.protocol.payloads_misc import (
    CommandExecute,
    CompactionDelta,
    CompactionEnded,
    CompactionFailed,
    CompactionStarted,
    FileChanged,
    FormCancelled,
    FormCreated,
    FormReplied,
    InstructionsUpdated,
    PermissionAsked,
    PermissionReplied,
    PromptAppend,
    QuestionAsked,
    QuestionRejected,
    QuestionReplied,
    RetryScheduled,
    RevertCleared,
    RevertCommitted,
    RevertStaged,
    SessionSelect,
    ShellEnded,
    ShellInfo,
    ShellOutput,
    ShellStarted,
    SkillActivated,
    Synthetic,
    ToastShow,
)


class ProtocolError(ValueError):
    """A frame that cannot be an event at all (not JSON, not an object, no type)."""


EVENT_MODELS: dict[str, type[Payload]] = {
    "server.connected": ServerConnected,
    "session.created": SessionCreated,
    "session.updated": SessionUpdated,
    "session.renamed": SessionRenamed,
    "session.moved": SessionMoved,
    "session.deleted": SessionDeleted,
    "session.forked": SessionForked,
    "session.agent.selected": AgentSelected,
    "session.model.selected": ModelSelected,
    "session.usage.updated": UsageUpdated,
    "session.status": SessionStatus,
    "session.idle": SessionIdle,
    "session.inbox.enqueued": InboxEnqueued,
    "session.inbox.delivered": InboxDelivered,
    "session.inbox.cancelled": InboxCancelled,
    "session.inbox.delivery.changed": InboxDeliveryChanged,
    "session.execution.started": ExecutionStarted,
    "session.execution.succeeded": ExecutionSucceeded,
    "session.execution.failed": ExecutionFailed,
    "session.execution.interrupted": ExecutionInterrupted,
    "session.step.started": StepStarted,
    "session.step.ended": StepEnded,
    "session.step.failed": StepFailed,
    "session.text.started": TextStarted,
    "session.text.delta": TextDelta,
    "session.text.ended": TextEnded,
    "session.reasoning.started": ReasoningStarted,
    "session.reasoning.delta": ReasoningDelta,
    "session.reasoning.ended": ReasoningEnded,
    "session.tool.input.started": ToolInputStarted,
    "session.tool.input.delta": ToolInputDelta,
    "session.tool.input.ended": ToolInputEnded,
    "session.tool.called": ToolCalled,
    "session.tool.progress": ToolProgress,
    "session.tool.success": ToolSuccess,
    "session.tool.failed": ToolFailed,
    "session.retry.scheduled": RetryScheduled,
    "session.compaction.started": CompactionStarted,
    "session.compaction.delta": CompactionDelta,
    "session.compaction.ended": CompactionEnded,
    "session.compaction.failed": CompactionFailed,
    "session.revert.staged": RevertStaged,
    "session.revert.cleared": RevertCleared,
    "session.revert.committed": RevertCommitted,
    "session.shell.started": ShellStarted,
    "session.shell.ended": ShellEnded,
    "session.synthetic": Synthetic,
    "session.skill.activated": SkillActivated,
    "session.instructions.updated": InstructionsUpdated,
    "permission.asked": PermissionAsked,
    "permission.replied": PermissionReplied,
    "question.asked": QuestionAsked,
    "question.replied": QuestionReplied,
    "question.rejected": QuestionRejected,
    "form.created": FormCreated,
    "form.replied": FormReplied,
    "form.cancelled": FormCancelled,
    "tui.toast.show": ToastShow,
    "tui.prompt.append": PromptAppend,
    "tui.command.execute": CommandExecute,
    "tui.session.select": SessionSelect,
    "filesystem.changed": FileChanged,
}

# Opaque "refetch" hints and other live notices that carry nothing we render.
for _name in (
    "catalog.updated", "agent.updated", "command.updated", "skill.updated", "config.updated",
    "plugin.updated", "plugin.added", "integration.updated", "integration.connection.updated",
    "models-dev.refreshed", "reference.updated", "websearch.updated", "mcp.status.changed",
    "mcp.resources.changed", "vcs.branch.updated", "worktree.updated", "worktree.resolved",
    "shell.created", "shell.exited", "shell.deleted", "pty.created", "pty.updated", "pty.exited",
    "pty.deleted", "installation.updated", "installation.update-available",
):
    EVENT_MODELS[_name] = Refetch

# The bound pydantic-core validators: ``model_validate`` minus a Python call layer per frame. Each
# is built the first time its kind arrives (the models are deferred: models.Wire).
_VALIDATORS: dict[str, Callable[[Any], Payload]] = {}


def _validator(kind: str) -> Callable[[Any], Payload] | None:
    """The validator of ``kind``'s model, built now (None: no model knows ``kind``)."""
    model = EVENT_MODELS.get(kind)
    if model is None:
        return None
    model.model_rebuild()  # builds a deferred model (nothing if it is built already)
    validate = _VALIDATORS[kind] = model.__pydantic_validator__.validate_python
    return validate


class Event:
    """A normalised (v2-shaped) event: envelope plus a typed payload.

    ``data`` is the frame's own ``data`` object (not copied: treat it as read-only). ``durable``
    and ``location`` keep the raw objects and validate them on first access; a value that does
    not fit its model reads as None, as if the server had not sent it.
    """

    __slots__ = ("id", "type", "created", "data", "payload", "durable_seq", "_durable", "_location")
    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __init__(self, type: str, payload: Payload | None = None, *, id: str = "",
                 created: float | None = None, data: dict[str, Any] | None = None,
                 durable: Durable | dict[str, Any] | None = None,
                 location: LocationRef | dict[str, Any] | None = None) -> None:
        self.id = id
        self.type = type
        self.created = _created(created)
        self.data: dict[str, Any] = {} if data is None else data
        self.payload: Payload = Unknown() if payload is None else payload
        self._durable: Any = durable if isinstance(durable, (dict, Durable)) else None
        self._location: Any = location if isinstance(location, (dict, LocationRef)) else None
        # ``(durable.aggregateID, durable.seq)`` or None: what the store de-duplicates on.
        self.durable_seq: tuple[str, int] | None = _durable_seq(self)

    @property
    def durable(self) -> Durable | None:
        value = self._durable
        if type(value) is dict:
            value = self._durable = _optional(Durable, value)
        return value

    @property
    def location(self) -> LocationRef | None:
        value = self._location
        if type(value) is dict:
            value = self._location = _optional(LocationRef, value)
        return value

    @property
    def session_id(self) -> str | None:
        value = self.data.get("sessionID")
        return value if isinstance(value, str) else None

    @property
    def is_unknown(self) -> bool:
        return isinstance(self.payload, Unknown)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return (self.id, self.type, self.created, self.data, self.payload, self.durable, self.location) \
            == (other.id, other.type, other.created, other.data, other.payload, other.durable, other.location)

    def __repr__(self) -> str:
        return f"Event(type={self.type!r}, id={self.id!r}, payload={self.payload!r})"


def parse_event(obj: Any) -> Event:
    """Build an ``Event`` from one decoded, already-normalised frame.

    Raises ``ProtocolError`` only when ``obj`` cannot be an event at all.
    """
    if not isinstance(obj, dict):
        raise ProtocolError(f"event frame is a {type(obj).__name__}, not an object")
    kind = obj.get("type")
    if not isinstance(kind, str) or not kind:
        raise ProtocolError("event frame has no type")
    data = obj.get("data")
    if not isinstance(data, dict):
        data = {}
    validate = _VALIDATORS.get(kind) or _validator(kind)
    payload: Payload
    if validate is None:
        payload = Unknown(problem=f"unknown event type {_short(kind)!r}")
    else:
        try:
            payload = validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            problem = f"{_short(kind)}: {where or 'data'}: {first.get('msg', 'invalid')}"
            payload = Unknown(problem=_short(problem, 200))
    # Built field by field: a plain class, so no validation layer; values as the model had them.
    event = _new_event(Event)
    event_id = obj.get("id")
    event.id = event_id if isinstance(event_id, str) else ""
    event.type = kind
    created = obj.get("created")
    if type(created) is int and -_FLOAT_SAFE < created < _FLOAT_SAFE:  # the usual: milliseconds
        event.created = float(created)
    else:
        event.created = created if type(created) is float else _created(created)
    event.data = data
    event.payload = payload
    location = obj.get("location")
    event._location = location if isinstance(location, dict) else None
    durable = obj.get("durable")
    if durable is None:
        event._durable = event.durable_seq = None
    else:
        event._durable = durable if isinstance(durable, dict) else None
        event.durable_seq = _durable_seq(event)
    return event


_new_event = object.__new__
_FLOAT_SAFE = 2**1000  # an int below this converts to float without OverflowError


def _durable_seq(event: Event) -> tuple[str, int] | None:
    """Reads the usual all-exact-types envelope straight from the raw object (the answer
    validation gives); anything else goes through ``durable``."""
    raw = event._durable
    if type(raw) is dict:
        aggregate = raw.get("aggregateID", "")
        seq = raw.get("seq", 0)
        version = raw.get("version", 1)
        if type(aggregate) is str and type(seq) is int and (type(version) is float or (
                type(version) is int and -_FLOAT_SAFE < version < _FLOAT_SAFE)):
            return aggregate, seq
    durable = event.durable
    return None if durable is None else (durable.aggregateID, durable.seq)


def _created(value: Any) -> float | None:
    """The envelope's ``created`` as a float (bools count as numbers, as pydantic's lax mode does)."""
    if isinstance(value, (int, float)):
        try:
            return float(value)
        except OverflowError:  # an integer beyond float range is no timestamp
            return None
    return None


def _short(text: str, limit: int = 80) -> str:
    """Keep problem strings concise even when the server sends a huge type name."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _optional(model: type[Durable] | type[LocationRef], value: Any) -> Any:
    if not isinstance(value, dict):
        return None
    try:
        return model.model_validate(value)
    except ValidationError:
        return None


__all__ = [
    "EVENT_MODELS", "AgentSelected", "BlockDelta", "BlockEnded", "BlockStarted", "CommandExecute",
    "CompactionDelta", "CompactionEnded", "CompactionFailed", "CompactionStarted", "Durable", "Event",
    "ExecutionFailed", "ExecutionInterrupted", "ExecutionStarted", "ExecutionSucceeded", "FileChanged",
    "FileDiff", "FormCancelled", "FormCreated", "FormReplied", "InboxCancelled", "InboxDelivered",
    "InboxDeliveryChanged", "InboxEnqueued", "InboxItem", "InstructionsUpdated", "ModelSelected",
    "Payload", "PermissionAsked", "PermissionReplied", "PromptAppend", "ProtocolError", "QuestionAsked",
    "QuestionRejected", "QuestionReplied", "ReasoningDelta", "ReasoningEnded", "ReasoningStarted",
    "Refetch", "RetryScheduled", "RevertCleared", "RevertCommitted", "RevertStaged", "ServerConnected",
    "SessionCreated", "SessionDeleted", "SessionForked", "SessionIdle", "SessionMoved", "SessionPayload",
    "SessionRenamed", "SessionSelect", "SessionStatus", "SessionStatusInfo", "SessionUpdated",
    "ShellEnded", "ShellInfo", "ShellOutput", "ShellStarted", "SkillActivated", "StepEnded",
    "StepFailed", "StepPayload", "StepStarted", "Synthetic", "TextDelta", "TextEnded", "TextStarted",
    "ToastShow", "ToolCalled", "ToolFailed", "ToolInputDelta", "ToolInputEnded", "ToolInputStarted",
    "ToolPayload", "ToolProgress", "ToolSuccess", "Unknown", "UsageUpdated", "parse_event",
]
