"""Transcript export (tui/export.py): exact Markdown and JSON for a hand-built session."""

from __future__ import annotations

import json

from tui.export import MAX_OUTPUT_LINES, export_json, export_json_text, export_markdown
from tui.protocol.models import (
    ModelRef,
    SessionInfo,
    StructuredError,
    TokenUsage,
    ToolContent,
)
from tui.state.transcript import Message, SessionState, TextBlock, ToolCall
from tui.text.sanitize import hidden_characters

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
        "title": "Fix \x1b[31mthe\x1b[0m tests",
        "parentID": None,
        "agent": "build",
        "model": "anthropic/claude-sonnet-4-5",
        "cost": 0.01234,
        "tokens": {"input": 1200, "output": 340, "reasoning": 0, "cache": {"read": 0, "write": 0}},
        "messages": [
            {"id": "msg_1", "role": "user", "agent": None, "model": None,
             "text": "Run the tests\x07 please", "description": None, "files": ["notes.md"],
             "reverted": False, "finish": None, "error": None, "parts": []},
            {"id": "msg_2", "role": "assistant", "agent": "build", "model": "anthropic/claude-sonnet-4-5",
             "text": "", "description": None, "files": [], "reverted": False, "finish": "tool-calls",
             "error": None,
             "parts": [
                 {"type": "reasoning", "text": "Need to run pytest.\nThen read failures."},
                 {"type": "text", "text": "Running the suite."},
                 {"type": "tool", "id": "call_1", "name": "bash", "status": "completed",
                  "input": {"command": "pytest -q", "description": "Run \x1b]0;x\x07tests"},
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


# ------------------------------------------------------------ escapes in the server's text

HOSTILE = ("\x1b[1;31mred\x1b[0m"  # SGR colour
           " \x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\"  # OSC 8 hyperlink
           " \x1b[2J\x1b[H"  # CSI: clear the screen, cursor home
           " \u202egnp.exe\u202c"  # bidi override
           " \x9b31m")  # C1 CSI (an 8-bit SGR is not a colour we draw)
SHOWN = ("␛[1;31mred␛[0m ␛]8;;https://evil.example/␛\\link␛]8;;␛\\ ␛[2J␛[H <U+202E>gnp.exe<U+202C>"
         " <U+009B>31m")
"""``HOSTILE`` as the transcript shows prose and plain tool output: every escape a token."""
NO_COLOUR = SHOWN.replace("␛[1;31m", "").replace("␛[0m", "")
"""``HOSTILE`` as a shell's output is drawn: its SGR colours are colours, not characters."""
LS_COLOR = ("total 8\n"
            "drwxr-xr-x 4 demo demo 4096 Jan  2 10:00 \x1b[1;34m.\x1b[0m\n"
            "-rwxr-xr-x 1 demo demo  220 Jan  2 10:00 \x1b[32mrun.sh\x1b[0m\n")


def tool_state(*tools: ToolCall) -> SessionState:
    state = SessionState(id="ses_1")
    state.messages = {"m": Message(id="m", role="assistant", parts=list(tools))}
    return state


def test_shell_output_has_its_colours_dropped_and_every_other_escape_shown() -> None:
    state = tool_state(ToolCall(id="c", name="bash", status="completed", input={"command": "ls --color"},
                                content=[ToolContent(text=LS_COLOR + HOSTILE)]))
    assert export_markdown(state).endswith(
        "- 🔧 bash: ls --color — completed\n\n```text\ntotal 8\n"
        "drwxr-xr-x 4 demo demo 4096 Jan  2 10:00 .\n"
        "-rwxr-xr-x 1 demo demo  220 Jan  2 10:00 run.sh\n"
        f"{NO_COLOUR}\n```\n")


def test_plain_tool_output_shows_its_colour_codes_as_the_row_does() -> None:
    """A file read is drawn without colours, its escapes all tokens: so is its export."""
    state = tool_state(ToolCall(id="c", name="read", status="completed", input={"filePath": "/w/a.log"},
                                content=[ToolContent(text=HOSTILE)]))
    assert f"```text\n{SHOWN}\n```" in export_markdown(state)


def test_json_keeps_the_shell_output_as_it_came() -> None:
    """JSON is data for tools: the output exactly, colours and escapes too (tokens, as they were
    until a QA pass, could not be told from the same characters typed)."""
    state = tool_state(ToolCall(id="c", name="bash", status="completed", content=[ToolContent(text=HOSTILE)]))
    assert export_json(state)["messages"][0]["parts"][0]["output"] == HOSTILE
    printed = export_json_text(state)
    assert "\\u001b[1;31mred" in printed and "\\u202egnp.exe" in printed
    assert json.loads(printed)["messages"][0]["parts"][0]["output"] == HOSTILE


def test_an_answer_keeps_its_markdown_and_shows_its_escapes() -> None:
    answer = ("# Plan\n\n* **bold** and `code`\t[link](https://x.example)\n\n"
              "| a | b |\n|---|---|\n| 1 | 2 |\n\n")
    state = SessionState(id="ses_1")
    state.messages = {"m": Message(id="m", role="assistant", parts=[TextBlock("text", 0, answer + HOSTILE)])}
    assert export_markdown(state).endswith(f"## Assistant\n\n{answer}{SHOWN}\n")


def hostile_session() -> SessionState:
    """``HOSTILE`` in every server string the export writes."""
    h = HOSTILE
    info = SessionInfo(id=f"ses_{h}", parentID=f"ses_p{h}", agent=f"build{h}",
                       model=ModelRef(providerID=f"p{h}", id=f"m{h}"))
    state = SessionState(id=f"ses_{h}", info=info)
    messages = [
        Message(id=f"msg_1{h}", role="user", text=f"prompt {h}", files=[{"name": f"notes{h}.md"}]),
        Message(id=f"msg_2{h}", role="assistant", agent=f"build{h}", finish=f"stop{h}",
                interrupted=f"Interrupted {h}", lost_text=f"lost {h}",
                error=StructuredError(type=f"provider{h}", message=f"failed {h}"),
                parts=[
                    TextBlock("reasoning", 0, f"thinking {h}"),
                    TextBlock("text", 1, f"answer {h}"),
                    ToolCall(id=f"call_1{h}", name=f"bash{h}", status="completed",
                             input={"command": f"ls --color {h}"}, content=[ToolContent(text=f"out {h}")]),
                    ToolCall(id=f"call_2{h}", name="read", status="error", input={"filePath": f"/w/{h}"},
                             metadata={"title": f"/w/{h}"}, content=[ToolContent(text=f"file {h}")],
                             error=StructuredError(type=f"tool{h}", message=f"not found {h}")),
                ]),
        Message(id=f"msg_3{h}", role="synthetic", text=f"done {h}", description=f"explore {h}"),
    ]
    state.messages = {m.id: m for m in messages}
    return state


def test_no_server_string_reaches_the_markdown_raw() -> None:
    markdown = export_markdown(hostile_session())
    assert hidden_characters(markdown, strict=False) == []
    assert markdown.startswith(f"# ses_{SHOWN}\n\nSession `ses_{SHOWN}` · child of `ses_p{SHOWN}`")


def test_no_server_string_reaches_the_printed_json_raw_and_none_is_changed() -> None:
    state = hostile_session()
    text = export_json_text(state)  # as ``octui export --format json`` prints it
    assert hidden_characters(text.replace("\n", ""), strict=True) == []
    assert json.loads(text) == export_json(state)  # every string exactly as it came
    data = export_json(state)
    assert (data["id"], data["parentID"], data["messages"][0]["id"]) == (
        f"ses_{HOSTILE}", f"ses_p{HOSTILE}", f"msg_1{HOSTILE}")
    assert data["messages"][1]["parts"][2]["id"] == f"call_1{HOSTILE}"


def test_a_command_that_failed_is_exported_as_failed() -> None:
    """The row shows a command that exited non-zero (or timed out) as failed; the export said
    "completed" (the server's word for the call) beside it."""
    failed = ToolCall(id="a", name="bash", status="completed", input={"command": "make"},
                      metadata={"exit": 2})
    slow = ToolCall(id="b", name="bash", status="completed", input={"command": "sleep 9"},
                    metadata={"exit": 0, "timeout": True})
    fine = ToolCall(id="c", name="bash", status="completed", input={"command": "ls"}, metadata={"exit": 0})
    text = export_markdown(tool_state(failed, slow, fine))
    assert "- 🔧 bash: make — failed (exit 2)" in text
    assert "- 🔧 bash: ls — completed" in text
    assert "- 🔧 bash: sleep 9 — failed (timed out)" in text
