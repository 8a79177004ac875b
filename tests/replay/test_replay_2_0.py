"""Every recorded 2.0-preview trace, replayed through octui's real frame path, rebuilds the history
the server itself gives afterwards (``samples/<scenario>.messages.json``).

The path: raw SSE lines as bytes (uneven chunks) -> ``SSEParser`` -> dialect detected from the
server's own ``/openapi.json`` -> normalised frames -> events -> ``Store``. Compared per session:
user prompts, synthetic inputs, text, reasoning, tool rows with their states and child sessions,
compaction/skill/switch entries, message ids (the user message id is the input id), and what is
still pending at the end.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.replay.harness import (
    TRACES_20,
    Connection,
    ReplayServer,
    history_items,
    history_transcript,
    records,
    replay,
    sample,
    store_transcript,
)
from tui.protocol.dialects import Dialect
from tui.state import tree
from tui.state.transcript import SessionState, TextBlock, ToolCall

SCENARIOS = sorted(p.name[: -len(".messages.json")] for p in (TRACES_20 / "samples").glob("*.messages.json")
                   if not p.name.startswith("m11_"))


def pending_at_end(name: str) -> list[dict[str, Any]]:
    """What the server still holds as pending when the scenario ends (recorded answers)."""
    if name == "m01_queue_idle":  # ``resume: false``: admitted, never run
        return list(sample("m01_queue_idle.extra.json")["pending_after_resume_false"]["data"])
    if name == "m05_commands_skills":  # the synthetic note posted with ``resume: false``
        return [sample("m05_commands_skills.extra.json")["synthetic_response"][1]["data"]]
    return []


def pending_view(state: SessionState) -> list[tuple[str, str, str, str]]:
    return [(p.id, p.kind, p.delivery, p.text) for p in state.inbox.values()]


def recorded_pending_view(items: list[dict[str, Any]]) -> list[tuple[str, str, str, str]]:
    """Straight from the wire items (``data``, not ``payload``, on this generation)."""
    return [(i["id"], i["type"], i["delivery"], (i.get("data") or {}).get("text", "")) for i in items]


def test_every_trace_is_replayed() -> None:
    """Each recorded connection is covered: here, or by the reconnect test (test_reconnect_2_0)."""
    traces = {p.name[: -len(".jsonl")] for p in (TRACES_20 / "traces").glob("*.jsonl")}
    assert len(traces) >= 29
    assert traces == set(SCENARIOS) | {"m11_reconnect_conn1", "m11_reconnect_conn2"}


@pytest.mark.parametrize("name", SCENARIOS)
async def test_replay_rebuilds_the_server_history(name: str) -> None:
    trace = records(TRACES_20 / "traces" / f"{name}.jsonl")
    run = await replay(ReplayServer([Connection(trace)]))
    assert run.client.dialect is Dialect.V2_0_PREVIEW  # told apart by the served /openapi.json
    store = run.store
    history = sample(f"{name}.messages.json")
    for session_id, page in history.items():
        items = history_items(page)
        state = store.sessions.get(session_id)
        if not items:  # e.g. a session created and renamed, never prompted
            assert state is None or not store_transcript(state), session_id
            continue
        assert state is not None, f"{session_id} never reached the store"
        assert store_transcript(state) == history_transcript(items), session_id
        # Message ids: equal wherever the stream names them (inputs, steps, compactions).
        live = [m.id for m in state.messages.values() if m.role != "notice"]
        for mid, item in zip(live, items, strict=True):
            if item["type"] == "shell":  # a user shell is keyed by its shell id on the stream
                assert mid == item["shellID"], session_id
            elif not mid.startswith("evt:"):
                assert mid == item["id"], (session_id, item.get("type"))
            else:  # only entries the server projects from an id-less event
                assert item["type"] in ("synthetic", "skill", "agent-switched", "model-switched")
        # The turn is over: nothing spins, streams or waits.
        assert not state.busy and not state.executing, session_id
        for msg in state.messages.values():
            for part in msg.parts:
                assert not (isinstance(part, TextBlock) and part.streaming), (session_id, part.key)
                assert not (isinstance(part, ToolCall) and not part.finished), (session_id, part.key)
    # Child sessions hang under the session whose subagent tool row names them.
    for session_id, page in history.items():
        for item in history_items(page):
            for part in item.get("content") or []:
                child = ((part.get("state") or {}).get("metadata") or {}).get("sessionID")
                if part.get("type") == "tool" and part.get("name") == "subagent" and child:
                    assert store.sessions[child].parent_id == session_id
                    assert child in {n.session_id for n in tree.build_tree(store, session_id).walk()}
    roots = [sid for sid in history if store.sessions.get(sid) and not store.sessions[sid].parent_id]
    expected = recorded_pending_view(pending_at_end(name))
    assert [v for sid in roots for v in pending_view(store.sessions[sid])] == expected
