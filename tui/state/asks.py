"""Provides the pure logic behind approval, question and form dialogs.

No Textual here: answer types the dialogs return, question selection state, form visibility
(``when``), defaults, validation and answer building, the question-kind form conversion
(``q0..qN``), the permission preview (command or diff) and one-line inbox summaries.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Literal

from pydantic import ValidationError

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
from tui.state.ask_forms import (
    FormValues,
    form_answer_body,
    initial_values,
    validate_field,
    validate_form,
    visible_keys,
)
from tui.state.transcript import Ask, ToolCall
from tui.text.sanitize import one_line

__all__ = [
    "AskAnswer", "AskSummary", "FormAnswer", "FormDismissed", "FormValues", "PermissionAnswer",
    "PermissionPreview", "QuestionAnswer", "QuestionDismissed", "QuestionState", "answer_for",
    "build_form_answer", "build_question_answer", "describe_ask", "form_answer_from_question",
    "form_from_question", "initial_values", "is_question_form", "permission_preview",
    "question_from_form", "validate_field", "validate_form", "validate_questions", "visible_keys",
]

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
    """The user rejected the questions; ``elsewhere``: another client settled them, send nothing."""

    elsewhere: bool = False


@dataclass(frozen=True)
class FormAnswer:
    answer: dict[str, Any]


@dataclass(frozen=True)
class FormDismissed:
    """The user cancelled the form; ``elsewhere``: another client settled it, send nothing."""

    elsewhere: bool = False


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

    @property
    def needs_answer(self) -> bool:
        """Whether the reply must carry an answer to this question: single choice ("Pick one") is
        one answer, an option or typed text. Multiple choice ("Pick any") may be left empty, none
        being an answer: the question tool's multiselect field has no ``minItems`` and the server
        takes ``[]``. Nor does a question that nothing could answer (no options, no typed answer)
        hold up the rest. (The wire takes an empty single-choice answer too, reading it to the
        model as "Unanswered": a reply the user never chose, so the dialog does not send it.)"""
        return not self.multiple and (bool(self.item.options) or self.allows_custom)

    @property
    def error(self) -> str | None:
        """Why this question cannot be sent yet, or None."""
        if self.answered or not self.needs_answer:
            return None
        if not self.item.options:
            return "Type your answer"
        return "Pick one, or type your own answer" if self.allows_custom else "Pick one"


def validate_questions(states: list[QuestionState]) -> dict[int, str]:
    """Error message by question index (see ``QuestionState.needs_answer``)."""
    return {index: message for index, state in enumerate(states) if (message := state.error)}


def build_question_answer(states: list[QuestionState]) -> QuestionAnswer:
    return QuestionAnswer([state.answer() for state in states])


# ------------------------------------------------------------------------------------------- forms


def is_question_form(form: FormInfo) -> bool:
    return (form.metadata or {}).get("kind") == "question"


def build_form_answer(form: FormInfo, values: FormValues) -> FormAnswer:
    """The answer to send for the current editor values (hidden and empty fields left out)."""
    return FormAnswer(form_answer_body(form, values))


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
            return FormDismissed(elsewhere=result.elsewhere)
    return result


# ------------------------------------------------------------------------- permission preview

DiffKind = Literal["add", "del", "hunk", "meta", "ctx"]
PREVIEW_LINES = 400


@dataclass(frozen=True)
class PermissionPreview:
    """What a permission dialog shows besides action and resources, as the server sent it (raw:
    the dialog makes hidden characters visible, ``widgets.plain``)."""

    command: str | None = None
    """Shell asks: the command as the tool will run it (its input), else the server's one resource."""
    from_tool: bool = False
    """``command`` is the tool's own input (not the server's description of it)."""
    sub_commands: list[str] = field(default_factory=list)
    """Shell asks: resources the server checked that ``command`` does not already show (a 2.x
    server lists parsed sub-commands, ``["seq 1 200", "echo line $i"]``; 1.18 the command itself)."""
    shell: bool = False
    diff: list[tuple[DiffKind, str]] = field(default_factory=list)
    truncated: int = 0
    replaced: str = ""
    """A whole-file write the server sent no diff for: its unified diff against the file as read
    for the dialog, whole (``diff`` is cut at ``PREVIEW_LINES``), for its row once allowed."""


SNIPPET_HUNK = "@@ the text it replaces (its line numbers are known once the edit runs) @@"
SNIPPET_HUNK_ALL = "@@ the text it replaces, everywhere in the file (replaceAll) @@"
SHELL_ACTIONS = ("bash", "shell")
EDIT_ACTIONS = ("edit", "write", "patch", "apply_patch")


def _diff_kinds(lines: list[str]) -> list[tuple[DiffKind, str]]:
    """Each line of one or more unified patches with its kind. Inside a hunk a line is what its
    first character says: a removed ``---`` (a YAML or Markdown rule) or ``-- comment`` is a
    removal, not a file header drawn dim (review); a file header is ``--- `` followed by ``+++ ``
    and a hunk, or a line before the first hunk."""
    kinds: list[tuple[DiffKind, str]] = []
    in_hunk = False
    for index, line in enumerate(lines):
        header = line.startswith("--- ") and index + 2 < len(lines) and \
            lines[index + 1].startswith("+++ ") and lines[index + 2].startswith("@@")
        if line.startswith("@@"):
            in_hunk = True
            kinds.append(("hunk", line))
        elif header or line.startswith(("Index:", "===", "diff ")) or \
                (not in_hunk and line.startswith(("+++", "---"))):
            in_hunk = False  # (a header ends the hunk before it; outside one, nothing changes)
            kinds.append(("meta", line))
        elif line.startswith("+"):
            kinds.append(("add", line))
        elif line.startswith("-"):
            kinds.append(("del", line))
        else:
            kinds.append(("ctx", line))
    return kinds


def _is_noise(line: str) -> bool:
    """``Index:`` and ``=====`` banner lines of server patches (the file header says it all)."""
    return line.startswith("Index: ") or (len(line) > 10 and set(line) == {"="})


def _files(ask: PermissionRequest) -> list[FileDiff]:
    raw = (ask.metadata or {}).get("files")
    out: list[FileDiff] = []
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, FileDiff):
            out.append(item)
        elif isinstance(item, dict):
            out.append(_file_diff(item))
    return out


def _file_diff(item: dict[str, Any]) -> FileDiff:
    """One entry of the files an edit asks for; an entry with a malformed field (a count of 1.5,
    a patch that is not text) keeps every field that is well formed, so the dialog still shows
    the file and its patch rather than failing to open."""
    try:
        return FileDiff.model_validate(item)
    except ValidationError:
        kept: dict[str, Any] = {}
        for name in FileDiff.model_fields:
            if name in item:
                try:
                    FileDiff.model_validate({name: item[name]})
                except ValidationError:
                    if name == "patch":  # said where the diff would be: not an empty, harmless look
                        kept[name] = UNREADABLE_PATCH
                    continue
                kept[name] = item[name]
        return FileDiff.model_validate(kept)


UNREADABLE_PATCH = "⚠ the server sent a patch for this file that is not text: it cannot be shown"


def _lines(text: str) -> list[str]:
    """Lines split on ``\n`` only: ``str.splitlines`` would also break (and so hide) ``\r``,
    ``\x0b``, ``\x0c``, ``\x1c``-``\x1e``, ``\x85``, U+2028 and U+2029."""
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _sides(path: str) -> tuple[str, str]:
    """A patch's two file names: ``a/x``, ``b/x`` for a relative path; an absolute one as it is
    (it read "a//home/…")."""
    return (path, path) if path.startswith("/") else (f"a/{path}", f"b/{path}")


def input_path(data: dict[str, Any]) -> str | None:
    """The file a tool's input names (``filePath``, OpenCode's, before ``path``), or None."""
    for key in ("filePath", "path"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _tool_patch(tool: ToolCall, current: CurrentFile | None = None) -> list[str]:
    data = tool.input
    path = input_path(data) or "file"
    if isinstance(data.get("oldString"), str) or isinstance(data.get("newString"), str):
        old = _lines(str(data.get("oldString") or ""))
        new = _lines(str(data.get("newString") or ""))
        # The lines are the edit's own text, not the file's: difflib's hunk header would number
        # them from 1 (QA: "@@ -1 +1,2 @@" for a change on line 2). Where they are in the file is
        # known once the edit runs (the tool row's diff has it).
        where = SNIPPET_HUNK_ALL if data.get("replaceAll") is True else SNIPPET_HUNK
        context = max(len(old), len(new))  # one hunk: the whole text, no gap hidden between two
        return [where if line.startswith("@@") else line
                for line in difflib.unified_diff(old, new, *_sides(path), n=context, lineterm="")]
    if isinstance(data.get("content"), str):
        return _write_patch(path, data["content"], current)[0]
    if isinstance(data.get("patchText"), str):
        return _lines(data["patchText"])
    return []


@dataclass(frozen=True)
class CurrentFile:
    """The file a whole-file write replaces, as the server reads it now (``GET /api/fs/read``):
    a write's input is only the new content, and a server that sends no diff with its ask (1.18)
    would have a file of any size replaced looking like a new one (QA)."""

    text: str | None
    """Its text; None when it does not exist or was not read."""
    exists: bool | None = None
    """False: the server lists no such file (the write creates it); None: not known."""
    note: str = ""
    """Why ``text`` is None, for the dialog: "too large to compare (3.2 MB)", the server's error…"""


READING_CURRENT = "reading the current file, to show what this replaces…"


def written_file(ask: PermissionRequest, tool: ToolCall | None) -> tuple[str, str] | None:
    """(path, content) of a whole-file write that the ask brings no diff for: its dialog shows
    what the file holds now beside it, once read."""
    if tool is None or _files(ask):
        return None
    data = tool.input
    content, path = data.get("content"), input_path(data)
    if not isinstance(content, str) or path is None or \
            isinstance(data.get("oldString"), str) or isinstance(data.get("newString"), str):
        return None
    return path, content


def project_relative(path: str, directory: str) -> str | None:
    """``path`` relative to the session's ``directory`` (the only files the server reads for a
    client), or None when it names one outside it, or a parent folder by ``..``."""
    given = PurePosixPath(path)
    if given.is_absolute():
        if not directory:
            return None
        try:
            given = given.relative_to(PurePosixPath(directory))
        except ValueError:
            return None
    parts = [part for part in given.parts if part != "."]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)


COMPARE_MAX_LINES = 5_000  # a longer file is not compared (difflib: seconds for 20,000 lines)


def _write_patch(path: str, content: str, current: CurrentFile | None) -> tuple[list[str], bool]:
    """The dialog's lines for a whole-file write, and whether they are a diff against the file
    it replaces (kept for the call's row once allowed: ``PermissionPreview.replaced``)."""
    new = _lines(content)
    added = [f"+{line}" for line in new]
    if current is not None and current.text is not None:
        old = _lines(current.text)
        if current.text == content:
            return [f"=== {path} (no change: the file holds exactly this already)"], False
        if old == new:
            return [f"=== {path} (only its line endings, or the newline at its end, change)"], False
        if max(len(old), len(new)) > COMPARE_MAX_LINES:
            return [f"=== {path}: the whole new content ({len(new):,} lines)",
                    f"=== what it replaces is not shown: the file has {len(old):,} lines, too many to "
                    f"compare here", *added], False
        patch = list(difflib.unified_diff(old, new, n=3, lineterm=""))[2:]
        adds = sum(1 for line in patch if line.startswith("+"))
        dels = sum(1 for line in patch if line.startswith("-"))
        return [f"=== {path} (replaces the file's {len(old):,} lines: +{adds} -{dels})", *patch], True
    if current is not None and current.exists is False:
        return [f"=== {path} (a new file)", f"@@ -0,0 +1,{len(new)} @@", *added], False
    why = READING_CURRENT if current is None else \
        f"what it replaces is not shown: {current.note or 'the file could not be read'}"
    return [f"=== {path}: the whole new content ({len(new):,} lines)", f"=== {why}", *added], False


def permission_preview(ask: PermissionRequest, tool: ToolCall | None,
                       current: CurrentFile | None = None) -> PermissionPreview:
    """The command for shell asks, or a diff (server preview first, then the tool input;
    ``current``: for a whole-file write, the file it replaces, once read).

    Shell: the command is the tool's input when the tool call is known, since that is what runs;
    the server's resources are listed only when they say something the command does not.
    """
    if ask.action in SHELL_ACTIONS or (tool is not None and tool.name in SHELL_ACTIONS):
        command = tool.input.get("command") if tool is not None else None
        if isinstance(command, str) and command:
            extra = [r for r in ask.resources if r not in command]
            return PermissionPreview(command=command, from_tool=True, shell=True,
                                     sub_commands=list(ask.resources) if extra else [])
        if len(ask.resources) == 1:
            return PermissionPreview(command=ask.resources[0], shell=True)
        return PermissionPreview(sub_commands=list(ask.resources), shell=True)
    lines: list[str] = []
    for diff in _files(ask):
        lines.append(f"=== {diff.file} (+{diff.additions} -{diff.deletions}, {diff.status})")
        lines.extend(line for line in _lines(diff.patch) if not _is_noise(line))
    replaced = ""
    if not lines and tool is not None:
        written = written_file(ask, tool)
        if written is not None:
            lines, is_diff = _write_patch(*written, current)
            replaced = "\n".join(lines[1:]) if is_diff else ""
        else:
            lines = _tool_patch(tool, current)
    kinds = _diff_kinds(lines)
    extra_lines = max(0, len(kinds) - PREVIEW_LINES)
    return PermissionPreview(diff=kinds[:PREVIEW_LINES], truncated=extra_lines, replaced=replaced)


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
    if ask.action in EDIT_ACTIONS and (path := input_path(data)) is not None:
        return path
    if ask.resources:
        return ", ".join(ask.resources)
    files = _files(ask)
    return files[0].file if files else ""


def describe_ask(ask: Ask, tool: ToolCall | None) -> AskSummary:
    if isinstance(ask, PermissionRequest):
        action = one_line(ask.action or (tool.name if tool else "") or "permission", 30)
        target = one_line(_permission_target(ask, tool), 100, breaks=True)
        title = f"{action}: {target}" if target else action
        return AskSummary("permission", ask.id, ask.sessionID, title)
    if isinstance(ask, QuestionRequest):
        return AskSummary("question", ask.id, ask.sessionID, _questions_title(ask.questions))
    if is_question_form(ask):
        title = _questions_title(question_from_form(ask).questions)
        return AskSummary("form", ask.id, ask.sessionID, title)
    return AskSummary("form", ask.id, ask.sessionID, f"form: {one_line(ask.title or 'untitled', 80)}")
