"""Payload models of the session's own events: lifecycle, inbox, execution, steps, blocks, tools.

One pydantic model per v2 event type (PROTOCOL.md §5.4); ``tui.protocol.catalog`` holds the
rest and maps type names to models. Import them through ``tui.protocol.events``.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tui.protocol.models import (
    LocationRef,
    ModelRef,
    StructuredError,
    TokenUsage,
    ToolContent,
    Wire,
)


class Durable(Wire):
    """Envelope of a durable event: ``seq`` orders the events of one aggregate (session)."""

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
