"""The two whole-run recordings of the 2.0 preview, replayed as one connection each: a smoke test.

``whole-run/all_events.jsonl.gz`` is one ``GET /api/event`` connection held open while the first
ten scenarios ran (``01_text`` … ``07d_400``, 274 frames); ``more_all_events.jsonl.gz`` the same for
``m01`` … ``m12`` (887 frames, sessions running side by side, reconnects of other clients, a
deleted session). Each goes through octui's real frame path (``tests/replay/harness.py``). It must
end with no exception, no unknown-event warning, every session idle (nothing busy, streaming or
running), no ask left, the pending list the server itself reported, and every session whose
history was recorded rebuilt as that history (``samples/<scenario>.messages.json``).
"""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest

from tests.replay.harness import (
    TRACES_20,
    Connection,
    ReplayServer,
    history_items,
    history_transcript,
    replay,
    sample,
    store_transcript,
)
from tests.replay.test_replay_2_0 import pending_at_end, pending_view, recorded_pending_view
from tui.protocol.dialects import Dialect
from tui.state.transcript import TextBlock, ToolCall

WHOLE_RUN = TRACES_20 / "whole-run"
# Recording -> the scenarios it spans (their ``pending_at_end`` is what the server still held).
RUNS = {
    "all_events": ("01_", "02", "03_", "04", "05_", "06_", "07"),
    "more_all_events": ("m",),
}


def whole_run(name: str) -> list[dict[str, Any]]:
    with gzip.open(WHOLE_RUN / f"{name}.jsonl.gz", "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def test_the_whole_runs_are_vendored() -> None:
    vendored = sorted(p.name for p in WHOLE_RUN.glob("*.jsonl.gz"))
    assert vendored == [f"{name}.jsonl.gz" for name in sorted(RUNS)]


@pytest.mark.parametrize("name", sorted(RUNS))
async def test_whole_run_replays_to_the_servers_end_state(name: str) -> None:
    trace = whole_run(name)
    frames = [record["data"] for record in trace if isinstance(record.get("data"), dict)]
    run = await replay(ReplayServer([Connection(trace)]), timeout=120.0)
    assert run.task.done() and not run.task.cancelled() and run.task.exception() is None
    assert run.client.dialect is Dialect.V2_0_PREVIEW
    store = run.store
    assert list(store.warnings) == [], "an event octui does not know, or could not read"

    created = {f["data"]["sessionID"] for f in frames if f.get("type") == "session.created"}
    assert len(created) >= 10 and created <= set(store.sessions) | store.deleted

    # Idle at the end, as the server was (its own /active: nothing running; no ask pending).
    assert not run.server.projection.running and not run.server.projection.asks
    assert not store.asks
    for session_id, state in store.sessions.items():
        assert not state.busy and not state.executing, session_id
        for message in state.messages.values():
            for part in message.parts:
                assert not (isinstance(part, TextBlock) and part.streaming), (session_id, part.key)
                assert not (isinstance(part, ToolCall) and not part.finished), (session_id, part.key)

    # Pending inputs: exactly what the server listed at the end of those scenarios.
    histories = (TRACES_20 / "samples").glob("*.messages.json")
    scenarios = sorted(p.name[: -len(".messages.json")] for p in histories if p.name.startswith(RUNS[name]))
    expected = sorted(view for scenario in scenarios
                      for view in recorded_pending_view(pending_at_end(scenario)))
    assert sorted(view for state in store.sessions.values() for view in pending_view(state)) == expected
    if name == "more_all_events":
        assert len(expected) == 2  # m01 queue with resume:false, m05 synthetic note with resume:false

    # Every session whose history was recorded: the same transcript, built from the one stream.
    rebuilt = 0
    for scenario in scenarios:
        for session_id, page in sample(f"{scenario}.messages.json").items():
            items = history_items(page)
            if not items or session_id not in store.sessions:
                continue
            state = store.sessions[session_id]
            assert store_transcript(state) == history_transcript(items), (scenario, session_id)
            rebuilt += 1
    assert rebuilt >= 10
