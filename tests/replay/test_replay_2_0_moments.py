"""Moments inside the 2.0-preview traces: what octui shows while a turn is still running.

Each test replays a trace up to a recorded frame (through the real frame path, like
test_replay_2_0) and checks the store against what the server said at that moment: its
``/pending`` answers, the revert steps, the subagent tree, busy state across retries and a
dismissed question.
"""

from __future__ import annotations

from typing import Any

from tests.replay.harness import TRACES_20, Connection, ReplayServer, records, replay, sample
from tui.state import tree
from tui.state.store import Store
from tui.state.transcript import ToolCall

Json = dict[str, Any]


def trace(name: str) -> list[Json]:
    return records(TRACES_20 / "traces" / f"{name}.jsonl")


def index_of(recorded: list[Json], kind: str, nth: int = 1, **data: Any) -> int:
    """Position of the ``nth`` frame of type ``kind`` whose data has the given values."""
    seen = 0
    for i, record in enumerate(recorded):
        frame = record.get("data") or {}
        if frame.get("type") == kind and all(frame.get("data", {}).get(k) == v for k, v in data.items()):
            seen += 1
            if seen == nth:
                return i
    raise AssertionError(f"no frame #{nth} of {kind} {data}")


async def store_at(name: str, last: int) -> Store:
    """The store after frames ``0..last`` of the trace (the stream then stays open)."""
    recorded = trace(name)[: last + 1]
    return (await replay(ReplayServer([Connection(recorded)]))).store


def session_of(recorded: list[Json]) -> str:
    first = recorded[index_of(recorded, "session.created")]["data"]["data"]
    return str(first["sessionID"])


def pending(store: Store, sid: str) -> list[tuple[str, str, str]]:
    return [(p.id, p.delivery, p.text) for p in store.sessions[sid].inbox.values()]


def recorded_pending(answer: Json) -> list[tuple[str, str, str]]:
    return [(i["id"], i["delivery"], i["data"]["text"]) for i in answer["data"]]


async def test_queue_and_steer_chips_while_the_step_runs() -> None:
    """m01_queue: Q (queue) then S (steer) admitted mid-stream; ``/pending`` listed [Q, S]."""
    recorded = trace("m01_queue")
    sid = session_of(recorded)
    store = await store_at("m01_queue", index_of(recorded, "session.input.admitted", 3))
    listed = sample("m01_queue.extra.json")["pending_after_queue_and_steer"]
    assert pending(store, sid) == recorded_pending(listed)
    state = store.sessions[sid]
    assert state.busy
    first = recorded[index_of(recorded, "session.input.admitted", 1)]["data"]["data"]
    user = state.messages[first["inputID"]]  # the user's own prompt, drawn under its input id
    assert (user.role, user.text) == ("user", first["input"]["data"]["text"])


async def test_a_steer_waits_for_the_step_and_the_turn_stays_busy() -> None:
    """m01_steer_default: B is pending while step 1 streams; step 1's end is not the turn's end."""
    recorded = trace("m01_steer_default")
    sid = session_of(recorded)
    second = index_of(recorded, "session.input.admitted", 2)
    store = await store_at("m01_steer_default", second)
    listed = sample("m01_steer_default.extra.json")["pending_while_running"]
    assert pending(store, sid) == recorded_pending(listed)
    store = await store_at("m01_steer_default", index_of(recorded, "session.step.ended", 1))
    state = store.sessions[sid]
    assert state.busy, "the execution goes on: the steer is promoted into a new step"
    assert [p.delivery for p in state.inbox.values()] == ["steer"]
    store = await store_at("m01_steer_default", index_of(recorded, "session.input.promoted", 2))
    assert not store.sessions[sid].inbox
    assert [m.role for m in store.sessions[sid].messages.values()] == ["user", "assistant", "user"]


async def test_staged_revert_greys_the_messages_the_server_still_lists() -> None:
    """m03_revert: ``/message`` keeps all six messages while a revert is staged."""
    recorded = trace("m03_revert")
    sid = session_of(recorded)
    steps = {s["step"]: s for s in sample("m03_revert.extra.json")["steps"]}
    for nth, step in ((1, "stage at 2nd user message"), (2, "stage moved to 1st user message")):
        store = await store_at("m03_revert", index_of(recorded, "session.revert.staged", nth))
        listed = [mid for _, mid in steps[step]["message_ids"]]
        boundary = steps[step]["session.revert"]["messageID"]
        state = store.sessions[sid]
        assert list(state.messages) == listed
        greyed = [m.id for m in state.messages.values() if m.reverted]
        assert greyed == listed[listed.index(boundary):], step
    store = await store_at("m03_revert", index_of(recorded, "session.revert.cleared", 1))
    assert not any(m.reverted for m in store.sessions[sid].messages.values())


async def test_background_subagent_runs_on_after_its_tool_row_completes() -> None:
    """m02_subagent_background: ``tool.success`` with ``status: "running"``; the child's end comes
    as a pending synthetic input that wakes the parent."""
    recorded = trace("m02_subagent_background")
    parent = session_of(recorded)
    success = index_of(recorded, "session.tool.success")
    child = recorded[success]["data"]["data"]["metadata"]["sessionID"]
    store = await store_at("m02_subagent_background", success)
    messages = store.sessions[parent].messages.values()
    call = next(p for m in messages for p in m.parts if isinstance(p, ToolCall))
    assert (call.name, call.status, call.child_session_id) == ("subagent", "completed", child)
    node = tree.build_tree(store, parent).find(child)
    assert node is not None and node.background and node.status == "running"

    store = await store_at("m02_subagent_background",
                           index_of(recorded, "session.input.admitted", 2, sessionID=parent))
    (item,) = store.sessions[parent].inbox.values()
    assert item.kind == "synthetic"
    assert (item.metadata.get("source"), item.metadata.get("childID")) == ("subagent", child)
    node = tree.build_tree(store, parent).find(child)
    assert node is not None and node.status == "completed"  # announced, before the parent wakes

    store = await store_at("m02_subagent_background", len(recorded) - 1)
    result = store.sessions[parent].messages[item.id]
    assert result.role == "synthetic" and result.metadata.get("childID") == child
    node = tree.build_tree(store, parent).find(child)
    assert node is not None and node.status == "completed"


async def test_a_dropped_provider_stream_retries_into_a_new_message_and_stays_busy() -> None:
    recorded = trace("m09_midstream_drop")
    sid = session_of(recorded)
    store = await store_at("m09_midstream_drop", index_of(recorded, "session.synthetic"))
    state = store.sessions[sid]
    assert state.busy and state.status_note and "retrying (attempt 2)" in state.status_note
    (failed,) = [m for m in state.messages.values() if m.role == "assistant"]
    assert failed.finish == "error" and failed.error is not None
    store = await store_at("m09_midstream_drop", len(recorded) - 1)
    state = store.sessions[sid]
    assistants = [m for m in state.messages.values() if m.role == "assistant"]
    assert len(assistants) == 2 and assistants[0].id != assistants[1].id
    assert assistants[1].finish == "stop" and state.status_note is None and not state.busy


async def test_a_429_retries_the_same_message() -> None:
    recorded = trace("m09_429_retry_after")
    sid = session_of(recorded)
    store = await store_at("m09_429_retry_after", index_of(recorded, "session.retry.scheduled"))
    state = store.sessions[sid]
    assert state.busy and state.status_note and "429" in state.status_note
    store = await store_at("m09_429_retry_after", index_of(recorded, "session.step.started", 2))
    state = store.sessions[sid]
    assert state.status_note is None  # the retry has begun
    assert [m.role for m in state.messages.values()] == ["user", "assistant"]


async def test_dismissing_a_question_ends_the_turn() -> None:
    """04b_question_cancel: the form is cancelled, the tool and step fail, and the execution ends
    with ``execution.interrupted {reason: "shutdown"}``."""
    recorded = trace("04b_question_cancel")
    sid = session_of(recorded)
    store = await store_at("04b_question_cancel", index_of(recorded, "form.created"))
    assert [a.id for a in store.asks_for(sid)]  # the question is on screen
    store = await store_at("04b_question_cancel", index_of(recorded, "session.step.failed"))
    assert store.sessions[sid].busy and not store.asks_for(sid)
    store = await store_at("04b_question_cancel", index_of(recorded, "session.execution.interrupted"))
    state = store.sessions[sid]
    assert not state.busy and not state.executing
    assert all(p.finished for m in state.messages.values() for p in m.parts if isinstance(p, ToolCall))
