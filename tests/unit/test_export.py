"""Transcript export (tui/export.py): exact Markdown and JSON for a hand-built session."""

from __future__ import annotations

import json

from tui.export import MAX_OUTPUT_LINES, export_json, export_markdown
from tui.protocol.models import (
    ModelRef,
    SessionInfo,
    StructuredError,
    TokenUsage,
    ToolContent,
)
from tui.state.transcript import Message, SessionState, TextBlock, ToolCall

SONNET = ModelRef(providerID="anthropic", id="claude-sonnet-4-5")


def build_state() -> SessionState:
    state = SessionState(
        id="ses_1",
        info=SessionInfo(id="ses_1", title="Fix \x1b[31mthe\x1b[0m tests", agent="build", model=SONNET),
        cost=0.01234,
        tokens=TokenUsage(input=1200, output=340),
    )
    messages = [
        Message(id="msg_1", role="user", text="Run the tests\x07 please",
                files=[{"name": "notes.md", "uri": "file:///w/notes.md"}]),
        Message(
            id="msg_2", role="assistant", agent="build", model=SONNET, finish="tool-calls",
            parts=[
                TextBlock("reasoning", 0, "Need to run pytest.\nThen read failures."),
                TextBlock("text", 1, "Running the suite."),
                ToolCall(id="call_1", name="bash", status="completed",
                         input={"command": "pytest -q", "description": "Run \x1b]0;x\x07tests"},
                         content=[ToolContent(type="text", text="2 passed\n```inner```")]),
                ToolCall(id="call_2", name="read", status="error", input={"path": "/w/missing.py"},
                         error=StructuredError(type="tool", message="File not found")),
                TextBlock("text", 2, ""),
            ],
        ),
        Message(id="msg_3", role="assistant", agent="build", model=SONNET, finish="error",
                error=StructuredError(type="provider", message="Rate limited\nretry later")),
        Message(id="msg_4", role="user", text="reverted prompt", reverted=True),
        Message(id="msg_5", role="synthetic", text="Subagent done.", description="explore auth"),
    ]
    state.messages = {m.id: m for m in messages}
    return state


EXPECTED_MARKDOWN = """\
# Fix ␛[31mthe␛[0m tests

Session `ses_1` · agent build · model anthropic/claude-sonnet-4-5 · cost $0.0123 · tokens 1200 in / 340 out

## User

Run the tests␇ please

- 📎 notes.md

## Assistant (build · anthropic/claude-sonnet-4-5)

> **Thinking**
>
> Need to run pytest.
> Then read failures.

Running the suite.

- 🔧 bash: Run ␛]0;x␇tests — completed

````text
2 passed
```inner```
````

- 🔧 read: /w/missing.py — error

> **Error:** File not found

## Assistant (build · anthropic/claude-sonnet-4-5)

> **Error:** Rate limited
> retry later

## Synthetic (explore auth)

Subagent done.
"""


def test_markdown_exact() -> None:
    assert export_markdown(build_state()) == EXPECTED_MARKDOWN


def test_markdown_is_deterministic() -> None:
    assert export_markdown(build_state()) == export_markdown(build_state())


def test_json_exact() -> None:
    data = export_json(build_state())
    assert data == {
        "format": "octui.export/1",
        "id": "ses_1",
        "title": "Fix ␛[31mthe␛[0m tests",
        "parentID": None,
        "agent": "build",
        "model": "anthropic/claude-sonnet-4-5",
        "cost": 0.01234,
        "tokens": {"input": 1200, "output": 340, "reasoning": 0, "cache": {"read": 0, "write": 0}},
        "messages": [
            {"id": "msg_1", "role": "user", "agent": None, "model": None,
             "text": "Run the tests␇ please", "description": None, "files": ["notes.md"],
             "reverted": False, "finish": None, "error": None, "parts": []},
            {"id": "msg_2", "role": "assistant", "agent": "build", "model": "anthropic/claude-sonnet-4-5",
             "text": "", "description": None, "files": [], "reverted": False, "finish": "tool-calls",
             "error": None,
             "parts": [
                 {"type": "reasoning", "text": "Need to run pytest.\nThen read failures."},
                 {"type": "text", "text": "Running the suite."},
                 {"type": "tool", "id": "call_1", "name": "bash", "status": "completed",
                  "input": {"command": "pytest -q", "description": "Run ␛]0;x␇tests"},
                  "output": "2 passed\n```inner```", "error": None},
                 {"type": "tool", "id": "call_2", "name": "read", "status": "error",
                  "input": {"path": "/w/missing.py"}, "output": "",
                  "error": {"type": "tool", "message": "File not found"}},
                 {"type": "text", "text": ""},
             ]},
            {"id": "msg_3", "role": "assistant", "agent": "build", "model": "anthropic/claude-sonnet-4-5",
             "text": "", "description": None, "files": [], "reverted": False, "finish": "error",
             "error": {"type": "provider", "message": "Rate limited\nretry later"}, "parts": []},
            {"id": "msg_4", "role": "user", "agent": None, "model": None, "text": "reverted prompt",
             "description": None, "files": [], "reverted": True, "finish": None, "error": None,
             "parts": []},
            {"id": "msg_5", "role": "synthetic", "agent": None, "model": None, "text": "Subagent done.",
             "description": "explore auth", "files": [], "reverted": False, "finish": None,
             "error": None, "parts": []},
        ],
    }
    json.dumps(data)  # JSON-serialisable as is


def test_empty_session_falls_back_to_info_and_last_assistant() -> None:
    state = SessionState(id="ses_9", info=SessionInfo(id="ses_9", parentID="ses_1", cost=0.5,
                                                      tokens=TokenUsage(input=10.5)))
    state.messages = {"m": Message(id="m", role="assistant", agent="explore", model=SONNET)}
    data = export_json(state)
    assert (data["title"], data["parentID"], data["agent"], data["model"], data["cost"]) == (
        "ses_9", "ses_1", "explore", "anthropic/claude-sonnet-4-5", 0.5)
    assert data["tokens"]["input"] == 10.5
    assert export_markdown(state) == (
        "# ses_9\n\nSession `ses_9` · child of `ses_1` · agent explore · model "
        "anthropic/claude-sonnet-4-5 · cost $0.5000 · tokens 10.5 in / 0 out\n\n"
        "## Assistant (explore · anthropic/claude-sonnet-4-5)\n"
    )


def test_long_tool_output_is_truncated_in_markdown_only() -> None:
    output = "\n".join(f"line {i}" for i in range(100))
    state = SessionState(id="ses_1")
    state.messages = {"m": Message(id="m", role="assistant", parts=[
        ToolCall(id="c", name="bash", status="completed", input={"command": "seq 100"},
                 content=[ToolContent(text=output)])])}
    markdown = export_markdown(state)
    assert f"line {MAX_OUTPUT_LINES - 1}\n… (40 more lines)\n```" in markdown
    assert f"line {MAX_OUTPUT_LINES}\n" not in markdown
    assert export_json(state)["messages"][0]["parts"][0]["output"] == output


def test_single_huge_line_is_cut() -> None:
    state = SessionState(id="ses_1")
    state.messages = {"m": Message(id="m", role="assistant", parts=[
        ToolCall(id="c", name="read", status="completed", content=[ToolContent(text="x" * 10_000)])])}
    assert "\n… (truncated)\n```" in export_markdown(state)
    assert "- 🔧 read — completed" in export_markdown(state)


def test_lost_text_of_control_characters_only_is_exported() -> None:
    state = SessionState(id="ses_9", info=SessionInfo(id="ses_9"))
    state.messages = {"m": Message(id="m", role="assistant", interrupted="Interrupted", lost_text="\x0b\x0c")}
    assert "> ␋␌" in export_markdown(state)  # str.strip() took them for whitespace and left them out
