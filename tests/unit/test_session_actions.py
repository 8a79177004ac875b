"""Session actions: what gets copied/exported/reverted, honest toasts, error wording, notifications."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tui.app.notify import Notifier, alerts_for
from tui.app.session_actions import (
    CLIPBOARD_FILE,
    SessionActions,
    clipboard_toast,
    code_blocks,
    error_text,
    export_file_name,
    last_answer,
    last_code_block,
    message_copy_text,
    revert_files,
    undo_target,
    write_export,
)
from tui.protocol.models import (
    FileDiff,
    QuestionRequest,
    SessionInfo,
    SessionRevert,
    StructuredError,
    ToolContent,
)
from tui.session.errors import Conflict, Unavailable
from tui.session.service import SessionService
from tui.state.changes import AsksChanged, Change, SessionChanged
from tui.state.store import Store
from tui.state.transcript import Message, SessionState, TextBlock, ToolCall
from tui.text.sanitize import hidden_characters

ANSWER_1 = "Here is the plan.\n\n```python\nprint('one')\n```\n"
ANSWER_2 = "Done. Run:\n\n~~~sh\nmake test\n~~~\n\nand then\n\n```\nmake lint\n```"


def state() -> SessionState:
    s = SessionState(id="ses_1", info=SessionInfo(id="ses_1", title="Fix: the *auth* bug!"))
    msgs = [
        Message(id="msg_u1", role="user", text="first prompt"),
        Message(id="msg_a1", role="assistant", parts=[
            TextBlock("reasoning", 0, "thinking…"), TextBlock("text", 0, ANSWER_1)]),
        Message(id="msg_u2", role="user", text="second prompt"),
        Message(id="msg_a2", role="assistant", parts=[ToolCall(id="call_1", name="bash"),
                                                      TextBlock("text", 0, "Step one.")]),
        Message(id="msg_a3", role="assistant", parts=[TextBlock("text", 0, ANSWER_2)]),
    ]
    s.messages = {m.id: m for m in msgs}
    return s


# ------------------------------------------------------------------ pure helpers
def test_message_copy_text_skips_reasoning_and_tools() -> None:
    s = state()
    assert message_copy_text(s.messages["msg_a1"]) == ANSWER_1.strip("\n")
    assert message_copy_text(s.messages["msg_u2"]) == "second prompt"


def test_last_answer_joins_every_step_after_the_last_prompt() -> None:
    assert last_answer(state()) == "Step one.\n\n" + ANSWER_2


def test_last_answer_ignores_reverted_messages() -> None:
    s = state()
    for mid in ("msg_u2", "msg_a2", "msg_a3"):
        s.messages[mid].reverted = True
    assert last_answer(s) == ANSWER_1.strip("\n")


def test_code_blocks_backticks_and_tildes() -> None:
    assert code_blocks(ANSWER_2) == ["make test", "make lint"]
    assert code_blocks(ANSWER_1) == ["print('one')"]
    assert code_blocks("no code here") == []
    assert code_blocks("```\nunclosed") == []


def test_last_code_block() -> None:
    assert last_code_block(state()) == "make lint"
    assert last_code_block(SessionState(id="x")) is None


def test_undo_target_walks_back_over_a_staged_revert() -> None:
    s = state()
    assert undo_target(s) is not None and undo_target(s).id == "msg_u2"  # type: ignore[union-attr]
    assert s.info is not None
    s.info.revert = SessionRevert(messageID="msg_u2")
    target = undo_target(s)
    assert target is not None and target.id == "msg_u1"
    s.info.revert = SessionRevert(messageID="msg_u1")
    assert undo_target(s) is None
    assert undo_target(SessionState(id="empty")) is None


def test_revert_files_from_model_dict_or_none() -> None:
    diff = {"file": "a.py", "additions": 2, "deletions": 1, "status": "modified"}
    assert revert_files({"messageID": "m", "files": [diff]}) == [FileDiff.model_validate(diff)]
    assert revert_files({"messageID": "m", "diff": "", "files": []}) == []  # 1.18 shape
    assert revert_files(None) == []
    assert revert_files(SessionRevert(messageID="m")) == []
    # 1.18.33 names each file "path": the undo panel listed "(unnamed)" (QA, real server).
    (named,) = revert_files({"messageID": "m", "files": [
        {"path": "notes.txt", "additions": 0, "deletions": 3, "status": "deleted"}]})
    assert (named.file, named.deletions, named.status) == ("notes.txt", 3, "deleted")


def test_clipboard_toast_is_honest() -> None:
    text = clipboard_toast("Last answer", 12, Path("state") / CLIPBOARD_FILE)
    assert "OSC 52" in text and "works if your terminal allows it" in text
    assert "Copied" not in text  # never claims success it cannot see
    assert str(Path("state") / CLIPBOARD_FILE) in text
    assert "Could not save" in clipboard_toast("X", 1, None)


def test_export_file_name_is_safe() -> None:
    assert export_file_name(state()) == "fix-the-auth-bug-ses_1.md"
    weird = SessionState(id="ses/../x", info=SessionInfo(id="ses/../x", title="///"))
    assert export_file_name(weird) == "sesx.md"


def test_write_export(tmp_path: Path) -> None:
    path = write_export(state(), tmp_path)
    assert path.parent == tmp_path / "exports"
    body = path.read_text("utf-8")
    assert body.startswith("# Fix: the *auth* bug!") and "make lint" in body


def test_error_text_names_1_18_compaction_honestly() -> None:
    unavailable = Unavailable(503, "ServiceUnavailableError", "not available yet", {}, url="u",
                              method="POST", path="/api/session/s/compact")
    assert error_text(unavailable, "Compaction").startswith("Compaction is not available on this server")
    busy = Conflict(409, "SessionBusyError", "busy", {}, url="u", method="POST", path="/p")
    assert "busy" in error_text(busy, "Undo")


# ------------------------------------------------------------------ glue with a fake app
class FakeClient:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    async def compact(self, sid: str) -> None:
        self.calls.append(("compact", sid))
        raise Unavailable(503, "ServiceUnavailableError", "Session compaction is not available yet", {},
                          url="u", method="POST", path=f"/api/session/{sid}/compact")

    async def revert_stage(self, sid: str, mid: str) -> dict[str, Any]:
        self.calls.append(("stage", sid, mid))
        return {"messageID": mid, "diff": "", "files": []}

    async def revert_clear(self, sid: str) -> None:
        self.calls.append(("clear", sid))

    async def rename_session(self, sid: str, title: str) -> None:
        self.calls.append(("rename", sid, title))


class FakeApp:
    def __init__(self) -> None:
        self.toasts: list[tuple[str, str]] = []
        self.clipboard: list[str] = []
        self.posted: list[Any] = []
        self.client = FakeClient()
        self.store = Store()
        self.store.sessions["ses_1"] = state()
        self.changes: list[Change] = []
        self.session = SessionService(self.client, self.store, self.changes.extend,  # type: ignore[arg-type]
                                      lambda _state: None)

    def notify(self, text: str, *, severity: str = "information", **_: Any) -> None:
        self.toasts.append((severity, text))

    def copy_to_clipboard(self, text: str) -> None:
        self.clipboard.append(text)

    def post_message(self, message: Any) -> None:
        self.posted.append(message)


def actions(tmp_path: Path) -> tuple[SessionActions, FakeApp]:
    app = FakeApp()
    return SessionActions(app, root=tmp_path), app  # type: ignore[arg-type]


def test_copy_sends_osc52_and_writes_the_fallback_file(tmp_path: Path) -> None:
    acts, app = actions(tmp_path)
    acts.copy_last_answer(app.store.sessions["ses_1"])
    assert app.clipboard == [last_answer(state())]
    assert (tmp_path / CLIPBOARD_FILE).read_text("utf-8") == last_answer(state())
    severity, toast = app.toasts[-1]
    assert "OSC 52" in toast and str(tmp_path / CLIPBOARD_FILE) in toast


def test_copy_last_answer_after_a_turn_that_wrote_none_takes_the_one_before(tmp_path: Path) -> None:
    """QA: after a failed turn, F5 said "Nothing to copy: last answer is empty" with a whole
    answer above it. It copies that answer and says it is not the latest turn's."""
    acts, app = actions(tmp_path)
    session = app.store.sessions["ses_1"]
    for mid, text in (("msg_u3", "third prompt"), ("msg_u4", "fourth prompt")):
        session.messages[mid] = Message(id=mid, role="user", text=text)
        failed = f"msg_f{mid[-1]}"
        session.messages[failed] = Message(id=failed, role="assistant",
                                           error=StructuredError(type="provider", message="HTTP 500"))
    acts.copy_last_answer(session)
    assert app.clipboard == ["Step one.\n\n" + ANSWER_2]
    assert "2 turns back" in app.toasts[-1][1]
    session.messages.clear()
    acts.copy_last_answer(session)  # no answer anywhere: nothing, said so
    assert len(app.clipboard) == 1 and "Nothing to copy" in app.toasts[-1][1]


def test_copy_nothing_says_so(tmp_path: Path) -> None:
    acts, app = actions(tmp_path)
    acts.copy_code_block(SessionState(id="x"))
    assert app.clipboard == [] and app.toasts[-1] == (
        "warning", "Nothing to copy: no code block in this session yet.")
    # A message with no code block has none (QA: "code block is empty" on a user message).
    acts.copy_message_code(Message(id="msg_u", role="user", text="plain words"))
    assert app.toasts[-1] == ("warning", "Nothing to copy: this message has no code block.")
    acts.copy_message_code(Message(id="msg_u", role="user", text="```\n```"))  # one, empty
    assert app.toasts[-1] == ("warning", "Nothing to copy: code block is empty.")
    assert app.clipboard == []


# The demo's ``ls --color`` (QA saw its colour codes in the copy and the export), then escapes
# that are not colours: an OSC 8 hyperlink, a CSI that clears the screen, a bidi override, a C1 CSI.
LS_COLOR = "drwxr-xr-x 4 demo demo 4096 Jan  2 10:00 \x1b[1;34m.\x1b[0m\n"
HOSTILE = ("\x1b[1;31mred\x1b[0m \x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\ \x1b[2J"
           " \u202egnp.exe \x9b31m")
SHOWN = "␛[1;31mred␛[0m ␛]8;;https://evil.example/␛\\link␛]8;;␛\\ ␛[2J <U+202E>gnp.exe <U+009B>31m"


def escapes_state() -> SessionState:
    s = SessionState(id="ses_1", info=SessionInfo(id="ses_1", title="ls"))
    msgs = [
        Message(id="msg_u", role="user", text="list the files"),
        Message(id="msg_a", role="assistant", parts=[
            ToolCall(id="call_1", name="bash", status="completed", input={"command": "ls --color -la"},
                     content=[ToolContent(text=LS_COLOR + HOSTILE)]),
            TextBlock("text", 0, f"Listed. **{HOSTILE}**")]),
    ]
    s.messages = {m.id: m for m in msgs}
    return s


def test_export_and_transcript_copy_drop_shell_colours_and_show_other_escapes(tmp_path: Path) -> None:
    acts, app = actions(tmp_path)
    path = acts.export(escapes_state())  # f7
    acts.copy_transcript(escapes_state())  # f6
    assert path is not None
    written = [path.read_text("utf-8"), app.clipboard[-1], (tmp_path / CLIPBOARD_FILE).read_text("utf-8")]
    assert written[0] == written[1] == written[2]
    transcript = written[0]
    assert hidden_characters(transcript, strict=False) == []  # nothing a `cat` of it would obey
    # The output as the row draws it: colours gone, the rest shown ...
    no_colour = SHOWN.replace("␛[1;31m", "").replace("␛[0m", "")
    assert f"```text\ndrwxr-xr-x 4 demo demo 4096 Jan  2 10:00 .\n{no_colour}\n```" in transcript
    # ... and the answer exactly as the model wrote it, its escapes (SGR too: not drawn) as tokens.
    assert f"Listed. **{SHOWN}**\n" in transcript


def test_message_and_answer_copies_show_every_escape(tmp_path: Path) -> None:
    acts, app = actions(tmp_path)
    state = escapes_state()
    acts.copy_message(state.messages["msg_a"])  # y
    acts.copy_last_answer(state)  # f5
    assert app.clipboard == [f"Listed. **{SHOWN}**"] * 2


async def test_compact_on_1_18_is_a_plain_warning(tmp_path: Path) -> None:
    acts, app = actions(tmp_path)
    assert await acts.compact("ses_1") is False
    severity, toast = app.toasts[-1]
    assert severity == "warning" and "not available on this server" in toast


async def test_stage_marks_messages_and_clear_unmarks(tmp_path: Path) -> None:
    acts, app = actions(tmp_path)
    revert = await acts.revert_stage("ses_1", "msg_u2")
    s = app.store.sessions["ses_1"]
    assert revert is not None and revert.messageID == "msg_u2"
    assert [m.id for m in s.messages.values() if m.reverted] == ["msg_u2", "msg_a2", "msg_a3"]
    assert await acts.revert_clear("ses_1") is True
    assert not any(m.reverted for m in s.messages.values())
    assert app.client.calls == [("stage", "ses_1", "msg_u2"), ("clear", "ses_1")]


async def test_rename_updates_the_store(tmp_path: Path) -> None:
    acts, app = actions(tmp_path)
    assert await acts.rename("ses_1", "New title") is True
    assert app.store.sessions["ses_1"].title == "New title"


# ------------------------------------------------------------------ notifications
def _store() -> Store:
    store = Store()
    store.sessions["ses_1"] = state()
    child = SessionState(id="ses_c", info=SessionInfo(id="ses_c", parentID="ses_1", title="child"))
    store.sessions["ses_c"] = child
    return store


def test_alerts_turn_end_and_ask_once() -> None:
    store = _store()
    store.asks["que_1"] = QuestionRequest(id="que_1", sessionID="ses_1", questions=[])
    seen: set[str] = set()
    changes = [AsksChanged("ses_1", "que_1", "asked")]
    alerts = alerts_for(changes, store, {"ses_1", "ses_c"}, set(), None, seen)
    assert [(a.kind, a.session_id) for a in alerts] == [("ask", "ses_1"), ("turn", "ses_1")]
    assert alerts[1].text.startswith("Turn finished: Fix")
    assert alerts_for(changes, store, set(), set(), None, seen) == []  # same ask: no second alert


def test_child_turn_alerts_only_when_viewed_and_failure_is_named() -> None:
    store = _store()
    store.sessions["ses_c"].messages["m"] = Message(id="m", role="assistant",
                                                    error=StructuredError(message="boom"))
    assert alerts_for([], store, {"ses_c"}, set(), None, set()) == []
    [alert] = alerts_for([], store, {"ses_c"}, set(), "ses_c", set())
    assert alert.text == "Turn failed: child"


@pytest.mark.parametrize(("focused", "enabled", "sent"),
                         [(False, True, 1), (True, True, 0), (False, False, 0)])
def test_notifier_only_in_background(focused: bool, enabled: bool, sent: int) -> None:
    store = _store()
    delivered: list[Any] = []
    notifier = Notifier(store, lambda: focused, delivered.append, enabled=enabled)
    store.sessions["ses_1"].busy = True
    assert notifier.observe([]) == []  # turn starts
    store.sessions["ses_1"].busy = False
    notifier.observe([SessionChanged("ses_1")])
    assert len(delivered) == sent
