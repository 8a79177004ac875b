"""Provides the pure logic behind approval, question and form dialogs.

No Textual here: answer types the dialogs return, question selection state, form visibility
(``when``), defaults, validation and answer building, the question-kind form conversion
(``q0..qN``), the permission preview (command or diff) and one-line inbox summaries.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import re
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlparse

from tui.protocol.models import (
    FileDiff,
    FormField,
    FormInfo,
    FormOption,
    PermissionRequest,
    QuestionItem,
    QuestionOption,
    QuestionRequest,
    QuestionTool,
)
from tui.sanitize import clean_text, one_line
from tui.state.transcript import Ask, ToolCall

PermissionReplyKind = Literal["once", "always", "reject"]


@dataclass(frozen=True)
class PermissionAnswer:
    reply: PermissionReplyKind
    message: str | None = None


@dataclass(frozen=True)
class QuestionAnswer:
    answers: list[list[str]]


@dataclass(frozen=True)
class QuestionDismissed:
    pass


@dataclass(frozen=True)
class FormAnswer:
    answer: dict[str, Any]


@dataclass(frozen=True)
class FormDismissed:
    pass


AskAnswer = PermissionAnswer | QuestionAnswer | QuestionDismissed | FormAnswer | FormDismissed

# --------------------------------------------------------------------------------------- questions


@dataclass
class QuestionState:
    """What the user picked for one question: option indexes plus an optional typed answer."""

    item: QuestionItem
    selected: list[int] = field(default_factory=list)
    custom_text: str = ""

    @property
    def multiple(self) -> bool:
        return bool(self.item.multiple)

    @property
    def allows_custom(self) -> bool:
        return self.item.custom is not False

    def pick(self, index: int) -> None:
        """Single choice: choose ``index`` (clears typed text); multiple: toggle it."""
        if not 0 <= index < len(self.item.options):
            return
        if self.multiple:
            self.toggle(index)
        else:
            self.selected = [index]
            self.custom_text = ""

    def toggle(self, index: int) -> None:
        if not 0 <= index < len(self.item.options):
            return
        if index in self.selected:
            self.selected.remove(index)
        else:
            self.selected = sorted([*self.selected, index])

    def set_custom(self, text: str) -> None:
        """Typed answer; in single choice it replaces the picked option."""
        if not self.allows_custom:
            return
        self.custom_text = text
        if text.strip() and not self.multiple:
            self.selected = []

    def answer(self) -> list[str]:
        """Labels in option order, then the typed text (if any)."""
        labels = [self.item.options[i].label for i in self.selected if i < len(self.item.options)]
        typed = self.custom_text.strip() if self.allows_custom else ""
        if not self.multiple:
            return [typed] if typed else labels[:1]
        return [*labels, typed] if typed else labels

    @property
    def answered(self) -> bool:
        return bool(self.answer())


def build_question_answer(states: list[QuestionState]) -> QuestionAnswer:
    return QuestionAnswer([state.answer() for state in states])


# ------------------------------------------------------------------------------------------- forms

FormValues = dict[str, Any]
"""Raw editor values by key: str for string/number/integer, bool, list[str] for multiselect."""


def is_question_form(form: FormInfo) -> bool:
    return bool(form.metadata) and (form.metadata or {}).get("kind") == "question"


def initial_values(form: FormInfo) -> FormValues:
    """Editor values before the user touches anything (defaults; booleans start False)."""
    values: FormValues = {}
    for f in form.fields:
        if f.type == "external":
            continue
        if f.type == "boolean":
            values[f.key] = bool(f.default) if f.default is not None else False
        elif f.type == "multiselect":
            values[f.key] = [str(v) for v in f.default] if isinstance(f.default, list) else []
        elif f.default is not None:
            values[f.key] = str(f.default) if not isinstance(f.default, bool) else str(f.default).lower()
        else:
            values[f.key] = ""
    return values


def _typed(f: FormField, raw: Any) -> Any:
    """The wire value for a raw editor value (None when empty or not convertible)."""
    if raw is None:
        return None
    if f.type == "boolean":
        return bool(raw)
    if f.type == "multiselect":
        return [str(v) for v in raw] if isinstance(raw, list) else None
    text = str(raw).strip()
    if not text:
        return None
    if f.type in ("number", "integer"):
        try:
            number = float(text)
        except ValueError:
            return None
        if f.type == "integer":
            return int(number) if number.is_integer() else None
        return int(number) if number.is_integer() and "." not in text and "e" not in text.lower() \
            else number
    return text


def _matches(cond_value: Any, actual: Any) -> bool:
    if actual is None:
        return cond_value is None
    if isinstance(actual, list) and not isinstance(cond_value, list):
        return any(_matches(cond_value, item) for item in actual)
    if isinstance(actual, bool) or isinstance(cond_value, bool):
        return str(actual).lower() == str(cond_value).lower()
    if isinstance(actual, int | float) and isinstance(cond_value, int | float):
        return float(actual) == float(cond_value)
    return bool(actual == cond_value) or str(actual) == str(cond_value)


def _conditions_hold(f: FormField, typed: dict[str, Any]) -> bool:
    for cond in f.when or []:
        hit = _matches(cond.value, typed.get(cond.key))
        if (cond.op == "neq") == hit:
            return False
    return True


def visible_keys(form: FormInfo, values: FormValues) -> set[str]:
    """Keys of the fields to show. A hidden field counts as unanswered, so chains collapse."""
    by_key = {f.key: f for f in form.fields}
    typed = {k: _typed(by_key[k], v) for k, v in values.items() if k in by_key}
    visible = {f.key for f in form.fields}
    for _ in range(len(form.fields) + 1):
        current = {k: v for k, v in typed.items() if k in visible}
        nxt = {f.key for f in form.fields if _conditions_hold(f, current)}
        if nxt == visible:
            break
        visible = nxt
    return visible


_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def _format_error(fmt: str, text: str) -> str | None:
    if fmt == "email" and not _EMAIL.match(text):
        return "Enter an email address"
    if fmt == "uri":
        parts = urlparse(text)
        if not parts.scheme or not (parts.netloc or parts.path):
            return "Enter a URI such as https://example.com"
    if fmt == "date":
        try:
            _dt.date.fromisoformat(text)
        except ValueError:
            return "Enter a date as YYYY-MM-DD"
    if fmt == "date-time":
        try:
            _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return "Enter a date-time as YYYY-MM-DDTHH:MM:SS"
    return None


def _option_values(f: FormField) -> list[str]:
    return [o.value for o in f.options or []]


def validate_field(f: FormField, raw: Any) -> str | None:
    """One message for the first rule ``raw`` breaks, or None."""
    if f.type == "external":
        return None
    value = _typed(f, raw)
    empty = value is None or value == [] or (f.type == "boolean" and value is False and f.required)
    if empty:
        if f.type in ("number", "integer") and raw not in (None, "") and str(raw).strip():
            return "Enter a whole number" if f.type == "integer" else "Enter a number"
        return "Required" if f.required else None
    if f.type in ("number", "integer"):
        if f.minimum is not None and value < f.minimum:
            return f"Must be at least {_num(f.minimum)}"
        if f.maximum is not None and value > f.maximum:
            return f"Must be at most {_num(f.maximum)}"
        return None
    if f.type == "multiselect":
        count = len(value)
        if f.minItems is not None and count < f.minItems:
            return f"Pick at least {f.minItems}"
        if f.maxItems is not None and count > f.maxItems:
            return f"Pick at most {f.maxItems}"
        if f.options and not f.custom:
            unknown = [v for v in value if v not in _option_values(f)]
            if unknown:
                return f"Not an option: {one_line(unknown[0], 40)}"
        return None
    if f.type == "string":
        text = str(value)
        if f.options and not f.custom and text not in _option_values(f):
            return "Pick one of the options"
        if f.minLength is not None and len(text) < f.minLength:
            return f"At least {f.minLength} characters"
        if f.maxLength is not None and len(text) > f.maxLength:
            return f"At most {f.maxLength} characters"
        if f.pattern:
            try:
                if not re.search(f.pattern, text):
                    return "Does not match the expected pattern"
            except re.error:
                pass
        if f.format:
            return _format_error(f.format, text)
    return None


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def validate_form(form: FormInfo, values: FormValues) -> dict[str, str]:
    """Error message by key, for visible fields only."""
    shown = visible_keys(form, values)
    errors: dict[str, str] = {}
    for f in form.fields:
        if f.key in shown and (message := validate_field(f, values.get(f.key))):
            errors[f.key] = message
    return errors


def build_form_answer(form: FormInfo, values: FormValues) -> FormAnswer:
    """The ``{answer}`` body: visible, non-empty fields with wire types."""
    shown = visible_keys(form, values)
    answer: dict[str, Any] = {}
    for f in form.fields:
        if f.type == "external" or f.key not in shown:
            continue
        value = _typed(f, values.get(f.key))
        if value is None or (value == [] and not f.required):
            continue
        answer[f.key] = value
    return FormAnswer(answer)


# ------------------------------------------------------------------ question-kind form conversion


def question_from_form(form: FormInfo) -> QuestionRequest:
    """A question-kind form (fields ``q0..qN``) as the question-dialog model."""
    items = [
        QuestionItem(
            question=f.description or f.title or "",
            header=f.title or f.key,
            options=[QuestionOption(label=o.label or o.value, description=o.description or "")
                     for o in f.options or []],
            multiple=f.type == "multiselect",
            custom=f.custom is not False,
        )
        for f in form.fields
        if f.type != "external"
    ]
    tool = (form.metadata or {}).get("tool")
    return QuestionRequest(
        id=form.id,
        sessionID=form.sessionID,
        questions=items,
        tool=QuestionTool.model_validate(tool) if isinstance(tool, dict) else None,
    )


def form_from_question(request: QuestionRequest) -> FormInfo:
    """The reverse: a question request as the server's question-kind form."""
    fields = [
        FormField(
            key=f"q{i}",
            type="multiselect" if item.multiple else "string",
            title=item.header,
            description=item.question,
            options=[FormOption(value=o.label, label=o.label, description=o.description or None)
                     for o in item.options],
            custom=item.custom is not False,
        )
        for i, item in enumerate(request.questions)
    ]
    metadata: dict[str, Any] = {"kind": "question"}
    if request.tool is not None:
        metadata["tool"] = request.tool.model_dump()
    return FormInfo(id=request.id, sessionID=request.sessionID, title="Questions",
                    metadata=metadata, fields=fields)


def form_answer_from_question(form: FormInfo, answer: QuestionAnswer) -> FormAnswer:
    """``[["Blue"], ["a", "b"]]`` -> ``{"q0": "Blue", "q1": ["a", "b"]}`` (labels -> values)."""
    fields = [f for f in form.fields if f.type != "external"]
    body: dict[str, Any] = {}
    for f, picked in zip(fields, answer.answers, strict=False):
        by_label = {(o.label or o.value): o.value for o in f.options or []}
        values = [by_label.get(label, label) for label in picked]
        if f.type == "multiselect":
            body[f.key] = values
        elif values:
            body[f.key] = values[0]
    return FormAnswer(body)


def answer_for(ask: Ask, result: AskAnswer | None) -> AskAnswer | None:
    """What to send for ``ask``: question answers to a question-kind form become form answers."""
    if isinstance(ask, FormInfo):
        if isinstance(result, QuestionAnswer):
            return form_answer_from_question(ask, result)
        if isinstance(result, QuestionDismissed):
            return FormDismissed()
    return result


# ------------------------------------------------------------------------- permission preview

DiffKind = Literal["add", "del", "hunk", "meta", "ctx"]
PREVIEW_LINES = 400


@dataclass(frozen=True)
class PermissionPreview:
    """What a permission dialog shows besides action and resources."""

    command: str | None = None
    diff: list[tuple[DiffKind, str]] = field(default_factory=list)
    truncated: int = 0


SHELL_ACTIONS = ("bash", "shell")
EDIT_ACTIONS = ("edit", "write", "patch", "apply_patch")


def _diff_kind(line: str) -> DiffKind:
    if line.startswith(("+++", "---", "Index:", "====", "diff ")):
        return "meta"
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("+"):
        return "add"
    if line.startswith("-"):
        return "del"
    return "ctx"


def _files(ask: PermissionRequest) -> list[FileDiff]:
    raw = (ask.metadata or {}).get("files")
    out: list[FileDiff] = []
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, FileDiff):
            out.append(item)
        elif isinstance(item, dict):
            out.append(FileDiff.model_validate(item))
    return out


def _tool_patch(tool: ToolCall) -> list[str]:
    data = tool.input
    path = str(data.get("path") or data.get("filePath") or "file")
    if isinstance(data.get("oldString"), str) or isinstance(data.get("newString"), str):
        old = str(data.get("oldString") or "").splitlines()
        new = str(data.get("newString") or "").splitlines()
        return list(difflib.unified_diff(old, new, f"a/{path}", f"b/{path}", lineterm=""))
    if isinstance(data.get("content"), str):
        lines = data["content"].splitlines()
        return [f"+++ {path}", f"@@ -0,0 +1,{len(lines)} @@", *(f"+{line}" for line in lines)]
    if isinstance(data.get("patchText"), str):
        return data["patchText"].splitlines()
    return []


def permission_preview(ask: PermissionRequest, tool: ToolCall | None) -> PermissionPreview:
    """The command for shell asks, or a diff (server preview first, then the tool input)."""
    if ask.action in SHELL_ACTIONS or (tool is not None and tool.name in SHELL_ACTIONS):
        command = tool.input.get("command") if tool is not None else None
        if not isinstance(command, str) or not command:
            command = "\n".join(ask.resources)
        return PermissionPreview(command=clean_text(command))
    lines: list[str] = []
    for diff in _files(ask):
        lines.append(f"=== {diff.file} (+{diff.additions} -{diff.deletions}, {diff.status})")
        lines.extend(diff.patch.splitlines())
    if not lines and tool is not None:
        lines = _tool_patch(tool)
    cleaned = [(_diff_kind(line), clean_text(line)) for line in lines]
    extra = max(0, len(cleaned) - PREVIEW_LINES)
    return PermissionPreview(diff=cleaned[:PREVIEW_LINES], truncated=extra)


# ------------------------------------------------------------------------------ inbox summary


@dataclass(frozen=True)
class AskSummary:
    kind: Literal["permission", "question", "form"]
    ask_id: str
    session_id: str
    title: str
    """One line for the inbox: ``bash: make test``, ``edit: notes.txt``, ``question: Color``."""


def _questions_title(items: list[QuestionItem]) -> str:
    if not items:
        return "question"
    head = items[0].header or items[0].question or "question"
    more = f" (+{len(items) - 1})" if len(items) > 1 else ""
    return f"question: {one_line(head, 60)}{more}"


def _permission_target(ask: PermissionRequest, tool: ToolCall | None) -> str:
    data = tool.input if tool is not None else {}
    if ask.action in SHELL_ACTIONS and isinstance(data.get("command"), str):
        return str(data["command"])
    for key in ("path", "filePath"):
        if ask.action in EDIT_ACTIONS and isinstance(data.get(key), str):
            return str(data[key])
    if ask.resources:
        return ", ".join(ask.resources)
    files = _files(ask)
    return files[0].file if files else ""


def describe_ask(ask: Ask, tool: ToolCall | None) -> AskSummary:
    if isinstance(ask, PermissionRequest):
        action = one_line(ask.action or (tool.name if tool else "") or "permission", 30)
        target = one_line(_permission_target(ask, tool), 100)
        title = f"{action}: {target}" if target else action
        return AskSummary("permission", ask.id, ask.sessionID, title)
    if isinstance(ask, QuestionRequest):
        return AskSummary("question", ask.id, ask.sessionID, _questions_title(ask.questions))
    if is_question_form(ask):
        title = _questions_title(question_from_form(ask).questions)
        return AskSummary("form", ask.id, ask.sessionID, title)
    return AskSummary("form", ask.id, ask.sessionID, f"form: {one_line(ask.title or 'untitled', 80)}")
