"""Ingest throughput: SSE bytes → JSON → (1.18: normalise) → ``parse_event`` → ``Store.apply``.

The recorded 1.18 traces (``tests/fixtures/traces/*.jsonl``, the ``/api/event`` feed) are
replicated until there are at least ``--events`` frames, each copy with fresh session and message
ids (so durable ``seq`` de-duplication never short-cuts the work). The v2 stream is the same
traces normalised to v2 plus the events the demo server emits while running its scripts.
Frames go through the real ``StreamIntake.ingest`` (with a stub client), in 64 KiB SSE chunks,
decoded with ``decode_frame`` like ``EventStream`` does; the event loop gets one turn per chunk.

    python -m bench.ingest [--events 200000]

Prints one JSON object: per dialect events/s and µs/event (wall clock and CPU time of this
process; the budget is judged on CPU time so a busy machine does not skew it), peak RSS. Before
each run the heap is collected and frozen, as the app freezes its own once its screen is up.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import time
from typing import Any

from bench.common import TRACES, emit, ensure_repo_on_path, peak_rss_mb, rss_mb

ensure_repo_on_path()

from tui.client.errors import OctuiError  # noqa: E402
from tui.client.stream import SSEParser  # noqa: E402
from tui.protocol.dialect import Dialect, Normaliser  # noqa: E402
from tui.protocol.frames import decode_frame  # noqa: E402
from tui.session.service import SessionService  # noqa: E402
from tui.state.changes import Change  # noqa: E402
from tui.state.store import Store  # noqa: E402

CHUNK = 64 * 1024
ID_PREFIXES = ("ses_", "msg_", "evt_", "per_", "que_", "frm_", "prt_", "call_")


class StubClient:
    """Just enough of ``OpenCodeClient`` for ``StreamIntake.ingest`` and its follow-ups."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect

    async def get_message(self, session_id: str, message_id: str) -> dict[str, Any]:
        raise OctuiError("not in a benchmark")

    async def active(self) -> dict[str, Any]:
        raise OctuiError("not in a benchmark")


def trace_frames() -> list[dict[str, Any]]:
    """The ``/api/event`` frames of every recorded 1.18 scenario, in file order."""
    frames: list[dict[str, Any]] = []
    for path in sorted(TRACES.glob("*.jsonl")):
        if path.name.count(".") > 1:  # *.session_stream.jsonl, *.v1_event.jsonl: other endpoints
            continue
        for line in path.read_text().splitlines():
            record = json.loads(line)
            data = record.get("data")
            if isinstance(data, dict) and isinstance(data.get("type"), str):
                frames.append(data)
    return frames


async def demo_frames() -> list[dict[str, Any]]:
    """v2 frames emitted by the demo server running its non-interactive scripts at full speed."""
    from tui.demo import DemoServer

    server = DemoServer(speed=0, heartbeat=0)
    try:
        for script in ("long", "error"):
            session = server.create_session(title=f"bench {script}")
            server.run_script(session["id"], script)
            await server.idle(timeout=30)
        return list(server.emitted)
    finally:
        await server.aclose()


def replicate(frames: list[dict[str, Any]], at_least: int) -> bytes:
    """An SSE byte stream of ``frames`` repeated with fresh ids until ``at_least`` frames."""
    lines = [json.dumps(frame, separators=(",", ":")) for frame in frames]
    out: list[str] = []
    copy = 0
    while len(out) < at_least:
        tag = f"r{copy}x"
        for line in lines:
            for prefix in ID_PREFIXES:
                line = line.replace('"' + prefix, '"' + prefix + tag)
            out.append("data: " + line + "\n\n")
        copy += 1
    return "".join(out).encode()


async def run_one(dialect: Dialect, stream: bytes) -> dict[str, Any]:
    store = Store()
    changes: list[int] = [0]

    def on_changes(batch: list[Change]) -> None:
        changes[0] += len(batch)

    service = SessionService(StubClient(dialect), store, on_changes, lambda _state: None)  # type: ignore[arg-type]
    intake = service.intake
    parser = SSEParser()
    rss_before = rss_mb()
    # As the app does once its screen is up (``OctuiApp.on_mount``): what exists before the stream
    # (modules, this bench's frames) is frozen out of full collections, which would walk it all.
    gc.collect()
    gc.freeze()
    count = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    for offset in range(0, len(stream), CHUNK):
        for kind, payload in parser.feed(stream[offset:offset + CHUNK]):
            if kind != "data":
                continue
            intake.ingest(decode_frame(payload))
            count += 1
        await asyncio.sleep(0)  # one loop turn per chunk, as in the app: follow-up tasks run and end
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    gc.unfreeze()  # the next dialect's run starts from the same heap
    pending = len(intake.tasks)
    for task in list(intake.tasks):
        task.cancel()
    await asyncio.sleep(0)
    return {
        "events": count,
        "bytes": len(stream),
        "seconds": elapsed,
        "cpu_seconds": cpu,
        "events_per_s": count / elapsed,
        "events_per_cpu_s": count / cpu,
        "us_per_event": elapsed / count * 1e6,
        "cpu_us_per_event": cpu / count * 1e6,
        "changes": changes[0],
        "pending_tasks": pending,
        "sessions": len(store.sessions),
        "rss_growth_mb": rss_mb() - rss_before,
        "budget_events_per_s": 100_000,
        "ok": count / cpu >= 100_000,
    }


async def main_async(at_least: int) -> dict[str, Any]:
    preview = trace_frames()
    normaliser = Normaliser()
    as_v2 = [f for f in (normaliser.event(frame) for frame in preview) if f is not None]
    v2 = as_v2 + await demo_frames()
    figures: dict[str, Any] = {"benchmark": "ingest", "target_events": at_least,
                               "source_frames": {"1.18": len(preview), "v2": len(v2)}}
    figures["1.18"] = await run_one(Dialect.PREVIEW, replicate(preview, at_least))
    gc.collect()
    figures["v2"] = await run_one(Dialect.V2, replicate(v2, at_least))
    figures["peak_rss_mb"] = peak_rss_mb()
    figures["ok"] = figures["1.18"]["ok"] and figures["v2"]["ok"]
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200_000)
    args = parser.parse_args()
    emit(asyncio.run(main_async(args.events)))


if __name__ == "__main__":
    main()
