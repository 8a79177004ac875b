"""The store rebuilds the right transcript from every recorded 1.18 trace, idempotently."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tui.protocol.dialect import Normaliser
from tui.protocol.events import Event, parse_event
from tui.state.store import Store
from tui.state.transcript import Message, SessionState, TextBlock, ToolCall

TRACES = Path(__file__).resolve().parent.parent / "fixtures" / "traces"


def trace_events(name: str) -> list[Event]:
    normaliser = Normaliser()
    out: list[Event] = []
    for line in (TRACES / name).read_text().splitlines():
        record = json.loads(line)
        if "data" not in record:
            continue
        frame = normaliser.event(record["data"])
        if frame is not None:
            out.append(parse_event(frame))
    return out


def replay(name: str) -> tuple[Store, SessionState]:
    store = Store()
    for event in trace_events(name):
        store.apply(event)
    sessions = [s for s in store.sessions.values() if s.messages]
    assert len(sessions) == 1, name
    return store, sessions[0]


def roles(state: SessionState) -> list[str]:
    return [m.role for m in state.messages.values()]


def assistant_parts(state: SessionState) -> list[list[tuple[str, str]]]:
    out = []
    for msg in state.messages.values():
        if msg.role == "assistant":
            out.append([(p.key.split(":")[0], p.text if isinstance(p, TextBlock) else p.status)
                        for p in msg.parts])
    return out


def tools(state: SessionState) -> list[ToolCall]:
    return [p for m in state.messages.values() for p in m.parts if isinstance(p, ToolCall)]


def test_text_trace_builds_reasoning_and_text() -> None:
    store, state = replay("01_text.jsonl")
    assert roles(state) == ["user", "assistant"]
    user = next(iter(state.messages.values()))
    assert user.text.startswith("Please do it.")
    assert assistant_parts(state) == [[("reasoning", "Let me think about a greeting."),
                                       ("text", "Hello! I am a scripted fake LLM.")]]
    assistant = list(state.messages.values())[1]
    assert assistant.finish == "stop"
    assert assistant.tokens is not None and assistant.tokens.input == 100
    assert not state.busy
    assert state.tokens.input == 100 and state.tokens.output == 20
    assert all(not p.streaming for p in assistant.parts if isinstance(p, TextBlock))


def test_bash_permission_trace_completes_tool_and_clears_ask() -> None:
    store, state = replay("02_bash_permission.jsonl")
    [call] = tools(state)
    assert call.name == "bash"
    assert call.status == "completed"
    assert call.input == {"command": "echo hello; sleep 0.3; echo world"}
    assert call.metadata == {"exit": 0, "truncated": False}
    assert "hello\nworld" in call.output_text
    assert store.asks == {}
    assert roles(state) == ["user", "assistant", "assistant"]


def test_reject_traces_end_tools_in_error() -> None:
    _, state = replay("02b_bash_reject.jsonl")
    [call] = tools(state)
    assert call.status == "error"
    assert call.error is not None and call.error.message.startswith("Unable to execute command")
    _, state = replay("02c_bash_reject_nomsg.jsonl")
    assert tools(state)[0].error is not None
    assert tools(state)[0].error.message == "Tool execution interrupted"  # type: ignore[union-attr]


def test_edit_write_trace_keeps_diffs() -> None:
    _, state = replay("03_edit_write.jsonl")
    write, edit, patch = tools(state)
    assert (write.name, edit.name, patch.name) == ("write", "edit", "apply_patch")
    assert write.metadata["operation"] == "write"
    assert edit.metadata["files"][0]["file"] == "notes.txt"
    assert "+line 2 (edited)" in edit.metadata["files"][0]["patch"]
    assert [f["status"] for f in patch.metadata["files"]] == ["added", "modified"]
    assert all(t.status == "completed" for t in (write, edit, patch))


def test_question_trace() -> None:
    store, state = replay("04_question.jsonl")
    [call] = tools(state)
    assert call.name == "question"
    assert call.metadata["answers"] == [["Blue"], ["Tests", "Docs"]]
    assert store.asks == {}


def test_question_asked_event_is_pending_until_replied() -> None:
    store = Store()
    events = trace_events("04_question.jsonl")
    asked_at = next(i for i, e in enumerate(events) if e.type == "question.asked")
    for event in events[: asked_at + 1]:
        store.apply(event)
    [ask] = store.asks.values()
    assert ask.id.startswith("que_")
    assert ask.questions[0].header == "Color"  # type: ignore[union-attr]
    assert ask.tool is not None and ask.tool.id.startswith("call_")  # type: ignore[union-attr]


def test_interrupt_trace_keeps_partial_text_and_error() -> None:
    _, state = replay("06_interrupt.jsonl")
    first = [m for m in state.messages.values() if m.role == "assistant"][0]
    assert first.error is not None and first.error.message == "Provider turn interrupted"
    text = first.parts[0]
    assert isinstance(text, TextBlock) and text.text.startswith("Counting:") and not text.streaming
    assert not state.busy


@pytest.mark.parametrize("name,needle", [("07b_500_always.jsonl", "HTTP 500"),
                                         ("07c_429_always.jsonl", "HTTP 429"),
                                         ("07d_400.jsonl", "HTTP 400")])
def test_provider_errors_land_on_the_assistant_message(name: str, needle: str) -> None:
    _, state = replay(name)
    assistant = [m for m in state.messages.values() if m.role == "assistant"]
    assert len(assistant) == 1
    assert assistant[0].error is not None and needle in assistant[0].error.message
    assert assistant[0].finish == "error"
    assert not state.busy


def test_queue_trace_delivers_both_prompts_in_order() -> None:
    _, state = replay("08_queue.jsonl")
    assert roles(state) == ["user", "assistant", "user", "assistant"]
    assert not state.inbox


def test_queued_prompt_is_pending_until_delivered() -> None:
    store = Store()
    events = trace_events("08_queue.jsonl")
    queued = [i for i, e in enumerate(events)
              if e.type == "session.inbox.enqueued" and e.data["item"]["delivery"] == "queue"]
    for event in events[: queued[0] + 1]:
        store.apply(event)
    state = next(s for s in store.sessions.values() if s.messages)
    assert [p.delivery for p in state.inbox.values()] == ["queue"]


@pytest.mark.parametrize("name", sorted(p.name for p in TRACES.glob("*.jsonl")
                                         if "session_stream" not in p.name and "v1_event" not in p.name))
def test_reapplying_every_event_changes_nothing(name: str) -> None:
    store = Store()
    events = trace_events(name)
    for event in events:
        store.apply(event)
    before = snapshot(store)
    for event in events:
        if event.durable is not None:
            assert store.apply(event) == [], event.type
    assert snapshot(store) == before


def snapshot(store: Store) -> Any:
    return {sid: [(m.id, m.role, m.text, [describe(p) for p in m.parts], m.finish)
                  for m in s.messages.values()]
            for sid, s in store.sessions.items()}


def describe(part: TextBlock | ToolCall) -> tuple[Any, ...]:
    if isinstance(part, TextBlock):
        return (part.key, part.text, part.streaming)
    return (part.key, part.status, part.input_text, json.dumps(part.metadata, sort_keys=True))


def test_history_snapshot_then_live_events_do_not_duplicate() -> None:
    """After a resync the HTTP snapshot and the stream overlap: the store must converge."""
    live = Store()
    events = trace_events("02_bash_permission.jsonl")
    for event in events:
        live.apply(event)
    state = next(s for s in live.sessions.values() if s.messages)
    history = [message_to_wire(m) for m in state.messages.values()]
    resynced = Store()
    resynced.load_history(state.id, history)
    for event in events[len(events) // 2:]:
        resynced.apply(event)
    assert roles(resynced.session(state.id)) == roles(state)
    assert assistant_parts(resynced.session(state.id)) == assistant_parts(state)


def message_to_wire(msg: Message) -> dict[str, Any]:
    """A v2 history item for ``msg`` (what GET .../message would return)."""
    if msg.role == "user":
        return {"id": msg.id, "type": "user", "text": msg.text, "time": {"created": 1}}
    content: list[dict[str, Any]] = []
    for part in msg.parts:
        if isinstance(part, TextBlock):
            content.append({"type": part.kind, "text": part.text})
        else:
            content.append({"type": "tool", "id": part.id, "name": part.name,
                            "state": {"status": part.status, "input": part.input,
                                      "content": [c.model_dump() for c in part.content],
                                      "metadata": part.metadata},
                            "time": {"created": 1}})
    return {"id": msg.id, "type": "assistant", "agent": "build",
            "model": {"id": "m", "providerID": "p"}, "content": content, "finish": msg.finish,
            "time": {"created": 1, "completed": 2}}


def test_active_snapshot_clears_busy_after_silent_turn_end() -> None:
    store = Store()
    events = trace_events("02c_bash_reject_nomsg.jsonl")
    failed = next(i for i, e in enumerate(events) if e.type == "session.tool.failed")
    changes = []
    for event in events[: failed + 1]:
        changes += store.apply(event)
    state = next(s for s in store.sessions.values() if s.messages)
    assert state.busy
    assert any(c.kind == "check_active" for c in changes)
    store.set_active({})
    assert not state.busy
    [call] = tools(state)
    assert call.status == "error"


def test_set_asks_replaces_pending_asks() -> None:
    from tui.protocol.models import PermissionRequest

    store = Store()
    ask = PermissionRequest(id="per_1", sessionID="ses_1", action="bash", resources=["ls"])
    assert [c.kind for c in store.set_asks([ask], [], None)] == ["asks"]
    assert list(store.asks) == ["per_1"]
    assert store.set_asks([ask], [], None) == []
    store.set_asks([], [], [])
    assert store.asks == {}


def test_deleted_session_is_not_brought_back_by_late_events() -> None:
    from tui.protocol.events import parse_event as parse

    store = Store()
    events = trace_events("01_text.jsonl")
    for event in events:
        store.apply(event)
    sid = next(s.id for s in store.sessions.values() if s.messages)
    store.apply(parse({"id": "evt_del", "type": "session.deleted", "data": {"sessionID": sid}}))
    assert sid not in store.sessions
    late = [e for e in events if e.session_id == sid]
    for event in late:
        assert store.apply(event) == []
    assert sid not in store.sessions
    store.apply(parse({"id": "evt_ask", "type": "permission.asked", "data": {
        "id": "per_late", "sessionID": sid, "action": "bash", "resources": ["ls"]}}))
    assert "per_late" not in store.asks


@pytest.mark.parametrize("name", ["01_text.jsonl", "08_queue.jsonl"])
def test_a_delivered_prompt_is_busy_before_the_first_token(name: str) -> None:
    """The real server delivers the prompt at once and starts the step with the model's first
    token, seconds later with a slow provider or its retries: octui said idle meanwhile, and Esc
    (which interrupts a busy session) did nothing (QA, 1.18.33)."""
    store = Store()
    events = trace_events(name)
    first = next(i for i, e in enumerate(events) if e.type == "session.inbox.delivered")
    assert not any(e.type == "session.step.started" for e in events[:first])
    for event in events[: first + 1]:
        store.apply(event)
    (state,) = [s for s in store.sessions.values() if s.messages]
    assert state.busy
    for event in events[first + 1:]:
        store.apply(event)
    assert not state.busy  # and idle again once the turn is over


def test_an_ask_is_over_when_its_tool_call_ends() -> None:
    """1.18.33 rejects the asks of an interrupted turn with no event for them: the tool call
    fails and the step ends, and the asks stayed in the inbox as "waiting" (answering one got a
    404). An ask of another call, or of another session, stays."""
    from tui.state.changes import AsksChanged
    from tui.state.store import ASK_CALL_ENDED

    store = Store()
    for ask_id, call in (("per_1", "call_1"), ("per_2", "call_2")):
        store.apply(parse_event({"id": f"evt_{ask_id}", "type": "permission.asked", "data": {
            "id": ask_id, "sessionID": "ses_1", "action": "bash", "resources": ["ls"],
            "source": {"type": "tool", "messageID": "msg_1", "id": call}}}))
    store.apply(parse_event({"id": "evt_q", "type": "question.asked", "data": {
        "id": "que_1", "sessionID": "ses_2", "questions": [{"question": "Q?", "header": "Q", "options": []}],
        "tool": {"messageID": "msg_1", "id": "call_1"}}}))
    assert set(store.asks) == {"per_1", "per_2", "que_1"}
    changes = store.apply(parse_event({"id": "evt_f", "type": "session.tool.failed", "data": {
        "sessionID": "ses_1", "assistantMessageID": "msg_1", "id": "call_1",
        "error": {"type": "aborted", "message": "Tool execution aborted"}}}))
    assert set(store.asks) == {"per_2", "que_1"}
    assert [(c.ask_id, c.how) for c in changes if isinstance(c, AsksChanged)] == [("per_1", ASK_CALL_ENDED)]


def test_a_delivery_seen_without_its_enqueue_is_busy_too() -> None:
    """Joined between the enqueue and the delivery (a reconnect): 1.18 repeats the prompt on
    delivery, and that prompt starts a turn as well."""
    store = Store()
    events = [e for e in trace_events("01_text.jsonl") if e.type != "session.inbox.enqueued"]
    first = next(i for i, e in enumerate(events) if e.type == "session.inbox.delivered")
    assert isinstance(events[first].data.get("prompt"), dict)
    for event in events[: first + 1]:
        store.apply(event)
    (state,) = [s for s in store.sessions.values() if s.messages]
    assert state.busy


SHOWN = "@@ -1,3 +1,2 @@\n keep\n-old two\n-old three\n+new two"


def _replay_showing_the_first_ask(reply: str | None) -> tuple[Store, SessionState]:
    """03_edit_write (1.18: a write, an edit, a patch), the first ask's dialog having shown a
    diff of the write against the file; ``reply`` given instead of the trace's own for it."""
    store = Store()
    first: str | None = None
    for event in trace_events("03_edit_write.jsonl"):
        replied = getattr(event.payload, "requestID", None)
        if reply is not None and replied is not None and replied == first:
            event = parse_event({"type": "permission.replied", "data": {
                "sessionID": getattr(event.payload, "sessionID", ""), "requestID": first, "reply": reply}})
        store.apply(event)
        if first is None and store.asks:
            first = next(iter(store.asks))
            store.show_write(first, SHOWN)
    [state] = [s for s in store.sessions.values() if s.messages]
    return store, state


def test_a_write_allowed_keeps_the_diff_its_dialog_showed() -> None:
    """QA: after an overwrite was allowed, its row showed only the new content ("+2 −?"): the
    diff the dialog showed against the file (1.18 sends none) is the row's once allowed."""
    from tui.text.tools import WRITE_AS_ALLOWED, diff_files

    store, state = _replay_showing_the_first_ask(None)
    write, edit, _ = tools(state)
    assert write.shown_patch == SHOWN and not edit.shown_patch
    [shown] = diff_files(write)
    assert (shown.status, shown.additions, shown.deletions) == ("overwritten", 1, 2)
    assert shown.hunks[0].section == WRITE_AS_ALLOWED
    assert [line.text for line in shown.hunks[0].lines if line.kind == "removed"] == ["old two", "old three"]
    assert not store.shown_writes  # nothing kept once its ask settled


def test_a_write_refused_keeps_what_it_would_have_changed_and_one_never_shown_nothing() -> None:
    """QA: a refused overwrite's row read "not applied +2 −0", the new content only."""
    from tui.text.tools import WRITE_AS_REFUSED, diff_files

    store, state = _replay_showing_the_first_ask("reject")
    write = tools(state)[0]
    assert write.rejected and write.shown_patch == SHOWN and not store.shown_writes
    [shown] = diff_files(write)
    assert (shown.status, shown.additions, shown.deletions) == ("not applied", 1, 2)
    assert shown.hunks[0].section == WRITE_AS_REFUSED
    store = Store()
    store.show_write("per_unknown", SHOWN)  # an ask the store does not hold: not kept
    assert not store.shown_writes


def test_a_reload_keeps_what_the_history_does_not_say_of_a_call() -> None:
    """A reload rebuilt calls from the server's history: a refused call read "Tool execution
    interrupted" again and an allowed write lost the diff it was allowed with."""
    from tui.state.history import carry_call_marks

    def turn(call: ToolCall) -> dict[str, Message]:
        return {"msg_1": Message(id="msg_1", role="assistant", parts=[call])}

    before = turn(ToolCall(id="call_w", name="write", rejected=True, shown_patch=SHOWN))
    after = turn(ToolCall(id="call_w", name="write", status="error"))
    carry_call_marks(before, after)
    [call] = after["msg_1"].parts
    assert isinstance(call, ToolCall) and call.rejected and call.shown_patch == SHOWN
    other = turn(ToolCall(id="call_x", name="write"))
    carry_call_marks(before, other)  # another call: nothing carried
    assert not other["msg_1"].parts[0].rejected  # type: ignore[union-attr]
