"""EventStream over httpx.MockTransport: framing, reconnect, watchdog, 401, bounds."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Callable, Iterable

import httpx
import pytest

from tui.client import EventStream, OpenCodeClient, StreamState
from tui.client.stream import SSEParser

BASE = "http://127.0.0.1:4096"
SECRET = "s3cret-Pa55word"
CONNECTED = b'data: {"id":"evt_0","type":"server.connected","data":{}}\n\n'


def frame(obj: object) -> bytes:
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def sse(chunks: Iterable[bytes], *, hang: bool = True, gap: float = 0.0) -> httpx.Response:
    """A streamed event-stream body; ``hang`` keeps it open (silent) after the chunks."""

    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk
            await asyncio.sleep(gap)
        if hang:
            await asyncio.sleep(3600)

    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())


class Script:
    """Serves one scripted response per connection; after the script: a silent open stream."""

    def __init__(self, *responses: Callable[[], httpx.Response]) -> None:
        self.responses = list(responses)
        self.requests: list[httpx.Request] = []

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/api/event"
        self.requests.append(request)
        if self.responses:
            return self.responses.pop(0)()
        return sse([CONNECTED])


class Recorder:
    def __init__(self) -> None:
        self.frames: list[dict[str, object]] = []
        self.states: list[StreamState] = []
        self.warnings: list[str] = []

    def phases(self) -> list[str]:
        return [s.phase for s in self.states]

    async def until(self, cond: Callable[[], bool], timeout: float = 5.0) -> None:
        async def poll() -> None:
            while not cond():
                await asyncio.sleep(0.005)

        await asyncio.wait_for(poll(), timeout)


def make(script: Script, rec: Recorder, **kw: float) -> tuple[OpenCodeClient, EventStream]:
    client = OpenCodeClient(BASE, password=SECRET, transport=httpx.MockTransport(script))
    options: dict[str, float] = {"heartbeat_timeout": 5.0, "backoff_initial": 0.01, "backoff_max": 0.05}
    options.update(kw)
    stream = EventStream(
        client,
        rec.frames.append,
        rec.states.append,
        on_warning=rec.warnings.append,
        rng=random.Random(1),
        **options,  # type: ignore[arg-type]
    )
    return client, stream


async def finish(client: OpenCodeClient, stream: EventStream, task: asyncio.Task[None]) -> None:
    stream.stop()
    await asyncio.wait_for(task, 2)
    await client.aclose()


async def test_framing() -> None:
    chunks = [
        CONNECTED,
        b": heartbeat\n\n",
        b'data: {"type":"a","da',  # a data line split across chunks
        b'ta":{"x":1}}\n',
        b"\n",
        b"data: not json\n\n",
        b"data: [1, 2]\n\n",
        b'event: message\r\nid: 7\r\ndata: {"type":"b",\r\ndata: "data":{}}\r\n\r\n',  # CRLF, multi-line data
        b"retry: 10\n\n",  # a frame with no data is nothing
        frame({"type": "c", "data": {"t": "é"}}),
    ]
    script, rec = Script(lambda: sse(chunks)), Recorder()
    client, stream = make(script, rec)
    task = asyncio.create_task(stream.run())
    await rec.until(lambda: len(rec.frames) == 4)
    assert [f["type"] for f in rec.frames] == ["server.connected", "a", "b", "c"]
    assert rec.frames[1]["data"] == {"x": 1} and rec.frames[3]["data"] == {"t": "é"}
    assert len(rec.warnings) == 2
    assert "not JSON" in rec.warnings[0] and "not an object" in rec.warnings[1]
    assert rec.phases() == ["connecting", "connected"]
    assert rec.states[-1].generation == 1 and rec.states[-1].connected_at
    request = script.requests[0]
    assert request.headers["accept"] == "text/event-stream"
    assert request.headers["authorization"].startswith("Basic ")
    await finish(client, stream, task)
    assert rec.phases()[-1] == "stopped"


async def test_ten_megabyte_frame() -> None:
    big = frame({"type": "big", "data": {"text": "x" * (10 * 1024 * 1024)}})
    pieces = [big[i : i + 65536] for i in range(0, len(big), 65536)]
    script, rec = Script(lambda: sse([CONNECTED, *pieces, frame({"type": "after"})])), Recorder()
    client, stream = make(script, rec)
    task = asyncio.create_task(stream.run())
    await rec.until(lambda: len(rec.frames) == 3, timeout=20)
    data = rec.frames[1]["data"]
    assert isinstance(data, dict) and len(data["text"]) == 10 * 1024 * 1024
    assert rec.frames[2]["type"] == "after" and not rec.warnings
    await finish(client, stream, task)


async def test_oversize_frame_skipped_and_bounded() -> None:
    huge_line = b"data: " + b"y" * 5000  # no newline for a long time
    chunks = [
        CONNECTED,
        huge_line,
        huge_line,
        b"\n\n",
        frame({"type": "d1", "data": {}}),
        b"data: " + b"z" * 3000 + b"\ndata: " + b"z" * 3000 + b"\n\n",
        frame({"type": "d2", "data": {}}),
    ]
    script, rec = Script(lambda: sse(chunks)), Recorder()
    client = OpenCodeClient(BASE, transport=httpx.MockTransport(script))
    stream = EventStream(
        client, rec.frames.append, rec.states.append, on_warning=rec.warnings.append, max_frame_bytes=4096
    )
    task = asyncio.create_task(stream.run())
    await rec.until(lambda: len(rec.frames) == 3)
    assert [f["type"] for f in rec.frames] == ["server.connected", "d1", "d2"]
    assert len(rec.warnings) == 2 and all("4096 bytes" in w for w in rec.warnings)
    await finish(client, stream, task)


def test_parser_keeps_buffer_bounded() -> None:
    parser = SSEParser(max_frame_bytes=1000)
    for _ in range(100):
        assert parser.feed(b"q" * 700) == []
        assert len(parser._buf) <= 1000 + 700
    assert parser.feed(b"\n\n" + frame({"type": "ok"})) == [("oversize", b""), ("data", b'{"type": "ok"}')]


async def test_reconnect_after_eof_bumps_generation() -> None:
    script = Script(
        lambda: sse([CONNECTED, frame({"type": "one", "data": {}})], hang=False),
        lambda: sse([CONNECTED, frame({"type": "two", "data": {}})]),
    )
    rec = Recorder()
    client, stream = make(script, rec)
    task = asyncio.create_task(stream.run())
    await rec.until(lambda: [f["type"] for f in rec.frames][-1:] == ["two"])
    assert rec.phases() == ["connecting", "connected", "reconnecting", "connected"]
    reconnecting = rec.states[2]
    assert reconnecting.attempt == 1 and reconnecting.error == "server closed the event stream"
    assert reconnecting.retry_in is not None and 0 < reconnecting.retry_in <= 0.05
    assert [s.generation for s in rec.states if s.phase == "connected"] == [1, 2]
    assert stream.generation == 2 and len(script.requests) == 2
    await finish(client, stream, task)


async def test_backoff_grows_and_resets_after_success() -> None:
    def unavailable() -> httpx.Response:
        return httpx.Response(503, json={"_tag": "ServiceUnavailableError", "message": "starting"})

    script = Script(unavailable, unavailable, unavailable, lambda: sse([CONNECTED], hang=False), unavailable)
    rec = Recorder()
    client, stream = make(script, rec, backoff_initial=0.001, backoff_max=0.01)
    task = asyncio.create_task(stream.run())
    await rec.until(lambda: rec.phases().count("connected") == 2)
    retries = [s for s in rec.states if s.phase == "reconnecting"]
    assert [s.attempt for s in retries] == [1, 2, 3, 1, 2]  # reset by the good connection
    assert "starting" in (retries[0].error or "") and "503" in (retries[0].error or "")
    await finish(client, stream, task)


def test_backoff_values() -> None:
    client = OpenCodeClient(BASE)
    stream = EventStream(client, print, print, backoff_initial=0.25, backoff_max=5.0, rng=random.Random(3))
    for attempt, cap in [(1, 0.25), (2, 0.5), (3, 1.0), (5, 4.0), (6, 5.0), (40, 5.0)]:
        for _ in range(20):
            delay = stream.backoff(attempt)
            assert cap * 0.5 <= delay <= cap
    asyncio.run(client.aclose())


async def test_watchdog_reopens_a_stalled_stream() -> None:
    script = Script(lambda: sse([CONNECTED]), lambda: sse([CONNECTED, frame({"type": "fresh", "data": {}})]))
    rec = Recorder()
    client, stream = make(script, rec, heartbeat_timeout=0.2)
    task = asyncio.create_task(stream.run())
    await rec.until(lambda: any(f["type"] == "fresh" for f in rec.frames))
    reconnecting = [s for s in rec.states if s.phase == "reconnecting"]
    assert reconnecting and "no data" in (reconnecting[0].error or "")
    assert stream.generation == 2
    await finish(client, stream, task)


async def test_heartbeats_keep_the_stream_alive() -> None:
    beats = [b": heartbeat\n\n"] * 12
    script = Script(lambda: sse([CONNECTED, *beats, frame({"type": "late", "data": {}})], gap=0.05))
    rec = Recorder()
    client, stream = make(script, rec, heartbeat_timeout=0.25)
    task = asyncio.create_task(stream.run())
    await rec.until(lambda: any(f["type"] == "late" for f in rec.frames))
    assert "reconnecting" not in rec.phases() and len(script.requests) == 1
    await finish(client, stream, task)


async def test_silent_server_before_headers_is_bounded() -> None:
    calls = 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        if calls == 1:
            await asyncio.sleep(3600)  # never answers (REAL-SERVER.md gotcha 1)
        return sse([CONNECTED])

    rec = Recorder()
    client = OpenCodeClient(BASE, transport=httpx.MockTransport(handler))
    stream = EventStream(
        client, rec.frames.append, rec.states.append, heartbeat_timeout=0.2, backoff_initial=0.01
    )
    task = asyncio.create_task(stream.run())
    await rec.until(lambda: stream.generation == 1)
    assert calls == 2
    await finish(client, stream, task)


async def test_unauthorized_is_retried_slowly_until_the_password_works_again() -> None:
    """QA: a server restarted with another password, then with the right one again, was never
    read again (401 ended the stream), while prompts sent meanwhile ran unseen. A 401 is
    retried every ``unauthorized_retry`` seconds, not at the reconnect pace."""
    def denied() -> httpx.Response:
        return httpx.Response(401, json={"_tag": "UnauthorizedError", "message": "Authentication required"})

    script, rec = Script(denied, denied, lambda: sse([CONNECTED])), Recorder()
    client, stream = make(script, rec)
    stream.unauthorized_retry = 0.05
    task = asyncio.create_task(stream.run())
    await rec.until(lambda: stream.generation == 1)
    assert rec.phases() == ["connecting", "unauthorized", "unauthorized", "connected"]
    denied_state = rec.states[1]
    error = denied_state.error or ""
    assert "wrong password" in error and SECRET not in error and SECRET not in repr(denied_state)
    assert denied_state.retry_in == 0.05
    assert len(script.requests) == 3
    await finish(client, stream, task)


async def test_an_unauthorized_spell_keeps_the_generation_so_the_reconnect_marks_the_gap() -> None:
    """A review: the 401 state said generation 0, so the reconnect after it (generation 2, the
    one before 1) was not seen as a reconnect by the session, and no stream gap was marked."""
    def denied() -> httpx.Response:
        return httpx.Response(401, json={"_tag": "UnauthorizedError", "message": "Authentication required"})

    script, rec = Script(lambda: sse([CONNECTED], hang=False), denied, lambda: sse([CONNECTED])), Recorder()
    client, stream = make(script, rec)
    stream.unauthorized_retry = 0.05
    task = asyncio.create_task(stream.run())
    await rec.until(lambda: stream.generation == 2)
    denied_state = next(state for state in rec.states if state.phase == "unauthorized")
    assert denied_state.generation == 1 and denied_state.connected_at is not None
    await finish(client, stream, task)


async def test_an_unauthorized_stream_is_retried_no_faster_than_its_pace() -> None:
    def denied() -> httpx.Response:
        return httpx.Response(401, json={"_tag": "UnauthorizedError", "message": "Authentication required"})

    script, rec = Script(*[denied] * 50), Recorder()
    client, stream = make(script, rec)  # (its reconnect backoff is tiny)
    stream.unauthorized_retry = 0.2
    task = asyncio.create_task(stream.run())
    await asyncio.sleep(0.5)
    assert 2 <= len(script.requests) <= 3
    assert set(rec.phases()[1:]) == {"unauthorized"}
    await finish(client, stream, task)


async def test_first_frame_not_connected_is_accepted_with_warning() -> None:
    script, rec = (
        Script(lambda: sse([frame({"type": "session.idle", "data": {"sessionID": "ses_1"}})])),
        Recorder(),
    )
    client, stream = make(script, rec)
    task = asyncio.create_task(stream.run())
    await rec.until(lambda: len(rec.frames) == 1)
    assert rec.phases() == ["connecting", "connected"]
    assert "not 'server.connected'" in rec.warnings[0]
    await finish(client, stream, task)


async def test_async_callbacks_and_handler_errors() -> None:
    seen: list[str] = []
    warnings: list[str] = []

    async def on_frame(obj: dict[str, object]) -> None:
        await asyncio.sleep(0)
        if obj["type"] == "bad":
            raise ValueError("handler bug")
        seen.append(str(obj["type"]))

    async def on_state(state: StreamState) -> None:
        await asyncio.sleep(0)

    async def on_warning(text: str) -> None:
        warnings.append(text)

    script = Script(lambda: sse([CONNECTED, frame({"type": "bad"}), frame({"type": "good"})]))
    client = OpenCodeClient(BASE, transport=httpx.MockTransport(script))
    stream = EventStream(client, on_frame, on_state, on_warning=on_warning)
    task = asyncio.create_task(stream.run())
    await Recorder().until(lambda: "good" in seen)
    assert seen == ["server.connected", "good"]
    assert any("handler bug" in w for w in warnings)
    await finish(client, stream, task)


async def test_stop_during_backoff_and_from_callback() -> None:
    script, rec = Script(*[lambda: httpx.Response(500, text="down")] * 3), Recorder()
    client, stream = make(script, rec, backoff_initial=30.0, backoff_max=30.0)
    task = asyncio.create_task(stream.run())
    await rec.until(lambda: "reconnecting" in rec.phases())
    stream.stop()
    await asyncio.wait_for(task, 1)
    assert rec.phases()[-1] == "stopped"
    stream.stop()  # idempotent
    await client.aclose()

    rec2 = Recorder()
    client2 = OpenCodeClient(BASE, transport=httpx.MockTransport(Script()))
    holder: list[EventStream] = []

    def on_frame(obj: dict[str, object]) -> None:
        rec2.frames.append(obj)
        holder[0].stop()

    stream2 = EventStream(client2, on_frame, rec2.states.append)
    holder.append(stream2)
    await asyncio.wait_for(stream2.run(), 2)
    assert rec2.phases() == ["connecting", "connected", "stopped"]
    await client2.aclose()


async def test_wrong_content_type_reconnects() -> None:
    script = Script(lambda: httpx.Response(200, json={"oops": True}))
    rec = Recorder()
    client, stream = make(script, rec)
    task = asyncio.create_task(stream.run())
    await rec.until(lambda: stream.generation == 1)
    assert "not SSE" in (rec.states[1].error or "")
    await finish(client, stream, task)


async def test_run_cancelled_from_outside() -> None:
    script, rec = Script(), Recorder()
    client, stream = make(script, rec)
    task = asyncio.create_task(stream.run())
    await rec.until(lambda: stream.generation == 1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 2)
    await client.aclose()
