"""Provides transcript export: Markdown for people, JSON for tools and tests.

Pure and deterministic: the output depends only on the ``SessionState`` (no clock, no ids
minted here). The Markdown passes every server string, ids included, through ``clean_text``
(hidden characters are written as visible tokens, so printing an export never obeys an escape),
and writes text as the transcript shows it: a shell's output has its SGR colours dropped (drawn
as colours there, they would be ``␛[1;34m`` noise here) and tool titles are strict, as in the
tool header. JSON is data for tools: every string exactly as the server sent it, SGR included.
Printed (``export_json_text``), every hidden character in it is a ``\\u`` escape: the text obeys
nothing on a terminal and decodes to exactly the server's strings (a QA pass: tokens there
could not be told from the same characters typed).

JSON shape (``export_json``), format ``octui.export/1``; every key is always present::

    {
      "format": "octui.export/1",
      "id": "ses_…", "title": str, "parentID": str | None,
      "agent": str | None, "model": "provider/model[#variant]" | None,
      "cost": float, "tokens": {"input", "output", "reasoning", "cache": {"read", "write"}},
      "messages": [                       # transcript order
        {
          "id": "msg_…", "role": "user" | "assistant" | "synthetic" | …,
          "agent": str | None, "model": str | None,
          "text": str,                    # user/synthetic/system… text ("" for assistant)
          "description": str | None, "files": [str],   # attachment names or URIs
          "reverted": bool, "finish": str | None,
          "error": {"type": str, "message": str} | None,
          "parts": [                      # assistant content, in order
            {"type": "text" | "reasoning", "text": str},
            {"type": "tool", "id": str, "name": str, "status": str, "input": object,
             "output": str, "error": {"type": str, "message": str} | None}
          ]
        }
      ]
    }

Token counts that are whole numbers are written as integers.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tui.protocol.models import ModelRef, StructuredError, TokenUsage
from tui.session.connect import OpenCodeClient
from tui.state.store import Store
from tui.state.transcript import Message, SessionState, TextBlock, ToolCall
from tui.text.sanitize import clean_text, drop_sgr, escape_hidden_json, one_line, reveal, shows_nothing
from tui.text.tools import exit_code, kind_of, timed_out

__all__ = ["EXPORT_FORMAT", "MAX_OUTPUT_CHARS", "MAX_OUTPUT_LINES", "export_json", "export_json_text",
           "export_markdown", "fetch_session"]

EXPORT_FORMAT = "octui.export/1"
MAX_OUTPUT_LINES = 60
"""Tool output lines kept in Markdown (JSON keeps everything)."""
MAX_OUTPUT_CHARS = 6000
"""Tool output characters kept in Markdown."""

_TITLE_KEYS = ("title", "description", "command", "path", "filePath", "pattern", "url", "query")


MAX_PAGES = 1000


async def fetch_session(client: OpenCodeClient, session_id: str) -> SessionState:
    """A session and its whole history, read over REST (newest page first) into a fresh store.

    ``client`` must be connected (``identify``): its dialect turns every generation's history into
    the pinned shapes the store reads."""
    info = await client.get_session(session_id)
    store = Store()
    store.upsert_info(info)
    newest_first: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):  # bounded paging
        page, cursor = await client.list_messages(session_id, limit=200, cursor=cursor)
        newest_first.extend(page)
        if not cursor or not page:
            break
    store.load_history(session_id, list(reversed(newest_first)))
    state = store.session(session_id)
    if any(m.streaming for m in state.messages.values()) and session_id not in await client.active():
        store.mark_abandoned(session_id)  # turns a killed server never ended: as the UI shows them
    return state


# ------------------------------------------------------------------------------------ JSON


def export_json(state: SessionState) -> dict[str, Any]:
    """The session as a JSON-ready dict (shape in the module docstring), its strings as sent."""
    agent, model = _session_agent_model(state, clean=False)
    return {
        "format": EXPORT_FORMAT,
        "id": state.id,
        "title": state.title,
        "parentID": _opt(state.parent_id, clean=False),
        "agent": agent,
        "model": model,
        "cost": _cost(state),
        "tokens": _tokens(_usage(state)),
        "messages": [_message_json(message) for message in state.ordered_messages()],
    }


def export_json_text(state: SessionState) -> str:
    """``export_json`` as ``octui export --format json`` prints it: indented, non-ASCII text as
    itself, every hidden character a ``\\u`` escape (``escape_hidden_json``)."""
    return escape_hidden_json(json.dumps(export_json(state), indent=2, ensure_ascii=False)) + "\n"


def _message_json(message: Message) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, TextBlock):
            parts.append({"type": part.kind, "text": part.text})
        else:
            parts.append(_tool_json(part))
    return {
        "id": message.id,
        "role": message.role,
        "agent": _opt(message.agent, clean=False),
        "model": _model(message.model, clean=False),
        "text": message.text,
        "description": _opt(message.description, clean=False),
        "files": _files(message, clean=False),
        "reverted": message.reverted,
        "finish": _opt(message.finish, clean=False),
        "error": _error(message.error, clean=False),
        "parts": parts,
    }


def _tool_json(tool: ToolCall) -> dict[str, Any]:
    return {
        "type": "tool",
        "id": tool.id,
        "name": tool.name,
        "status": tool.status,
        "input": tool.input,
        "output": tool.output_text,
        "error": _error(tool.error, clean=False),
    }


def _error(error: StructuredError | None, *, clean: bool = True) -> dict[str, str] | None:
    if error is None:
        return None
    return {"type": _text(error.type, clean), "message": _text(error.message, clean)}


def _tokens(usage: TokenUsage) -> dict[str, Any]:
    return {
        "input": _num(usage.input),
        "output": _num(usage.output),
        "reasoning": _num(usage.reasoning),
        "cache": {"read": _num(usage.cache.read), "write": _num(usage.cache.write)},
    }


def _num(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


# -------------------------------------------------------------------------------- Markdown


def export_markdown(state: SessionState) -> str:
    """The session as Markdown: a title, a summary line, then one section per message."""
    lines: list[str] = [f"# {_title(state)}", "", _summary(state)]
    for message in state.ordered_messages():
        if message.reverted:
            continue
        lines.append("")
        lines.extend(_message_markdown(message))
    return "\n".join(lines).rstrip("\n") + "\n"


def _summary(state: SessionState) -> str:
    agent, model = _session_agent_model(state)
    bits = [f"Session `{one_line(state.id, 200)}`"]
    if state.parent_id:
        bits.append(f"child of `{one_line(state.parent_id, 200)}`")
    if agent:
        bits.append(f"agent {agent}")
    if model:
        bits.append(f"model {model}")
    usage = _usage(state)
    bits.append(f"cost ${_cost(state):.4f}")
    bits.append(f"tokens {_num(usage.input)} in / {_num(usage.output)} out")
    return " · ".join(bits)


def _message_markdown(message: Message) -> list[str]:
    if message.role == "user":
        out = ["## User", ""]
        out.extend(_paragraph(message.text))
        out.extend(f"- 📎 {one_line(name, 200)}" for name in _files(message))
    elif message.role == "assistant":
        label = " · ".join(x for x in (_opt(message.agent), _model(message.model)) if x)
        out = [f"## Assistant ({label})" if label else "## Assistant", ""]
        for part in message.parts:
            chunk = _block_markdown(part) if isinstance(part, TextBlock) else _tool_markdown(part)
            if chunk:
                out.extend([*chunk, ""])
        if message.interrupted is not None:
            out.extend([f"> ⚠ {one_line(message.interrupted, 200)}", ""])
        if not shows_nothing(message.lost_text):
            lost = clean_text(message.lost_text).strip("\n").split("\n")
            out.extend(["> **Streamed, but the server did not keep it:**", ">",
                        *[f"> {line}".rstrip() for line in lost], ""])
    else:
        out = [_other_heading(message), ""]
        out.extend(_paragraph(message.text))
    if message.error is not None:
        out.extend([*_error_quote(message.error), ""])
    while out and out[-1] == "":
        out.pop()
    return out


def _other_heading(message: Message) -> str:
    name = message.role.replace("-", " ").capitalize()
    detail = _opt(message.description) or _opt(message.agent) or _model(message.model)
    return f"## {name} ({one_line(detail, 200)})" if detail else f"## {name}"


def _paragraph(text: str) -> list[str]:
    clean = clean_text(text).strip("\n")
    return [clean, ""] if clean.strip() else []


def _block_markdown(block: TextBlock) -> list[str]:
    text = clean_text(block.text).strip("\n")
    if not text.strip():
        return []
    if block.kind == "text":
        return [text]
    return ["> **Thinking**", ">", *[f"> {line}".rstrip() for line in text.split("\n")]]


def _tool_markdown(tool: ToolCall) -> list[str]:
    name = one_line(tool.name, 80) or "tool"
    title = _tool_title(tool)
    status = _status(tool)
    head = f"- 🔧 {name}: {title} — {status}" if title else f"- 🔧 {name} — {status}"
    out = [head]
    output = _tool_output(tool).strip("\n")
    if output.strip():
        out.extend(["", *_fence(_truncate(output))])
    if tool.error is not None:
        out.extend(["", *_error_quote(tool.error)])
    return out


def _status(tool: ToolCall) -> str:
    """The call's status as its row shows it: a command that exited non-zero or timed out
    failed, whatever the server calls the call (the server says "completed")."""
    if kind_of(tool.name) == "shell" and tool.finished:
        if timed_out(tool):
            return "failed (timed out)"
        code = exit_code(tool)
        if code is not None and code != 0:
            return f"failed (exit {code})"
    return tool.status


def _tool_output(tool: ToolCall) -> str:
    """The output as its tool row draws it: a shell's SGR colours are drawn as colours, so they
    are dropped; any other escape, and every one in another tool's output (drawn as tokens there
    too), is a visible token."""
    if kind_of(tool.name) == "shell":
        return drop_sgr(tool.output_text)
    return clean_text(tool.output_text)


def _tool_title(tool: ToolCall) -> str:
    for source in (tool.metadata, tool.input):
        for key in _TITLE_KEYS:
            value = source.get(key)
            if isinstance(value, str) and value.strip():
                # Strict, as the tool header shows a command or a path: no tab or odd space hidden.
                return one_line(reveal(value, strict=True), 100, breaks=True)
    return ""


def _truncate(text: str) -> str:
    """At most ``MAX_OUTPUT_LINES`` whole lines and ``MAX_OUTPUT_CHARS`` characters, with a note."""
    lines = text.split("\n")
    body = "\n".join(lines[:MAX_OUTPUT_LINES])
    if len(body) > MAX_OUTPUT_CHARS:
        body = body[:MAX_OUTPUT_CHARS]
        if "\n" in body:
            body = body.rsplit("\n", 1)[0]
    if body == text:
        return text
    hidden = len(lines) - (body.count("\n") + 1)
    return f"{body}\n… ({hidden} more lines)" if hidden > 0 else f"{body}\n… (truncated)"


def _fence(text: str) -> list[str]:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}text", text, fence]


def _error_quote(error: StructuredError) -> list[str]:
    message = clean_text(error.message).strip() or clean_text(error.type) or "unknown error"
    first, *rest = message.split("\n")
    return [f"> **Error:** {first}", *[f"> {line}".rstrip() for line in rest]]


# ---------------------------------------------------------------------------------- shared


def _title(state: SessionState) -> str:
    return one_line(state.title, 200) or one_line(state.id, 200)


def _text(value: str, clean: bool) -> str:
    """Markdown's text (``clean``: hidden characters as tokens) or JSON's (as sent)."""
    return clean_text(value) if clean else value


def _opt(value: str | None, clean: bool = True) -> str | None:
    return _text(value, clean) if value else None


def _model(model: ModelRef | None, clean: bool = True) -> str | None:
    return _text(model.label, clean) if model is not None and model.label else None


def _session_agent_model(state: SessionState, *, clean: bool = True) -> tuple[str | None, str | None]:
    agent = _opt(state.info.agent, clean) if state.info else None
    model = _model(state.info.model, clean) if state.info else None
    for message in reversed(state.ordered_messages()):
        if message.role == "assistant":
            agent = agent or _opt(message.agent, clean)
            model = model or _model(message.model, clean)
            break
    return agent, model


def _cost(state: SessionState) -> float:
    if state.cost:
        return float(state.cost)
    return float(state.info.cost) if state.info else 0.0


def _usage(state: SessionState) -> TokenUsage:
    if state.tokens.total or state.info is None:
        return state.tokens
    return state.info.tokens


def _files(message: Message, *, clean: bool = True) -> list[str]:
    names: list[str] = []
    for item in message.files:
        name = item.get("name") or item.get("uri") or item.get("filename") or item.get("path")
        if isinstance(name, str) and name:
            names.append(_text(name, clean))
    return names
