"""One huge streamed answer in the headless app (``run_test``, 120x40) against the demo server.

About 1 MB of markdown (headings, long lines, lists, code fences) arrives as 50,000
``session.text.delta`` frames pushed as fast as the event loop takes them (the frames are encoded
before the clock starts, so the figures are the client's, not the demo server's). While it
streams, a probe task sleeps 1 ms at a time and records how late it wakes (event-loop stalls),
and a key is sent to the composer every 50 ms (round trip: key event → character in the box).

    python -m bench.stream [--deltas 50000] [--kib 1024] [--pace-ms 0] [--cpu-only]
                           [--shape bench|real|table|quote|code|prose|numbered|steps|quotes|longlines|
                                    nested|wide|headings|diff|links|cjk|fences]

``--pace-ms N`` sends one delta every N ms instead of a flood (``--deltas 1000 --pace-ms 30
--shape real``: the paced variant of ``bench.real_stream``, headless, its answer's shape), and
``cpu_seconds`` is then the client's cost of a paced answer; ``--cpu-only`` runs neither the
stall probe nor the typist (both cost CPU of their own), for ``cpu_seconds`` alone.

Figures: seconds until the end marker is on screen, repaints of the text widget (syncs that
changed it) overall and per second of streaming, max/p99 loop stall, keypress p99, and the CPU
time of each event-loop callback while streaming (p99/max): wall-clock stalls grow with whatever
else the machine runs, a callback's own CPU time does not.
"""

from __future__ import annotations

import argparse
import asyncio
import asyncio.events
import contextlib
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from bench.common import emit, ensure_repo_on_path, peak_rss_mb, percentile, private_user_dirs

ensure_repo_on_path()

END_MARKER = "END-OF-ANSWER-7f3a"
PROBE_S = 0.001
KEY_EVERY_S = 0.05
BATCH = 8  # deltas pushed per event-loop turn by the fake server
TIMEOUT_S = 300.0


def answer_text(kib: int) -> str:
    """Deterministic markdown of about ``kib`` KiB ending with the end marker."""
    parts: list[str] = []
    size, n = 0, 0
    target = kib * 1024
    while size < target:
        section = (
            f"## Section {n}\n\n"
            + f"Paragraph {n}: " + "a long line of prose that keeps going " * 12 + "\n\n"
            + "".join(f"- item {n}.{i} with `inline code` and **bold** text\n" for i in range(5))
            + "\n```python\n"
            + "".join(f"def f_{n}_{i}(x: int) -> int:\n    return x * {i} + {n}\n" for i in range(5))
            + "```\n\n"
            + "| col a | col b |\n|---|---|\n" + f"| {n} | {n * 2} |\n\n"
        )
        parts.append(section)
        size += len(section)
        n += 1
    return "".join(parts) + f"\nDone. {END_MARKER}\n"


def split(text: str, parts: int) -> list[str]:
    step = max(1, -(-len(text) // parts))
    return [text[i:i + step] for i in range(0, len(text), step)]


@contextmanager
def callback_cpu(into: list[float]) -> Iterator[None]:
    """Record the thread CPU time (ms) of every event-loop callback run inside the block."""
    handle = asyncio.events.Handle
    original = handle._run

    def timed(self: asyncio.events.Handle) -> None:
        started = time.thread_time()
        original(self)
        into.append((time.thread_time() - started) * 1000)

    handle._run = timed  # type: ignore[method-assign]
    try:
        yield
    finally:
        handle._run = original  # type: ignore[method-assign]


def screen_text(app: Any) -> str:
    strips = app.screen._compositor.render_strips()
    return "\n".join(strip.text for strip in strips)


async def run(deltas: int, kib: int, pace_ms: float = 0.0, shape: str = "bench",
              probes: bool = True) -> dict[str, Any]:
    from textual import events

    from tui.app.app import ConnectSpec, OctuiApp
    from tui.demo import DemoServer
    from widgets.composer.composer import Composer
    from widgets.transcript.text_block import TextBlockView

    TextBlockView.paints = 0

    if shape != "bench":
        from bench.real_stream import markdown_answer

        answer = markdown_answer(kib * 1024, "mixed" if shape == "real" else shape)[0]
        text = answer + f"\nDone. {END_MARKER}\n"
    else:
        text = answer_text(kib)
    pieces = split(text, deltas)
    server = DemoServer(speed=0, heartbeat=0)
    session = server.create_session(title="bench stream")
    sid = session["id"]
    app = OctuiApp(ConnectSpec(url=server.base_url, transport=server.transport, session_id=sid))
    figures: dict[str, Any] = {"benchmark": "stream", "bytes": len(text.encode()), "deltas": len(pieces),
                               "pace_ms": pace_ms, "shape": shape}
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(500):  # bounded: wait for the session to be open and the stream up
                if app.session.is_ready and app.session.current == sid and \
                        app.stream_state.phase == "connected":
                    break
                await asyncio.sleep(0.01)
            await pilot.pause(0.2)
            composer = app.screen.query_one(Composer)
            composer.focus()

            mid = server.ids("msg")
            base = {"sessionID": sid, "assistantMessageID": mid}
            frames: list[bytes] = []
            for number, piece in enumerate(pieces):
                event = {"id": f"evt_bench{number:08d}", "created": server.now_ms(),
                         "type": "session.text.delta", "location": server.location,
                         "data": base | {"ordinal": 0, "delta": piece}}
                frames.append(b"data: " + json.dumps(event, separators=(",", ":")).encode() + b"\n\n")

            stalls: list[float] = []
            callbacks: list[float] = []
            keys: list[float] = []
            streaming = True

            async def probe() -> None:
                while streaming and probes:
                    before = time.perf_counter()
                    await asyncio.sleep(PROBE_S)
                    stalls.append(max(0.0, time.perf_counter() - before - PROBE_S))

            async def typist() -> None:
                driver = app._driver
                assert driver is not None
                while streaming and probes:
                    await asyncio.sleep(KEY_EVERY_S)
                    size = len(composer.text)
                    before = time.perf_counter()
                    key = events.Key("x", "x")
                    key.set_sender(app)
                    driver.send_message(key)
                    for _ in range(20_000):  # bounded: ≤ ~20 s
                        if len(composer.text) > size:
                            break
                        await asyncio.sleep(0.0005)
                    keys.append(time.perf_counter() - before)

            server.emit("session.step.started", base | {"agent": "build", "model": server.model_of(sid)})
            server.emit("session.text.started", base | {"ordinal": 0})
            await pilot.pause(0.1)
            tasks = [asyncio.create_task(probe()), asyncio.create_task(typist())]
            queues = list(server._subscribers)
            start = time.perf_counter()
            cpu_start = time.process_time()
            batch = 1 if pace_ms else BATCH
            timing = callback_cpu(callbacks) if probes else contextlib.nullcontext()
            with timing:  # while deltas arrive (not the end-marker polling after)
                for index in range(0, len(frames), batch):
                    for frame in frames[index:index + batch]:
                        for queue in queues:
                            queue.put_nowait(frame)
                    await asyncio.sleep(pace_ms / 1000)
            pushed = time.perf_counter() - start
            server.emit("session.text.ended", base | {"ordinal": 0, "text": text})
            last_sent = time.perf_counter()
            while time.perf_counter() - start < TIMEOUT_S:  # bounded
                if END_MARKER in screen_text(app):
                    break
                await asyncio.sleep(0.01)
            shown = time.perf_counter()
            streaming = False
            await asyncio.gather(*tasks)
            cpu = time.process_time() - cpu_start
            server.emit("session.step.ended", base | {"finish": "stop", "cost": 0,
                                                     "tokens": {"input": 1, "output": 1}})
            streamed_s = shown - start
            figures.update({
                "seconds_to_final_text": streamed_s,
                "seconds_pushing_deltas": pushed,
                "end_marker_lag_s": shown - last_sent,
                "end_marker_on_screen": END_MARKER in screen_text(app),
                "cpu_seconds": cpu,
                "frames_written": app.frame_writer.frames,
                "chars_written": app.frame_writer.chars,
                "text_repaints": TextBlockView.paints,
                "text_repaints_per_s": TextBlockView.paints / streamed_s,
                "loop_stall_max_ms": max(stalls, default=0.0) * 1000,
                "loop_stall_p99_ms": percentile(stalls, 99) * 1000,
                "loop_probes": len(stalls),
                "callback_cpu_p99_ms": percentile(callbacks, 99),
                "callback_cpu_max_ms": max(callbacks, default=0.0),
                "keypress_p99_ms": percentile(keys, 99) * 1000,
                "keypress_max_ms": max(keys, default=0.0) * 1000,
                "keypresses": len(keys),
                "peak_rss_mb": peak_rss_mb(),
            })
            await app.action_quit()
    finally:
        await server.aclose()
    figures["budgets"] = {"loop_stall_max_ms": 50, "keypress_p99_ms": 50, "text_repaints_per_s": 40}
    figures["ok"] = (figures.get("loop_stall_max_ms", 1e9) <= 50 and figures.get("keypress_p99_ms", 1e9) <= 50
                     and figures.get("text_repaints_per_s", 1e9) <= 40
                     and bool(figures.get("end_marker_on_screen")))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=50_000)
    parser.add_argument("--kib", type=int, default=1024)
    parser.add_argument("--pace-ms", type=float, default=0.0, help="one delta every N ms (0: a flood)")
    from bench.real_stream import SHAPES

    parser.add_argument("--shape", choices=("bench", "real", *SHAPES[1:]),
                        default="bench", help="this script's answer, or bench.real_stream's (real: mixed)")
    parser.add_argument("--cpu-only", action="store_true", help="no stall probe, no keypresses")
    args = parser.parse_args()
    with private_user_dirs():  # no draft of an earlier run in the composer, none left behind
        emit(asyncio.run(run(args.deltas, args.kib, args.pace_ms, args.shape, not args.cpu_only)))


if __name__ == "__main__":
    main()
