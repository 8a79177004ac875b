"""Pure ask logic: question answers, form visibility/validation/answers, conversion, summaries."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tui.protocol.models import (
    FormCondition,
    FormField,
    FormInfo,
    FormOption,
    PermissionRequest,
    QuestionItem,
    QuestionOption,
    QuestionRequest,
    QuestionTool,
)
from tui.state.asks import (
    READING_CURRENT,
    SNIPPET_HUNK,
    SNIPPET_HUNK_ALL,
    CurrentFile,
    FormAnswer,
    FormDismissed,
    QuestionAnswer,
    QuestionDismissed,
    QuestionState,
    answer_for,
    build_form_answer,
    build_question_answer,
    describe_ask,
    form_answer_from_question,
    form_from_question,
    initial_values,
    is_question_form,
    permission_preview,
    project_relative,
    question_from_form,
    validate_field,
    validate_form,
    validate_questions,
    visible_keys,
    written_file,
)
from tui.state.transcript import ToolCall

COLORS = [QuestionOption(label=c, description=f"{c} things") for c in ("Red", "Green", "Blue")]


def item(multiple: bool = False, custom: bool | None = None) -> QuestionItem:
    return QuestionItem(question="Pick a colour", header="Color", options=COLORS,
                        multiple=multiple, custom=custom)


# ------------------------------------------------------------------------------------ questions


def test_single_choice_keeps_one_option() -> None:
    state = QuestionState(item())
    state.pick(0)
    state.pick(2)
    assert state.answer() == ["Blue"]


def test_single_choice_custom_replaces_option_and_option_clears_custom() -> None:
    state = QuestionState(item())
    state.pick(1)
    state.set_custom("  Teal ")
    assert state.answer() == ["Teal"]
    state.pick(0)
    assert state.answer() == ["Red"] and state.custom_text == ""


def test_multi_choice_toggles_in_option_order_plus_custom() -> None:
    state = QuestionState(item(multiple=True))
    state.pick(2)
    state.pick(0)
    state.toggle(1)
    state.toggle(1)
    state.set_custom("Teal")
    assert state.answer() == ["Red", "Blue", "Teal"]


def test_custom_false_ignores_typed_text_and_bad_indexes() -> None:
    state = QuestionState(item(custom=False))
    state.set_custom("nope")
    state.pick(7)
    assert state.answer() == [] and not state.answered


def test_build_question_answer_in_question_order() -> None:
    one, two = QuestionState(item()), QuestionState(item(multiple=True))
    one.pick(1)
    two.pick(0)
    two.pick(1)
    assert build_question_answer([one, two]) == QuestionAnswer([["Green"], ["Red", "Green"]])


def test_single_choice_needs_an_answer_multiple_may_be_empty() -> None:
    # "Pick one" is one answer; "Pick any" includes none (the question tool's multiselect field
    # has no minItems, and the server takes an empty list for it).
    single, multi = QuestionState(item()), QuestionState(item(multiple=True))
    assert validate_questions([single, multi]) == {0: "Pick one, or type your own answer"}
    single.pick(2)
    assert validate_questions([single, multi]) == {}
    assert build_question_answer([single, multi]) == QuestionAnswer([["Blue"], []])


def test_single_choice_typed_answer_counts_blank_does_not() -> None:
    state = QuestionState(item())
    state.set_custom("   ")
    assert validate_questions([state]) == {0: "Pick one, or type your own answer"}
    state.set_custom(" Teal ")
    assert validate_questions([state]) == {}
    state.set_custom("")  # typing cleared the pick: nothing left
    assert state.error == "Pick one, or type your own answer"


def test_question_error_says_what_can_answer_it() -> None:
    assert QuestionState(item(custom=False)).error == "Pick one"
    typed_only = QuestionItem(question="Your name?", header="Name", options=[])
    assert QuestionState(typed_only).error == "Type your answer"
    # Neither options nor a typed answer: nothing could answer it, so it cannot hold up the rest.
    unanswerable = QuestionItem(question="?", header="Void", options=[], custom=False)
    assert QuestionState(unanswerable).error is None and not QuestionState(unanswerable).needs_answer
    assert validate_questions([QuestionState(item(multiple=True, custom=False))]) == {}


# ---------------------------------------------------------------------------------------- forms


def form(*fields: FormField, metadata: dict[str, Any] | None = None) -> FormInfo:
    return FormInfo(id="frm_1", sessionID="ses_1", title="Setup", fields=list(fields), metadata=metadata)


@pytest.mark.parametrize(
    ("spec", "raw", "error"),
    [
        ({"type": "string", "required": True}, "", "Required"),
        ({"type": "string", "required": True}, "   ", "Required"),
        ({"type": "string"}, "", None),
        ({"type": "string", "minLength": 3}, "ab", "At least 3 characters"),
        ({"type": "string", "maxLength": 3}, "abcd", "At most 3 characters"),
        ({"type": "string", "pattern": "^[a-z]+$"}, "ab1", "Does not match the expected pattern"),
        ({"type": "string", "pattern": "^[a-z]+$"}, "abc", None),
        ({"type": "string", "format": "email"}, "a@b", "Enter an email address"),
        ({"type": "string", "format": "email"}, "a@b.io", None),
        ({"type": "string", "format": "uri"}, "not a uri", "Enter a URI such as https://example.com"),
        ({"type": "string", "format": "uri"}, "https://x.dev/a", None),
        ({"type": "string", "format": "date"}, "2026-02-30", "Enter a date as YYYY-MM-DD"),
        ({"type": "string", "format": "date"}, "2026-02-28", None),
        ({"type": "string", "format": "date-time"}, "tomorrow", "Enter a date-time as YYYY-MM-DDTHH:MM:SS"),
        ({"type": "string", "format": "date-time"}, "2026-02-28T10:00:00Z", None),
        ({"type": "string", "options": [{"value": "a"}]}, "b", "Pick one of the options"),
        ({"type": "string", "options": [{"value": "a"}], "custom": True}, "b", None),
        ({"type": "number", "minimum": 1.5}, "1", "Must be at least 1.5"),
        ({"type": "number", "maximum": 10}, "10.5", "Must be at most 10"),
        ({"type": "number"}, "abc", "Enter a number"),
        ({"type": "number"}, "-2.5", None),
        ({"type": "integer"}, "2.5", "Enter a whole number"),
        ({"type": "integer", "minimum": 0, "maximum": 5}, "6", "Must be at most 5"),
        ({"type": "integer", "required": True}, "", "Required"),
        ({"type": "boolean", "required": True}, False, None),
        ({"type": "multiselect", "required": True}, [], "Required"),
        ({"type": "multiselect", "minItems": 2}, ["a"], "Pick at least 2"),
        ({"type": "multiselect", "maxItems": 1}, ["a", "b"], "Pick at most 1"),
        ({"type": "multiselect", "options": [{"value": "a"}]}, ["a", "z"], "Not an option: z"),
        ({"type": "multiselect", "options": [{"value": "a"}], "custom": True}, ["a", "z"], None),
        ({"type": "external", "required": True, "url": "https://x"}, None, None),
    ],
)
def test_validate_field_per_kind(spec: dict[str, Any], raw: Any, error: str | None) -> None:
    assert validate_field(FormField.model_validate({"key": "k", **spec}), raw) == error


def test_initial_values_use_defaults() -> None:
    f = form(
        FormField(key="name", default="Ada"),
        FormField(key="n", type="integer", default=3),
        FormField(key="ok", type="boolean"),
        FormField(key="tags", type="multiselect", default=["x"]),
        FormField(key="doc", type="external", url="https://x"),
    )
    assert initial_values(f) == {"name": "Ada", "n": "3", "ok": False, "tags": ["x"]}


def chain() -> FormInfo:
    return form(
        FormField(key="kind", options=[FormOption(value="cloud"), FormOption(value="local")]),
        FormField(key="region", when=[FormCondition(key="kind", op="eq", value="cloud")], required=True),
        FormField(key="zone", when=[FormCondition(key="region", op="neq", value="")]),
        FormField(key="tls", type="boolean", when=[FormCondition(key="kind", op="neq", value="local")]),
        FormField(key="cert", when=[FormCondition(key="tls", op="eq", value=True)]),
    )


def test_when_eq_neq_chain() -> None:
    f = chain()
    assert visible_keys(f, {"kind": "", "tls": False}) == {"kind", "tls"}
    assert visible_keys(f, {"kind": "cloud", "region": "eu", "tls": True}) == {
        "kind", "region", "zone", "tls", "cert"}
    # Switching kind hides region, and zone (which depends on region) collapses with it.
    assert visible_keys(f, {"kind": "local", "region": "eu", "zone": "a", "tls": True}) == {"kind"}


def test_when_matches_numbers_and_lists() -> None:
    f = form(
        FormField(key="n", type="integer"),
        FormField(key="tags", type="multiselect"),
        FormField(key="big", when=[FormCondition(key="n", value=3)]),
        FormField(key="has_x", when=[FormCondition(key="tags", value="x")]),
    )
    assert visible_keys(f, {"n": "3", "tags": ["y", "x"]}) == {"n", "tags", "big", "has_x"}
    assert visible_keys(f, {"n": "4", "tags": []}) == {"n", "tags"}


def test_validate_form_skips_hidden_fields() -> None:
    f = chain()
    assert validate_form(f, {"kind": "local"}) == {}
    assert validate_form(f, {"kind": "cloud", "region": ""}) == {"region": "Required"}


def test_build_form_answer_types_and_omits() -> None:
    f = form(
        FormField(key="name"),
        FormField(key="n", type="integer"),
        FormField(key="x", type="number"),
        FormField(key="ok", type="boolean"),
        FormField(key="tags", type="multiselect"),
        FormField(key="empty"),
        FormField(key="doc", type="external", url="https://x"),
        FormField(key="hidden", when=[FormCondition(key="ok", value=False)]),
    )
    values = {"name": " Ada ", "n": "4", "x": "2.5", "ok": True, "tags": ["a"], "empty": "",
              "hidden": "zzz"}
    assert build_form_answer(f, values) == FormAnswer(
        {"name": "Ada", "n": 4, "x": 2.5, "ok": True, "tags": ["a"]})


# ------------------------------------------------------------------------------- conversions


def question_form() -> FormInfo:
    return form(
        FormField(key="q0", title="Color", description="Which colour?",
                  options=[FormOption(value="blue", label="Blue"), FormOption(value="red", label="Red")],
                  custom=True),
        FormField(key="q1", type="multiselect", title="Extras", description="Anything else?",
                  options=[FormOption(value="Tests", label="Tests"), FormOption(value="Docs", label="Docs")],
                  custom=True),
        metadata={"kind": "question", "tool": {"messageID": "msg_1", "id": "call_1"}},
    )


def test_question_form_to_question_model() -> None:
    f = question_form()
    assert is_question_form(f) and not is_question_form(chain())
    q = question_from_form(f)
    assert q.id == "frm_1" and q.sessionID == "ses_1"
    assert [i.header for i in q.questions] == ["Color", "Extras"]
    assert [i.question for i in q.questions] == ["Which colour?", "Anything else?"]
    assert [o.label for o in q.questions[0].options] == ["Blue", "Red"]
    assert [i.multiple for i in q.questions] == [False, True]
    assert q.tool == QuestionTool(messageID="msg_1", id="call_1")


def test_question_answers_back_to_form_keys() -> None:
    f = question_form()
    answer = QuestionAnswer([["Blue"], ["Docs", "Mine"]])
    assert form_answer_from_question(f, answer) == FormAnswer({"q0": "blue", "q1": ["Docs", "Mine"]})
    assert answer_for(f, answer) == FormAnswer({"q0": "blue", "q1": ["Docs", "Mine"]})
    assert answer_for(f, QuestionDismissed()) == FormDismissed()
    assert answer_for(f, QuestionDismissed(elsewhere=True)) == FormDismissed(elsewhere=True)


def test_question_request_round_trip() -> None:
    request = QuestionRequest(id="que_1", sessionID="ses_1",
                              questions=[item(), item(multiple=True, custom=False)],
                              tool=QuestionTool(messageID="m", id="c"))
    f = form_from_question(request)
    assert [x.key for x in f.fields] == ["q0", "q1"] and is_question_form(f)
    back = question_from_form(f)
    assert [(i.header, i.question, i.multiple, i.custom) for i in back.questions] == [
        ("Color", "Pick a colour", False, True), ("Color", "Pick a colour", True, False)]
    assert back.questions[0].options == COLORS and back.tool == request.tool


# ----------------------------------------------------------------------- preview and summary


def test_describe_ask_titles() -> None:
    bash = PermissionRequest(id="per_1", sessionID="s", action="bash", resources=["make test"])
    tool = ToolCall(id="c", name="bash", input={"command": "make   test\n"})
    assert describe_ask(bash, tool).title == "bash: make test"
    assert describe_ask(bash, None).title == "bash: make test"
    edit = PermissionRequest(id="per_2", sessionID="s", action="edit", resources=["notes.txt"], save=["*"])
    assert describe_ask(edit, None).title == "edit: notes.txt"
    question = QuestionRequest(id="que_1", sessionID="s", questions=[item()])
    summary = describe_ask(question, None)
    assert (summary.kind, summary.title, summary.ask_id) == ("question", "question: Color", "que_1")
    assert describe_ask(question_form(), None).title == "question: Color (+1)"
    assert describe_ask(chain(), None).title == "form: Setup"
    spoof = PermissionRequest(id="p", sessionID="s", action="bash", resources=["rm -rf /\u202e"])
    assert "<U+202E>" in describe_ask(spoof, None).title


def test_permission_preview_command_and_diffs() -> None:
    bash = PermissionRequest(id="p", sessionID="s", action="bash", resources=["ls"])
    assert permission_preview(bash, ToolCall(id="c", name="bash", input={"command": "ls -la"})).command \
        == "ls -la"
    files = [{"file": "a.txt", "patch": "@@ -1 +1 @@\n-old\n+new", "additions": 1, "deletions": 1}]
    edit = PermissionRequest(id="p", sessionID="s", action="edit", metadata={"files": files})
    kinds = [k for k, _ in permission_preview(edit, None).diff]
    assert kinds == ["meta", "hunk", "del", "add"]
    by_input = ToolCall(id="c", name="edit", input={"path": "b.txt", "oldString": "x", "newString": "y"})
    lines = permission_preview(PermissionRequest(id="p", sessionID="s", action="edit"), by_input).diff
    assert ("del", "-x") in lines and ("add", "+y") in lines
    write = ToolCall(id="c", name="write", input={"path": "n.txt", "content": "one\ntwo"})
    lines = permission_preview(PermissionRequest(id="p", sessionID="s", action="edit"), write).diff
    assert [t for k, t in lines if k == "add"] == ["+one", "+two"]


def test_a_whole_file_write_is_shown_against_the_file_it_replaces() -> None:
    """QA: a write over an 8-line file was shown as "@@ -0,0 +1,6 @@", all added. Until the file
    is read the dialog says so and claims no hunk; then it shows the real change, or a new file,
    or why what it replaces is not shown."""
    ask = PermissionRequest(id="p", sessionID="s", action="edit", resources=["n.txt"])
    write = ToolCall(id="c", name="write", input={"filePath": "/proj/n.txt", "content": "keep\nnew two\n"})
    assert written_file(ask, write) == ("/proj/n.txt", "keep\nnew two\n")

    reading = permission_preview(ask, write).diff
    assert ("meta", f"=== {READING_CURRENT}") in reading and ("add", "+new two") in reading
    assert not any(kind == "hunk" for kind, _ in reading)

    replaced = permission_preview(ask, write, CurrentFile("keep\nold two\nold three\n", exists=True)).diff
    assert replaced[0] == ("meta", "=== /proj/n.txt (replaces the file's 3 lines: +1 -2)")
    assert replaced[1:] == [("hunk", "@@ -1,3 +1,2 @@"), ("ctx", " keep"), ("del", "-old two"),
                            ("del", "-old three"), ("add", "+new two")]

    same = permission_preview(ask, write, CurrentFile("keep\nnew two\n", exists=True)).diff
    assert same == [("meta", "=== /proj/n.txt (no change: the file holds exactly this already)")]

    new = permission_preview(ask, write, CurrentFile(None, exists=False)).diff
    assert new == [("meta", "=== /proj/n.txt (a new file)"), ("hunk", "@@ -0,0 +1,2 @@"),
                   ("add", "+keep"), ("add", "+new two")]

    unread = permission_preview(ask, write, CurrentFile(None, note="it is larger than 1.0 MB")).diff
    assert ("meta", "=== what it replaces is not shown: it is larger than 1.0 MB") in unread
    assert not any(kind in ("hunk", "del") for kind, _ in unread)

    # A server that sends the diff with its ask (2.x): that diff, and no read.
    files = [{"file": "n.txt", "patch": "@@ -1 +1 @@\n-a\n+b", "additions": 1, "deletions": 1}]
    assert written_file(ask.model_copy(update={"metadata": {"files": files}}), write) is None
    assert written_file(ask, ToolCall(id="c", name="edit", input={"filePath": "n.txt", "oldString": "a",
                                                                 "newString": "b", "content": "x"})) is None


@pytest.mark.parametrize(("path", "directory", "relative"), [
    ("/proj/src/a.py", "/proj", "src/a.py"),
    ("/proj/src/a.py", "/proj/", "src/a.py"),
    ("src/./a.py", "/proj", "src/a.py"),
    ("/elsewhere/a.py", "/proj", None),  # the server reads only the session's folder
    ("/proj/../etc/passwd", "/proj", None),
    ("src/../../x", "/proj", None),
    ("/proj", "/proj", None),
    ("/abs.py", "", None),
])
def test_a_written_path_is_read_relative_to_the_session_folder(path: str, directory: str,
                                                               relative: str | None) -> None:
    assert project_relative(path, directory) == relative


def test_an_edit_previewed_from_its_input_claims_no_line_numbers() -> None:
    """QA: an edit of line 2 was previewed as "@@ -1 +1,2 @@": the lines are the edit's own
    text, numbered from 1. The hunk says where its line numbers come from instead."""
    ask = PermissionRequest(id="p", sessionID="s", action="edit", resources=["notes.txt"])
    edit = ToolCall(id="c", name="edit", input={"filePath": "notes.txt", "oldString": "line two",
                                                 "newString": "line 2a\nline 2b"})
    lines = permission_preview(ask, edit).diff
    assert lines == [("meta", "--- a/notes.txt"), ("meta", "+++ b/notes.txt"), ("hunk", SNIPPET_HUNK),
                     ("del", "-line two"), ("add", "+line 2a"), ("add", "+line 2b")]
    every = ToolCall(id="c", name="edit", input={"filePath": "notes.txt", "oldString": "a",
                                                  "newString": "b", "replaceAll": True})
    assert ("hunk", SNIPPET_HUNK_ALL) in permission_preview(ask, every).diff
    assert not any(re.search(r"-\d", text) for kind, text in lines if kind == "hunk")
    # Changes far apart in the edit's text are one hunk: no gap hidden between two headers alike.
    far = ToolCall(id="c", name="edit", input={"filePath": "n.txt", "oldString": "a\n" + "k\n" * 8 + "z",
                                                "newString": "A\n" + "k\n" * 8 + "Z"})
    far_lines = permission_preview(ask, far).diff
    assert [kind for kind, _ in far_lines].count("hunk") == 1 and ("ctx", " k") in far_lines


def test_shell_preview_shows_the_command_once() -> None:
    """#18: a 1.18 bash ask lists the command as its one resource; a 2.x one the parsed sub-commands
    (traces-2.0 m08_long_shell). Neither is repeated when the tool's command already shows it."""
    command = "for i in $(seq 1 200); do echo line $i; sleep 0.01; done"
    tool = ToolCall(id="c", name="shell", input={"command": command})
    v2 = PermissionRequest(id="p", sessionID="s", action="shell",
                           resources=["seq 1 200", "echo line $i", "sleep 0.01"])
    preview = permission_preview(v2, tool)
    assert (preview.shell, preview.command, preview.from_tool) == (True, command, True)
    assert preview.sub_commands == []
    v118 = PermissionRequest(id="p", sessionID="s", action="bash", resources=[command])
    assert permission_preview(v118, tool).sub_commands == []
    # Resources that say something the command does not are listed (all of them).
    odd = PermissionRequest(id="p", sessionID="s", action="shell", resources=["seq 1 200", "rm -rf ~"])
    assert permission_preview(odd, tool).sub_commands == ["seq 1 200", "rm -rf ~"]
    # No tool call known yet: one resource is the command; several are sub-commands, not joined.
    assert permission_preview(v118, None).command == command
    unknown = permission_preview(v2, None)
    assert unknown.command is None and unknown.sub_commands == v2.resources


def test_preview_keeps_the_raw_text() -> None:
    """The dialog makes hidden characters visible itself; the preview must not delete them, nor split
    lines anywhere but at ``\\n`` (``str.splitlines`` also splits at ``\\r``, ``\\x0b``, U+2028 …)."""
    command = "echo harmless \x1b]; touch HIDDEN \x07"
    bash = PermissionRequest(id="p", sessionID="s", action="bash", resources=[command])
    tool = ToolCall(id="c", name="bash", input={"command": command})
    assert permission_preview(bash, tool).command == command
    patch = "@@ -1 +1 @@\n-a\rb\n+c\x0bd\u2028e\n"
    files = [{"file": "f", "patch": patch, "additions": 1, "deletions": 1}]
    edit = PermissionRequest(id="p", sessionID="s", action="edit", metadata={"files": files})
    lines = permission_preview(edit, None).diff
    assert ("del", "-a\rb") in lines and ("add", "+c\x0bd\u2028e") in lines


def test_an_absolute_path_in_an_edits_patch_is_not_doubled() -> None:
    """QA: an edit of ``/home/me/p/hello.py`` was headed ``--- a//home/me/p/hello.py``."""
    ask = PermissionRequest(id="p", sessionID="s", action="edit")
    edit = ToolCall(id="c", name="edit", input={"filePath": "/home/me/p/hello.py", "oldString": "a",
                                                 "newString": "b"})
    assert permission_preview(ask, edit).diff[:2] == [("meta", "--- /home/me/p/hello.py"),
                                                      ("meta", "+++ /home/me/p/hello.py")]
