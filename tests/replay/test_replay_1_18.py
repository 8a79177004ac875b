"""Every recorded 1.18.33-preview trace (``tests/fixtures/traces``), replayed through the real frame
path with that generation detected from its health body, rebuilds the server's own history
(``samples/<scenario>.messages.json``): prompts, text, reasoning, tool rows, ids."""

from __future__ import annotations

import json

import pytest

from tests.replay.harness import (
    TRACES_118,
    Connection,
    ReplayServer,
    history_items,
    history_transcript,
    records,
    replay,
    store_transcript,
)
from tui.protocol.dialects import Dialect
from tui.state.transcript import TextBlock, ToolCall

SCENARIOS = sorted(p.name[: -len(".messages.json")] for p in (TRACES_118 / "samples").glob("*.messages.json"))


def test_every_api_trace_has_its_history() -> None:
    api = {p.name[: -len(".jsonl")] for p in TRACES_118.glob("*.jsonl") if p.name.count(".") == 1}
    # 05b ran the legacy task tool on /session (its history lives on another route).
    assert api - set(SCENARIOS) == {"05b_subagent_legacy"} and len(SCENARIOS) >= 14


@pytest.mark.parametrize("name", SCENARIOS)
async def test_replay_rebuilds_the_server_history(name: str) -> None:
    trace = records(TRACES_118 / f"{name}.jsonl")
    run = await replay(ReplayServer([Connection(trace)], generation="1.18"))
    assert run.client.dialect is Dialect.PREVIEW
    sid = next(r["data"]["data"]["sessionID"] for r in trace
               if isinstance((r.get("data") or {}).get("data"), dict) and r["data"]["data"].get("sessionID"))
    items = history_items(json.loads((TRACES_118 / "samples" / f"{name}.messages.json").read_text()))
    state = run.store.sessions[sid]
    assert store_transcript(state) == history_transcript(items)
    live = [m.id for m in state.messages.values() if m.role != "notice"]
    for mid, item in zip(live, items, strict=True):
        if not mid.startswith("evt:"):
            assert mid == item["id"], item.get("type")
    assert not state.busy and not state.inbox
    for msg in state.messages.values():
        for part in msg.parts:
            assert not (isinstance(part, TextBlock) and part.streaming), part.key
            assert not (isinstance(part, ToolCall) and not part.finished), part.key
