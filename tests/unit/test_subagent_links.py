"""A subagent call keeps its link to its child session when the parent's history is loaded again.

The live stream names the child in ``tool.progress`` (``metadata.sessionID``; the 2.0 preview one
level down, 1.18 as ``structured``). A call that then fails is stored self-contained: every failed
tool in the recorded histories of both generations is ``{status: "error", input, error}`` (1.18
adds ``content: [], structured: {}``), with no metadata. The server's failure text still names
the child (``Subagent failed (sessionID: …): …``, core ``tool/plugin/subagent.ts``). Before the
fix, going into the child and back (a history reload) turned "failed → ses_…" into "failed no
child yet".

Frames and stored states below copy the recorded shapes (traces-2.0 ``05_subagent``,
``m02_subagent_nested``; 1.18.33 ``05_subagent_v2``); only the ids and the failure text are
the test's own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tui.protocol.dialects import PREVIEW_1_18, V2_0_PREVIEW, V2_CURRENT, Dialect
from tui.protocol.events import parse_event
from tui.protocol.models import StructuredError
from tui.state import tree
from tui.state.store import Store
from tui.state.transcript import ToolCall
from tui.text.tools import subagent_status

Json = dict[str, Any]
PARENT, CHILD = "ses_parent0001", "ses_child0002"
USER, AMID, CALL = "msg_user0001", "msg_asst0002", "call_sub0003"
INPUT = {"agent": "general", "description": "Run the flaky test", "prompt": "Run it."}
FAILED = f"Subagent failed (sessionID: {CHILD}): the test is flaky"
CANCELLED = f"Subagent cancelled (sessionID: {CHILD})"
SAMPLES_20 = Path(__file__).resolve().parents[1] / "fixtures" / "traces-2.0" / "samples"

DIALECTS = pytest.mark.parametrize("dialect", [V2_CURRENT, V2_0_PREVIEW, PREVIEW_1_18],
                                   ids=lambda d: d.name)


# ------------------------------------------------------------------------------ live frames
def _frames_2x(dialect: Dialect, error: Json | None) -> list[Json]:
    """As traces-2.0 ``05_subagent`` sends them, ending in ``tool.failed`` (``error``) or, for
    ``None``, in the recorded ``tool.success``."""
    def frame(kind: str, sid: str = PARENT, **data: Any) -> Json:
        return {"id": f"evt_{len(out)}", "created": 1000 + len(out), "type": kind,
                "data": {"sessionID": sid, **data}}

    out: list[Json] = []
    running = {"sessionID": CHILD, "status": "running"}
    ref = {"assistantMessageID": AMID, "id": CALL}
    out.append(frame("session.step.started", assistantMessageID=AMID, agent="build",
                     model={"id": "fake-model", "providerID": "mock"}))
    out.append(frame("session.tool.input.started", **ref, name="subagent"))
    out.append(frame("session.tool.called", **ref, input=INPUT, executed=False))
    out.append(frame("session.created", CHILD, parentID=PARENT, title=INPUT["description"],
                     agent="general"))
    out.append(frame("session.tool.progress", **ref, metadata={"metadata": running}
                     if dialect is V2_0_PREVIEW else running))
    if error is None:
        out.append(frame("session.tool.success", **ref, content=[{"type": "text", "text": "done"}],
                         metadata={"sessionID": CHILD, "status": "completed"}, executed=False))
    else:
        out.append(frame("session.tool.failed", **ref, error=error, executed=False))
    return out


def _frames_118(error: Json | None) -> list[Json]:
    """As the 1.18.33 ``05_subagent_v2`` trace sends them (``session.next.*``, ``callID``,
    ``structured``), with a child the 1.18 ``/api`` runtime itself never makes."""
    def frame(kind: str, **data: Any) -> Json:
        return {"id": f"evt_{len(out)}", "type": f"session.next.{kind}",
                "data": {"timestamp": 1000 + len(out), "sessionID": PARENT, **data}}

    out: list[Json] = []
    ref = {"assistantMessageID": AMID, "callID": CALL}
    out.append(frame("step.started", assistantMessageID=AMID, agent="build",
                     model={"id": "fake-model", "providerID": "mock"}))
    out.append(frame("tool.input.started", **ref, name="task"))
    out.append(frame("tool.called", **ref, tool="task", input=INPUT, provider={"executed": False}))
    out.append(frame("tool.progress", **ref, structured={"sessionID": CHILD, "status": "running"},
                     content=[]))
    if error is None:
        out.append(frame("tool.success", **ref, content=[{"type": "text", "text": "done"}],
                         structured={"sessionID": CHILD, "status": "completed"},
                         provider={"executed": False}))
    else:
        out.append(frame("tool.failed", **ref, error=error,
                         result={"type": "error", "value": error["message"]},
                         provider={"executed": False}))
    return out


def live(store: Store, dialect: Dialect, error: Json | None) -> None:
    frames = _frames_118(error) if dialect is PREVIEW_1_18 else _frames_2x(dialect, error)
    normaliser = dialect.frames()
    for raw in frames:
        frame = normaliser.event(raw)
        assert frame is not None
        store.apply(parse_event(frame))


# ------------------------------------------------------------------------------ history
def stored_tool(dialect: Dialect, error: Json | None) -> Json:
    """The parent's call as ``GET …/message`` returns it after the turn."""
    name = "task" if dialect is PREVIEW_1_18 else "subagent"
    if error is None:
        state: Json = {"status": "completed", "input": INPUT,
                       "content": [{"type": "text", "text": "done"}],
                       "metadata": {"sessionID": CHILD, "status": "completed", "truncated": False}}
    elif dialect is PREVIEW_1_18:  # 1.18.33 05_subagent_v2
        state = {"status": "error", "input": INPUT, "content": [], "structured": {}, "error": error,
                 "result": {"type": "error", "value": error["message"]}}
    else:  # traces-2.0 m02_subagent_nested, 02b_shell_reject, 04b_question_cancel
        state = {"status": "error", "input": INPUT, "error": error}
    if error is None and dialect is PREVIEW_1_18:
        state["structured"] = state.pop("metadata")
    return {"type": "tool", "id": CALL, "name": name, "state": state,
            "time": {"created": 1001, "ran": 1002, "completed": 1005}}


def history(dialect: Dialect, tool: Json) -> list[Json]:
    """The parent's history, oldest first, through the dialect's history normaliser."""
    return [dialect.message(m) for m in (
        {"id": USER, "type": "user", "text": "subagents", "time": {"created": 999}},
        {"id": AMID, "type": "assistant", "agent": "build",
         "model": {"id": "fake-model", "providerID": "mock"}, "content": [tool],
         "finish": "tool-calls", "time": {"created": 1000, "completed": 1006}})]


def the_call(store: Store) -> ToolCall:
    call = store.sessions[PARENT].messages[AMID].tool(CALL)
    assert call is not None
    return call


def linked_child(store: Store) -> str | None:
    """The child as the row shows it, after checking the tree agrees (link, not parentID only)."""
    child = the_call(store).child_session_id
    node = tree.build_tree(store, PARENT).find(child or "")
    if child is not None:
        assert node is not None and node.link is not None and node.link.call_id == CALL
    return child


# ------------------------------------------------------------------------------ tests
@DIALECTS
@pytest.mark.parametrize(("message", "kind", "word"), [
    (FAILED, "tool.execution", "failed"), (CANCELLED, "aborted", "cancelled")],
    ids=["failed", "cancelled"])
def test_a_failed_subagent_keeps_its_child_when_the_history_is_loaded_again(
        dialect: Dialect, message: str, kind: str, word: str) -> None:
    """The QA repro: the row's child link survives going into the child and back."""
    error = {"type": kind, "message": message}
    store = Store()
    live(store, dialect, error)
    assert linked_child(store) == CHILD  # the live stream's progress named it
    store.load_history(PARENT, history(dialect, stored_tool(dialect, error)))
    call = the_call(store)
    assert call.status == "error" and call.progress == {}  # the history's self-contained form
    assert linked_child(store) == CHILD
    assert subagent_status(call) == word


@DIALECTS
@pytest.mark.parametrize("message", [FAILED, f"Failed to prompt subagent: {CHILD}"],
                         ids=["failed", "prompt-failed"])  # (both worded in core's subagent tool)
def test_a_failed_subagent_read_only_from_history_names_its_child(dialect: Dialect, message: str) -> None:
    """A client that attaches after the turn never saw the progress: the failure text names
    the child."""
    store = Store()
    store.load_history(PARENT, history(dialect, stored_tool(
        dialect, {"type": "tool.execution", "message": message})))
    assert linked_child(store) == CHILD


@DIALECTS
def test_a_link_the_history_cannot_give_back_is_carried_over(dialect: Dialect) -> None:
    """A failure whose text names no child (an interrupt, another server's wording): the link the
    live stream gave is kept, through a reload and the next, and through a one-message resync."""
    error = {"type": "unknown", "message": "Tool execution interrupted"}
    store = Store()
    live(store, dialect, error)
    assert linked_child(store) == CHILD
    for _ in range(2):
        store.load_history(PARENT, history(dialect, stored_tool(dialect, error)))
        assert linked_child(store) == CHILD
    store.upsert_message(PARENT, history(dialect, stored_tool(dialect, error))[1])
    assert linked_child(store) == CHILD


@DIALECTS
def test_a_completed_subagent_stays_linked_across_reloads(dialect: Dialect) -> None:
    store = Store()
    live(store, dialect, None)
    store.load_history(PARENT, history(dialect, stored_tool(dialect, None)))
    assert linked_child(store) == CHILD
    assert subagent_status(the_call(store)) == "done"


def test_a_running_subagent_from_history_is_linked() -> None:
    """2.0 preview: a running call's stored metadata nests the child one level down."""
    tool = {"type": "tool", "id": CALL, "name": "subagent", "time": {"created": 1001},
            "state": {"status": "running", "input": INPUT,
                      "metadata": {"metadata": {"sessionID": CHILD, "status": "running"}}}}
    store = Store()
    store.load_history(PARENT, history(V2_0_PREVIEW, tool))
    assert linked_child(store) == CHILD


def test_calls_that_never_had_a_child_stay_unlinked() -> None:
    """The recorded nested-subagent failure (traces-2.0 ``m02_subagent_nested``: the child's own
    call fails before any child exists), and other tools' failures, link nothing."""
    recorded = json.loads((SAMPLES_20 / "m02_subagent_nested.messages.json").read_text("utf-8"))
    store = Store()
    failed = []
    for sid, page in recorded.items():
        messages = page["data"] if isinstance(page, dict) else page
        store.load_history(sid, [V2_0_PREVIEW.message(m) for m in messages])
        failed += [p for m in store.sessions[sid].messages.values() for p in m.parts
                   if isinstance(p, ToolCall) and p.status == "error"]
    assert [(c.name, c.error.message if c.error else "") for c in failed] == [
        ("subagent", "Unknown tool: subagent")]
    assert failed[0].child_session_id is None
    shell = ToolCall(id="c1", name="shell", status="error", error=StructuredError(message=FAILED))
    assert shell.child_session_id is None


def test_a_completed_subagent_without_metadata_is_linked_by_its_result_tag() -> None:
    """PROTOCOL §7: a foreground result is ``<subagent sessionID="…" state="completed">…``; a
    stored result without metadata still names its child there."""
    text = f'<subagent sessionID="{CHILD}" state="completed">\ndone\n</subagent>'
    tool = {"type": "tool", "id": CALL, "name": "subagent", "time": {"created": 1001},
            "state": {"status": "completed", "input": INPUT, "content": [{"type": "text", "text": text}]}}
    store = Store()
    store.load_history(PARENT, history(V2_CURRENT, tool))
    assert linked_child(store) == CHILD
