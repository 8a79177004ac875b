"""httpx transport for the demo server: routes REST calls and serves ``/api/event`` as SSE."""

from __future__ import annotations

import asyncio
import base64
import hmac
import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import httpx

from tui.demo.generation import DemoGeneration
from tui.demo.routes import ApiError, route
from tui.demo.routing import NoRoute

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


CHALLENGE = {"www-authenticate": 'Basic realm="Secure Area"'}


def _authorised(request: httpx.Request, password: str) -> bool:
    expected = "Basic " + base64.b64encode(f"opencode:{password}".encode()).decode()
    return hmac.compare_digest(request.headers.get("authorization", ""), expected)


class DemoTransport(httpx.AsyncBaseTransport):
    def __init__(self, server: DemoServer) -> None:
        self._server = server

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        preview = self._server.generation is DemoGeneration.PREVIEW
        password = self._server.password
        if password is not None and not _authorised(request, password):
            if preview:  # every route, and unknown paths too: 401, no body (ROUTES.md)
                return httpx.Response(401, headers=CHALLENGE, request=request)
            return httpx.Response(401, headers=CHALLENGE, request=request, json={
                "_tag": "UnauthorizedError", "message": "Authentication required"})
        if request.method == "GET" and path == "/api/event":
            return httpx.Response(200, headers=SSE_HEADERS, stream=EventStream(self._server),
                                  request=request)
        await request.aread()
        try:
            status, body = await route(self._server, request)
        except NoRoute as exc:  # the 2.0 preview: an unknown route is a 404 with an empty body
            status, body = exc.status, None if preview else exc.body
            if body is None:
                return httpx.Response(status, request=request)
        except ApiError as exc:
            status, body = exc.status, exc.body
        if status == 204 or body is None:
            return httpx.Response(204, request=request)
        return httpx.Response(status, json=body, request=request)
