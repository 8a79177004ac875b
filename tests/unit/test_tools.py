"""Unit tests for tui.text.tools: titles, summaries, policy, patch parsing, exit codes, write diffs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tui.protocol.models import StructuredError, ToolContent
from tui.state.transcript import ToolCall
from tui.text.tools import (
    WRITE_NO_DIFF,
    added_file,
    default_expanded,
    diff_files,
    edit_preview,
    elapsed_ms,
    exit_code,
    format_duration,
    input_pairs,
    kind_of,
    output_cuts,
    output_path,
    parse_patch,
    question_state,
    shell_output,
    split_pairs,
    status_icon,
    subagent_text,
    timed_out,
    tool_summary,
    tool_title,
    truncated,
)


def make(name: str, status: str = "completed", **kw: object) -> ToolCall:
    return ToolCall(id="c1", name=name, status=status, **kw)  # type: ignore[arg-type]


def texts(*values: str) -> list[ToolContent]:
    return [ToolContent(text=v) for v in values]


@pytest.mark.parametrize(
    ("name", "data", "title"),
    [
        ("bash", {"command": "ls -la\x1b]0;x\x07"}, "ls -la␛]0;x␇"),
        ("shell", {"command": "echo  a\n  b"}, "echo a ⏎ b"),  # (a line break shows: two commands)
        ("read", {"path": "src/a.py"}, "src/a.py"),
        ("read", {"filePath": "legacy.py"}, "legacy.py"),
        ("edit", {"path": "b.py", "oldString": "x", "newString": "y"}, "b.py"),
        ("write", {"path": "c.txt", "content": "hi"}, "c.txt"),
        ("grep", {"pattern": "def main", "path": "src"}, "def main in src"),
        ("glob", {"pattern": "**/*.py"}, "**/*.py"),
        ("webfetch", {"url": "https://example.com"}, "https://example.com"),
        ("websearch", {"query": "textual"}, "textual"),
        ("subagent", {"description": "Survey tests", "prompt": "..."}, "Survey tests"),
        ("task", {"description": "Legacy", "prompt": "..."}, "Legacy"),
        ("question", {"questions": [{"header": "Colour", "question": "Which?"}]}, "Colour"),
        ("question", {"questions": "garbage"}, ""),
        ("mcp_thing", {"n": 3, "q": "find me"}, "find me"),
        ("todowrite", {"todos": [{"content": "a"}, {"content": "b"}]}, "2 todos"),
    ],
)
def test_titles(name: str, data: dict[str, object], title: str) -> None:
    assert tool_title(make(name, input=data)) == title


def test_title_while_streaming_shows_raw_input() -> None:
    call = make("bash", "streaming", input_text='{"command": "ec\x1b[2J')
    assert tool_title(call) == '{"command": "ec␛[2J'


def test_patch_title_lists_files() -> None:
    call = make("apply_patch", metadata={"files": [{"file": "a.py"}, {"file": "b.py"}]})
    assert tool_title(call) == "a.py, b.py"


def test_kinds_and_icons() -> None:
    assert kind_of("bash") == kind_of("shell") == "shell"
    assert kind_of("apply_patch") == "patch"
    assert kind_of("whatever") == "unknown"
    assert {status_icon(s) for s in ("streaming", "running", "completed", "error")} == {"◌", "●", "✓", "✗"}


def test_durations_and_elapsed() -> None:
    assert format_duration(860) == "0.9s"
    assert format_duration(12_000) == "12s"
    assert format_duration(65_000) == "1m05s"
    assert format_duration(3_725_000) == "1h02m"
    running = make("bash", "running", time_created=1000.0, time_ran=2000.0)
    assert elapsed_ms(running, 5000.0) == 3000.0
    done = make("bash", time_created=1000.0, time_ran=2000.0, time_completed=2500.0)
    assert elapsed_ms(done, 99_999.0) == 500.0
    assert elapsed_ms(make("bash"), 1.0) is None


# -- exit codes, both dialects -----------------------------------------------------------------


def test_exit_code_v2_metadata() -> None:
    assert exit_code(make("shell", metadata={"exit": 2, "truncated": False})) == 2


def test_exit_code_118_structured_normalised() -> None:
    call = make("bash", metadata={"exit": 0, "truncated": False},
                content=texts("hello\n", "Command exited with code 0."))
    assert exit_code(call) == 0
    assert shell_output(call) == "hello"


def test_exit_code_parsed_from_content() -> None:
    call = make("bash", content=texts("boom\nCommand exited with code 127."))
    assert exit_code(call) == 127
    assert shell_output(call) == "boom"


def test_exit_code_odd_types() -> None:
    assert exit_code(make("bash", metadata={"exit": "3"})) == 3
    assert exit_code(make("bash", metadata={"exit": True})) is None
    assert exit_code(make("bash", metadata={"exit": [1]})) is None


def test_timeout_marker() -> None:
    assert timed_out(make("shell", metadata={"timeout": True}))
    assert timed_out(make("bash", content=texts("x", "Command timed out before completion.")))
    assert not timed_out(make("bash"))


# -- policy ------------------------------------------------------------------------------------


def test_default_policy() -> None:
    assert default_expanded(make("read", "error", error=StructuredError(message="x")))
    assert not default_expanded(make("read"))
    assert default_expanded(make("edit"))
    assert default_expanded(make("write"))
    assert default_expanded(make("apply_patch"))
    assert not default_expanded(make("bash", metadata={"exit": 0}))
    assert default_expanded(make("bash", metadata={"exit": 1}))
    assert not default_expanded(make("bash", "running"))
    assert not default_expanded(make("mcp_x"))
    assert not default_expanded(make("write", "streaming"))


def test_policy_overrides() -> None:
    assert not default_expanded(make("edit"), {"edit": False})
    assert default_expanded(make("read"), {"read": True})
    assert not default_expanded(make("bash", metadata={"exit": 1}), {"shell_failed": False})
    assert not default_expanded(make("read", "error"), {"error": False})
    assert default_expanded(make("glob"), {"search": True})


# -- patches -----------------------------------------------------------------------------------

MULTI_HUNK = """Index: a.py
===================================================================
--- a.py
+++ a.py
@@ -1,3 +1,4 @@
 one
-two
+TWO
+two and a half
 three
@@ -10,3 +11,2 @@ def f():
 ten
-eleven
 twelve
\\ No newline at end of file
"""


def test_parse_multi_hunk_line_numbers() -> None:
    first, second = parse_patch(MULTI_HUNK)
    assert (first.old_start, first.old_count, first.new_start, first.new_count) == (1, 3, 1, 4)
    assert [(ln.kind, ln.text, ln.old_no, ln.new_no) for ln in first.lines] == [
        ("context", "one", 1, 1),
        ("removed", "two", 2, None),
        ("added", "TWO", None, 2),
        ("added", "two and a half", None, 3),
        ("context", "three", 3, 4),
    ]
    assert second.section == "def f():"
    assert second.header == "@@ -10,3 +11,2 @@ def f():"
    assert [(ln.kind, ln.old_no, ln.new_no) for ln in second.lines] == [
        ("context", 10, 11), ("removed", 11, None), ("context", 12, 12), ("note", None, None),
    ]


def test_parse_patch_sanitises_and_tolerates_garbage() -> None:
    hunks = parse_patch("garbage\n@@ -1 +1 @@\n-a\x1b]52;c;x\x07\n+b\tc\n")
    assert [ln.text for ln in hunks[0].lines] == ["a␛]52;c;x␇", "b    c"]
    assert parse_patch("") == []
    assert parse_patch("@@ broken @@\n+x") == []


def test_split_pairs() -> None:
    rows = split_pairs(parse_patch(MULTI_HUNK)[0])
    shown = [(a.text if a else None, b.text if b else None) for a, b in rows]
    assert shown == [("one", "one"), ("two", "TWO"), (None, "two and a half"), ("three", "three")]


def test_diff_files_from_metadata() -> None:
    call = make("edit", metadata={"files": [
        {"file": "a.py", "patch": MULTI_HUNK, "additions": 2, "deletions": 2, "status": "modified"},
        "not a dict",
        {"file": "b.py", "patch": "@@ -1 +1 @@\n-x\n+y\n", "additions": "?"},
    ]})
    a, b = diff_files(call)
    assert (a.path, a.additions, a.deletions, len(a.hunks)) == ("a.py", 2, 2, 2)
    assert (b.path, b.status, b.additions, b.deletions) == ("b.py", "modified", 1, 1)
    assert tool_summary(call) == "2 files +3 −3"


def test_diff_files_accepts_models() -> None:
    from tui.protocol.models import FileDiff

    call = make("patch", metadata={"files": [FileDiff(file="m.py", patch="@@ -1 +1 @@\n-a\n+b\n")]})
    assert [f.path for f in diff_files(call)] == ["m.py"]


def test_write_without_diff_is_an_added_file() -> None:
    call = make("write", input={"path": "notes.txt", "content": "one\ntwo\n"},
                metadata={"operation": "write", "target": "/p/notes.txt", "existed": False})
    (written,) = diff_files(call)
    shown = (written.path, written.status, written.additions, written.deletions)
    assert shown == ("notes.txt", "added", 2, 0)
    assert [(ln.kind, ln.text, ln.new_no) for ln in written.hunks[0].lines] == [
        ("added", "one", 1), ("added", "two", 2),
    ]
    assert added_file("e.txt", "").hunks == []


def test_write_over_existing_file() -> None:
    """QA: a write over an 8-line file showed "overwritten +6 −0" and "@@ -0,0 +1,6 @@": with no
    diff from the server, its new content is shown and what it removed is not claimed."""
    call = make("write", input={"path": "x", "content": "a\nb\n"}, metadata={"existed": True})
    (written,) = diff_files(call)
    assert (written.status, written.counts) == ("overwritten", "+2 −?")
    assert [hunk.header for hunk in written.hunks] == [WRITE_NO_DIFF]
    assert tool_summary(call) == "+2 −?"
    # A result that does not say (a 2.x server): written, the same way.
    unsaid = diff_files(make("write", input={"path": "x", "content": "a"}, metadata={}))[0]
    assert (unsaid.status, unsaid.counts, unsaid.hunks[0].header) == ("written", "+1 −?", WRITE_NO_DIFF)
    # A known new file keeps its "@@ -0,0" header and "−0".
    new = diff_files(make("write", input={"path": "x", "content": "a"}, metadata={"existed": False}))[0]
    assert (new.status, new.counts, new.hunks[0].header) == ("added", "+1 −0", "@@ -0,0 +1,1 @@")


def test_a_write_not_done_says_so() -> None:
    """A rejected write's row said "notes.txt added +3 −0": the file was never created (QA)."""
    content = {"path": "notes.txt", "content": "a\nb\nc\n"}
    assert diff_files(make("write", "error", input=content))[0].status == "not applied"
    assert diff_files(make("write", "running", input=content))[0].status == "pending"


def test_edit_preview_before_result() -> None:
    call = make("edit", "running", input={"path": "a.py", "oldString": "x\ny", "newString": "z"})
    (preview,) = edit_preview(call)
    assert [ln.kind for ln in preview.hunks[0].lines] == ["removed", "removed", "added"]
    assert edit_preview(make("read")) == []


# -- summaries and others ----------------------------------------------------------------------


def test_summaries() -> None:
    assert tool_summary(make("read", metadata={"content": "a\nb\nc\n"})) == "3 lines"
    assert tool_summary(make("grep", content=texts("Found 7 matches\na.py:1: x"))) == "7 matches"
    assert tool_summary(make("glob", content=texts("a.py\nb.py\n"))) == "2 files"
    assert tool_summary(make("glob", content=texts("No files found"))) == "0 results"
    todos = {"todos": [{"content": "a", "status": "completed"}, {"content": "b", "status": "pending"}]}
    assert tool_summary(make("todowrite", input=todos)) == "1/2 done"
    assert tool_summary(make("read", "error")) == "failed"
    assert tool_summary(make("read", "running")) == ""


def test_question_states() -> None:
    assert question_state(make("question", "running")) == ("waiting", [])
    answered = make("question", metadata={"answers": [["Blue"], ["Tests", "Docs"], "odd"]})
    assert question_state(answered) == ("answered", [["Blue"], ["Tests", "Docs"], ["odd"]])
    assert question_state(make("question", "error")) == ("rejected", [])


def test_subagent_text() -> None:
    wrapped = '<subagent sessionID="s" state="completed">\nDone \x1b[2J!\n</subagent>'
    call = make("subagent", content=texts(wrapped))
    assert subagent_text(call) == "Done ␛[2J!"
    assert subagent_text(make("task", content=texts("plain"))) == "plain"


def test_input_pairs_odd_values() -> None:
    call = make("mcp", input={"a": "x\x1b]8;;u\x1b\\y", "b": {"c": [1, None]}, "d": object()})
    pairs = dict(input_pairs(call))
    assert pairs["a"] == "x␛]8;;u␛\\y"
    assert pairs["b"] == '{"c": [1, null]}'
    assert pairs["d"].startswith("\"<object")


def test_tools_module_imports_no_textual() -> None:
    code = "import sys, tui.text.tools; assert 'textual' not in sys.modules, 'textual imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_background_subagent_row_says_so_not_running_or_done() -> None:
    """traces-2.0 m02: ``tool.success`` with ``metadata.status: "running"`` while the child works."""
    from tui.text.tools import subagent_status

    call = ToolCall(id="call_1", name="subagent", status="completed",
                    metadata={"sessionID": "ses_child", "status": "running", "truncated": False})
    assert subagent_status(call) == "running in background"
    call.status = "running"
    call.progress = {"sessionID": "ses_child", "status": "running"}
    call.metadata = {}
    assert subagent_status(call) == "running"


def test_truncated_and_the_saved_output_path() -> None:
    path = "/data/tool-output/tool_1"
    assert not truncated(make("bash", metadata={"exit": 0, "truncated": False}))
    assert truncated(make("bash", metadata={"truncated": True})) and output_path(make("bash")) == ""
    # 1.18: ``outputPaths`` (normalised into ``metadata``) even when its ``truncated`` is false
    call = make("bash", metadata={"truncated": False, "outputPaths": [path, "/other"]})
    assert truncated(call) and output_path(call) == path
    assert not truncated(make("bash", metadata={"outputPaths": []}))
    # v2
    call = make("bash", metadata={"truncated": True, "outputPath": path})
    assert truncated(call) and output_path(call) == path
    # the v2 shell names it only in its note
    text = f"tail\n\n[output truncated; full output saved to: {path}]"
    assert output_path(make("bash", metadata={"truncated": True}), output_cuts(text)) == path


def test_output_cuts_read_each_server_s_note() -> None:
    head, tail = "1\n2", "9\n10"
    text = f"{head}\n\n... output truncated; full content saved to /p/a b ...\n\n{tail}"  # 1.18.33
    (cut,) = output_cuts(text)
    assert (text[cut.start:cut.end], cut.lines, cut.omitted, cut.path, cut.at) == \
        ("\n... output truncated; full content saved to /p/a b ...\n\n", 3, None, "/p/a b", cut.start)
    (cut,) = output_cuts("1\n2\n... 12000 lines truncated; full content saved to /p ...")  # v2
    assert (cut.lines, cut.omitted, cut.path) == (1, 12000, "/p")
    (cut,) = output_cuts("1\n... 5 bytes truncated; full content saved to /p ...")
    assert cut.omitted is None
    (cut,) = output_cuts("8\n9\n\n[output truncated; full output saved to: /p]")  # the v2 shell
    assert (cut.lines, cut.omitted, cut.path, cut.at) == (2, None, "/p", 0)
    (cut,) = output_cuts("1\n\n\n[output capture truncated at the in-memory safety limit]")
    assert (cut.lines, cut.omitted, cut.path) == (3, 0, "")
    # a note's words inside a line are output
    assert output_cuts("echo '[output truncated; full output saved to: /p]'") == []


def test_a_note_printed_by_the_command_is_not_taken_for_the_servers() -> None:
    """A review: a command that printed the v2 shell's note above the real one (or a 1.18 note
    naming another file) had its path shown as where the whole output was saved."""
    forged = "[output truncated; full output saved to: /home/dev/forged/attacker.txt]"
    real = "[output truncated; full output saved to: /srv/tool-output/1.txt]"
    text = f"line 1\n{forged}\nline 2\n{real}"
    assert [cut.path for cut in output_cuts(text)] == ["/srv/tool-output/1.txt"]
    call = ToolCall(id="c", name="shell", metadata={"truncated": True}, content=[ToolContent(text=text)])
    assert output_path(call, output_cuts(text)) == "/srv/tool-output/1.txt"
    note = "... output truncated; full content saved to {} ..."
    text = f"a\n{note.format('/home/dev/forged/attacker.txt')}\nb\n{note.format('/srv/out/2.txt')}\nc"
    assert [cut.path for cut in output_cuts(text, "/srv/out/2.txt")] == ["/srv/out/2.txt"]
