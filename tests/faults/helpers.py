"""Helpers shared by the fault tests and ``bench/soak_restarts.py``: attach the headless app to a
real server, compare its transcript with the server's export, wait for (re)connection.

``tests/faults/conftest.py`` re-exports them, so ``from tests.faults.conftest import attach`` works.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from tests.e2e.app_driver import SIZE, AppDriver, session_text
from tests.e2e.server import RealServer
from tui.app.app import ConnectSpec, OctuiApp
from tui.app.cli import _export_text
from tui.export import export_json
from tui.storage.config import Connection

__all__ = [
    "app_export",
    "attach",
    "banner_visible",
    "server_export",
    "wait_reconnected",
    "wait_same_transcript",
    "wait_streamed",
]

@asynccontextmanager
async def attach(
    server: RealServer,
    *,
    url: str | None = None,
    session_id: str | None = None,
    heartbeat_timeout: float = 35.0,
    connect_timeout: float = 20.0,
) -> AsyncIterator[AppDriver]:
    """The headless app on ``url`` (default: the server itself), stream connected, session open."""
    spec = ConnectSpec(
        url=url or server.url,
        username=server.username,
        password=server.password,
        directory=str(server.project_dir),
        session_id=session_id,
        heartbeat_timeout=heartbeat_timeout,
    )
    app = OctuiApp(spec)
    async with app.run_test(size=SIZE) as pilot:
        driver = AppDriver(app, pilot)
        await driver.wait_until(
            lambda: app.session.is_ready and app.stream_state.phase == "connected",
            "the event stream to connect",
            connect_timeout,
        )
        if session_id is not None:
            await driver.wait_until(lambda: driver.session_id == session_id, f"session {session_id} to open")
        yield driver


async def server_export(server: RealServer, session_id: str) -> dict[str, Any]:
    """What ``octui export --format json`` prints for the session, fetched fresh over HTTP."""
    connection = Connection(server.url, server.username, server.password)
    text = await _export_text(session_id, "json", connection, str(server.project_dir))
    data: dict[str, Any] = json.loads(text)
    return data


def app_export(driver: AppDriver, session_id: str) -> dict[str, Any]:
    """The app's own view of the session, in the same export format."""
    return json.loads(json.dumps(export_json(driver.app.store.session(session_id)), ensure_ascii=False))


async def wait_same_transcript(driver: AppDriver, server: RealServer, session_id: str,
                               timeout: float = 15.0) -> dict[str, Any]:
    """Wait (bounded) until the app's transcript equals the server's; returns it."""
    deadline = time.monotonic() + timeout
    while True:
        fresh = await server_export(server, session_id)
        mine = app_export(driver, session_id)
        if mine == fresh:
            return fresh
        if time.monotonic() >= deadline:
            assert mine == fresh, f"app transcript differs from the server's\n{driver.describe()}"
        await asyncio.sleep(0.2)


def banner_visible(driver: AppDriver) -> bool:
    from widgets.status.connection_banner import ConnectionBanner

    return bool(driver.main.query_one(ConnectionBanner).display)


async def wait_reconnected(driver: AppDriver, generation: int, timeout: float = 10.0) -> None:
    """Wait (bounded) for a connection newer than ``generation``."""
    state = driver.app

    def newer() -> bool:
        return state.stream_state.phase == "connected" and state.stream_state.generation > generation

    await driver.wait_until(newer, f"the app to reconnect (after generation {generation})", timeout)


async def wait_streamed(driver: AppDriver, marker: str, timeout: float = 20.0) -> None:
    """Wait until the open session's assistant text contains ``marker``."""
    await driver.wait_until(lambda: marker in session_text(driver.state), f"{marker!r} to stream", timeout)
