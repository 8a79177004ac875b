"""httpx transport for the demo server: routes REST calls and serves ``/api/event`` as SSE."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import httpx

from tui.demo.routes import ApiError, route

if TYPE_CHECKING:
    from tui.demo.server import DemoServer

HEARTBEAT = b": heartbeat\n\n"
SSE_HEADERS = {"content-type": "text/event-stream", "cache-control": "no-cache, no-transform",
               "x-accel-buffering": "no"}


class EventStream(httpx.AsyncByteStream):
    """One ``/api/event`` connection: ``server.connected``, a heartbeat, then every event."""

    def __init__(self, server: DemoServer) -> None:
        self._server = server
        # Subscribe now, not on first read: events emitted after the response is returned
        # must not be lost while the client has not started iterating yet.
        self._queue = server.subscribe()
        self._connected = {"id": server.ids("evt"), "type": "server.connected", "data": {}}

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield b"data: " + json.dumps(self._connected, separators=(",", ":")).encode() + b"\n\n"
        yield HEARTBEAT
        timeout = self._server.heartbeat if self._server.heartbeat > 0 else None
        while True:
            try:
                frame = await asyncio.wait_for(self._queue.get(), timeout)
            except TimeoutError:
                yield HEARTBEAT
                continue
            if frame is None:  # drop_connections()
                return
            yield frame

    async def aclose(self) -> None:
        self._server.unsubscribe(self._queue)


class DemoTransport(httpx.AsyncBaseTransport):
    def __init__(self, server: DemoServer) -> None:
        self._server = server

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if request.method == "GET" and path == "/api/event":
            return httpx.Response(200, headers=SSE_HEADERS, stream=EventStream(self._server),
                                  request=request)
        await request.aread()
        try:
            status, body = await route(self._server, request)
        except ApiError as exc:
            status, body = exc.status, exc.body
        if status == 204 or body is None:
            return httpx.Response(204, request=request)
        return httpx.Response(status, json=body, request=request)
