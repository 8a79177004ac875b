"""Replays recorded server traces through octui's real frame path and reads back the transcript.

A ``ReplayServer`` is an httpx transport that plays one recorded ``GET /api/event`` connection
after another (the raw SSE lines as bytes, cut into uneven chunks) and answers REST calls from
recorded samples; unknown routes get what the real server gives them, a 404 with an empty body.
``replay`` runs the real ``OpenCodeClient`` (generation detection included), ``EventStream``
(the SSE parser), ``SessionService`` (dialect normalisation, resync) and ``Store`` against it.

``history_transcript`` and ``store_transcript`` turn the server's own history
(``GET …/message``) and the store into the same plain structure, each on its own, so a test can
compare them; neither goes through octui's history loader.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tui.client.http import OpenCodeClient
from tui.client.stream import StreamState
from tui.session.service import SessionService
from tui.state.changes import Change
from tui.state.store import Store
from tui.state.transcript import SessionState, TextBlock, ToolCall

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TRACES_20 = FIXTURES / "traces-2.0"
TRACES_118 = FIXTURES / "traces"  # the 1.18.33 preview (samples/: its histories, health)
BASE = "http://127.0.0.1:4096"
CHUNK = 997  # uneven: frames and UTF-8 sequences get cut across chunk boundaries

Json = dict[str, Any]


def records(path: Path) -> list[Json]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def sse_bytes(recorded: list[Json]) -> bytes:
    """The connection's bytes as the server sent them: each record's raw lines, then a blank line."""
    out = bytearray()
    for record in recorded:
        out += "\n".join(record["raw"]).encode("utf-8") + b"\n\n"
    return bytes(out)


def sample(name: str) -> Any:
    return json.loads((TRACES_20 / "samples" / name).read_text("utf-8"))


def health_body() -> Json:
    body = sample("rest_probes.health.json")["/api/health"]["body"]
    assert isinstance(body, dict)
    return body


def served_spec() -> Json:
    spec = sample("more_server_openapi.json")
    assert isinstance(spec, dict)
    return spec


@dataclass
class Connection:
    """One recorded stream connection. ``hold_after`` messages go out at once; the rest wait for
    ``release`` (so a test can act, e.g. create the session, at the point the recording did)."""

    recorded: list[Json]
    hold_after: int | None = None
    release: asyncio.Event = field(default_factory=asyncio.Event)
    held: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once the client has read everything before the hold."""

    @property
    def body(self) -> bytes:
        return sse_bytes(self.recorded)


class Projection:
    """What the real server's REST would say about the frames sent so far: busy sessions
    (``/api/session/active``) and pending asks (``/api/permission|question|form/request``)."""

    def __init__(self) -> None:
        self.running: set[str] = set()
        self.asks: dict[str, tuple[str, Json]] = {}  # id -> (kind, request)

    def sent(self, frame: Json) -> None:
        kind, data = frame.get("type"), frame.get("data") or {}
        sid: str = data.get("sessionID") or ""
        if kind == "session.execution.started":
            self.running.add(sid)
        elif kind in ("session.execution.succeeded", "session.execution.failed",
                      "session.execution.interrupted"):
            self.running.discard(sid)
        elif kind == "permission.asked":
            self.asks[data["id"]] = ("permission", data)
        elif kind == "question.asked":
            self.asks[data["id"]] = ("question", data)
        elif kind == "form.created":
            self.asks[data["form"]["id"]] = ("form", data["form"])
        elif kind in ("permission.replied", "question.replied", "question.rejected"):
            self.asks.pop(data.get("requestID") or "", None)
        elif kind in ("form.replied", "form.cancelled"):
            self.asks.pop(data.get("id") or "", None)

    def active(self) -> Json:
        return {"data": {sid: {"type": "running"} for sid in sorted(self.running)}}

    def pending(self, kind: str) -> Json:
        return {"location": {"directory": "<WORK>/proj"},
                "data": [req for k, req in self.asks.values() if k == kind]}


class ReplayServer:
    """Serves recorded connections in order; the last one stays open once played."""

    def __init__(self, connections: list[Connection], rest: dict[str, Any] | None = None, *,
                 generation: str = "2.0") -> None:
        self.connections = list(connections)
        self.projection = Projection()
        if generation == "1.18":  # ``{healthy}`` only, and its spec is at /doc, not /openapi.json
            health = json.loads((TRACES_118 / "samples" / "rest_samples.health.json").read_text())
            base: dict[str, Any] = {"GET /api/health": (200, health["health"]["body"])}
        else:
            base = {"GET /api/health": (200, health_body()), "GET /openapi.json": (200, served_spec())}
        self.rest: dict[str, Any] = {**base,
                                     "GET /api/session/active": (200, lambda _r: self.projection.active()),
                                     **(rest or {})}
        for kind in ("permission", "question", "form"):
            self.rest.setdefault(f"GET /api/{kind}/request",
                                 (200, lambda _r, k=kind: self.projection.pending(k)))
        self.played = 0  # connections fully consumed by the client
        self.done = asyncio.Event()  # the last connection was played to its end
        self.closing = asyncio.Event()
        self.requests: list[httpx.Request] = []

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self._handle)

    def answer(self, method: str, path: str, status: int, body: Any) -> None:
        self.rest[f"{method} {path}"] = (status, body)

    async def _handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.url.path == "/api/event":
            if not self.connections:
                await self.closing.wait()
                return httpx.Response(503)
            connection = self.connections.pop(0)
            last = not self.connections
            return httpx.Response(200, headers={"content-type": "text/event-stream"},
                                  content=self._play(connection, last))
        key = f"{request.method} {request.url.path}"
        found = self.rest.get(key)
        if found is None:
            return httpx.Response(404)  # the real server: unknown route, empty body
        status, body = found
        if callable(body):
            body = body(request)
        return httpx.Response(status, json=body) if body is not None else httpx.Response(status)

    async def _play(self, connection: Connection, last: bool) -> AsyncIterator[bytes]:
        data = connection.body
        ends: list[int] = []  # byte offset after each record
        offset = 0
        for record in connection.recorded:
            offset += len("\n".join(record["raw"]).encode("utf-8")) + 2
            ends.append(offset)
        hold = ends[connection.hold_after - 1] if connection.hold_after else None
        start, told = 0, 0
        while start < len(data):
            end = len(data) if hold is None or start >= hold else hold
            stop = min(start + CHUNK, end)
            # The server's state moves as its frames go out (before the client reads them).
            while told < len(ends) and ends[told] <= stop:
                frame = connection.recorded[told].get("data")
                if isinstance(frame, dict):
                    self.projection.sent(frame)
                told += 1
            yield data[start:stop]
            start = stop
            if hold is not None and start == hold:
                connection.held.set()  # the generator runs on: the client wants the next bytes
                await connection.release.wait()
        self.played += 1
        if last:
            self.done.set()
            await self.closing.wait()  # like the real stream: open until the client leaves


@dataclass
class Replay:
    server: ReplayServer
    client: OpenCodeClient
    store: Store
    service: SessionService
    changes: list[Change]
    states: list[StreamState]
    task: asyncio.Task[None]

    async def finish(self, timeout: float = 20.0) -> None:
        """Wait until every recorded frame is in the store and the follow-ups are done; stop."""
        try:
            await asyncio.wait_for(self._drained(), timeout)
        finally:
            self.server.closing.set()
            self.service.stop()
            await asyncio.wait_for(asyncio.gather(self.task, return_exceptions=True), 5.0)
            await self.client.aclose()

    async def _drained(self) -> None:
        await self.server.done.wait()
        calm = 0
        while calm < 3:  # bounded by ``finish``'s timeout
            await asyncio.sleep(0.01)
            busy = self.service.intake.resyncing or any(not t.done() for t in self.service.intake.tasks)
            calm = 0 if busy else calm + 1

    async def settled(self, timeout: float = 10.0) -> None:
        """The service has applied what it read (no resync holding frames, no follow-ups)."""
        async def wait() -> None:
            calm = 0
            while calm < 3:
                await asyncio.sleep(0.01)
                intake = self.service.intake
                busy = intake.resyncing or any(not t.done() for t in intake.tasks)
                calm = 0 if busy else calm + 1
        await asyncio.wait_for(wait(), timeout)

    async def connected(self, generation: int = 1, timeout: float = 10.0) -> None:
        async def wait() -> None:
            while not any(s.phase == "connected" and s.generation >= generation for s in self.states):
                await asyncio.sleep(0.005)
            while self.service.intake.resyncing:
                await asyncio.sleep(0.005)
        await asyncio.wait_for(wait(), timeout)


async def replay(server: ReplayServer, *, before: Callable[[Replay], Awaitable[None]] | None = None,
                 timeout: float = 20.0) -> Replay:
    """Run octui's client, stream, service and store against ``server`` until it is played."""
    client = OpenCodeClient(BASE, password="not-the-real-one", transport=server.transport)
    await client.identify()
    store = Store()
    changes: list[Change] = []
    states: list[StreamState] = []
    service = SessionService(client, store, changes.extend, states.append, heartbeat_timeout=30.0)
    service.stream.backoff_initial = service.stream.backoff_max = 0.02
    task = asyncio.create_task(service.run())
    run = Replay(server, client, store, service, changes, states, task)
    if before is not None:
        await before(run)
    await run.finish(timeout)
    return run


# ------------------------------------------------------------------ transcripts, side by side
Entry = tuple[Any, ...]


def messages_answer(page: Json) -> Callable[[httpx.Request], Json]:
    """A recorded ``/message`` page (oldest first) served in the order the client asks for."""
    def answer(request: httpx.Request) -> Json:
        items = history_items(page)
        if request.url.params.get("order", "desc") != "asc":
            items = list(reversed(items))
        return {"data": items, "cursor": {"previous": None, "next": None}}
    return answer


def history_items(page: Any) -> list[Json]:
    """A recorded ``/message`` answer, oldest first (some samples were taken newest first)."""
    items = [m for m in (page.get("data") if isinstance(page, dict) else page) or [] if isinstance(m, dict)]
    times = [m.get("time", {}).get("created", 0) for m in items]
    return list(reversed(items)) if len(times) > 1 and times[0] > times[-1] else items


def history_transcript(items: list[Json]) -> list[Entry]:
    """The server's history as plain entries (straight from the wire JSON)."""
    out: list[Entry] = []
    for m in items:
        kind = m.get("type")
        if kind in ("user", "synthetic"):
            out.append((kind, m.get("text", "")))
        elif kind == "assistant":
            parts: list[Entry] = []
            for p in m.get("content") or []:
                if p.get("type") in ("text", "reasoning"):
                    parts.append((p["type"], p.get("text", "")))
                elif p.get("type") == "tool":
                    state = p.get("state") or {}
                    meta = state.get("metadata") or {}
                    child = meta.get("sessionID") if p.get("name") == "subagent" else None
                    parts.append(("tool", p.get("name"), state.get("status"), child))
            out.append(("assistant", m.get("finish"), tuple(parts)))
        elif kind == "compaction":
            out.append(("compaction", m.get("summary", "")))
        elif kind == "skill":
            out.append(("skill", m.get("name") or m.get("skill")))
        elif kind == "agent-switched":
            out.append(("agent-switched", m.get("agent")))
        elif kind == "model-switched":
            model = m.get("model") or {}
            out.append(("model-switched", f"{model.get('providerID')}/{model.get('id')}"))
        elif kind == "shell":
            output = m.get("output") or {}
            out.append(("shell", m.get("command"), output.get("output")))
        else:
            out.append((str(kind),))
    return out


def store_transcript(state: SessionState) -> list[Entry]:
    """The store's transcript of one session as the same plain entries (octui's own notices,
    which no server history holds, are left out)."""
    out: list[Entry] = []
    for msg in state.messages.values():
        role = msg.role
        if role == "notice":
            continue
        if role in ("user", "synthetic", "compaction", "skill", "agent-switched", "model-switched"):
            out.append((role, msg.text))
        elif role == "assistant":
            parts: list[Entry] = []
            for part in msg.parts:
                if isinstance(part, TextBlock):
                    parts.append((part.kind, part.text))
                elif isinstance(part, ToolCall):
                    child = part.child_session_id if part.name == "subagent" else None
                    parts.append(("tool", part.name, part.status, child))
            out.append(("assistant", msg.finish, tuple(parts)))
        elif role == "shell":
            out.append(("shell", msg.text, msg.metadata.get("output")))
        else:
            out.append((role,))
    return out
