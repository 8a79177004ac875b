"""REST faults and drafts, unit level: the headless app on an ``httpx.MockTransport`` fake server.

* 500 / 503 / timeouts on REST calls: a clear inline error, the catalog GET is retried, and the UI
  keeps running (keys and timers work) while a call hangs; every call is bounded by a timeout;
* the composer draft is never lost: a prompt that could not be sent stays in the box with the reason;
  the draft survives a reconnect and an octui restart (state dir: ``OCTUI_STATE_DIR``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tui.app.app import ConnectSpec, OctuiApp
from widgets.composer.composer import Composer

SID = "ses_restfault1"
CONNECTED = b'data: {"id":"evt_0","type":"server.connected","data":{}}\n\n: heartbeat\n\n'
SESSION = {"id": SID, "title": "Faulty", "time": {"created": 1, "updated": 1},
           "location": {"directory": "/tmp"}}


class FakeServer:
    """Answers what the app needs; ``faults`` maps "METHOD path" to a status or "hang"."""

    def __init__(self) -> None:
        self.faults: dict[str, list[int | str]] = {}
        self.calls: list[str] = []
        self.stream_ends = asyncio.Event()
        self.streams = 0
        self.models: list[dict[str, Any]] = [{"id": "fake-model", "providerID": "mock", "name": "Fake"}]

    def fail(self, route: str, *outcomes: int | str) -> None:
        self.faults[route] = list(outcomes)

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        route = f"{request.method} {request.url.path}"
        self.calls.append(route)
        pending = self.faults.get(route)
        if pending and isinstance(outcome := pending[0], int):
            pending.pop(0)
            body = {"_tag": "ServiceUnavailableError", "message": "catalog not ready"} if outcome == 503 \
                else {"message": "boom"}
            return httpx.Response(outcome, json=body)
        path = request.url.path
        if path == "/api/event":
            self.streams += 1
            return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=self._sse())
        if path == "/api/health":
            return httpx.Response(200, json={"healthy": True})
        if path == "/api/session/active":
            return httpx.Response(200, json={"data": {}})
        if path == "/api/model":
            return httpx.Response(200, json={"data": self.models})
        if path in ("/api/permission/request", "/api/question/request"):
            return httpx.Response(200, json={"data": []})
        if path == "/api/session" and request.method == "POST":
            return httpx.Response(200, json={"data": SESSION})
        if path == f"/api/session/{SID}":
            return httpx.Response(200, json={"data": SESSION})
        if path == f"/api/session/{SID}/message":
            return httpx.Response(200, json={"data": [], "cursor": {}})
        if path == f"/api/session/{SID}/prompt":
            return httpx.Response(200, json={"data": {"id": "msg_1", "sessionID": SID}})
        return httpx.Response(404, json={"message": f"no route {route}"})

    def hangs(self, request: httpx.Request) -> bool:
        pending = self.faults.get(f"{request.method} {request.url.path}")
        if pending and pending[0] == "hang":
            pending.pop(0)
            self.calls.append(f"{request.method} {request.url.path}")
            return True
        return False

    async def _sse(self) -> AsyncIterator[bytes]:
        yield CONNECTED
        self.stream_ends.clear()
        await self.stream_ends.wait()  # end the stream on demand (REAL-SERVER gotcha 5)


class Transport(httpx.AsyncBaseTransport):
    """The fake server, except that a "hang" goes over a real socket to a server that never answers,
    so httpx's own timeouts are what ends it (``MockTransport`` ignores timeouts)."""

    def __init__(self, server: FakeServer) -> None:
        self.server = server
        self.mock = httpx.MockTransport(server)
        self.real = httpx.AsyncHTTPTransport()
        self.held: list[asyncio.StreamWriter] = []
        self.blackhole: asyncio.Server | None = None

    async def _hold(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.held.append(writer)  # read nothing, answer nothing

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not self.server.hangs(request):
            return await self.mock.handle_async_request(request)
        if self.blackhole is None:
            self.blackhole = await asyncio.start_server(self._hold, "127.0.0.1", 0)
        port = self.blackhole.sockets[0].getsockname()[1]
        request.url = request.url.copy_with(host="127.0.0.1", port=port)
        return await self.real.handle_async_request(request)

    async def aclose(self) -> None:
        for writer in self.held:
            writer.transport.abort()
        if self.blackhole is not None:
            self.blackhole.close()
        await self.real.aclose()


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "state"
    monkeypatch.setenv("OCTUI_STATE_DIR", str(path))
    return path


async def until(predicate: Callable[[], Any], what: str, timeout: float = 5.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)
    return value


@asynccontextmanager
async def running(server: FakeServer, session_id: str | None = None) -> AsyncIterator[OctuiApp]:
    transport = Transport(server)
    app = OctuiApp(ConnectSpec(url="http://127.0.0.1:9", password="pw", transport=transport,
                               session_id=session_id, directory="/tmp"))
    try:
        async with app.run_test(size=(100, 30)):
            await until(lambda: app.stream_state.phase == "connected", "the stream")
            if session_id:
                await until(lambda: app.screen_main().session_id == session_id, "the session")
            yield app
    finally:
        await transport.aclose()


def notes(app: OctuiApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def composer(app: OctuiApp) -> Composer:
    return app.screen_main().query_one(Composer)


def saved_drafts(state_dir: Path) -> dict[str, str]:
    """Every draft on disk, by key (one file each: ``drafts/<key>.txt``)."""
    folder = state_dir / "drafts"
    if not folder.is_dir():
        return {}
    return {path.stem: path.read_text("utf-8") for path in folder.glob("*.txt")}


# ---------------------------------------------------------------------------------------- REST


async def test_prompt_answered_500_stays_in_the_box_with_the_reason(state_dir: Path) -> None:
    server = FakeServer()
    server.fail(f"POST /api/session/{SID}/prompt", 500)
    async with running(server, SID) as app:
        composer(app).insert("please keep me")
        composer(app).action_submit("steer")
        note = await until(lambda: [n for n in notes(app) if n.startswith("Not sent")], "the error")
        assert "still in the box" in note[0] and "boom" in note[0]
        assert composer(app).text == "please keep me"
        await until(lambda: saved_drafts(state_dir).get(SID) == "please keep me", "the draft on disk")


async def test_hanging_prompt_times_out_and_the_ui_stays_live() -> None:
    server = FakeServer()
    server.fail(f"POST /api/session/{SID}/prompt", "hang")
    async with running(server, SID) as app:
        assert app.session.is_ready
        app.session.client.timeout = 0.8  # every call is bounded; short here to keep the test fast
        composer(app).insert("slow one")
        composer(app).action_submit("steer")
        await until(lambda: f"POST /api/session/{SID}/prompt" in server.calls, "the prompt call")
        ticks: list[float] = []
        app.set_interval(0.05, lambda: ticks.append(time.monotonic()))
        started = time.monotonic()
        composer(app).insert("!")  # the box still takes input while the call hangs
        # Timers keep firing while the call hangs: four ticks before its 0.8 s timeout says so. (A
        # fixed sleep then a count would also fail when a busy machine merely starts the loop late.)
        await until(lambda: len(ticks) >= 4, "timers to keep running during the hanging call", 5.0)
        assert not [n for n in notes(app) if n.startswith("Not sent")], "the ticks came while the call hung"
        assert composer(app).text == "slow one!"
        note = await until(lambda: [n for n in notes(app) if n.startswith("Not sent")], "the timeout", 5.0)
        assert "timed out" in note[0].lower() or "0.8" in note[0], note[0]
        assert time.monotonic() - started < 3.0
        assert composer(app).text == "slow one!"


async def test_catalog_503_is_retried_then_loaded() -> None:
    server = FakeServer()
    server.fail("GET /api/model", 503, 503)
    async with running(server) as app:
        await until(lambda: server.calls.count("GET /api/model") >= 3, "the catalog retries", 6.0)
        from textual.worker import WorkerState

        await until(lambda: all(w.state is WorkerState.SUCCESS for w in app.workers if w.group == "catalog"),
                    "the catalog worker to finish", 5.0)
        assert server.calls.count("GET /api/model") == 3
        assert not [n for n in notes(app) if "Model list unavailable" in n]


async def test_empty_catalog_at_start_is_retried_until_it_fills() -> None:
    """2.x answers ``/api/model`` with [] for a second or two after it starts listening."""
    server = FakeServer()
    filled = server.models
    server.models = []
    async with running(server) as app:
        await until(lambda: server.calls.count("GET /api/model") >= 2, "a second catalog GET", 6.0)
        assert app.models == []
        server.models = filled
        await until(lambda: app.models != [], "the catalog to load once filled", 10.0)
        assert [m.id for m in app.models] == ["fake-model"]
        assert not [n for n in notes(app) if "Model list unavailable" in n]


async def test_catalog_that_never_comes_says_so() -> None:
    server = FakeServer()
    server.fail("GET /api/model", *([503] * 10))
    async with running(server) as app:
        note = await until(lambda: [n for n in notes(app) if "Model list unavailable" in n],
                           "the catalog error", 12.0)
        assert "catalog not ready" in note[0]
        assert server.calls.count("GET /api/model") == 5, "bounded retries"


async def test_session_open_500_is_reported_inline() -> None:
    server = FakeServer()
    server.fail(f"GET /api/session/{SID}", 500)
    async with running(server) as app:
        await app.open_session(SID)
        note = await until(lambda: [n for n in notes(app) if n.startswith("Could not open session")], "error")
        assert "boom" in note[0]
        assert app.screen_main().session_id is None


# -------------------------------------------------------------------------------------- drafts


async def test_home_draft_survives_a_restart(state_dir: Path) -> None:
    async with running(FakeServer()) as app:
        composer(app).insert("an idea for later")
        await until(lambda: saved_drafts(state_dir).get("new") == "an idea for later", "the debounced save")
    async with running(FakeServer()) as app:
        await until(lambda: composer(app).text == "an idea for later", "the restored draft")


async def test_session_draft_saved_on_exit_and_restored_on_open(state_dir: Path) -> None:
    async with running(FakeServer(), SID) as app:
        composer(app).insert("half a thought")
        # exit at once: the debounce timer has not fired, the exit flush must write it
    assert saved_drafts(state_dir).get(SID) == "half a thought"
    async with running(FakeServer()) as app:
        assert composer(app).text == "", "the session draft does not leak into the home screen"
        await app.open_session(SID)
        await until(lambda: composer(app).text == "half a thought", "the session's draft")


async def test_a_1_mb_draft_survives_a_restart_whole(state_dir: Path) -> None:
    big = "".join(f"paragraph {i}: a long draft, kept whole\n" for i in range(26_000))
    assert len(big) > 1_000_000
    async with running(FakeServer(), SID) as app:
        composer(app).text = big
    assert saved_drafts(state_dir).get(SID) == big, "written whole on exit, no cut"
    async with running(FakeServer(), SID) as app:
        await until(lambda: composer(app).text == big, "the whole draft back", 10.0)


async def test_draft_kept_across_a_reconnect(state_dir: Path) -> None:
    server = FakeServer()
    async with running(server, SID) as app:
        composer(app).insert("typed before the drop")
        generation = app.stream_state.generation
        server.stream_ends.set()
        await until(lambda: app.stream_state.generation > generation, "a new connection")
        await until(lambda: app.stream_state.phase == "connected", "the reconnect")
        await until(lambda: server.calls.count(f"GET /api/session/{SID}/message") >= 2, "the resync")
        await asyncio.sleep(0.1)
        assert composer(app).text == "typed before the drop"


async def test_sent_prompt_clears_the_draft(state_dir: Path) -> None:
    async with running(FakeServer(), SID) as app:
        composer(app).insert("send me")
        await until(lambda: saved_drafts(state_dir).get(SID) == "send me", "the draft")
        composer(app).action_submit("steer")
        await until(lambda: composer(app).text == "", "the box to clear")
        await until(lambda: SID not in saved_drafts(state_dir), "the draft to be deleted")


async def test_home_prompt_moves_to_the_new_session_when_sending_fails(state_dir: Path) -> None:
    server = FakeServer()
    server.fail(f"POST /api/session/{SID}/prompt", 500)
    async with running(server) as app:
        composer(app).insert("first words")
        composer(app).action_submit("steer")
        await until(lambda: [n for n in notes(app) if n.startswith("Not sent")], "the error")
        assert app.screen_main().session_id == SID
        assert composer(app).text == "first words"
    drafts = saved_drafts(state_dir)
    assert drafts.get(SID) == "first words" and "new" not in drafts
