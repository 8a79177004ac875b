"""Frames, not deltas, set the cost of a streamed answer: the app coalesces store changes into
frames paced for reading, so a burst of thousands of deltas costs a few frames."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from tests.snapshots.main_app import NOW, SIZE, MainApp, frozen, main_screen, settle, wait_connected
from tui.app.app import FLUSH_GAP, FLUSH_WAIT_MAX_S, FRAME_S, STREAM_FRAME_S
from tui.state.changes import PartChanged, SessionChanged
from widgets.transcript.text_block import TextBlockView


@pytest.fixture(autouse=True)
def frozen_clock() -> Iterator[None]:
    with frozen(NOW):
        yield


class FrameCounter:
    """Counts the app's flushes (store changes handed to the screen) and the deltas behind them."""

    def __init__(self, app: MainApp) -> None:
        self.flushes = 0
        self.changes = 0
        self.starts: list[float] = []  # when each flush with changes ran
        original = app._flush_changes
        loop = asyncio.get_running_loop()

        def flush_changes() -> None:
            if app._pending:
                self.flushes += 1
                self.changes += len(app._pending)
                self.starts.append(loop.time())
            original()

        app._flush_changes = flush_changes  # type: ignore[method-assign]


async def started_answer(app: MainApp, pilot: Any) -> dict[str, Any]:
    await wait_connected(pilot)
    session = app.server.create_session(title="pacing")
    await app.open_session(session["id"])
    await settle(pilot)
    server = app.server
    base = {"sessionID": session["id"], "assistantMessageID": server.ids("msg")}
    server.emit("session.step.started", base | {"agent": "build", "model": server.model_of(session["id"])})
    server.emit("session.text.started", base | {"ordinal": 0})
    await pilot.pause(0.2)
    return base


async def test_thousands_of_deltas_at_once_cost_a_few_frames() -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        base = await started_answer(app, pilot)
        counter = FrameCounter(app)
        paints = TextBlockView.paints
        for n in range(4000):
            app.server.emit("session.text.delta", base | {"ordinal": 0, "delta": f"w{n % 10} "})
        await settle(pilot)
        view = main_screen(app).query_one(TextBlockView)
        assert view.source.count("w") == 4000  # every delta arrived
        assert counter.changes >= 4000 // 50  # many changes behind the frames (coalesced per read)
        assert counter.flushes <= 6, counter.flushes
        assert TextBlockView.paints - paints <= 6


async def test_a_paced_stream_is_painted_at_a_reading_pace_not_per_delta() -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        base = await started_answer(app, pilot)
        counter = FrameCounter(app)
        loop = asyncio.get_running_loop()
        started = loop.time()
        for n in range(60):  # a delta every 20 ms, 1.2 s or more
            app.server.emit("session.text.delta", base | {"ordinal": 0, "delta": f"word{n} "})
            await asyncio.sleep(0.02)
        elapsed = loop.time() - started
        await settle(pilot)
        # At most one flush per STREAM_FRAME_S (a delta every 20 ms: every third one at 1/20 s).
        assert 3 <= counter.flushes <= elapsed / STREAM_FRAME_S + 5, (counter.flushes, elapsed)
        assert counter.flushes < 60
        gaps = [b - a for a, b in zip(counter.starts, counter.starts[1:], strict=False)]
        assert min(gaps) >= STREAM_FRAME_S - 0.005, gaps  # frames start a slot apart, never closer


class FlushClock:
    """Drives the app's flush scheduling with a clock of its own: changes are queued, frames start
    (``_flush_changes``) and end (``_frame_done``) when the test says; records each flush asked."""

    def __init__(self, app: MainApp, monkeypatch: pytest.MonkeyPatch) -> None:
        import tui.app.app as app_module

        self.app, self.now, self.cpu = app, 1000.0, 50.0
        self.asked: list[float] = []  # the wait of each flush asked for (0: at once)
        monkeypatch.setattr(app_module, "perf_counter", lambda: self.now)
        monkeypatch.setattr(app_module, "thread_time", lambda: self.cpu)
        monkeypatch.setattr(app, "set_timer", lambda wait, callback: self.asked.append(wait))
        monkeypatch.setattr(app, "call_later", lambda callback: self.asked.append(0.0))
        monkeypatch.setattr(app, "_main_or_none", lambda: None)  # frames carry no changes to a screen
        monkeypatch.setattr(app, "_measure_growth", lambda: None)
        app._last_flush = app._last_frame_end = self.now - 10  # the app's frames so far, long past
        app._flush_cost = 0.0

    def change(self, after: float, change: object = None) -> float:
        """A change ``after`` seconds from now (a streamed part by default): the wait its flush
        was asked with."""
        self.now += after
        asked = len(self.asked)
        self.app._queue_changes([change or PartChanged("ses", "msg", "text:0")])
        assert len(self.asked) == asked + 1, "no flush asked for"
        return self.asked[-1]

    def frame(self, cost: float = 0.002, *, after: float = 0.0) -> None:
        """``after`` seconds from now the frame starts, and it is painted ``cost`` seconds later."""
        self.start(after)
        self.done(cost)

    def start(self, after: float = 0.0) -> None:
        self.now += after
        self.app._flush_changes()

    def done(self, cost: float) -> None:
        self.now += cost
        self.cpu += cost
        self.app._frame_done(self.cpu - cost)


async def test_a_word_after_a_quiet_spell_is_drawn_at_once_and_frames_keep_a_slot_apart(
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        clock = FlushClock(app, monkeypatch)
        assert clock.change(after=1.0) == 0.0  # nothing drawn for a second: at once, not a frame later
        clock.frame(cost=0.002)
        assert clock.change(after=0.008) == pytest.approx(STREAM_FRAME_S - 0.01)  # the rest of the slot
        clock.frame(after=STREAM_FRAME_S - 0.01)
        assert clock.change(after=STREAM_FRAME_S + 0.001) == 0.0  # the slot is over: at once
        # A slow frame: the loop is left free for FLUSH_GAP times its cost after it.
        clock.frame(cost=0.1)
        assert clock.change(after=0.0) == pytest.approx(FLUSH_GAP * 0.1)
        # ... also when the change comes while that frame is still being painted: the gap is
        # counted from about when it will end, not from the end of the frame before it.
        clock.start(after=FLUSH_GAP * 0.1)
        assert clock.change(after=0.01) == pytest.approx(0.1 - 0.01 + FLUSH_GAP * 0.1)
        clock.done(cost=0.1)
        # However slow the frames, the next one is asked for within FLUSH_WAIT_MAX_S.
        clock.frame(cost=1.0, after=1.0)
        assert clock.change(after=0.0) == pytest.approx(FLUSH_WAIT_MAX_S)


async def test_other_changes_keep_their_own_pace(monkeypatch: pytest.MonkeyPatch) -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        clock = FlushClock(app, monkeypatch)
        clock.frame(cost=0.002, after=1.0)
        # Anything but a streamed part (a status, a message) may come FRAME_S after a frame.
        assert clock.change(after=0.008, change=SessionChanged("ses")) == pytest.approx(FRAME_S - 0.01)


async def test_in_a_flood_a_frame_of_other_changes_is_painted_at_once() -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        main = main_screen(app)
        app._flooding = True  # as after a second of a burst
        app._frame_applied(main, contextlib.nullcontext(), 0.0, [PartChanged("ses", "msg", "text:0")])
        assert app._held is not None  # streamed parts in a flood: painting held back
        app.release_paint()
        app._frame_applied(main, contextlib.nullcontext(), 0.0, [PartChanged("ses", "msg", "text:0"),
                                                                 SessionChanged("ses")])
        assert app._held is None  # a turn ended, a status changed: painted at once, not held again
        await pilot.pause()


class GrowthProbe:
    """Drives ``OctuiApp._measure_growth`` with a clock and a transcript height of its own."""

    def __init__(self, app: MainApp, monkeypatch: pytest.MonkeyPatch) -> None:
        import tui.app.app as app_module

        self.app, self.now, self.rows = app, 1000.0, 30
        monkeypatch.setattr(app_module, "perf_counter", lambda: self.now)
        monkeypatch.setattr(app, "_main_or_none", lambda: self)
        app._growth.clear()
        app._flooding = False

    def content_rows(self) -> int:
        return self.rows

    def frame(self, after: float, grown: int) -> bool:
        self.now += after
        self.rows += grown
        self.app._measure_growth()
        return self.app._flooding


async def test_a_burst_is_known_within_a_quarter_second_and_a_reading_pace_never(
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        height = app.size.height
        probe = GrowthProbe(app, monkeypatch)
        assert not probe.frame(0, 0)
        # A burst after a long idle time: half a screen a second and more. The idle frame
        # long before does not water the rate down; a quarter of a second of frames decides.
        # (Steps of 1/16 s, exact in binary: the fifth frame is 0.25 s after the first.)
        decided = [probe.frame(10.0 if n == 0 else 0.0625, max(1, height // 20)) for n in range(8)]
        assert decided == [False] * 4 + [True] * 4, decided
        # Painting is held in a flood: the next frames come a second apart, and it goes on.
        assert probe.frame(1.05, height * 2) and probe.frame(1.05, height * 2)
        # The stream paused, then a frame: not a flood any more.
        assert not probe.frame(5.0, 1)
        # A quarter of a screen at once is a flood at once: no frames of lines nobody reads.
        assert probe.frame(0.05, height // 4 + 1)
        assert not probe.frame(5.0, 0)
        # Read as it comes (a line every 0.2 s): never a flood, nor with a few lines at once
        # now and then (a paragraph break, a list item, a short code block sealed).
        assert not any(probe.frame(0.2, 1) for _ in range(40))
        assert not any(probe.frame(0.2, height // 8 if n % 10 == 0 else 1) for n in range(40))
