"""Small helpers for driving the headless octui app against the real server (``app.run_test``).

* :func:`running_app`: start :class:`~tui.app.app.OctuiApp` on a session of the real server and wait
  (bounded) until the event stream is connected and the session is on screen.
* :func:`wait_until`: a bounded poll that keeps the app's event loop running.
* :func:`screen_text` / :func:`widget_text` / :func:`widget_strips`: what is actually painted.
* :class:`CuttableTransport`: an httpx transport that can drop the ``/api/event`` connection and
  refuse new ones for a while (a network cut as the app sees it; the server stays up).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

import httpx
from textual.pilot import Pilot
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

from tests.e2e.server import RealServer
from tui.app.app import ConnectSpec, OctuiApp
from tui.screens.key_guard import keys_taken
from tui.state.transcript import ToolCall
from widgets.composer.composer import Composer
from widgets.tools.tool_row import ToolRow

SIZE = (120, 40)
T = TypeVar("T")
S = TypeVar("S", bound=Screen[Any])


async def wait_until(
    pilot: Pilot[Any], predicate: Callable[[], T | None], what: str, timeout: float = 10.0
) -> T:
    """Poll ``predicate`` (while the app runs) until it returns something truthy; return that.

    Fails the test with ``what`` after ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for: {what}")
        await pilot.pause(0.05)


async def wait_for_screen(pilot: Pilot[Any], kind: type[S], timeout: float = 10.0) -> S:
    """The active screen once it is a ``kind`` (e.g. the permission dialog) and mounted."""
    app = pilot.app

    def found() -> S | None:
        screen = app.screen  # (and taking keys: one that opened by itself holds them a moment)
        if isinstance(screen, kind) and screen.is_mounted and keys_taken(screen, time.perf_counter()):
            return screen
        return None

    screen = await wait_until(pilot, found, f"a {kind.__name__} on top", timeout)
    await pilot.pause()  # let it finish composing and take focus
    return screen


@contextlib.asynccontextmanager
async def running_app(
    server: RealServer,
    session_id: str,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    timeout: float = 10.0,
) -> AsyncIterator[tuple[OctuiApp, Pilot[Any]]]:
    """The app connected to ``server`` with ``session_id`` open; shut down (by the app) on exit."""
    spec = ConnectSpec(
        url=server.url,
        username=server.username,
        password=server.password,
        session_id=session_id,
        directory=str(server.project_dir),
        transport=transport,
    )
    app = OctuiApp(spec)
    async with app.run_test(size=SIZE) as pilot:

        def ready() -> bool:
            main = app.screen_main()
            return app.stream_state.phase == "connected" and main.session_id == session_id

        await wait_until(pilot, ready, "stream connected and the session on screen", timeout)
        yield app, pilot


async def submit_prompt(pilot: Pilot[Any], text: str) -> None:
    """Type ``text`` into the composer as a user would (set the text, press Enter)."""
    app = pilot.app
    assert isinstance(app, OctuiApp)
    composer = app.screen_main().query_one(Composer)
    composer.focus()
    composer.text = text
    await pilot.press("enter")


def tool_call(app: OctuiApp, session_id: str, name: str, index: int = 0) -> ToolCall | None:
    """The ``index``-th call of tool ``name`` in the store's transcript of the session."""
    state = app.store.sessions.get(session_id)
    if state is None:
        return None
    calls = [
        part
        for message in state.messages.values()
        for part in message.parts
        if isinstance(part, ToolCall) and part.name == name
    ]
    return calls[index] if len(calls) > index else None


def tool_row(app: OctuiApp, call_id: str) -> ToolRow | None:
    """The mounted row of a call on the main screen (None until it is mounted)."""
    for row in app.screen_main().query(ToolRow).results(ToolRow):
        if row.call.id == call_id and row.is_mounted:
            return row
    return None


def session_texts(app: OctuiApp, session_id: str) -> list[str]:
    """Every finished assistant text of the session, in order."""
    state = app.store.sessions.get(session_id)
    if state is None:
        return []
    return [
        part.text
        for message in state.messages.values()
        for part in message.parts
        if not isinstance(part, ToolCall) and part.kind == "text"
    ]


# -- what is painted ---------------------------------------------------------------------------


def screen_strips(screen: Screen[Any]) -> list[Strip]:
    """The screen as painted lines (Textual's compositor; the same cells a terminal gets)."""
    return screen._compositor.render_strips()


def screen_text(screen: Screen[Any]) -> str:
    return "\n".join(strip.text for strip in screen_strips(screen))


def widget_strips(widget: Widget) -> list[Strip]:
    """The visible part of ``widget`` as painted on its screen (children included)."""
    screen = widget.screen
    region = screen.find_widget(widget).visible_region
    strips = screen_strips(screen)[region.y : region.bottom]
    return [strip.crop(region.x, region.right) for strip in strips]


def widget_text(widget: Widget) -> str:
    return "\n".join(strip.text for strip in widget_strips(widget))


async def show_widget(pilot: Pilot[Any], widget: Widget) -> None:
    """Scroll ``widget`` into view (top first) and let the screen repaint."""
    widget.scroll_visible(animate=False, top=True, immediate=True)
    await pilot.pause(0.1)


# -- cutting the event stream --------------------------------------------------------------------


class _CuttableStream(httpx.AsyncByteStream):
    """A response body that breaks (``httpx.ReadError``) as soon as ``cut`` is set."""

    def __init__(self, inner: httpx.AsyncByteStream, request: httpx.Request, cut: asyncio.Event) -> None:
        self._inner = inner
        self._request = request
        self._cut = cut

    async def __aiter__(self) -> AsyncIterator[bytes]:
        chunks = self._inner.__aiter__()
        cut = asyncio.ensure_future(self._cut.wait())
        try:
            while True:
                chunk = asyncio.ensure_future(chunks.__anext__())
                await asyncio.wait({chunk, cut}, return_when=asyncio.FIRST_COMPLETED)
                if not chunk.done():
                    chunk.cancel()
                    with contextlib.suppress(BaseException):
                        await chunk
                    raise httpx.ReadError("test cut: connection reset", request=self._request)
                try:
                    yield chunk.result()
                except StopAsyncIteration:
                    return
        finally:
            cut.cancel()

    async def aclose(self) -> None:
        await self._inner.aclose()


class CuttableTransport(httpx.AsyncBaseTransport):
    """Real HTTP to the server, but the ``/api/event`` connection can be cut on demand.

    ``cut()`` breaks the live event stream (the app sees a read error, as on a dropped
    connection) and, until ``restore()``, refuses new event-stream connections with a connect
    error, so the app keeps retrying while the server goes on without it. Every other request
    goes through untouched.
    """

    def __init__(self) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self._live: list[asyncio.Event] = []
        self.down = False
        self.event_connects = 0  # event-stream responses handed to the app

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        is_event = request.url.path == "/api/event"
        if is_event and self.down:
            raise httpx.ConnectError("test cut: connection refused", request=request)
        response = await self._inner.handle_async_request(request)
        if not is_event:
            return response
        self.event_connects += 1
        cut = asyncio.Event()
        self._live.append(cut)
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_CuttableStream(response.stream, request, cut),
            extensions=response.extensions,
            request=request,
        )

    def cut(self) -> int:
        """Break every open event stream and refuse new ones; returns how many were open."""
        self.down = True
        live, self._live = self._live, []
        for event in live:
            event.set()
        return len(live)

    def restore(self) -> None:
        self.down = False

    async def aclose(self) -> None:
        await self._inner.aclose()


async def to_thread(fn: Callable[..., T], *args: Any) -> T:
    """Run a blocking helper (raw httpx to the server) without stalling the app's loop."""
    return await asyncio.to_thread(fn, *args)
