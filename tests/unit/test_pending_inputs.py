"""Pending prompts (v2 inbox): listed, re-read on open, cancelled and switched steer <-> queue."""

from __future__ import annotations

import asyncio

from tui.client.http import OpenCodeClient
from tui.client.stream import StreamState
from tui.demo import DemoServer
from tui.session.service import SessionService
from tui.state.changes import Change
from tui.state.store import Store


async def until(predicate: object, timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():  # type: ignore[operator]
        assert loop.time() < deadline, "condition not met in time"
        await asyncio.sleep(0.01)


async def test_inbox_is_reread_cancelled_and_redirected() -> None:
    server = DemoServer(speed=0, heartbeat=0)
    sid = server.create_session(title="pending")["id"]
    first = server.ids("msg")
    second = server.ids("msg")
    for inbox_id, text in ((first, "later please"), (second, "and this")):
        server.emit("session.inbox.enqueued", {"sessionID": sid, "inboxID": inbox_id, "item": {
            "type": "user", "payload": {"text": text}, "delivery": "queue"}})
    client = OpenCodeClient(server.base_url, transport=server.transport)
    await client.connect()
    store = Store()
    states: list[StreamState] = []
    seen: list[Change] = []
    ctl = SessionService(client, store, seen.extend, states.append)
    runner = asyncio.create_task(ctl.run())
    try:
        await ctl.open_session(sid)  # enqueued before we connected: only GET …/inbox knows
        state = store.session(sid)
        assert [(p.id, p.text, p.delivery) for p in state.inbox.values()] == [
            (first, "later please", "queue"), (second, "and this", "queue")]
        await until(lambda: any(s.phase == "connected" for s in states))
        await ctl.set_pending_delivery(sid, first, "steer")
        await until(lambda: state.inbox[first].delivery == "steer")
        await ctl.cancel_pending(sid, second)
        await until(lambda: second not in state.inbox)
        assert list(state.inbox) == [first]
    finally:
        ctl.stop()
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)
        await client.aclose()
        await server.aclose()
