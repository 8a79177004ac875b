"""Payload models of the other events: retry, compaction, revert, shell, notices, asks, forms and
UI hints (PROTOCOL.md §5.4). ``tui.protocol.events`` maps type names to them.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tui.protocol.models import (
    FormInfo,
    PermissionRequest,
    QuestionRequest,
    SessionRevert,
    StructuredError,
    Wire,
)
from tui.protocol.payloads import Payload, SessionPayload


class RetryScheduled(SessionPayload):
    assistantMessageID: str = ""
    attempt: int = 0
    at: float = 0
    error: StructuredError = Field(default_factory=StructuredError)


class CompactionStarted(SessionPayload):
    reason: str = "manual"
    recent: Any = None
    inputID: str | None = None  # the admitted compaction item (also the history message id)


class CompactionDelta(SessionPayload):
    text: str = ""


class CompactionEnded(SessionPayload):
    reason: str = "manual"
    text: str = ""


class CompactionFailed(SessionPayload):
    reason: str = "manual"
    error: StructuredError = Field(default_factory=StructuredError)
    inputID: str | None = None


class RevertStaged(SessionPayload):
    revert: SessionRevert = Field(default_factory=SessionRevert)


class RevertCleared(SessionPayload):
    pass


class RevertCommitted(SessionPayload):
    to: str = ""
    keepBoundary: bool = False
    """octui's mark, set by the 1.18 dialect: the ``to`` message stays (2.x deletes it too)."""


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
