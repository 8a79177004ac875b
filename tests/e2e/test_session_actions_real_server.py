"""Session actions against the real server: rename, delete, revert stage/clear/commit, compact.

Where the generations differ, the test branches on the running server's generation: 1.18.33
answers ``/compact`` with 503, a 2.x server compacts (TRACES.md 4); a revert commit keeps the
boundary user message on 1.18 (DIALECTS.md §7) and deletes it on 2.x (TRACES.md 3).

The demo server has no revert or compaction routes, so these run here. Two layers: the client and
``SessionActions`` glue (what the server really answers), then the app driven with keys (f4 undo,
the revert panel, redo and commit).
"""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from tests.e2e.app_driver import running_app
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.server import EventRecorder, RealServer
from tui.app.session_actions import SessionActions, error_text
from tui.client.errors import NotFound, Unavailable
from tui.client.http import OpenCodeClient
from tui.screens.revert import RevertScreen
from tui.session.service import SessionService
from tui.state.store import Store
from widgets.composer.composer import Composer

pytestmark = pytest.mark.e2e


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _sid(session_id: str) -> Any:
    return lambda data: data.get("sessionID") == session_id


def two_turns(server: RealServer, fake_llm: FakeLLM, events: EventRecorder) -> tuple[str, list[str]]:
    """A session with two finished turns; returns its id and the two user message ids."""
    name = unique("revert")
    tag = fake_llm.add_scenario(name, [{"text": "answer"}])
    sid = server.create_session()["id"]
    for n in (1, 2):
        server.prompt(sid, f"prompt {n} {tag}")
        events.wait_for_count(server.wire.ev("step.ended"), n, _sid(sid), timeout=20)
        server.wait_idle(sid)
    with server.client() as http:
        body = http.get(f"/api/session/{sid}/message", params={"order": "asc", "limit": 50}).json()
    users = [m["id"] for m in body["data"] if m.get("type") == "user"]
    assert len(users) == 2, body
    return sid, users


def client_for(server: RealServer) -> OpenCodeClient:
    return OpenCodeClient(server.url, username=server.username, password=server.password)


class GlueApp:
    """Just enough app for ``SessionActions``: the session service over the real client, a store,
    recorded toasts."""

    def __init__(self, client: OpenCodeClient) -> None:
        self.client = client
        self.store = Store()
        self.session = SessionService(client, self.store, lambda _changes: None, lambda _state: None)
        self.toasts: list[tuple[str, str]] = []

    def notify(self, text: str, *, severity: str = "information", **_: Any) -> None:
        self.toasts.append((severity, text))

    def post_message(self, message: Any) -> None:
        pass


async def test_rename_and_delete(live_server: RealServer) -> None:
    sid = live_server.create_session()["id"]
    async with client_for(live_server) as client:
        await client.connect()
        actions = SessionActions(GlueApp(client))  # type: ignore[arg-type]
        assert await actions.rename(sid, "Renamed by octui") is True
        assert (await client.get_session(sid)).title == "Renamed by octui"
        assert await actions.delete(sid) is True
        with pytest.raises(NotFound):
            await client.get_session(sid)


async def test_compact_answers_as_the_server_can(live_server: RealServer, fake_llm: FakeLLM,
                                                events: EventRecorder) -> None:
    w = live_server.wire
    if not w.v2:  # 1.18.33: 503 "not available yet"
        sid = live_server.create_session()["id"]
        async with client_for(live_server) as client:
            await client.connect()
            with pytest.raises(Unavailable) as caught:
                await client.compact(sid)
            text = error_text(caught.value, "Compaction")
            assert text.startswith("Compaction is not available on this server")
            app = GlueApp(client)
            assert await SessionActions(app).compact(sid) is False  # type: ignore[arg-type]
            assert app.toasts[-1][0] == "warning"
        return
    # 2.x: one turn, then /compact: admitted, run in its own execution, summarised (TRACES.md 4).
    sid, _ = two_turns(live_server, fake_llm, events)
    async with client_for(live_server) as client:
        await client.connect()
        app = GlueApp(client)
        assert await SessionActions(app).compact(sid) is True  # type: ignore[arg-type]
        assert app.toasts[-1][0] == "information"
    admitted = events.wait_for("session.compaction.admitted", _sid(sid), timeout=20)["data"]
    ended = events.wait_for("session.compaction.ended", _sid(sid), timeout=60)["data"]
    assert admitted["inputID"].startswith("msg_") and ended["reason"] == "manual"
    started = events.wait_for("session.compaction.started", _sid(sid))["data"]
    assert started["inputID"] == admitted["inputID"]
    live_server.wait_idle(sid, timeout=30)
    with live_server.client() as http:
        context = http.get(f"/api/session/{sid}/context").json()["data"]
    assert any(item.get("type") == "compaction" and item.get("status") == "completed" for item in context)


async def test_revert_stage_clear_commit(live_server: RealServer, fake_llm: FakeLLM,
                                         events: EventRecorder) -> None:
    sid, (first, second) = two_turns(live_server, fake_llm, events)
    async with client_for(live_server) as client:
        await client.connect()
        before = [m["id"] for m in (await client.list_messages(sid, order="asc"))[0]]
        revert = await client.revert_stage(sid, second)
        assert revert["messageID"] == second
        assert (await client.get_session(sid)).revert is not None
        events.wait_for(live_server.wire.ev("revert.staged"), _sid(sid))
        await client.revert_clear(sid)
        assert (await client.get_session(sid)).revert is None
        await client.revert_stage(sid, second)
        await client.revert_commit(sid)
        messages, _ = await client.list_messages(sid, order="asc")
        ids = [m["id"] for m in messages]
        if live_server.wire.v2:
            # 2.x deletes the boundary message too (TRACES.md 3): what came before it is left.
            assert ids == before[: before.index(second)] and first in ids
        else:
            # 1.18 keeps the staged (user) message and deletes everything after it (DIALECTS.md §7).
            assert ids[-1] == second and first in ids
        assert (await client.get_session(sid)).revert is None


async def test_undo_redo_and_commit_with_keys(live_server: RealServer, fake_llm: FakeLLM,
                                              events: EventRecorder) -> None:
    sid, (_, second) = two_turns(live_server, fake_llm, events)
    async with running_app(live_server, session_id=sid) as driver:
        await driver.wait_until(lambda: len(driver.state.messages) >= 4, "the history to load")
        await driver.pilot.press("f4")
        panel = await driver.wait_for_screen(RevertScreen)
        assert "prompt 2" in panel.prompt
        after = list(driver.state.messages)[list(driver.state.messages).index(second) + 1:]
        assert after and all(driver.state.messages[m].reverted for m in after)
        # 1.18 keeps the staged prompt (DIALECTS.md §7): not undone, nor back in the box (QA: the
        # model got it twice). 2.x drops it: it comes back for editing.
        assert driver.state.messages[second].reverted is live_server.wire.v2
        box = driver.app.screen_main().query_one(Composer)
        assert (box.text == "") is not live_server.wire.v2
        await driver.pilot.press("r")  # redo
        await driver.wait_until(lambda: not any(m.reverted for m in driver.state.messages.values()),
                                "redo to unmark the messages")
        with httpx.Client(base_url=live_server.url, auth=live_server.auth) as http:
            assert http.get(f"/api/session/{sid}").json()["data"].get("revert") is None
        await driver.pilot.press("f4")
        await driver.wait_for_screen(RevertScreen)
        kept = list(driver.state.messages)[: list(driver.state.messages).index(second)]
        await driver.pilot.press("c")  # commit
        if live_server.wire.v2:  # the boundary goes too (TRACES.md 3)
            await driver.wait_until(lambda: list(driver.state.messages) == kept,
                                    "commit to drop the boundary and everything after it", 15)
        else:
            await driver.wait_until(lambda: list(driver.state.messages)[-1] == second,
                                    "commit to drop the messages after the boundary", 15)


async def test_a_prompt_after_a_staged_undo_does_not_send_the_undone_turn(
        live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder) -> None:
    """QA: after F4 then Esc (kept staged), the next prompt's model request held the undone turn,
    and a later commit deleted the new turn. The prompt now commits the staged undo first."""
    kept, undone, later = (unique(n) for n in ("kept", "undone", "later"))
    tags = {name: fake_llm.add_scenario(name, [{"text": f"answer {name}"}]) for name in (kept, undone, later)}
    sid = live_server.create_session()["id"]
    for n, name in enumerate((kept, undone), 1):
        live_server.prompt(sid, f"prompt {n} {tags[name]}")
        events.wait_for_count(live_server.wire.ev("step.ended"), n, _sid(sid), timeout=20)
        live_server.wait_idle(sid)
    async with running_app(live_server, session_id=sid) as driver:
        await driver.wait_until(lambda: len(driver.state.messages) >= 4, "the history to load")
        await driver.pilot.press("f4")
        await driver.wait_for_screen(RevertScreen)
        await driver.pilot.press("escape")  # keep staged
        await driver.wait_until(lambda: not isinstance(driver.app.screen, RevertScreen), "the panel to close")
        box = driver.app.screen_main().query_one(Composer)
        box.text = ""  # (2.x put the undone prompt back)
        await driver.type_prompt(f"next please {tags[later]}")
        (request,) = fake_llm.wait_for_requests(later, 1, timeout=20)
        assert f"answer {undone}" not in str(request["body"].get("messages"))
        assert f"answer {kept}" in str(request["body"].get("messages"))
        with httpx.Client(base_url=live_server.url, auth=live_server.auth) as http:
            assert http.get(f"/api/session/{sid}").json()["data"].get("revert") is None
