"""Event envelope and one payload model per v2 event type (PROTOCOL.md §5.4).

``parse_event`` never raises on bad data: a frame that is not an object is a ``ProtocolError``
for the caller to log, and a payload that does not fit its model, or a type nobody knows, becomes
an ``Unknown`` payload that keeps the raw data.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, ValidationError

from tui.protocol.models import (
    FileDiff,
    FormInfo,
    LocationRef,
    ModelRef,
    PermissionRequest,
    QuestionRequest,
    SessionRevert,
    StructuredError,
    TokenUsage,
    ToolContent,
    Wire,
)


class ProtocolError(ValueError):
    """A frame that cannot be an event at all (not JSON, not an object, no type)."""


class Durable(Wire):
    aggregateID: str = ""
    seq: int = 0
    version: float = 1


class Payload(Wire):
    """Base of every payload model."""


class Unknown(Payload):
    """A payload of an unknown type, or one that failed validation; ``problem`` says why."""

    problem: str = ""


class SessionPayload(Payload):
    sessionID: str


class ServerConnected(Payload):
    pass


class Refetch(Payload):
    """Catalog-style hints: "something changed, refetch"."""


class SessionCreated(SessionPayload):
    projectID: str = ""
    location: LocationRef | None = None
    subpath: str | None = None
    parentID: str | None = None
    slug: str = ""
    title: str | None = None
    agent: str | None = None
    model: ModelRef | None = None
    version: str = ""


class SessionUpdated(SessionCreated):
    """1.18 only: the whole session info changed (v2 sends renamed/moved/selected instead)."""


class SessionRenamed(SessionPayload):
    title: str = ""


class SessionMoved(SessionPayload):
    location: LocationRef | None = None
    projectID: str = ""
    subpath: str | None = None


class SessionDeleted(SessionPayload):
    pass


class SessionForked(SessionPayload):
    parentID: str = ""
    boundary: Any = None


class AgentSelected(SessionPayload):
    agent: str = ""
    previous: str | None = None


class ModelSelected(SessionPayload):
    model: ModelRef = Field(default_factory=ModelRef)
    previous: ModelRef | None = None


class UsageUpdated(SessionPayload):
    cost: float = 0
    tokens: TokenUsage = Field(default_factory=TokenUsage)


class SessionStatusInfo(Wire):
    type: str = "idle"  # idle | busy | retry
    attempt: int | None = None
    message: str | None = None
    next: float | None = None


class SessionStatus(SessionPayload):
    status: SessionStatusInfo = Field(default_factory=SessionStatusInfo)


class SessionIdle(SessionPayload):
    pass


class InboxItem(Wire):
    type: str = "user"  # user | synthetic | compaction | move
    payload: dict[str, Any] = Field(default_factory=dict)
    delivery: str = "steer"


class InboxEnqueued(SessionPayload):
    inboxID: str
    item: InboxItem = Field(default_factory=InboxItem)


class InboxDelivered(SessionPayload):
    inboxID: str


class InboxCancelled(SessionPayload):
    inboxID: str


class InboxDeliveryChanged(SessionPayload):
    inboxID: str
    delivery: str = "steer"


class ExecutionStarted(SessionPayload):
    pass


class ExecutionSucceeded(SessionPayload):
    pass


class ExecutionFailed(SessionPayload):
    error: StructuredError = Field(default_factory=StructuredError)


class ExecutionInterrupted(SessionPayload):
    reason: str = "user"


class StepPayload(SessionPayload):
    assistantMessageID: str


class StepStarted(StepPayload):
    agent: str = ""
    model: ModelRef = Field(default_factory=ModelRef)
    snapshot: str | None = None


class StepEnded(StepPayload):
    finish: str = "stop"
    cost: float = 0
    tokens: TokenUsage = Field(default_factory=TokenUsage)
    snapshot: str | None = None
    files: list[Any] | None = None


class StepFailed(StepPayload):
    error: StructuredError = Field(default_factory=StructuredError)
    cost: float | None = None
    tokens: TokenUsage | None = None


class BlockStarted(StepPayload):
    ordinal: int = Field(ge=0)


class BlockDelta(StepPayload):
    ordinal: int = Field(ge=0)
    delta: str = ""


class BlockEnded(StepPayload):
    ordinal: int = Field(ge=0)
    text: str = ""


class TextStarted(BlockStarted):
    pass


class TextDelta(BlockDelta):
    pass


class TextEnded(BlockEnded):
    pass


class ReasoningStarted(BlockStarted):
    pass


class ReasoningDelta(BlockDelta):
    pass


class ReasoningEnded(BlockEnded):
    pass


class ToolPayload(StepPayload):
    id: str = Field(min_length=1)  # rows are keyed by (assistantMessageID, id): never empty


class ToolInputStarted(ToolPayload):
    name: str = ""


class ToolInputDelta(ToolPayload):
    delta: str = ""


class ToolInputEnded(ToolPayload):
    text: str = ""


class ToolCalled(ToolPayload):
    input: dict[str, Any] = Field(default_factory=dict)
    executed: bool = False
    name: str | None = None  # 1.18 carries the tool name here too


class ToolProgress(ToolPayload):
    metadata: dict[str, Any] = Field(default_factory=dict)


class ToolSuccess(ToolPayload):
    content: list[ToolContent] = Field(default_factory=list)
    metadata: dict[str, Any] | None = None
    executed: bool = False


class ToolFailed(ToolPayload):
    error: StructuredError = Field(default_factory=StructuredError)
    content: list[ToolContent] | None = None
    metadata: dict[str, Any] | None = None
    executed: bool = False


class RetryScheduled(SessionPayload):
    assistantMessageID: str = ""
    attempt: int = 0
    at: float = 0
    error: StructuredError = Field(default_factory=StructuredError)


class CompactionStarted(SessionPayload):
    reason: str = "manual"
    recent: Any = None


class CompactionDelta(SessionPayload):
    text: str = ""


class CompactionEnded(SessionPayload):
    reason: str = "manual"
    text: str = ""


class CompactionFailed(SessionPayload):
    reason: str = "manual"
    error: StructuredError = Field(default_factory=StructuredError)


class RevertStaged(SessionPayload):
    revert: SessionRevert = Field(default_factory=SessionRevert)


class RevertCleared(SessionPayload):
    pass


class RevertCommitted(SessionPayload):
    to: str = ""


class ShellInfo(Wire):
    id: str = ""
    status: str = "running"
    command: str = ""
    exit: int | None = None


class ShellOutput(Wire):
    output: str = ""
    cursor: int = 0
    size: int = 0
    truncated: bool = False


class ShellStarted(SessionPayload):
    shell: ShellInfo = Field(default_factory=ShellInfo)


class ShellEnded(SessionPayload):
    shell: ShellInfo = Field(default_factory=ShellInfo)
    output: ShellOutput = Field(default_factory=ShellOutput)


class Synthetic(SessionPayload):
    text: str = ""
    description: str | None = None
    metadata: dict[str, Any] | None = None


class SkillActivated(SessionPayload):
    id: str = ""
    name: str = ""
    text: str = ""


class InstructionsUpdated(SessionPayload):
    delta: dict[str, Any] = Field(default_factory=dict)  # {sourceKey: sha256 | "removed"}
    text: str | None = None


class PermissionAsked(PermissionRequest, Payload):
    pass


class PermissionReplied(SessionPayload):
    requestID: str
    reply: str = ""


class QuestionAsked(QuestionRequest, Payload):
    pass


class QuestionReplied(SessionPayload):
    requestID: str
    answers: list[list[str]] = Field(default_factory=list)


class QuestionRejected(SessionPayload):
    requestID: str


class FormCreated(Payload):
    form: FormInfo


class FormReplied(SessionPayload):
    id: str
    answer: dict[str, Any] = Field(default_factory=dict)


class FormCancelled(SessionPayload):
    id: str


class ToastShow(Payload):
    title: str | None = None
    message: str = ""
    variant: str = "info"


class PromptAppend(Payload):
    text: str = ""


class CommandExecute(Payload):
    command: str = ""


class SessionSelect(Payload):
    sessionID: str = ""


class FileChanged(Payload):
    file: str = ""
    event: str = ""


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


class Event(BaseModel):
    """A normalised (v2-shaped) event: envelope plus a typed payload."""

    id: str = ""
    type: str
    created: float | None = None
    location: LocationRef | None = None
    durable: Durable | None = None
    data: dict[str, Any] = Field(default_factory=dict)
    payload: Payload = Field(default_factory=Unknown)

    @property
    def session_id(self) -> str | None:
        value = self.data.get("sessionID")
        return value if isinstance(value, str) else None

    @property
    def is_unknown(self) -> bool:
        return isinstance(self.payload, Unknown)


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
    durable = _optional(Durable, obj.get("durable"))
    location = _optional(LocationRef, obj.get("location"))
    created = obj.get("created")
    model = EVENT_MODELS.get(kind)
    payload: Payload
    if model is None:
        payload = Unknown(problem=f"unknown event type {_short(kind)!r}")
    else:
        try:
            payload = model.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            problem = f"{_short(kind)}: {where or 'data'}: {first.get('msg', 'invalid')}"
            payload = Unknown(problem=_short(problem, 200))
    return Event(
        id=obj["id"] if isinstance(obj.get("id"), str) else "",
        type=kind,
        created=created if isinstance(created, (int, float)) else None,
        location=location,
        durable=durable,
        data=data,
        payload=payload,
    )


def _short(text: str, limit: int = 80) -> str:
    """Keep problem strings concise even when the server sends a huge type name."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _optional(model: type[Wire], value: Any) -> Any:
    if not isinstance(value, dict):
        return None
    try:
        return model.model_validate(value)
    except ValidationError:
        return None


__all__ = ["Event", "EVENT_MODELS", "FileDiff", "ProtocolError", "Unknown", "parse_event"]
