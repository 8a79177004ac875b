"""Long sessions load lazily: the newest page is shown first, older pages follow.

SessionService-level tests run the real client and service against the in-process demo server;
app-level tests drive ``OctuiApp`` headless (``run_test``). A ``GatedTransport`` holds back the
requests for older pages (those with a ``cursor``) until the test opens the gate, so the state
"painted, older history not fetched yet" can be observed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator

import httpx
import pytest
from textual.widgets import Button

from tests.snapshots.main_app import NOW, SIZE, MainApp, ManualClock, frozen, main_screen, make_demo, settle
from tui.client.http import OpenCodeClient
from tui.demo import DemoServer, IdGenerator, history_fixture
from tui.session import history_pager
from tui.session.service import SessionService
from tui.state.changes import Change, TranscriptChanged
from tui.state.store import Store
from tui.state.transcript import SessionState
from widgets.transcript.message_view import MessageView
from widgets.transcript.transcript import LOADING, WINDOW, Transcript


class GatedTransport(httpx.AsyncBaseTransport):
    """Records ``METHOD path?cursor`` of each request; older-page requests wait for ``gate``."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.gate = asyncio.Event()
        self.gate.set()
        self.requests: list[tuple[str, str, bool]] = []  # (method, path, has cursor)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        cursor = "cursor" in request.url.params
        self.requests.append((request.method, request.url.path, cursor))
        if cursor and request.url.path.endswith("/message"):
            await self.gate.wait()
        return await self.inner.handle_async_request(request)

    def pages(self, session_id: str, *, older: bool) -> int:
        path = f"/api/session/{session_id}/message"
        return sum(1 for m, p, c in self.requests if m == "GET" and p == path and c == older)


@pytest.fixture(autouse=True)
def frozen_clock() -> Iterator[None]:
    with frozen(NOW):
        yield


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.005)

    await asyncio.wait_for(poll(), timeout)


class Rig:
    """Demo server + gated client + store + service with its stream running."""

    def __init__(self) -> None:
        self.demo = DemoServer(clock=lambda: NOW, speed=0, heartbeat=0, ids=IdGenerator())
        self.transport = GatedTransport(self.demo.transport)
        self.client = OpenCodeClient(self.demo.base_url, transport=self.transport)
        self.store = Store()
        self.changes: list[Change] = []
        self.service = SessionService(self.client, self.store, self.changes.extend, lambda state: None)
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.client.connect()
        self.task = asyncio.create_task(self.service.run())
        await until(lambda: any(c.kind == "resynced" for c in self.changes))

    async def settle(self) -> None:
        for _ in range(3):
            await self.demo.idle()
            await until(lambda: all(t.done() for t in self.service.intake.tasks))
            await asyncio.sleep(0.01)

    def server_ids(self, session_id: str) -> list[str]:
        return [m["id"] for m in self.demo.state.messages[session_id]]

    def store_ids(self, session_id: str) -> list[str]:
        return list(self.store.sessions[session_id].messages)

    async def stop(self) -> None:
        self.transport.gate.set()
        self.service.stop()
        if self.task is not None:
            await asyncio.wait_for(self.task, 5)
        await self.client.aclose()
        await self.demo.aclose()


@pytest.fixture
async def rig() -> AsyncIterator[Rig]:
    rig = Rig()
    await rig.start()
    yield rig
    await rig.stop()


async def test_open_returns_with_the_newest_page_and_fetches_the_rest_after(rig: Rig) -> None:
    sid = rig.demo.seed_session("Long", history_fixture(450))["id"]
    rig.transport.gate.clear()
    await rig.service.open_session(sid)
    state = rig.store.sessions[sid]
    assert rig.store_ids(sid) == rig.server_ids(sid)[-history_pager.FIRST_PAGE:]
    assert state.older and state.loaded

    rig.transport.gate.set()
    await rig.settle()
    assert rig.store_ids(sid) == rig.server_ids(sid)
    assert not state.older
    older = [c for c in rig.changes if isinstance(c, TranscriptChanged) and c.page == "older"]
    assert older, "each older page is reported so the transcript can update its buttons"


async def test_live_messages_while_older_pages_load_are_neither_lost_nor_duplicated(rig: Rig) -> None:
    sid = rig.demo.seed_session("Long", history_fixture(450))["id"]
    rig.transport.gate.clear()
    await rig.service.open_session(sid)
    await until(lambda: rig.service.history.loading(sid))
    rig.demo.prompt(sid, "Write something long.")  # a user message and an answer, streamed live
    await rig.demo.idle()
    await until(lambda: len(rig.store.sessions[sid].messages) >= history_pager.FIRST_PAGE + 2)

    rig.transport.gate.set()
    await rig.settle()
    ids = rig.store_ids(sid)
    assert len(ids) == len(set(ids))
    assert ids == rig.server_ids(sid)  # every message once, in the server's order
    assert len(ids) == 452


async def test_background_pages_stop_at_the_cap_and_the_rest_comes_on_demand(
        rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history_pager, "BACKGROUND_MAX", 150)
    sid = rig.demo.seed_session("Long", history_fixture(700))["id"]
    await rig.service.open_session(sid)
    await rig.settle()
    state = rig.store.sessions[sid]
    assert 150 <= len(state.messages) < 700 and state.older

    rig.service.load_older(sid, everything=True)
    await rig.settle()
    assert rig.store_ids(sid) == rig.server_ids(sid)
    assert not state.older


async def test_quick_switching_loads_each_session_once(rig: Rig) -> None:
    a = rig.demo.seed_session("A", history_fixture(120))["id"]
    b = rig.demo.seed_session("B", history_fixture(30))["id"]
    await asyncio.gather(rig.service.open_session(a), rig.service.open_session(b),
                         rig.service.open_session(a))
    await rig.service.open_session(b)
    await rig.service.open_session(a)
    await rig.settle()
    assert rig.transport.pages(a, older=False) == 1
    assert rig.transport.pages(b, older=False) == 1
    assert rig.transport.pages(a, older=True) == 1  # 120 - 50: one background page
    assert rig.store_ids(a) == rig.server_ids(a)
    assert rig.store_ids(b) == rig.server_ids(b)


async def test_a_reconnect_reloads_the_newest_page_and_keeps_the_older_ones(rig: Rig) -> None:
    sid = rig.demo.seed_session("Long", history_fixture(300))["id"]
    await rig.service.open_session(sid)
    await rig.settle()
    assert rig.store_ids(sid) == rig.server_ids(sid)

    rig.demo.drop_connections()
    await until(lambda: sum(1 for c in rig.changes if c.kind == "resynced") >= 2)
    await rig.settle()
    assert rig.transport.pages(sid, older=False) == 2  # once per connection
    assert rig.store_ids(sid) == rig.server_ids(sid)  # merged, not cut back to one page


# ---------------------------------------------------------------------------- in the app
def gated_app(demo: DemoServer, session_id: str, clock: ManualClock) -> tuple[MainApp, GatedTransport]:
    app = MainApp(demo, session_id=session_id, demo_clock=clock)
    transport = GatedTransport(demo.transport)
    app.spec.transport = transport
    return app, transport


async def test_first_paint_shows_the_newest_messages_before_older_pages_are_fetched() -> None:
    clock = ManualClock()
    demo = make_demo(clock)
    sid = demo.seed_session("Long", history_fixture(400))["id"]
    app, transport = gated_app(demo, sid, clock)
    transport.gate.clear()
    seen: list[tuple[int, int]] = []
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        transcript = screen.query_one(Transcript)
        await until(lambda: transcript.mounted_messages > 0)
        state = app.store.sessions[sid]
        seen.append((len(state.messages), transport.pages(sid, older=True)))
        # Right after the first paint the window grows to WINDOW (later on a loaded machine).
        await until(lambda: transcript.mounted_messages >= WINDOW)
        views = list(transcript.query(MessageView))
        assert [v.message.id for v in views] == [m["id"] for m in demo.state.messages[sid][-WINDOW:]]
        assert transcript.query_one(".load-older", Button).display  # the rest is reachable
        transport.gate.set()
        await settle(pilot)
        assert len(state.messages) == 400
    assert seen[0][0] == history_pager.FIRST_PAGE
    assert seen[0][1] <= 1  # at most the first older request, still held at the gate
    assert transport.pages(sid, older=False) == 1  # the first resync shared the open's load


async def test_home_loads_the_rest_with_a_visible_loading_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history_pager, "BACKGROUND_MAX", 100)
    clock = ManualClock()
    demo = make_demo(clock)
    sid = demo.seed_session("Long", history_fixture(600))["id"]
    app, transport = gated_app(demo, sid, clock)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.session.is_ready and app.stream_state.phase == "connected")
        await settle(pilot)
        screen = main_screen(app)
        transcript = screen.query_one(Transcript)
        state: SessionState = app.store.sessions[sid]
        assert len(state.messages) < 600 and state.older

        transport.gate.clear()
        transcript.focus()
        await pilot.press("home")
        older = transcript.query_one(".load-older", Button)
        assert transcript.waiting_for_older
        assert older.display and str(older.label) == LOADING
        assert transcript.scroll_y == 0  # the loading line is what the reader sees

        transport.gate.set()
        await settle(pilot)
        assert len(state.messages) == 600 and not state.older
        assert not transcript.waiting_for_older
        first = transcript.query(MessageView).first()
        assert first.message.id == demo.state.messages[sid][0]["id"]
        assert not older.display
        assert transcript.scroll_y == 0

        await pilot.press("end")
        await settle(pilot)
        last = list(transcript.query(MessageView))[-1]
        assert last.message.id == demo.state.messages[sid][-1]["id"]
        assert transcript.scroll_y >= transcript.max_scroll_y - 1


async def test_paging_older_past_the_store_asks_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history_pager, "BACKGROUND_MAX", 10)
    clock = ManualClock()
    demo = make_demo(clock)
    sid = demo.seed_session("Long", history_fixture(300))["id"]
    app = MainApp(demo, session_id=sid, demo_clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.session.is_ready and app.stream_state.phase == "connected")
        await settle(pilot)
        transcript = main_screen(app).query_one(Transcript)
        state = app.store.sessions[sid]
        in_store = len(state.messages)
        assert in_store == history_pager.FIRST_PAGE  # the cap was already reached
        for _ in range(in_store // WINDOW + 1):
            transcript.page_older()
            await settle(pilot)
        assert len(state.messages) > in_store  # the last press fetched more from the server
        ids = [v.message.id for v in transcript.query(MessageView)]
        assert ids == list(state.messages)[list(state.messages).index(ids[0]):][:len(ids)]


async def test_quick_switching_in_the_app_loads_each_session_once() -> None:
    clock = ManualClock()
    demo = make_demo(clock)
    a = demo.seed_session("A", history_fixture(90))["id"]
    b = demo.seed_session("B", history_fixture(20))["id"]
    app, transport = gated_app(demo, a, clock)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.session.is_ready and app.stream_state.phase == "connected")
        await settle(pilot)
        screen = main_screen(app)
        screen.open(b)
        screen.open(a)
        screen.open(b)  # each open cancels the one before; their loads carry on and are shared
        await until(lambda: screen.session_id == b)
        await settle(pilot)
        screen.open(a)
        await until(lambda: screen.session_id == a)
        await settle(pilot)
        assert transport.pages(a, older=False) == 1
        assert transport.pages(b, older=False) == 1
        views = list(screen.query_one(Transcript).query(MessageView))
        assert views[-1].message.id == demo.state.messages[a][-1]["id"]
