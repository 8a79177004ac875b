"""Store behaviour that differs by generation or by what the stream could not replay."""

from __future__ import annotations

from typing import Any

from tui.protocol.dialects import Dialect
from tui.protocol.events import parse_event
from tui.protocol.frames import plain_delta
from tui.protocol.models import SessionInfo
from tui.state.changes import MessageChanged
from tui.state.deltas import GAP
from tui.state.store import Store
from tui.state.transcript import TextBlock

SID, AMID = "ses_1", "msg_a1"


def frame(kind: str, **data: Any) -> dict[str, Any]:
    return {"id": f"evt_{kind}", "type": kind, "data": {"sessionID": SID, **data}}


def history(*ids: str) -> list[dict[str, Any]]:
    return [{"id": mid, "type": "user", "text": mid, "time": {"created": i}} for i, mid in enumerate(ids)]


def test_revert_commit_deletes_the_boundary_on_2x_and_keeps_it_on_1_18() -> None:
    """traces-2.0 m03: u2 and everything after it go; DIALECTS §7: 1.18 kept the staged u2."""
    for dialect, kind, data, kept in (
            (Dialect.V2_0_PREVIEW, "session.revert.committed", {"to": "u2"}, ["u1", "a1"]),
            (Dialect.PREVIEW, "session.next.revert.committed", {"messageID": "u2", "timestamp": 5},
             ["u1", "a1", "u2"])):
        store = Store()
        store.load_history(SID, history("u1", "a1", "u2", "a2"))
        normalised = dialect.frames().event(frame(kind, **data))
        assert normalised is not None
        store.apply(parse_event(normalised))
        assert list(store.sessions[SID].messages) == kept, dialect


def _streaming_store() -> Store:
    store = Store()
    for f in (frame("session.step.started", assistantMessageID=AMID, agent="build"),
              frame("session.text.started", assistantMessageID=AMID, ordinal=0),
              frame("session.text.delta", assistantMessageID=AMID, ordinal=0, delta="one two")):
        store.apply(parse_event(f))
    return store


def _block(store: Store) -> TextBlock:
    part = store.sessions[SID].messages[AMID].parts[0]
    assert isinstance(part, TextBlock)
    return part


def test_a_new_connection_marks_the_gap_in_a_streaming_block_both_ways() -> None:
    delta = frame("session.text.delta", assistantMessageID=AMID, ordinal=0, delta=" five")
    fast, full = _streaming_store(), _streaming_store()
    for store in (fast, full):
        store.stream_gap()
    found = plain_delta(delta)
    assert found is not None and fast.apply_delta(*found)  # the fast path
    full.apply(parse_event(delta))  # the full path
    for store in (fast, full):
        assert _block(store).text == "one two" + GAP + " five" and not _block(store).gap
    ended = frame("session.text.ended", assistantMessageID=AMID, ordinal=0, text="one two three four five")
    fast.apply(parse_event(ended))
    assert _block(fast).text == "one two three four five" and not _block(fast).streaming


def test_a_block_first_heard_of_by_a_delta_shows_the_gap() -> None:
    store = Store()
    store.apply(parse_event(frame("session.step.started", assistantMessageID=AMID)))
    store.apply(parse_event(frame("session.text.delta", assistantMessageID=AMID, ordinal=1, delta="tail")))
    block = store.sessions[SID].messages[AMID].parts[0]
    assert isinstance(block, TextBlock) and block.text == GAP + "tail" and block.streaming


def test_reloading_a_running_message_keeps_what_the_stream_showed() -> None:
    """REST shows a running block as "" (traces-2.0 m11): keep the streamed text (and its gap mark
    after a reconnect; none while the same connection delivered every delta)."""
    running = {"id": AMID, "type": "assistant", "time": {"created": 1},
               "content": [{"type": "text", "text": ""}]}
    for reconnected in (True, False):
        store = _streaming_store()
        store.set_active({SID: {"type": "running"}})
        if reconnected:
            store.stream_gap()
        store.load_history(SID, [running])
        block = _block(store)
        assert (block.text, block.streaming, block.gap) == ("one two", True, reconnected)
    fresh = Store()  # never streamed here: all of it was missed
    fresh.set_active({SID: {"type": "running"}})
    fresh.load_history(SID, [running])
    assert (_block(fresh).text, _block(fresh).streaming, _block(fresh).gap) == ("", True, True)
    # An idle session's unfinished message is not made to stream again.
    idle = Store()
    idle.load_history(SID, [running])
    assert not _block(idle).streaming


def test_a_pending_subagent_report_keeps_its_metadata_into_the_message() -> None:
    store = Store()
    meta = {"source": "subagent", "childID": "ses_child", "agent": "General", "state": "completed"}
    store.apply(parse_event(frame("session.inbox.enqueued", inboxID="msg_s", item={
        "type": "synthetic", "delivery": "steer",
        "payload": {"text": "<subagent>…</subagent>", "description": "Scan", "metadata": meta}})))
    pending = store.sessions[SID].inbox["msg_s"]
    assert (pending.kind, pending.description, pending.metadata) == ("synthetic", "Scan", meta)
    store.apply(parse_event(frame("session.inbox.delivered", inboxID="msg_s")))
    msg = store.sessions[SID].messages["msg_s"]
    assert (msg.role, msg.description, msg.metadata) == ("synthetic", "Scan", meta)


def test_a_compaction_stops_pending_when_it_starts_and_keeps_the_input_id() -> None:
    store = Store()
    store.apply(parse_event(frame("session.inbox.enqueued", inboxID="msg_c",
                                  item={"type": "compaction", "payload": {}, "delivery": "steer"})))
    store.apply(parse_event(frame("session.compaction.started", reason="manual", recent="", inputID="msg_c")))
    state = store.sessions[SID]
    assert not state.inbox and state.messages["msg_c"].role == "compaction"
    store.apply(parse_event(frame("session.compaction.ended", reason="manual", text="Summary", recent="")))
    assert state.messages["msg_c"].text == "Summary" and state.messages["msg_c"].time_completed is not None


def test_a_staged_revert_marks_the_boundary_on_2x_and_only_what_follows_it_on_1_18() -> None:
    """QA (1.18.33): the undone prompt stayed after a commit (1.18 keeps it) yet was marked undone
    and put back in the box. Each moved mark is a message change, so its view shows it."""
    revert = {"messageID": "u2", "files": []}
    for dialect, kind, data, marked in (
            (Dialect.V2_0_PREVIEW, "session.revert.staged", {"revert": revert}, ["u2", "a2"]),
            (Dialect.PREVIEW, "session.next.revert.staged", {"revert": {**revert, "diff": ""},
                                                             "timestamp": 5}, ["a2"])):
        store = Store()
        store.load_history(SID, history("u1", "a1", "u2", "a2"))
        normalised = dialect.frames().event(frame(kind, **data))
        assert normalised is not None
        changes = store.apply(parse_event(normalised))
        state = store.sessions[SID]
        assert [m.id for m in state.messages.values() if m.reverted] == marked, dialect
        assert {c.message_id for c in changes if isinstance(c, MessageChanged)} == set(marked)
        # The session's own revert (GET /api/session/{id}) says the same once reloaded.
        info = SessionInfo.model_validate(dialect.session_info({"id": SID, "revert": revert}))
        assert info.revert is not None and info.revert.keepBoundary is (dialect is Dialect.PREVIEW)
        assert dialect.revert_state(dict(revert)).get("keepBoundary", False) is (dialect is Dialect.PREVIEW)
        cleared_frame = dialect.frames().event(frame(kind.replace("staged", "cleared"), timestamp=6))
        assert cleared_frame is not None
        cleared = store.apply(parse_event(cleared_frame))
        assert not any(m.reverted for m in state.messages.values())
        assert {c.message_id for c in cleared if isinstance(c, MessageChanged)} == set(marked)
