"""``EventStream``: owns ``GET /api/event`` and keeps it alive.

The stream is volatile (no ``id:`` lines, no replay; PROTOCOL.md §5.1), so every successful
(re)connect bumps ``StreamState.generation``: the app re-reads state over HTTP when it changes.
A watchdog treats ``heartbeat_timeout`` seconds of silence (no bytes at all; the server sends a
``: heartbeat`` comment every ~15 s) as a dead connection. Frames are parsed here at byte level
(not with ``EventSource.aiter_sse``) because comments must reset the watchdog and frame sizes
must be bounded.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

import httpx
from httpx_sse import aconnect_sse

from tui.client.core import tls_context_for
from tui.client.errors import OctuiError
from tui.client.http import OpenCodeClient
from tui.client.sse_socket import StreamBroke, direct_route, open_event_stream
from tui.protocol.frames import decode_frame

log = logging.getLogger("octui.stream")

Phase = Literal["connecting", "connected", "reconnecting", "unauthorized", "stopped"]
FrameCallback = Callable[[dict[str, Any]], Awaitable[None] | None]
StateCallback = Callable[["StreamState"], Awaitable[None] | None]
WarningCallback = Callable[[str], Awaitable[None] | None]

EVENT_PATH = "/api/event"
DEFAULT_MAX_FRAME_BYTES = 32 * 1024 * 1024
_ERROR_BODY_MAX = 16 * 1024


@dataclass(frozen=True)
class StreamState:
    phase: Phase
    attempt: int = 0
    error: str | None = None
    connected_at: float | None = None  # wall clock (time.time) of the last server.connected
    generation: int = 0  # +1 per successful (re)connect: resync over HTTP when it changes
    retry_in: float | None = None  # seconds until the next attempt ("reconnecting", "unauthorized")


class SSEParser:
    """Incremental ``text/event-stream`` parser over bytes, bounded by ``max_frame_bytes``.

    ``feed`` returns items: ``("data", payload)`` for each complete frame with data lines,
    ``("comment", b"")`` for comments, ``("oversize", b"")`` for a skipped frame that was too big.
    ``event:``, ``id:`` and ``retry:`` are ignored: dispatch is on the JSON ``type``.
    """

    def __init__(self, max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> None:
        self.max_frame_bytes = max_frame_bytes
        self._buf = bytearray()
        self._data: list[bytes] = []
        self._size = 0
        self._skip_line = False  # inside the tail of a line that blew the limit
        self._skip_frame = False

    def feed(self, chunk: bytes) -> list[tuple[str, bytes]]:
        out: list[tuple[str, bytes]] = []
        buf = self._buf
        search = len(buf)  # bytes already in the buffer hold no newline
        buf += chunk
        size = len(buf)
        start = 0
        while True:
            nl = buf.find(b"\n", search)
            if nl < 0:
                break
            if self._skip_line:
                self._skip_line = False
                start = search = nl + 1
                continue
            if nl + 1 < size and buf[nl + 1] == 10 and not self._data and not self._skip_frame \
                    and nl - start < self.max_frame_bytes and buf.startswith(b"data:", start):
                # Fast path for nearly every frame: one "data:" line, then the blank line that
                # ends it. Same value as ``_line`` makes: one leading space and a trailing CR off.
                first = start + 6 if buf[start + 5] == 32 else start + 5
                last = nl - 1 if buf[nl - 1] == 13 else nl
                out.append(("data", bytes(buf[first:last]) if last > first else b""))
                start = search = nl + 2
                continue
            line = bytes(buf[start:nl])
            start = search = nl + 1
            self._line(line[:-1] if line.endswith(b"\r") else line, out)
        if start:
            del buf[:start]
        if len(buf) > self.max_frame_bytes:
            buf.clear()
            self._skip_line = True
            self._drop_frame()
        return out

    def _drop_frame(self) -> None:
        self._skip_frame = True
        self._data.clear()
        self._size = 0

    def _line(self, line: bytes, out: list[tuple[str, bytes]]) -> None:
        if not line:
            if self._skip_frame:
                self._skip_frame = False
                out.append(("oversize", b""))
            elif self._data:
                out.append(("data", b"\n".join(self._data)))
            self._data = []
            self._size = 0
            return
        if line.startswith(b":"):
            out.append(("comment", b""))
            return
        name, _, value = line.partition(b":")
        if name != b"data" or self._skip_frame:
            return
        if value.startswith(b" "):
            value = value[1:]
        self._size += len(value) + 1
        if self._size > self.max_frame_bytes:
            self._drop_frame()
            return
        self._data.append(value)


async def _call(fn: Callable[[Any], Awaitable[None] | None], arg: Any) -> None:
    result = fn(arg)
    if inspect.isawaitable(result):
        await result


@dataclass
class _Outcome:
    error: str | None
    fatal: bool = False


class EventStream:
    """Run with ``await stream.run()`` (e.g. in one worker); ``stop()`` ends it from anywhere."""

    def __init__(
        self,
        client: OpenCodeClient,
        on_frame: FrameCallback,
        on_state: StateCallback,
        *,
        heartbeat_timeout: float = 35.0,
        backoff_initial: float = 0.25,
        backoff_max: float = 1.0,  # retry at least every second: back within ~2 s of a restart
        open_timeout: float = 1.0,  # a request sent while the server starts can hang: retry soon
        unauthorized_retry: float = 5.0,
        on_warning: WarningCallback | None = None,
        max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES,
        rng: random.Random | None = None,
    ) -> None:
        self._client = client
        self._on_frame = on_frame
        self._on_state = on_state
        self._on_warning = on_warning
        self.heartbeat_timeout = heartbeat_timeout
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        # A 401 is retried too, slowly: a server restarted with another password and then with the
        # right one again (QA) was never read again, while prompts sent meanwhile ran unseen.
        self.unauthorized_retry = unauthorized_retry
        # Time allowed for the response headers. A server that is still starting can accept the
        # connection and never answer it (REAL-SERVER.md gotcha 1): give up early and retry. It
        # doubles per unanswered attempt (slow links), up to the client/heartbeat timeout.
        self.open_timeout = open_timeout
        self._unanswered = 0
        self._answered = False  # the current connection got an answer (its timeouts mean silence)
        self.max_frame_bytes = max_frame_bytes
        self._rng = rng or random.Random()
        self._state = StreamState("stopped")
        self._generation = 0
        self._stopping = False
        self._running = False
        self._wake = asyncio.Event()
        self._conn_task: asyncio.Task[_Outcome] | None = None
        self._connected = False  # server.connected seen on the current connection

    @property
    def state(self) -> StreamState:
        return self._state

    @property
    def generation(self) -> int:
        return self._generation

    def stop(self) -> None:
        """Idempotent; safe from any callback. ``run()`` then returns after state "stopped"."""
        self._stopping = True
        self._wake.set()
        task = self._conn_task
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    def backoff(self, attempt: int) -> float:
        """Exponential from ``backoff_initial`` capped at ``backoff_max``, jittered to 50-100 %."""
        base = min(self.backoff_max, self.backoff_initial * (2 ** max(0, attempt - 1)))
        return base * self._rng.uniform(0.5, 1.0)

    async def run(self) -> None:
        if self._running:
            raise RuntimeError("EventStream.run() is already running")
        self._running = True
        attempt = 0
        try:
            if not self._stopping:
                await self._set_state(StreamState("connecting"))
            while not self._stopping:
                self._connected = False
                self._conn_task = asyncio.create_task(self._connection())
                try:
                    outcome = await self._conn_task
                except asyncio.CancelledError:
                    current = asyncio.current_task()
                    if current is not None and current.cancelling():
                        raise  # run() itself was cancelled
                    break  # stop() cancelled the connection
                finally:
                    self._conn_task = None
                if self._stopping:
                    break
                attempt = 1 if self._connected else attempt + 1
                if outcome.fatal:
                    await self._set_state(StreamState("unauthorized", attempt, outcome.error,
                                                      self._state.connected_at, self._generation,
                                                      retry_in=self.unauthorized_retry))
                    await self._sleep(self.unauthorized_retry)
                    continue
                delay = self.backoff(attempt)
                await self._set_state(
                    StreamState(
                        "reconnecting", attempt, outcome.error, self._state.connected_at,
                        self._generation, retry_in=delay,
                    )
                )
                await self._sleep(delay)
            await self._set_state(StreamState("stopped", 0, None, None, self._generation))
        finally:
            self._running = False

    async def _sleep(self, delay: float) -> None:
        try:
            await asyncio.wait_for(self._wake.wait(), timeout=delay)
        except TimeoutError:
            pass

    async def _set_state(self, state: StreamState) -> None:
        self._state = state
        try:
            await _call(self._on_state, state)
        except Exception:  # a UI bug must not kill the stream
            log.exception("stream state callback failed")

    async def _warn(self, text: str) -> None:
        if self._on_warning is None:
            log.warning("%s", text)
            return
        try:
            await _call(self._on_warning, text)
        except Exception:
            log.exception("stream warning callback failed")

    def _timeouts(self) -> httpx.Timeout:
        short = min(self._client.timeout, self.heartbeat_timeout)
        return httpx.Timeout(connect=short, read=self.heartbeat_timeout, write=short, pool=short)

    async def _connection(self) -> _Outcome:
        """One connection from request to EOF/error. Never raises except on cancellation."""
        url = self._client.display_url
        cap = min(self._client.timeout, self.heartbeat_timeout)
        open_for = min(cap, self.open_timeout * 2 ** min(self._unanswered, 8))
        self._answered = False
        try:
            async with asyncio.timeout(open_for) as guard:
                if direct_route(self._client.http, self._client.uses_own_transport):
                    return await self._direct(guard)
                opened = aconnect_sse(self._client.http, "GET", EVENT_PATH, timeout=self._timeouts())
                async with opened as src:
                    resp = src.response
                    ctype = resp.headers.get("content-type", "")
                    status = resp.status_code
                    refused = await self._answer(guard, status, ctype, lambda: self._httpx_body(resp))
                    return refused or await self._read(guard, resp.aiter_bytes())
        except TimeoutError:
            if not self._answered:
                self._unanswered += 1
                return _Outcome(f"{url}{EVENT_PATH} did not answer within {open_for:g} s")
            return _Outcome(f"no data from {url} for {self.heartbeat_timeout:g} s")
        except httpx.TimeoutException:
            return _Outcome(f"no data from {url} for {self.heartbeat_timeout:g} s")
        except httpx.ConnectError as exc:
            reason = "connection refused" if "refused" in str(exc).lower() else type(exc).__name__
            return _Outcome(f"cannot reach {url}: {reason}")
        except httpx.TransportError as exc:
            return _Outcome(f"event stream from {url} broke: {type(exc).__name__}")
        except StreamBroke as exc:
            return _Outcome(f"event stream from {url} broke: {exc}")
        except ConnectionRefusedError:
            return _Outcome(f"cannot reach {url}: connection refused")
        except OSError as exc:  # the direct route's socket: reset, unreachable, TLS
            if not self._answered:
                return _Outcome(f"cannot reach {url}: {type(exc).__name__}")
            return _Outcome(f"event stream from {url} broke: {type(exc).__name__}")

    async def _direct(self, guard: asyncio.Timeout) -> _Outcome:
        """The stream over a bare connection (``sse_socket.py``): same checks, same frames."""
        # The client's own context (its rule: no CA bundle for a server spoken to in clear).
        tls = tls_context_for(str(self._client.http.base_url))
        response = await open_event_stream(self._client.http, EVENT_PATH, tls)
        try:
            refused = await self._answer(guard, response.status, response.headers.get("content-type", ""),
                                         lambda: response.body(_ERROR_BODY_MAX))
            return refused or await self._read(guard, response.chunks())
        finally:
            await response.close()

    async def _answer(self, guard: asyncio.Timeout, status: int, ctype: str,
                      body: Callable[[], Awaitable[bytes]]) -> _Outcome | None:
        """The server answered: None when it is the stream, else why not."""
        self._answered = True
        self._unanswered = 0
        guard.reschedule(asyncio.get_running_loop().time() + self.heartbeat_timeout)
        if status != 200:
            err = self._client.error_for(status, await body(), "GET", EVENT_PATH)
            text = str(err) if isinstance(err, OctuiError) else f"HTTP {status}"
            return _Outcome(text, fatal=status == 401)
        if "text/event-stream" not in ctype:
            what = ctype or "no content type"
            return _Outcome(f"{self._client.display_url}{EVENT_PATH} answered {what}, not SSE")
        return None

    async def _read(self, guard: asyncio.Timeout, chunks: AsyncIterator[bytes]) -> _Outcome:
        """Frames out of the body's bytes until it ends (or ``stop()``)."""
        loop = asyncio.get_running_loop()
        parser = SSEParser(self.max_frame_bytes)
        async for chunk in chunks:
            guard.reschedule(None)  # time spent in callbacks is not server silence
            for kind, payload in parser.feed(chunk):
                if kind == "data":
                    await self._frame(payload)
                elif kind == "oversize":
                    await self._warn(f"event frame over {self.max_frame_bytes} bytes skipped")
                if self._stopping:  # stop() called from a callback
                    return _Outcome(None)
            guard.reschedule(loop.time() + self.heartbeat_timeout)
        return _Outcome("server closed the event stream")

    @staticmethod
    async def _httpx_body(resp: httpx.Response) -> bytes:
        content = bytearray()
        async for chunk in resp.aiter_bytes():
            content += chunk
            if len(content) >= _ERROR_BODY_MAX:
                break
        return bytes(content[:_ERROR_BODY_MAX])

    async def _frame(self, payload: bytes) -> None:
        try:
            obj = decode_frame(payload)
        except (ValueError, RecursionError):  # RecursionError: absurdly deep nesting
            await self._warn(f"malformed event frame skipped ({len(payload)} bytes, not JSON)")
            return
        if not isinstance(obj, dict):
            await self._warn(f"event frame skipped: JSON {type(obj).__name__}, not an object")
            return
        if not self._connected:
            kind = obj.get("type")
            if kind != "server.connected":
                await self._warn(f"first event was {str(kind)[:80]!r}, not 'server.connected'; accepted")
            self._connected = True
            self._generation += 1
            await self._set_state(StreamState("connected", 0, None, time.time(), self._generation))
        try:
            await _call(self._on_frame, obj)
        except Exception as exc:  # one bad frame handler must not drop the connection
            log.exception("event frame callback failed")
            await self._warn(f"event handler failed: {type(exc).__name__}: {str(exc)[:200]}")


__all__ = ["EVENT_PATH", "EventStream", "SSEParser", "StreamState"]
