"""Wire shapes shared by REST responses and event payloads (v2 names; 1.18 is normalised first).

Every model is tolerant: unknown fields are kept (``extra="allow"``) and most fields have
defaults, because servers add fields faster than clients ship.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Wire(BaseModel):
    """Base for every wire model: keep unknown fields, never fail on them.

    Each model's validator is built when the model is first used, not when it is defined
    (``defer_build``): a session uses a few dozen of the ~100, and building them all at import
    took ~2 MB that stayed for the process's life."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)


class LocationRef(Wire):
    directory: str = ""
    workspaceID: str | None = None


class ModelRef(Wire):
    id: str = ""
    providerID: str = ""
    variant: str | None = None

    @property
    def label(self) -> str:
        base = f"{self.providerID}/{self.id}" if self.providerID else self.id
        return f"{base}#{self.variant}" if self.variant and self.variant != "default" else base


class CacheTokens(Wire):
    read: float = 0
    write: float = 0


class TokenUsage(Wire):
    input: float = 0
    output: float = 0
    reasoning: float = 0
    cache: CacheTokens = Field(default_factory=CacheTokens)

    @property
    def total(self) -> float:
        return self.input + self.output + self.reasoning + self.cache.read + self.cache.write


class StructuredError(Wire):
    type: str = "unknown"
    message: str = ""
    status: int | None = None


class FileDiff(Wire):
    file: str = ""
    patch: str = ""
    additions: int = 0
    deletions: int = 0
    status: str = "modified"  # added | deleted | modified

    @model_validator(mode="before")
    @classmethod
    def _path_is_the_file(cls, data: Any) -> Any:
        # 1.18.33's revert lists each file under "path" (QA: the undo panel said "(unnamed)").
        if isinstance(data, dict) and "file" not in data and isinstance(data.get("path"), str):
            return {**data, "file": data["path"]}
        return data


class SessionTime(Wire):
    created: float = 0
    updated: float = 0
    archived: float | None = None


class SessionRevert(Wire):
    messageID: str = ""
    partID: str | None = None
    snapshot: str | None = None
    files: list[FileDiff] | None = None
    keepBoundary: bool = False
    """octui's mark, set by the 1.18 dialect: a commit keeps the ``messageID`` message itself (only
    the messages after it are reverted); 2.x reverts the boundary message too (TRACES.md 3)."""


class SessionInfo(Wire):
    id: str
    parentID: str | None = None
    projectID: str = ""
    agent: str | None = None
    model: ModelRef | None = None
    cost: float = 0
    tokens: TokenUsage = Field(default_factory=TokenUsage)
    time: SessionTime = Field(default_factory=SessionTime)
    title: str | None = None
    location: LocationRef | None = None
    subpath: str | None = None
    revert: SessionRevert | None = None


class ToolContent(Wire):
    type: str = "text"  # text | file
    text: str | None = None
    uri: str | None = None
    mime: str | None = None
    name: str | None = None


class PermissionSource(Wire):
    type: str = "tool"
    messageID: str = ""
    id: str = ""  # tool call id


class PermissionRequest(Wire):
    id: str
    sessionID: str
    action: str = ""
    resources: list[str] = Field(default_factory=list)
    save: list[str] | None = None
    metadata: dict[str, Any] | None = None
    source: PermissionSource | None = None


PermissionReply = Literal["once", "always", "reject"]


class QuestionOption(Wire):
    label: str = ""
    description: str = ""


class QuestionItem(Wire):
    question: str = ""
    header: str = ""
    options: list[QuestionOption] = Field(default_factory=list)
    multiple: bool | None = None
    custom: bool | None = None


class QuestionTool(Wire):
    messageID: str = ""
    id: str = ""


class QuestionRequest(Wire):
    id: str
    sessionID: str
    questions: list[QuestionItem] = Field(default_factory=list)
    tool: QuestionTool | None = None


class FormOption(Wire):
    value: str = ""
    label: str = ""
    description: str | None = None


class FormCondition(Wire):
    key: str = ""
    op: str = "eq"  # eq | neq
    value: Any = None


class FormField(Wire):
    """One field of a v2 form; ``type`` picks which of the optional attributes apply."""

    key: str
    type: str = "string"  # string | number | integer | boolean | multiselect | external
    title: str | None = None
    description: str | None = None
    required: bool | None = None
    when: list[FormCondition] | None = None
    default: Any = None
    options: list[FormOption] | None = None
    custom: bool | None = None
    format: str | None = None
    minLength: int | None = None
    maxLength: int | None = None
    pattern: str | None = None
    placeholder: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    minItems: int | None = None
    maxItems: int | None = None
    url: str | None = None


class FormInfo(Wire):
    id: str
    sessionID: str
    title: str = ""
    metadata: dict[str, Any] | None = None
    fields: list[FormField] = Field(default_factory=list)


class ModelLimit(Wire):
    context: float = 0
    input: float | None = None
    output: float = 0


class ModelInfo(Wire):
    id: str
    providerID: str = ""
    name: str = ""
    limit: ModelLimit = Field(default_factory=ModelLimit)
    enabled: bool = True
    status: str | None = None
    variants: list[Any] = Field(default_factory=list)


class AgentInfo(Wire):
    id: str = ""
    name: str = ""
    description: str | None = None
    mode: str = "primary"  # subagent | primary | all
    hidden: bool = False
    color: str | None = None


class CommandInfo(Wire):
    name: str
    template: str = ""
    description: str | None = None
    agent: str | None = None


class SkillInfo(Wire):
    """``GET /api/skill`` item. 1.18 sends no ``id``: the name is the id there."""

    id: str = ""
    name: str = ""
    description: str | None = None
    slash: bool | None = None  # False: not offered as a /command
    location: str = ""

    @property
    def key(self) -> str:
        return self.id or self.name


class Health(Wire):
    healthy: bool = False
    version: str | None = None
    pid: int | None = None
