"""After (re)opening a session the session service re-reads its subagent tree (the stream has no replay)."""

from __future__ import annotations

from tui.client.http import OpenCodeClient
from tui.demo import DemoServer, user
from tui.session.service import SessionService
from tui.state.store import Store


async def test_open_session_loads_children_and_grandchildren() -> None:
    server = DemoServer(speed=0, heartbeat=0)
    root = server.seed_session("root", [user("go")])["id"]
    child = server.seed_session("child", [user("look")], parent_id=root)["id"]
    grandchild = server.seed_session("grandchild", [user("read")], parent_id=child)["id"]
    server.seed_session("unrelated", [user("other")])
    client = OpenCodeClient(server.base_url, transport=server.transport)
    await client.connect()
    store = Store()
    ctl = SessionService(client, store, lambda changes: None, lambda state: None)
    try:
        await ctl.open_session(root)
        assert {s.id for s in store.children(root)} == {child}
        assert {s.id for s in store.children(child)} == {grandchild}
        assert store.root_of(grandchild) == root
        # Opening the grandchild directly fetches its ancestors, then the tree from the root.
        fresh = Store()
        ctl2 = SessionService(client, fresh, lambda changes: None, lambda state: None)
        await ctl2.open_session(grandchild)
        assert fresh.root_of(grandchild) == root
        assert {s.id for s in fresh.children(root)} == {child}
    finally:
        await client.aclose()
        await server.aclose()
