"""A bounded TCP proxy on 127.0.0.1 that can cut or stall the connections going through it.

It runs its own asyncio loop in a daemon thread, so a test can break the link while the app under
test owns the main event loop. ``cut()`` aborts every live connection (both sides see a reset);
``stall()`` stops forwarding on the connections open right now while keeping their sockets open
(a half-dead link: no FIN, no RST, no bytes); new connections are forwarded normally.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

__all__ = ["FaultProxy"]

T = TypeVar("T")
CHUNK = 64 * 1024


@dataclass(eq=False)
class _Conn:
    client: asyncio.StreamWriter
    upstream: asyncio.StreamWriter
    flowing: asyncio.Event = field(default_factory=asyncio.Event)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def abort(self) -> None:
        for writer in (self.client, self.upstream):
            transport = writer.transport
            if not transport.is_closing():
                transport.abort()
        for task in self.tasks:
            task.cancel()


class FaultProxy:
    """``FaultProxy(port).start()`` → forward ``127.0.0.1:<proxy.port>`` to ``127.0.0.1:<port>``."""

    def __init__(self, target_port: int, *, max_connections: int = 32) -> None:
        self.target_port = target_port
        self.max_connections = max_connections
        self.port = 0
        self.accepted = 0
        self._conns: set[_Conn] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._done: asyncio.Event | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self, timeout: float = 5.0) -> FaultProxy:
        self._thread = threading.Thread(target=self._main, name="fault-proxy", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout) or not self.port:
            raise RuntimeError("fault proxy did not start")
        return self

    def stop(self, timeout: float = 5.0) -> None:
        loop, done = self._loop, self._done
        if loop is not None and done is not None and loop.is_running():
            loop.call_soon_threadsafe(done.set)
        if self._thread is not None:
            self._thread.join(timeout)

    def _main(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._done = asyncio.Event()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            await self._done.wait()
        finally:
            self._server.close()
            for conn in list(self._conns):
                conn.abort()
            await self._server.wait_closed()

    # -- faults (callable from any thread) -----------------------------------------------------

    def _call(self, coro: Coroutine[Any, Any, T], timeout: float = 5.0) -> T:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    @property
    def live(self) -> int:
        return len(self._conns)

    def cut(self) -> int:
        """Abort every live connection; returns how many there were."""

        async def run() -> int:
            conns = list(self._conns)
            for conn in conns:
                conn.abort()
                self._conns.discard(conn)
            return len(conns)

        return self._call(run())

    def stall(self) -> int:
        """Stop forwarding on every live connection (sockets stay open); returns how many."""

        async def run() -> int:
            for conn in self._conns:
                conn.flowing.clear()
            return len(self._conns)

        return self._call(run())

    # -- forwarding ----------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        if len(self._conns) >= self.max_connections:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", self.target_port), 5.0
            )
        except (OSError, TimeoutError):
            writer.transport.abort()  # target down: the client sees a reset, like a refused connect
            return
        conn = _Conn(writer, up_writer)
        conn.flowing.set()
        self._conns.add(conn)
        conn.tasks = [
            asyncio.create_task(self._pump(reader, up_writer, conn)),
            asyncio.create_task(self._pump(up_reader, writer, conn)),
        ]
        try:
            await asyncio.gather(*conn.tasks, return_exceptions=True)
        finally:
            self._conns.discard(conn)
            conn.abort()

    @staticmethod
    async def _pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter, conn: _Conn) -> None:
        try:
            while True:
                data = await src.read(CHUNK)
                await conn.flowing.wait()  # a stalled link holds the bytes forever
                if not data:
                    if dst.can_write_eof():
                        dst.write_eof()
                    return
                dst.write(data)
                await dst.drain()
        except (ConnectionError, OSError):
            return
