"""Build display messages from history (``GET /api/session/{id}/message``, v2 shapes)."""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from tui.protocol.models import ModelRef, StructuredError, TokenUsage, ToolContent
from tui.state.transcript import SUBAGENT_TOOLS, Message, Part, TextBlock, ToolCall

_TRAILING_NUMBER = re.compile(r"(\d+)$")
_TOOL_STATUS = {"pending": "streaming", "streaming": "streaming", "running": "running",
                "completed": "completed", "error": "error"}


def message_from_wire(info: dict[str, Any], session_id: str) -> Message | None:
    """One history item to a ``Message``; None when it has no id (nothing to key it by)."""
    mid = info.get("id")
    if not isinstance(mid, str) or not mid:
        return None
    kind = str(info.get("type") or info.get("role") or "notice")
    time: dict[str, Any] = info["time"] if isinstance(info.get("time"), dict) else {}
    msg = Message(id=mid, role="notice", session_id=session_id,
                  time_created=_num(time.get("created")), time_completed=_num(time.get("completed")))
    metadata = info.get("metadata")
    msg.metadata = metadata if isinstance(metadata, dict) else {}
    if kind in ("user", "synthetic", "system"):
        msg.role = kind  # type: ignore[assignment]
        msg.text = _str(info.get("text"))
        msg.description = info.get("description") if isinstance(info.get("description"), str) else None
        files = info.get("files")
        msg.files = [f for f in files if isinstance(f, dict)] if isinstance(files, list) else []
    elif kind == "assistant":
        msg.role = "assistant"
        _fill_assistant(msg, info)
    elif kind == "shell":
        msg.role = "shell"
        msg.text = _str(info.get("command"))
        output = info.get("output")
        if isinstance(output, dict):
            msg.metadata = {**msg.metadata, "output": _str(output.get("output")), "exit": info.get("exit")}
        elif isinstance(output, str):
            msg.metadata = {**msg.metadata, "output": output}
    elif kind == "compaction":
        msg.role = "compaction"
        msg.text = _str(info.get("summary"))
        if isinstance(info.get("error"), dict):
            msg.error = _error(info["error"])
        if info.get("status") != "running" and msg.time_completed is None:
            msg.time_completed = msg.time_created  # finished (1.18 stores only finished ones)
    elif kind == "skill":
        msg.role = "skill"
        msg.text = _str(info.get("name") or info.get("skill"))
    elif kind == "agent-switched":
        msg.role = "agent-switched"
        msg.text = _str(info.get("agent"))
    elif kind == "model-switched":
        msg.role = "model-switched"
        model = info.get("model")
        msg.text = _model_label(model)
    else:
        msg.role = "notice"
        msg.text = _str(info.get("text")) or kind
    return msg


def _fill_assistant(msg: Message, info: dict[str, Any]) -> None:
    msg.agent = info.get("agent") if isinstance(info.get("agent"), str) else None
    msg.model = _model(info.get("model"))
    msg.finish = info.get("finish") if isinstance(info.get("finish"), str) else None
    error = info.get("error")
    msg.error = _error(error) if isinstance(error, dict) else None
    msg.cost = _num(info.get("cost")) or 0.0
    msg.tokens = _tokens(info.get("tokens"))
    counters: dict[str, int] = {}
    content = info.get("content")
    for raw in content if isinstance(content, list) else []:
        part = _part(raw, counters, msg)
        if part is not None:
            msg.parts.append(part)


def _part(raw: Any, counters: dict[str, int], msg: Message) -> Part | None:
    if not isinstance(raw, dict):
        return None
    kind = raw.get("type")
    if kind in ("text", "reasoning"):
        ordinal = _ordinal(raw.get("id"), counters, kind)
        return TextBlock(kind=kind, ordinal=ordinal, text=_str(raw.get("text")))
    if kind == "tool":
        return tool_from_wire(raw, msg.session_id, msg.id)
    return None


def tool_from_wire(raw: dict[str, Any], session_id: str, message_id: str) -> ToolCall:
    state: dict[str, Any] = raw["state"] if isinstance(raw.get("state"), dict) else {}
    time: dict[str, Any] = raw["time"] if isinstance(raw.get("time"), dict) else {}
    status = _TOOL_STATUS.get(str(state.get("status")), "running")
    call = ToolCall(id=_str(raw.get("id")), name=_str(raw.get("name")), session_id=session_id,
                    message_id=message_id, status=status,  # type: ignore[arg-type]
                    time_created=_num(time.get("created")), time_ran=_num(time.get("ran")),
                    time_completed=_num(time.get("completed")))
    tool_input = state.get("input")
    if isinstance(tool_input, dict):
        call.input = tool_input
    elif isinstance(tool_input, str):
        call.input_text = tool_input
    metadata = state.get("metadata")
    if isinstance(metadata, dict):
        call.metadata = metadata
        if status == "running":
            call.progress = metadata
    call.content = contents(state.get("content"))
    if isinstance(state.get("error"), dict):
        call.error = _error(state["error"])
    elif isinstance(state.get("error"), str):
        call.error = StructuredError(message=state["error"])
    return call


def carry_call_marks(old: dict[str, Message], new: dict[str, Message]) -> None:
    """Keep in ``new`` (messages rebuilt from the server's history) what ``old`` knew of each
    tool call and the server's history does not say: a subagent call's link to its child, that
    its permission was refused, the diff a write was allowed with.

    The live stream names the child in ``tool.progress``; a call that then fails is stored
    self-contained, without that metadata, and the failure text does not always name the child
    (an interrupt, an older server's wording). A reload must not cut a link the store had, nor
    turn a refused call back into "Tool execution interrupted"."""
    for mid, fresh in new.items():
        before = old.get(mid)
        if before is None or before.role != "assistant" or fresh.role != "assistant":
            continue
        for part in fresh.parts:
            if not isinstance(part, ToolCall):
                continue
            known = before.tool(part.id)
            if known is None:
                continue
            part.rejected = part.rejected or known.rejected
            part.shown_patch = part.shown_patch or known.shown_patch
            if (part.name and part.name not in SUBAGENT_TOOLS) or part.child_session_id:
                continue
            if known.child_session_id:
                part.known_child = known.child_session_id


def contents(value: Any) -> list[ToolContent]:
    out: list[ToolContent] = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, dict):
            try:
                out.append(ToolContent.model_validate(item))
            except ValidationError:
                continue
        elif isinstance(item, str):
            out.append(ToolContent(type="text", text=item))
    return out


def _ordinal(part_id: Any, counters: dict[str, int], kind: str) -> int:
    """1.18 history parts carry ``id: "text-0"``; v2 parts carry none, so count per kind."""
    position = counters.get(kind, 0)
    counters[kind] = position + 1
    if isinstance(part_id, str):
        match = _TRAILING_NUMBER.search(part_id)
        if match:
            return int(match.group(1))
    return position


def _model(value: Any) -> ModelRef | None:
    if isinstance(value, dict):
        try:
            return ModelRef.model_validate(value)
        except ValidationError:
            return None
    return None


def _model_label(value: Any) -> str:
    model = _model(value)
    return model.label if model else _str(value)


def _tokens(value: Any) -> TokenUsage | None:
    if isinstance(value, dict):
        try:
            return TokenUsage.model_validate(value)
        except ValidationError:
            return None
    return None


def _error(value: dict[str, Any]) -> StructuredError:
    try:
        return StructuredError.model_validate(value)
    except ValidationError:
        return StructuredError(message=str(value.get("message", value)))


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ("" if value is None else str(value))
