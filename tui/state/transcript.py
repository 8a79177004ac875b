"""Display model of sessions: messages, text/reasoning blocks, tool calls, pending input.

Plain dataclasses, no Textual. The store mutates them; widgets read them. Every mutable object
carries ``version``, bumped on each change, so a widget can skip a repaint when nothing moved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from tui.protocol.models import (
    FormInfo,
    ModelRef,
    PermissionRequest,
    QuestionRequest,
    SessionInfo,
    StructuredError,
    TokenUsage,
    ToolContent,
)

BlockKind = Literal["text", "reasoning"]
ToolStatus = Literal["streaming", "running", "completed", "error"]

SUBAGENT_TOOLS = frozenset({"subagent", "task"})
"""Tool names that spawn a child session (v2 ``subagent``, 1.18 ``task``)."""

# Where the server's own words name a subagent call's child when its ``metadata`` does not: a
# failed or cancelled call's stored state is self-contained (no metadata, no progress: both
# generations record ``{status: "error", input, error}``), but the failure text keeps the child's
# id "so the model can continue the child" (core ``tool/plugin/subagent.ts``).
_CHILD_IN_ERROR = re.compile(
    r"^(?:Subagent (?:failed|cancelled) \(sessionID: (?P<id>[^)\s]+)\)"
    r"|Failed to prompt subagent: (?P<prompted>\S+)$)")
_CHILD_IN_CONTENT = re.compile(r'^<subagent sessionID="(?P<id>[^"\s]+)"')


@dataclass
class TextBlock:
    """A text or reasoning block of an assistant message, keyed by ``ordinal``."""

    kind: BlockKind
    ordinal: int
    text: str = ""
    streaming: bool = False
    gap: bool = False
    """Deltas were missed before the next one (joined or reconnected mid-block; the stream has no
    replay and REST shows a running block as ""): that delta is joined with "…". ``*.ended``
    brings the whole text."""
    version: int = 0

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.ordinal}"


@dataclass
class ToolCall:
    """One tool call, alive from ``tool.input.started`` to ``tool.success``/``tool.failed``.

    ``metadata`` is tool-specific (v2 ``metadata``; 1.18 ``structured`` is normalised into it).
    ``progress`` is the latest ``tool.progress`` metadata (replaced, never merged).
    """

    id: str
    name: str = ""
    session_id: str = ""
    message_id: str = ""
    status: ToolStatus = "streaming"
    input_text: str = ""
    input: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    progress: dict[str, Any] = field(default_factory=dict)
    content: list[ToolContent] = field(default_factory=list)
    error: StructuredError | None = None
    time_created: float | None = None
    time_ran: float | None = None
    time_completed: float | None = None
    live_output: str = ""  # v2: output of a running shell, polled from /api/shell/{id}/output
    known_child: str = ""
    """A subagent call's child as the live stream named it (``tool.progress``), kept when the
    server's history is loaded again and its form of the call names no child (see
    ``tui.state.history.carry_call_marks``)."""
    rejected: bool = False
    """Its permission was refused (the servers end such a call with an error that does not say
    so: "Tool execution interrupted")."""
    shown_patch: str = ""
    """A whole-file write the server sent no diff for (1.18): its diff against the file as read
    when it was answered (shown in its dialog, or read before the mode allowed it), once the
    server confirmed the answer: its row shows that, not only the new content."""
    version: int = 0

    @property
    def key(self) -> str:
        return f"tool:{self.id}"

    @property
    def shell_id(self) -> str | None:
        for source in (self.progress, self.metadata):
            value = source.get("shellID")
            if isinstance(value, str) and value:
                return value
        return None

    @property
    def output_text(self) -> str:
        """Text content joined, as the model saw it."""
        return "\n".join(c.text for c in self.content if c.type == "text" and c.text)

    @property
    def child_session_id(self) -> str | None:
        """The child session of a subagent call: its progress or result ``metadata.sessionID``;
        else (a failed call from history keeps no metadata) the id its error or result text
        names; else the one the live stream named before."""
        for source in (self.progress, self.metadata):
            value = source.get("sessionID")
            if isinstance(value, str) and value:
                return value
        if self.name and self.name not in SUBAGENT_TOOLS:
            return None
        if self.error is not None and (match := _CHILD_IN_ERROR.match(self.error.message or "")):
            return match.group("id") or match.group("prompted")
        if self.status == "completed" and self.content and self.content[0].type == "text" \
                and (match := _CHILD_IN_CONTENT.match(self.content[0].text or "")):
            return match.group("id")
        return self.known_child or None

    @property
    def finished(self) -> bool:
        return self.status in ("completed", "error")


Part = TextBlock | ToolCall

MessageRole = Literal[
    "user", "assistant", "synthetic", "system", "shell", "compaction", "skill",
    "agent-switched", "model-switched", "location-switched", "notice",
]


@dataclass
class Message:
    """A transcript entry. ``text`` serves user/synthetic/system/notice roles; ``parts`` assistant."""

    id: str
    role: MessageRole
    session_id: str = ""
    time_created: float | None = None
    time_completed: float | None = None
    text: str = ""
    description: str | None = None
    parts: list[Part] = field(default_factory=list)
    agent: str | None = None
    model: ModelRef | None = None
    finish: str | None = None
    error: StructuredError | None = None
    cost: float = 0
    tokens: TokenUsage | None = None
    files: list[dict[str, Any]] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    reverted: bool = False
    interrupted: str | None = None  # why the turn is over though the server never ended it
    lost_text: str = ""  # text that streamed in but the server's history does not have
    server_lengths: dict[str, int] = field(default_factory=dict)  # block key -> server's length,
    # for blocks holding streamed text past what the history has (tui/state/interrupts.py)
    version: int = 0

    def part(self, key: str) -> Part | None:
        for part in self.parts:
            if part.key == key:
                return part
        return None

    def tool(self, call_id: str) -> ToolCall | None:
        part = self.part(f"tool:{call_id}")
        return part if isinstance(part, ToolCall) else None

    def block(self, kind: BlockKind, ordinal: int) -> TextBlock | None:
        part = self.part(f"{kind}:{ordinal}")
        return part if isinstance(part, TextBlock) else None

    @property
    def streaming(self) -> bool:
        return self.role == "assistant" and self.time_completed is None and self.finish is None \
            and self.error is None and self.interrupted is None


@dataclass
class PendingInput:
    """A prompt admitted to the session inbox but not yet delivered (steer or queue)."""

    id: str
    text: str
    delivery: str = "steer"
    kind: str = "user"  # user | synthetic | compaction | move
    description: str | None = None  # synthetic items (e.g. a background subagent's report)
    metadata: dict[str, Any] = field(default_factory=dict)  # synthetic: {source, childID, state…}
    time_created: float | None = None


@dataclass
class SessionState:
    """Everything octui knows about one session."""

    id: str
    info: SessionInfo | None = None
    messages: dict[str, Message] = field(default_factory=dict)
    inbox: dict[str, PendingInput] = field(default_factory=dict)
    busy: bool = False
    executing: bool = False  # 2.x: between execution.started and its end (steps come and go inside)
    status_note: str | None = None  # retry countdowns and similar
    cost: float = 0
    tokens: TokenUsage = field(default_factory=TokenUsage)
    usage_from_server: bool = False  # v2 sends running totals; 1.18 needs summing
    last_seq: int = -1
    loaded: bool = False  # history fetched at least once
    older: bool = False  # the server holds older messages than ``messages`` (paged in later)
    marks_aside: dict[str, Message] = field(default_factory=dict)  # interrupted messages a reload
    # dropped (its newest page did not reach them), until a page brings them back (interrupts.py)
    version: int = 0

    @property
    def title(self) -> str:
        if self.info and self.info.title:
            return self.info.title
        return self.id

    @property
    def parent_id(self) -> str | None:
        return self.info.parentID if self.info else None

    def ordered_messages(self) -> list[Message]:
        return list(self.messages.values())

    @property
    def context_tokens(self) -> float:
        """Tokens the model saw on its latest step: the context window in use."""
        for msg in reversed(self.messages.values()):
            if msg.role == "assistant" and msg.tokens is not None and msg.tokens.input:
                return msg.tokens.input + msg.tokens.cache.read + msg.tokens.cache.write
        return 0.0


Ask = PermissionRequest | QuestionRequest | FormInfo


def ask_call(ask: Ask) -> tuple[str, str]:
    """The (assistant message id, tool call id) an ask belongs to; empty strings if none."""
    if isinstance(ask, PermissionRequest) and ask.source is not None:
        return ask.source.messageID, ask.source.id
    if isinstance(ask, QuestionRequest) and ask.tool is not None:
        return ask.tool.messageID, ask.tool.id
    if isinstance(ask, FormInfo) and isinstance((ask.metadata or {}).get("tool"), dict):
        tool = (ask.metadata or {})["tool"]
        return str(tool.get("messageID", "")), str(tool.get("id", ""))
    return "", ""


def ask_kind(ask: Ask) -> Literal["permission", "question", "form"]:
    if isinstance(ask, PermissionRequest):
        return "permission"
    if isinstance(ask, QuestionRequest):
        return "question"
    return "form"
