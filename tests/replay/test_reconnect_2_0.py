"""m11: a turn streams, the event stream drops, REST is read in the gap, a new connection picks up
mid-block (deltas of a block it never saw start, no replay) and the turn ends. octui must end in
the state of the server's own history, and show the running block sensibly on the way."""

from __future__ import annotations

from typing import Any

from tests.replay.harness import (
    TRACES_20,
    Connection,
    Replay,
    ReplayServer,
    history_items,
    history_transcript,
    messages_answer,
    records,
    replay,
    sample,
    store_transcript,
)
from tui.state.deltas import GAP
from tui.state.transcript import TextBlock

CONN1 = records(TRACES_20 / "traces" / "m11_reconnect_conn1.jsonl")
CONN2 = records(TRACES_20 / "traces" / "m11_reconnect_conn2.jsonl")
REQUESTS: list[dict[str, Any]] = sample("m11_reconnect_conn1.requests.json")
EXTRA = sample("m11_reconnect_conn1.extra.json")
CREATED = REQUESTS[0]["response_body"]["data"]
SID = CREATED["id"]


def deltas(recorded: list[dict[str, Any]]) -> str:
    return "".join(r["data"]["data"]["delta"] for r in recorded
                   if (r.get("data") or {}).get("type") == "session.text.delta")


def before_text_ended(recorded: list[dict[str, Any]]) -> int:
    kinds = [(r.get("data") or {}).get("type") for r in recorded]
    return kinds.index("session.text.ended")


async def test_reconnect_mid_block_ends_in_the_server_state() -> None:
    assert REQUESTS[0]["method"] == "POST" and REQUESTS[0]["path"] == "/api/session"
    conn1 = Connection(CONN1, hold_after=2)  # server.connected and a heartbeat, then wait
    conn2 = Connection(CONN2, hold_after=before_text_ended(CONN2))
    gap = EXTRA["right_after_reconnect"]
    server = ReplayServer([conn1, conn2], rest={
        "POST /api/session": (200, {"data": CREATED}),
        f"GET /api/session/{SID}": (200, {"data": CREATED}),
        f"GET /api/session/{SID}/message": (200, messages_answer(gap["messages"])),
        f"GET /api/session/{SID}/pending": (200, gap["pending"]),
    })
    seen: dict[str, Any] = {}

    async def drive(run: Replay) -> None:
        await run.connected(1)
        info = await run.service.create_session()  # as octui does before a first prompt
        assert info.id == SID
        conn1.release.set()
        await conn2.held.wait()  # reconnected, resynced over REST, 38 deltas read
        await run.settled()
        state = run.store.sessions[SID]
        (assistant,) = [m for m in state.messages.values() if m.role == "assistant"]
        (block,) = assistant.parts
        assert isinstance(block, TextBlock)
        paths = [r.url.path for r in server.requests]
        seen.update(text=block.text, streaming=block.streaming, busy=state.busy,
                    loads=[p for p in paths if p.endswith(("/message", "/pending"))])
        conn2.release.set()

    run = await replay(server, before=drive)
    # While the block still ran: what the first connection streamed, a mark for the gap, then
    # the second connection's deltas (REST knew the block only as "").
    assert seen["text"] == deltas(CONN1) + GAP + deltas(CONN2)
    assert seen["streaming"] and seen["busy"]
    assert seen["loads"] == [f"/api/session/{SID}/message", f"/api/session/{SID}/pending"]
    # The end: exactly the server's own history.
    state = run.store.sessions[SID]
    final = history_items(sample("m11_reconnect_conn1.messages.json")[SID])
    assert history_items(EXTRA["final"]["messages"]) == final
    assert store_transcript(state) == history_transcript(final)
    assert [m.id for m in state.messages.values()] == [m["id"] for m in final]
    assert not state.busy and not state.inbox
    assert all(not p.streaming for m in state.messages.values() for p in m.parts if isinstance(p, TextBlock))
    assert state.title == next(r["data"]["data"]["title"] for r in CONN2
                               if (r.get("data") or {}).get("type") == "session.renamed")
