"""Provides pure helpers for rendering tool calls: titles, summaries, policy, patches.

No Textual here (a test imports this module without it). Everything that comes from the
server goes through :mod:`tui.text.sanitize`; every accessor tolerates wrong types and missing keys,
because unknown tools (MCP, plugins) may send anything.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from tui.state.transcript import ToolCall
from tui.text.sanitize import clean_text, one_line, reveal
from tui.text.tool_diffs import (
    DiffFile,
    DiffLine,
    Hunk,
    added_file,
    diff_text,
    parse_patch,
    split_pairs,
)

__all__ = [
    "DiffFile",
    "DiffLine",
    "Hunk",
    "OutputCut",
    "ToolKind",
    "added_file",
    "default_expanded",
    "diff_files",
    "edit_preview",
    "elapsed_ms",
    "exit_code",
    "format_duration",
    "input_pairs",
    "kind_of",
    "output_cuts",
    "output_path",
    "parse_patch",
    "question_state",
    "shell_output",
    "subagent_status",
    "split_pairs",
    "status_icon",
    "subagent_text",
    "timed_out",
    "tool_summary",
    "tool_title",
    "tool_title_source",
    "truncated",
]

ToolKind = Literal[
    "shell", "edit", "write", "patch", "read", "search", "list", "web", "todo", "question",
    "subagent", "unknown",
]

_KINDS: dict[str, ToolKind] = {
    "shell": "shell", "bash": "shell",
    "edit": "edit", "multiedit": "edit",
    "write": "write",
    "apply_patch": "patch", "patch": "patch",
    "read": "read",
    "grep": "search", "glob": "search",
    "list": "list", "ls": "list",
    "webfetch": "web", "websearch": "web",
    "todowrite": "todo", "todoread": "todo",
    "question": "question",
    "subagent": "subagent", "task": "subagent",
}

_ICONS = {"streaming": "◌", "running": "●", "completed": "✓", "error": "✗"}
_EXIT_RE = re.compile(r"Command exited with code (-?\d+)\.")
_TIMEOUT_RE = re.compile(r"Command timed out before completion\.?")
_SUBAGENT_RE = re.compile(r"<subagent\b[^>]*>\n?(.*?)\n?</subagent>", re.S)


def kind_of(name: str) -> ToolKind:
    """The rendering family of a tool name (``bash`` and ``shell`` are both ``shell``)."""
    return _KINDS.get(name.lower(), "unknown")


def status_icon(status: str) -> str:
    """One glyph per status: streaming input, running, completed, error."""
    return _ICONS.get(status, "?")


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
        return int(value)
    return None


def _path(data: Mapping[str, Any]) -> str:
    for key in ("path", "filePath", "file_path", "file", "filename"):
        if value := _str(data.get(key)):
            return value
    return ""


# -- time ------------------------------------------------------------------------------------


def format_duration(ms: float) -> str:
    """``850 ms`` -> ``0.9s``, ``12 s`` -> ``12s``, ``65 s`` -> ``1m05s``, ``3725 s`` -> ``1h02m``."""
    if not math.isfinite(ms):
        return "?"  # NaN or infinity from a broken server: no duration to show
    seconds = max(0.0, ms / 1000.0)
    if seconds < 10:
        return f"{seconds:.1f}s"
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"


def elapsed_ms(call: ToolCall, now_ms: float) -> float | None:
    """Time spent so far (running) or in total (finished); ``None`` when unknown."""
    start = call.time_ran or call.time_created
    if start is None:
        return None
    end = call.time_completed if call.finished and call.time_completed else now_ms
    return max(0.0, end - start)


# -- titles and summaries ---------------------------------------------------------------------


def tool_title(call: ToolCall) -> str:
    """What the call does, on one visible line (command, path, pattern, url, description …)."""
    return one_line(tool_title_source(call), 200, breaks=True)


def tool_title_source(call: ToolCall) -> str:
    """The server text ``tool_title`` shows, as sent (for ``widgets.plain.plain_line``)."""
    data = call.input if isinstance(call.input, dict) else {}
    kind = kind_of(call.name)
    title = ""
    if kind == "shell":
        title = _str(data.get("command"))
    elif kind in ("edit", "write", "read", "list"):
        title = _path(data)
    elif kind == "patch":
        paths = [f.path for f in diff_files(call)]
        title = ", ".join(paths) if paths else "patch"
    elif kind == "search":
        title = _str(data.get("pattern")) or _str(data.get("query"))
        if where := _path(data):
            title = f"{title} in {where}"
    elif kind == "web":
        title = _str(data.get("url")) or _str(data.get("query"))
    elif kind == "subagent":
        title = _str(data.get("description")) or _str(data.get("prompt"))
    elif kind == "question":
        questions = data.get("questions")
        first = questions[0] if isinstance(questions, list) and questions else None
        if isinstance(first, dict):
            title = _str(first.get("header")) or _str(first.get("question"))
    elif kind == "todo":
        todos = data.get("todos")
        title = f"{len(todos)} todos" if isinstance(todos, list) else ""
    else:
        title = next((v for v in data.values() if isinstance(v, str) and v), "")
    if not title and not data and call.input_text:
        return call.input_text[-200:]
    return title


def _count_lines(text: str) -> int:
    return len([line for line in text.splitlines() if line.strip()])


def tool_summary(call: ToolCall) -> str:
    """A compact count for the header (lines read, matches, files, +N −M, answers …)."""
    if call.status == "error":
        return "failed"
    if not call.finished:
        return ""
    kind = kind_of(call.name)
    meta = call.metadata if isinstance(call.metadata, dict) else {}
    text = call.output_text
    if kind in ("edit", "write", "patch"):
        files = diff_files(call)
        adds = sum(f.additions for f in files)
        dels = sum(f.deletions for f in files) if all(f.deletions_known for f in files) else "?"
        label = f"{len(files)} files " if len(files) > 1 else ""
        return f"{label}+{adds} −{dels}" if files else ""
    if kind == "read":
        content = (_str(meta.get("content")) or text).rstrip("\n")
        return f"{content.count(chr(10)) + 1 if content else 0} lines"
    if kind == "search":
        if found := re.search(r"Found (\d+) match", text):
            return f"{found.group(1)} matches"
        if not text.strip() or text.strip().lower().startswith("no "):
            return "0 results"
        noun = "files" if call.name.lower() == "glob" else "matches"
        return f"{_count_lines(text)} {noun}"
    if kind == "list":
        return f"{_count_lines(text)} entries"
    if kind == "web":
        return f"{_count_lines(text)} lines"
    if kind == "todo":
        todos = call.input.get("todos") if isinstance(call.input, dict) else None
        if isinstance(todos, list):
            done = sum(1 for t in todos if isinstance(t, dict) and t.get("status") == "completed")
            return f"{done}/{len(todos)} done"
    return ""


# -- shell ------------------------------------------------------------------------------------


def exit_code(call: ToolCall) -> int | None:
    """Exit code from v2 ``metadata.exit``, 1.18 ``{exit}`` or ``Command exited with code N.``."""
    for source in (call.metadata, call.progress):
        if isinstance(source, dict) and (code := _int(source.get("exit"))) is not None:
            return code
    for item in call.content:
        if item.text and (match := _EXIT_RE.search(item.text)):
            return int(match.group(1))
    return None


def timed_out(call: ToolCall) -> bool:
    meta = call.metadata if isinstance(call.metadata, dict) else {}
    return meta.get("timeout") is True or any(
        bool(item.text and _TIMEOUT_RE.search(item.text)) for item in call.content
    )


def truncated(call: ToolCall) -> bool:
    """The server cut the output it sent: ``metadata.truncated``, or (1.18, whose ``truncated``
    is only the shell's own capture limit) it names a file where it saved the whole output."""
    meta = call.metadata if isinstance(call.metadata, dict) else {}
    return meta.get("truncated") is True or bool(_metadata_path(meta))


@dataclass(frozen=True)
class OutputCut:
    """A note a server wrote into a tool's output where it cut it, on a line of its own."""

    start: int
    """Where the note starts in the text, with the blank lines the server put before it."""
    end: int
    """Where the line after it (and the blank line after it) starts; the text's length at its end."""
    lines: int
    """Lines of the text that are the note and its blank lines, not output."""
    omitted: int | None
    """Output lines the server left out there; ``None`` when it does not say (1.18 and the v2
    shell give no count), 0 for the shell's capture limit (the rest was never read)."""
    path: str
    """Where the server saved the whole output (as sent: not cleaned), or ``""``."""
    at: int
    """Where in the text the lines it left out were: the note's place, or 0 (the v2 shell keeps
    the last lines, so those it left out came before all of them)."""


# The server's notes, each alone on its line: 1.18's tool-output limit ("... output truncated;
# full content saved to P ...", between the first and the last lines it kept), v2's ("... N lines
# truncated; …", after the first ones; "N bytes" counts no lines), the v2 shell's (its last lines
# kept, then "[output truncated; full output saved to: P]") and 1.18's shell capture limit.
_CUT_NOTE = re.compile(
    r"^(?:\.\.\. (?:output|(?P<count>\d+) (?P<unit>lines?|bytes?)) truncated; full content saved to"
    r" (?P<content>.+) \.\.\.|\[output truncated; full output saved to: (?P<shell>.+)\]"
    r"|(?P<capture>\[output capture truncated at the in-memory safety limit\]))$",
    re.M,
)


def output_cuts(text: str, saved_to: str = "") -> list[OutputCut]:
    """The server's notes of where it cut ``text`` (a tool's output), in order. Only for a call
    the server says it cut (``truncated``): other output may print such a line itself, so (a
    review) a note that names a file is taken only where the server puts its own: the shell's
    as the last line, the output limit's only naming ``saved_to`` (the file the metadata names)
    when there is one."""
    cuts: list[OutputCut] = []
    floor = 0
    for match in _CUT_NOTE.finditer(text):
        if match.group("shell") and text[match.end():].strip("\n"):
            continue  # the shell's note ends the output: one above it is the command's own
        if match.group("content") and saved_to and match.group("content") != saved_to:
            continue
        start, lines = match.start(), 1
        while start >= floor + 2 and text[start - 2] == "\n":  # the blank lines before it
            start -= 1
            lines += 1
        end = match.end()
        if end < len(text):
            end += 1
            if text.startswith("\n", end):  # and one blank line after
                end += 1
                lines += 1
        count = match.group("count")
        omitted = 0 if match.group("capture") else \
            int(count) if count is not None and match.group("unit").startswith("line") else None
        path = match.group("content") or match.group("shell") or ""
        cuts.append(OutputCut(start, end, lines, omitted, path, 0 if match.group("shell") else start))
        floor = end
    return cuts


def _metadata_path(meta: Mapping[str, Any]) -> str:
    """v2's ``metadata.outputPath`` or the first of 1.18's ``outputPaths`` (``metadata`` once
    normalised), as sent."""
    if path := _str(meta.get("outputPath")):
        return path
    paths = meta.get("outputPaths")
    return next((p for p in paths if isinstance(p, str) and p), "") if isinstance(paths, list) else ""


def output_path(call: ToolCall, cuts: list[OutputCut] | None = None) -> str:
    """Where the server saved the whole output it cut, as sent (not cleaned), or ``""``: from its
    metadata, else from its note in the output (``cuts``: the v2 shell says it only there)."""
    meta = call.metadata if isinstance(call.metadata, dict) else {}
    if path := _metadata_path(meta):
        return path
    return next((cut.path for cut in cuts or () if cut.path), "")


def shell_output(call: ToolCall) -> str:
    """Raw command output (escapes still in; the widget keeps only SGR) without the trailing
    status sentences, which become badges. Falls back to ``progress.output`` while running."""
    texts = [item.text for item in call.content if item.type == "text" and item.text]
    if not texts and call.live_output:
        texts = [call.live_output]
    if not texts and isinstance(call.progress, dict) and isinstance(call.progress.get("output"), str):
        texts = [call.progress["output"]]
    joined = _TIMEOUT_RE.sub("", _EXIT_RE.sub("", "\n".join(texts)))
    return joined.rstrip("\n")


# -- expand policy ----------------------------------------------------------------------------

_DEFAULTS: dict[str, bool] = {
    "edit": True, "write": True, "patch": True, "read": False, "shell": False,
}


def default_expanded(call: ToolCall, policy: Mapping[str, bool] | None = None) -> bool:
    """Whether a row starts expanded. ``policy`` overrides by tool name, then kind, then
    ``"error"`` for failures, ``"streaming"`` while the input streams and ``"shell_failed"``
    for a non-zero exit."""
    policy = policy or {}
    kind = kind_of(call.name)
    if call.status == "error":
        return policy.get("error", True)
    if call.status == "streaming":
        return policy.get("streaming", False)  # the header shows the input growing
    if kind == "shell" and call.finished and exit_code(call) not in (0, None):
        return policy.get("shell_failed", True)
    if call.name in policy:
        return policy[call.name]
    if kind in policy:
        return policy[kind]
    return _DEFAULTS.get(kind, False)


# -- question and subagent --------------------------------------------------------------------


def question_state(call: ToolCall) -> tuple[str, list[list[str]]]:
    """``("waiting" | "answered" | "rejected", answers)``."""
    if call.status == "error":
        return "rejected", []
    raw = call.metadata.get("answers") if isinstance(call.metadata, dict) else None
    answers: list[list[str]] = []
    if isinstance(raw, list):
        for item in raw:
            if isinstance(item, list):
                answers.append([one_line(str(a), 200) for a in item])
            elif item is not None:
                answers.append([one_line(str(item), 200)])
    if call.status == "completed":
        return "answered", answers
    return "waiting", answers


def subagent_text(call: ToolCall) -> str:
    """The child's final text (between ``<subagent …>`` tags), else the plain output."""
    text = call.output_text
    match = _SUBAGENT_RE.search(text)
    return clean_text(match.group(1) if match else text).strip()


SUBAGENT_WORDS: dict[str, str] = {
    "running": "running",
    "waiting": "waiting for you",
    "completed": "done",
    "error": "failed",
    "cancelled": "cancelled",
}
"""How a child session's state (``tui.state.tree.NodeStatus``) reads, in the tree and in rows."""


def subagent_status(call: ToolCall, child_status: str | None = None) -> str:
    """The child's state in words: the tree's (``child_status``) when known, else what the call
    alone says. The call's own status wins over its ``metadata``/``progress`` ``status``: a
    ``progress`` of "running" stays behind on a call that failed, and a background call completes
    (``metadata.status`` "running") long before its child does."""
    if child_status in SUBAGENT_WORDS:
        return SUBAGENT_WORDS[child_status]
    if call.status == "error":
        message = (call.error.message if call.error else "").lower()
        cancelled = "cancel" in message or "interrupt" in message or \
            (call.error is not None and call.error.type == "aborted")
        return SUBAGENT_WORDS["cancelled" if cancelled else "error"]
    meta = _str(call.metadata.get("status")) if call.status == "completed" else ""
    if call.status == "completed":
        if meta == "running" or (not meta and call.input.get("background") is True):
            return "running in background"
        return SUBAGENT_WORDS.get({"failed": "error"}.get(meta, meta), SUBAGENT_WORDS["completed"])
    progress = _str(call.progress.get("status"))
    return SUBAGENT_WORDS.get({"failed": "error"}.get(progress, progress), SUBAGENT_WORDS["running"])


# -- generic ----------------------------------------------------------------------------------


def input_pairs(call: ToolCall, limit: int = 400) -> list[tuple[str, str]]:
    """``key: value`` lines for an unknown tool's input, values cleaned and shortened."""
    data = call.input if isinstance(call.input, dict) else {}
    pairs: list[tuple[str, str]] = []
    for key, value in data.items():
        if isinstance(value, str):
            shown = value
        else:
            try:
                shown = json.dumps(value, ensure_ascii=False, default=str)
            except (TypeError, ValueError):
                shown = repr(value)
        pairs.append((one_line(str(key), 60), one_line(shown, limit)))
    return pairs


# -- diffs ------------------------------------------------------------------------------------
def _counts(hunks: list[Hunk]) -> tuple[int, int]:
    adds = sum(1 for h in hunks for line in h.lines if line.kind == "added")
    dels = sum(1 for h in hunks for line in h.lines if line.kind == "removed")
    return adds, dels


WRITE_NO_DIFF = "the new content (the server sent no diff: what it replaces is not shown)"
WRITE_AS_ALLOWED = "against the file as read when it was allowed (the server sent no diff)"
WRITE_AS_REFUSED = "what it would have changed (the file as read when it was rejected)"


def diff_files(call: ToolCall) -> list[DiffFile]:
    """One :class:`DiffFile` per ``metadata.files`` entry (dicts or models), or the written
    content as an added file when a ``write`` carries no diff."""
    meta = call.metadata if isinstance(call.metadata, dict) else {}
    raw = meta.get("files")
    files: list[DiffFile] = []
    for entry in raw if isinstance(raw, list) else []:
        dump = getattr(entry, "model_dump", None)  # a FileDiff model rather than a raw dict
        item = entry if isinstance(entry, dict) else dump() if callable(dump) else None
        if not isinstance(item, dict):
            continue
        hunks = parse_patch(_str(item.get("patch")))
        adds, dels = _counts(hunks)
        given_adds, given_dels = _int(item.get("additions")), _int(item.get("deletions"))
        files.append(DiffFile(
            path=one_line(reveal(_path(item) or "?", strict=True), 300),
            status=one_line(_str(item.get("status")) or "modified", 20),
            additions=adds if given_adds is None else given_adds,
            deletions=dels if given_dels is None else given_dels,
            hunks=hunks,
        ))
    if not files and kind_of(call.name) == "write" and isinstance(call.input, dict):
        content = call.input.get("content")
        if call.shown_patch and (call.rejected or call.status != "error") and (shown := _shown_write(call)):
            files.append(shown)
        elif isinstance(content, str):
            existed = meta.get("existed")
            written = added_file(_path(call.input), content)
            if call.status == "error":  # rejected or failed: nothing was written (it said "added")
                written.status = "not applied"
            elif not call.finished:
                written.status = "pending"
            elif existed is not False:  # (a 2.x result does not say)
                written.status = "overwritten" if existed is True else "written"
            if existed is not False:
                # Its new content only: no "@@ -0,0" claiming the file was empty or new (QA: an
                # 8-line file overwritten showed so). A known new file keeps that header.
                written.deletions_known = call.status == "error"  # (not applied: nothing removed)
                for hunk in written.hunks:
                    hunk.old_start = hunk.old_count = hunk.new_start = hunk.new_count = 0
                    hunk.section = WRITE_NO_DIFF
            files.append(written)
    return files


def _shown_write(call: ToolCall) -> DiffFile | None:
    """A write answered with its diff against the file known (``shown_patch``): that diff, said
    to be against the file as read then; refused, the change it would have made."""
    hunks = parse_patch(call.shown_patch)
    if not hunks:
        return None
    hunks[0].section = WRITE_AS_REFUSED if call.rejected else WRITE_AS_ALLOWED
    adds, dels = _counts(hunks)
    status = "not applied" if call.rejected else "overwritten" if call.finished else "pending"
    return DiffFile(path=one_line(reveal(_path(call.input) or "?", strict=True), 300),
                    status=status, additions=adds, deletions=dels, hunks=hunks)


def edit_preview(call: ToolCall) -> list[DiffFile]:
    """Before the result arrives, an ``edit`` shows its ``oldString``/``newString`` as a diff
    without line numbers."""
    data = call.input if isinstance(call.input, dict) else {}
    old, new = data.get("oldString"), data.get("newString")
    if kind_of(call.name) != "edit" or not isinstance(old, str) or not isinstance(new, str):
        return []
    # Also shown for a finished edit whose result carried no diff: then it is no longer "pending".
    status, header = {"completed": ("edited", "the change asked for (no diff came back)"),
                      "error": ("not applied", "the change asked for")}.get(
        call.status, ("pending", "proposed change"))
    hunk = Hunk(0, 0, 0, 0, header)
    hunk.lines = [DiffLine("removed", diff_text(t)) for t in old.split("\n")]
    hunk.lines += [DiffLine("added", diff_text(t)) for t in new.split("\n")]
    return [DiffFile(one_line(reveal(_path(data) or "?", strict=True), 300), status, new.count("\n") + 1,
                     old.count("\n") + 1, [hunk])]
