"""Permission modes: the decision table (action × mode), the mode book and the auto-approver.

The last tests run the SessionService over the in-process demo server: an ask the mode answers is
claimed before the UI sees it (so no dialog opens), is answered ``once`` and leaves a notice.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Coroutine
from pathlib import Path
from typing import Any

import pytest

from tui.client.errors import OctuiError
from tui.client.http import OpenCodeClient
from tui.client.stream import StreamState
from tui.demo import SCRIPTS, DemoServer, IdGenerator
from tui.protocol.events import parse_event
from tui.protocol.models import FormInfo, PermissionReply, PermissionRequest, QuestionRequest
from tui.session.auto_approve import AutoApprover, ModeBook, notice_key
from tui.session.service import SessionService
from tui.state.asks import CurrentFile
from tui.state.changes import AsksChanged, Change, MessageChanged
from tui.state.modes import DEFAULT_MODE, Mode, decide, next_mode, parse_mode
from tui.state.store import Store
from tui.state.transcript import Message, ToolCall
from tui.storage.saved_state import SavedState

S, E, F = Mode.SUPERVISED, Mode.AUTO_EDITS, Mode.FULL
ONCE = "once"

# action -> (supervised, auto-edits, full): "once" = answered by octui, None = shown to the user
TABLE: dict[str, tuple[str | None, str | None, str | None]] = {
    # reads and searches
    "read": (ONCE, ONCE, ONCE),
    "grep": (ONCE, ONCE, ONCE),
    "glob": (ONCE, ONCE, ONCE),
    "list": (ONCE, ONCE, ONCE),
    # the question tool and starting subagents
    "question": (ONCE, ONCE, ONCE),
    "subagent": (ONCE, ONCE, ONCE),
    "task": (ONCE, ONCE, ONCE),
    # edits
    "edit": (None, ONCE, ONCE),
    "write": (None, ONCE, ONCE),
    "apply_patch": (None, ONCE, ONCE),
    "patch": (None, ONCE, ONCE),
    # everything else: only full access answers
    "bash": (None, None, ONCE),
    "shell": (None, None, ONCE),
    "external_directory": (None, None, ONCE),
    "webfetch": (None, None, ONCE),
    "websearch": (None, None, ONCE),
    "doom_loop": (None, None, ONCE),
    "todowrite": (None, None, ONCE),
    "some_future_action": (None, None, ONCE),
    "": (None, None, ONCE),
}


def permission(action: str, sid: str = "ses_a", pid: str = "per_1", **extra: Any) -> PermissionRequest:
    return PermissionRequest.model_validate(
        {"id": pid, "sessionID": sid, "action": action, "resources": ["x"], **extra})


# ------------------------------------------------------------------ the decision table
@pytest.mark.parametrize("action", sorted(TABLE))
@pytest.mark.parametrize("column", [0, 1, 2], ids=["supervised", "auto-edits", "full"])
def test_decision_table(action: str, column: int) -> None:
    mode = [S, E, F][column]
    assert decide(mode, permission(action)) == TABLE[action][column]


@pytest.mark.parametrize("action", ["Edit", " BASH ", "Read"])
def test_actions_are_matched_case_and_space_insensitively(action: str) -> None:
    key = action.strip().lower()
    assert [decide(m, permission(action)) for m in (S, E, F)] == list(TABLE[key])


@pytest.mark.parametrize("mode", list(Mode))
def test_questions_and_forms_are_never_answered(mode: Mode) -> None:
    question = QuestionRequest.model_validate({"id": "que_1", "sessionID": "ses_a", "questions": []})
    form = FormInfo.model_validate({"id": "frm_1", "sessionID": "ses_a", "fields": []})
    assert decide(mode, question) is None
    assert decide(mode, form) is None


def test_never_always() -> None:
    answers = {decide(m, permission(a)) for m in Mode for a in TABLE}
    assert answers == {"once", None}


def test_every_mode_answers_at_least_what_the_one_before_it_does() -> None:
    for action in TABLE:
        answered = [decide(m, permission(action)) == ONCE for m in (S, E, F)]
        assert answered == sorted(answered), action  # False… then True…, never back


def test_cycle_and_parse() -> None:
    assert [next_mode(S), next_mode(E), next_mode(F)] == [E, F, S]
    assert DEFAULT_MODE is S
    assert parse_mode("full") is F and parse_mode("auto-edits") is E
    for junk in (None, 3, "FULL", "everything", ""):
        assert parse_mode(junk) is S  # unknown stored values never mean more trust
    assert {m.short for m in Mode} == {"supervised", "✎ auto-edits", "⚠ full access"}
    assert [m.label for m in Mode] == ["Supervised", "Auto-accept edits", "Full access"]


# ------------------------------------------------------------------ the mode book
def test_mode_book_persists_in_the_state_dir(tmp_path: Path) -> None:
    book = ModeBook(SavedState(tmp_path))
    assert book.get("ses_root") is S
    assert book.set("ses_root", F)
    assert not book.full_confirmed("ses_root")
    book.confirm_full("ses_root")

    again = ModeBook(SavedState(tmp_path))  # a restart
    assert again.get("ses_root") is F
    assert again.full_confirmed("ses_root")
    assert again.get("ses_other") is S and not again.full_confirmed("ses_other")

    again.set("ses_root", S)  # the default is stored as "nothing"
    assert SavedState(tmp_path).get("ses_root", ModeBook.MODE_KEY) is None


def test_mode_book_keeps_the_mode_when_the_state_dir_is_not_writable(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    book = ModeBook(SavedState(blocker / "state"))
    assert book.set("ses_root", E) is False
    assert book.get("ses_root") is E


def _event(kind: str, data: dict[str, Any]) -> Any:
    return parse_event({"id": f"evt_{kind}_{data.get('id', '')}", "type": kind, "data": data})


def _session(store: Store, sid: str, parent: str | None = None) -> None:
    data: dict[str, Any] = {"sessionID": sid, "title": sid}
    if parent:
        data["parentID"] = parent
    store.apply(_event("session.created", data))


class Harness:
    """A store and an approver whose replies are recorded (and can be made to fail)."""

    def __init__(self, tmp_path: Path) -> None:
        self.store = Store()
        self.sent: list[tuple[str, str, PermissionReply]] = []
        self.emitted: list[Change] = []
        self.fail: OctuiError | None = None
        self.tasks: list[Coroutine[Any, Any, None]] = []
        self.approver = AutoApprover(self.store, self._reply, self.tasks.append, self.emitted.extend,
                                     ModeBook(SavedState(tmp_path)), clock=lambda: 1_790_000_000.0)

    async def _reply(self, sid: str, ask_id: str, reply: PermissionReply) -> None:
        if self.fail is not None:
            raise self.fail
        self.sent.append((sid, ask_id, reply))

    def ask(self, action: str, sid: str, pid: str, message_id: str | None = None,
            command: str | None = None) -> list[Change]:
        data: dict[str, Any] = {"id": pid, "sessionID": sid, "action": action, "resources": [command or "x"]}
        if message_id:
            data["source"] = {"type": "tool", "messageID": message_id, "id": "call_1"}
        changes = self.store.apply(_event("permission.asked", data))
        return changes + self.approver.review(changes)

    async def run_tasks(self) -> None:
        tasks, self.tasks[:] = list(self.tasks), []
        for coro in tasks:
            await coro


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    return Harness(tmp_path)


async def test_an_allowed_ask_is_claimed_answered_once_and_noted(harness: Harness) -> None:
    _session(harness.store, "ses_a")
    state = harness.store.session("ses_a")
    state.messages["msg_1"] = Message(id="msg_1", role="assistant", session_id="ses_a")
    state.messages["msg_2"] = Message(id="msg_2", role="user", session_id="ses_a", text="later")
    harness.approver.set_mode("ses_a", E)

    changes = harness.ask("edit", "ses_a", "per_1", message_id="msg_1", command="notes.txt")
    assert harness.approver.claims("per_1")  # before any UI saw the change
    assert MessageChanged("ses_a", notice_key("per_1")) in changes
    await harness.run_tasks()
    assert harness.sent == [("ses_a", "per_1", "once")]

    notice = state.messages[notice_key("per_1")]
    assert notice.role == "notice" and notice.text == "auto-allowed: edit `notes.txt`"
    assert list(state.messages) == ["msg_1", notice_key("per_1"), "msg_2"]  # right after its tool
    [entry] = harness.approver.history_for()
    assert entry.text == notice.text and entry.mode is E

    # The server confirms: the claim is released, the record stays.
    settled = harness.store.apply(_event("permission.replied",
                                         {"sessionID": "ses_a", "requestID": "per_1", "reply": "once"}))
    harness.approver.review(settled)
    assert not harness.approver.claims("per_1")
    assert len(harness.approver.history_for(["ses_a"])) == 1


async def test_an_ask_the_mode_does_not_allow_is_left_alone(harness: Harness) -> None:
    _session(harness.store, "ses_a")
    harness.approver.set_mode("ses_a", E)
    changes = harness.ask("bash", "ses_a", "per_1")
    assert changes == [AsksChanged("ses_a", "per_1", "asked")]
    assert not harness.approver.claims("per_1") and not harness.tasks
    assert notice_key("per_1") not in harness.store.session("ses_a").messages


async def test_a_subagent_follows_its_roots_mode(harness: Harness, tmp_path: Path) -> None:
    _session(harness.store, "ses_root")
    _session(harness.store, "ses_child", parent="ses_root")
    _session(harness.store, "ses_grandchild", parent="ses_child")
    SavedState(tmp_path).set("ses_grandchild", ModeBook.MODE_KEY, "supervised")  # its own: ignored
    harness.approver.set_mode("ses_grandchild", F)  # set from a subagent's view: goes to the root
    assert harness.approver.book.get("ses_root") is F
    assert harness.approver.mode_of("ses_child") is F

    harness.ask("bash", "ses_grandchild", "per_1", command="make test")
    await harness.run_tasks()
    assert harness.sent == [("ses_grandchild", "per_1", "once")]
    assert harness.store.session("ses_grandchild").messages[notice_key("per_1")].text == \
        "auto-allowed: bash `make test`"
    assert notice_key("per_1") not in harness.store.session("ses_root").messages


async def test_switching_mode_answers_what_is_already_pending(harness: Harness) -> None:
    _session(harness.store, "ses_a")
    harness.ask("bash", "ses_a", "per_bash")
    harness.ask("edit", "ses_a", "per_edit")
    assert not harness.tasks

    harness.approver.set_mode("ses_a", E)
    await harness.run_tasks()
    assert harness.sent == [("ses_a", "per_edit", "once")]
    assert MessageChanged("ses_a", notice_key("per_edit")) in harness.emitted

    harness.approver.set_mode("ses_a", F)
    await harness.run_tasks()
    assert harness.sent[-1] == ("ses_a", "per_bash", "once")
    assert len(harness.sent) == 2  # the edit was not answered twice


async def test_resync_lists_are_reviewed(harness: Harness) -> None:
    """After a reconnect the pending list is replaced wholesale (no ``ask_id``)."""
    _session(harness.store, "ses_a")
    harness.approver.book.set("ses_a", F)
    changes = harness.store.set_asks([permission("bash", pid="per_9")], [], None)
    assert changes == [AsksChanged()]
    harness.approver.review(changes)
    assert harness.approver.claims("per_9")
    await harness.run_tasks()
    assert harness.sent == [("ses_a", "per_9", "once")]


async def test_a_failed_reply_goes_to_the_user_and_is_not_retried(harness: Harness) -> None:
    _session(harness.store, "ses_a")
    harness.approver.set_mode("ses_a", F)
    harness.fail = OctuiError("server said no")
    harness.ask("bash", "ses_a", "per_1", command="ls")
    await harness.run_tasks()

    assert not harness.approver.claims("per_1")
    assert AsksChanged("ses_a", "per_1", "asked") in harness.emitted  # AskFlow opens it
    text = harness.store.session("ses_a").messages[notice_key("per_1")].text
    assert text.startswith("auto-allow failed: bash `ls`") and "server said no" in text
    harness.fail = None
    harness.approver.scan()
    assert not harness.tasks  # left to the user


async def test_no_auto_answer_while_interrupting(harness: Harness) -> None:
    _session(harness.store, "ses_a")
    harness.approver.book.set("ses_a", F)
    with harness.approver.holding("ses_a"):
        harness.ask("bash", "ses_a", "per_1")
        assert not harness.approver.claims("per_1") and not harness.tasks
    harness.approver.scan()
    assert harness.approver.claims("per_1")  # after the interrupt, if the ask is somehow still there
    await harness.run_tasks()
    assert harness.sent == [("ses_a", "per_1", "once")]


async def test_notices_survive_a_history_reload(harness: Harness) -> None:
    _session(harness.store, "ses_a")
    harness.approver.set_mode("ses_a", F)
    harness.store.load_history("ses_a", [])
    state = harness.store.session("ses_a")
    state.messages["msg_1"] = Message(id="msg_1", role="assistant", session_id="ses_a")
    harness.ask("bash", "ses_a", "per_1", message_id="msg_1")
    await harness.run_tasks()

    history: list[dict[str, Any]] = [
        {"id": "msg_0", "type": "user", "text": "go"},
        {"id": "msg_1", "type": "assistant", "content": []},
        {"id": "msg_2", "type": "assistant", "content": []},
    ]
    changes = harness.store.load_history("ses_a", history)
    assert notice_key("per_1") not in state.messages  # the server does not keep octui's notices
    harness.approver.review(changes)
    ids = list(harness.store.session("ses_a").messages)
    assert ids.index(notice_key("per_1")) == ids.index("msg_1") + 1


# ------------------------------------------------------------------ through the service
class Rig:
    def __init__(self, tmp_path: Path) -> None:
        self.demo = DemoServer(clock=lambda: 1_790_000_000.0, speed=0, heartbeat=0, ids=IdGenerator())
        self.client = OpenCodeClient(self.demo.base_url, transport=self.demo.transport)
        self.store = Store()
        self.batches: list[list[Change]] = []
        self.claimed_when_seen: dict[str, bool] = {}
        self.states: list[StreamState] = []
        self.service = SessionService(self.client, self.store, self._sink, self.states.append,
                                     modes=ModeBook(SavedState(tmp_path)))
        self.task: asyncio.Task[None] | None = None

    def _sink(self, changes: list[Change]) -> None:
        """What the app would get: record whether each new ask was already claimed."""
        self.batches.append(changes)
        for change in changes:
            if isinstance(change, AsksChanged) and change.how == "asked" and change.ask_id:
                self.claimed_when_seen[change.ask_id] = self.service.auto.claims(change.ask_id)

    async def settle(self) -> None:
        for _ in range(3):
            await self.demo.idle()
            while not all(t.done() for t in self.service.intake.tasks):
                await asyncio.sleep(0.005)
            await asyncio.sleep(0.01)


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    rig = Rig(tmp_path)
    await rig.client.connect()
    rig.task = asyncio.create_task(rig.service.run())
    await asyncio.wait_for(_until(lambda: any(c.kind == "resynced" for b in rig.batches for c in b)), 5)
    yield rig
    rig.service.stop()
    await asyncio.wait_for(rig.task, 5)
    await rig.client.aclose()
    await rig.demo.aclose()


async def _until(condition: Any) -> None:
    while not condition():
        await asyncio.sleep(0.005)


def _replies(rig: Rig) -> list[str]:
    return [e["data"]["reply"] for e in rig.demo.emitted if e["type"] == "permission.replied"]


async def test_full_access_runs_the_demo_tour_without_a_dialog(rig: Rig) -> None:
    info = await rig.service.create_session()
    rig.service.auto.set_mode(info.id, F)
    await rig.service.send(info.id, "Give me a tour of this project.")
    await asyncio.wait_for(rig.settle(), 10)

    assert _replies(rig) == ["once"]
    assert list(rig.claimed_when_seen.values()) == [True]  # claimed before the UI saw the ask
    assert not rig.store.asks
    state = rig.store.sessions[info.id]
    notices = [m for m in state.messages.values() if m.role == "notice"]
    assert [n.text for n in notices] == ["auto-allowed: shell `ls -la src`"]
    final = [m for m in state.messages.values() if m.role == "assistant"][-1]
    assert SCRIPTS["welcome"].steps[-1].text in "".join(getattr(p, "text", "") for p in final.parts)


async def test_supervised_leaves_the_shell_ask_for_the_user(rig: Rig) -> None:
    info = await rig.service.create_session()
    await rig.service.send(info.id, "Give me a tour of this project.")
    await asyncio.wait_for(rig.settle(), 10)

    [pending] = list(rig.store.asks)
    assert rig.claimed_when_seen == {pending: False}
    assert _replies(rig) == []
    assert not any(m.role == "notice" for m in rig.store.sessions[info.id].messages.values())


async def test_interrupt_rejects_pending_asks_whatever_the_mode(rig: Rig) -> None:
    info = await rig.service.create_session()
    rig.service.auto.set_mode(info.id, E)  # shell is not an edit: it waits for the user
    await rig.service.send(info.id, "Give me a tour of this project.")
    await asyncio.wait_for(rig.settle(), 10)
    assert len(rig.store.asks) == 1

    await rig.service.interrupt(info.id)
    await asyncio.wait_for(rig.settle(), 10)
    assert _replies(rig) == ["reject"]
    assert not rig.store.asks


def _write_call(harness: Harness, sid: str = "ses_a") -> None:
    """An assistant message whose tool call ``call_1`` writes notes.txt (no diff from the server)."""
    state = harness.store.session(sid)
    state.messages["msg_1"] = Message(id="msg_1", role="assistant", session_id=sid, parts=[
        ToolCall(id="call_1", name="write", session_id=sid, message_id="msg_1",
                 input={"filePath": "notes.txt", "content": "keep\nnew two\n"})])


async def test_an_overwrite_the_mode_allows_keeps_what_it_replaces(harness: Harness) -> None:
    _session(harness.store, "ses_a")
    _write_call(harness)
    harness.approver.set_mode("ses_a", E)

    async def read_file(sid: str, path: str) -> CurrentFile:
        assert (sid, path) == ("ses_a", "notes.txt")
        return CurrentFile("keep\nold two\nold three\n", exists=True)

    harness.approver.read_file = read_file
    harness.ask("edit", "ses_a", "per_1", message_id="msg_1", command="notes.txt")
    await harness.run_tasks()
    assert harness.sent == [("ses_a", "per_1", "once")]
    patch = harness.store.shown_writes["per_1"]
    assert "-old two" in patch and "-old three" in patch and "+new two" in patch


async def test_a_read_that_fails_any_way_still_answers(harness: Harness) -> None:
    """Review: an error other than the client's (a decoding error, a bug) ended the task before
    the reply: the ask stayed claimed, unanswered and with no dialog, and the turn hung."""
    _session(harness.store, "ses_a")
    _write_call(harness)
    harness.approver.set_mode("ses_a", E)

    async def read_file(sid: str, path: str) -> CurrentFile:
        raise RuntimeError("not what the client raises")

    harness.approver.read_file = read_file
    harness.ask("edit", "ses_a", "per_1", message_id="msg_1", command="notes.txt")
    await harness.run_tasks()
    assert harness.sent == [("ses_a", "per_1", "once")] and "per_1" not in harness.store.shown_writes


async def test_a_mode_set_back_during_the_read_hands_the_ask_to_the_user(harness: Harness) -> None:
    """Review: the allow went out after the mode was set back to supervised during the read."""
    _session(harness.store, "ses_a")
    _write_call(harness)
    harness.approver.set_mode("ses_a", E)

    async def read_file(sid: str, path: str) -> CurrentFile:
        harness.approver.book.set("ses_a", Mode.SUPERVISED)  # while the file is read
        return CurrentFile("keep\n", exists=True)

    harness.approver.read_file = read_file
    harness.ask("edit", "ses_a", "per_1", message_id="msg_1", command="notes.txt")
    await harness.run_tasks()
    assert harness.sent == [] and not harness.approver.claims("per_1")
    assert AsksChanged("ses_a", "per_1", "asked") in harness.emitted  # AskFlow opens it
    text = harness.store.session("ses_a").messages[notice_key("per_1")].text
    assert text.startswith("auto-allow failed") and "permission mode changed" in text
