"""Frames, not deltas, set the cost of a streamed answer: the app coalesces store changes into
frames paced for reading, so a burst of thousands of deltas costs a few frames."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from tests.snapshots.main_app import NOW, SIZE, MainApp, frozen, main_screen, settle, wait_connected
from tui.app.app import (
    FLOOD_FLUSH_S,
    FLOOD_FRAME_S,
    FLUSH_GAP,
    FLUSH_WAIT_MAX_S,
    FRAME_S,
    INPUT_PAINT_S,
    QUIET_S,
    RENDER_HOLD_S,
    STREAM_FRAME_S,
    STREAM_PATIENCE_S,
    STREAM_SLACK_S,
)
from tui.state.changes import Change, PartChanged, SessionChanged
from widgets.transcript.text_block import TextBlockView
from widgets.transcript.transcript import Transcript


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


async def flooding_on_a_fake_clock(app: MainApp, pilot: Any,
                                   monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[float]]:
    """The app connected and flooding, its clock (``perf_counter``) the list's one value."""
    import tui.app.app as app_module

    await wait_connected(pilot)
    now = [1000.0]
    monkeypatch.setattr(app_module, "perf_counter", lambda: now[0])
    app._flooding = True
    return main_screen(app), now


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
        # Frames start a slot apart on average, never closer than the slack allows.
        assert min(gaps) >= STREAM_FRAME_S - STREAM_SLACK_S - 0.005, gaps
        assert sum(gaps) / len(gaps) >= STREAM_FRAME_S - 0.005, gaps


class FakeTimer:
    """A timer of ``FlushClock``: it fires when the test says."""

    def __init__(self, clock: FlushClock, wait: float, callback: Any) -> None:
        self.clock, self.due, self.callback, self.stopped = clock, clock.now + wait, callback, False

    def stop(self) -> None:
        self.stopped = True


class FlushClock:
    """Drives the app's flush scheduling with a clock of its own: changes are queued, frames start
    (``_flush_changes``) and end (``_frame_done``) when the test says; records each flush asked
    (the wait of a timer, 0 for a flush at once) and the timers that are still live."""

    def __init__(self, app: MainApp, monkeypatch: pytest.MonkeyPatch) -> None:
        import tui.app.app as app_module

        self.app, self.now, self.cpu = app, 1000.0, 50.0
        self.asked: list[float] = []
        self.timers: list[FakeTimer] = []

        def set_timer(wait: float, callback: Any) -> FakeTimer:
            self.asked.append(wait)
            self.timers.append(FakeTimer(self, wait, callback))
            return self.timers[-1]

        monkeypatch.setattr(app_module, "perf_counter", lambda: self.now)
        monkeypatch.setattr(app_module, "thread_time", lambda: self.cpu)
        monkeypatch.setattr(app, "set_timer", set_timer)
        monkeypatch.setattr(app, "call_later", lambda callback: self.asked.append(0.0))
        monkeypatch.setattr(app, "main_or_none", lambda: None)  # frames carry no changes to a screen
        monkeypatch.setattr(app, "_measure_growth", lambda: None)
        app._last_flush = app._last_frame_end = self.now - 10  # the app's frames so far, long past
        app._flush_cost = 0.0
        self.starts: list[float] = []  # when each flush ran
        flush = app._flush_changes

        def flush_changes() -> None:
            self.starts.append(self.now)
            flush()

        monkeypatch.setattr(app, "_flush_changes", flush_changes)

    def flushes(self) -> int:
        return len(self.starts)

    def change(self, after: float, change: Change | None = None) -> float | None:
        """A change ``after`` seconds from now (a streamed part by default): the wait of the flush
        it asked for, or None when the flush already coming takes it."""
        self.now += after
        asked = len(self.asked)
        self.app._queue_changes([change or PartChanged("ses", "msg", "text:0")])
        assert len(self.asked) <= asked + 1
        return self.asked[-1] if len(self.asked) > asked else None

    def live(self) -> FakeTimer:
        """The one timer not stopped (the flush the pending changes wait for)."""
        live = [timer for timer in self.timers if not timer.stopped]
        assert len(live) == 1, live
        return live[0]

    def fire(self) -> None:
        """The live timer fires: the frame starts when it was due."""
        timer = self.live()
        self.now = timer.due
        timer.stopped = True  # (a fired timer has nothing left to stop)
        timer.callback()

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
        # Within the slot: it waits for the next delta, at most STREAM_PATIENCE_S.
        assert clock.change(after=0.008) == pytest.approx(STREAM_PATIENCE_S)
        assert clock.change(after=0.01) is None  # still within the slot: the same frame takes it
        clock.fire()
        assert clock.now == pytest.approx(1000 + 1.0 + 0.002 + 0.008 + STREAM_PATIENCE_S)
        assert clock.change(after=STREAM_FRAME_S + 0.001) == 0.0  # the slot is over: at once
        # A slow frame: the loop is left free for FLUSH_GAP times its cost after it.
        clock.frame(cost=0.1)
        assert clock.change(after=0.0) == pytest.approx(FLUSH_GAP * 0.1)
        # ... also when the change comes while that frame is still being painted: the gap is
        # counted from about when it will end, not from the end of the frame before it.
        clock.fire()
        assert clock.change(after=0.01) == pytest.approx(0.1 - 0.01 + FLUSH_GAP * 0.1)
        clock.done(cost=0.1)
        # However slow the frames, the next one is asked for within FLUSH_WAIT_MAX_S.
        clock.frame(cost=1.0, after=1.0)
        assert clock.change(after=0.0) == pytest.approx(FLUSH_WAIT_MAX_S)


async def test_a_paced_streams_frames_fall_on_its_deltas(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deltas 30 ms apart: a frame on every second one, the first of each pair waits 30 ms (a
    frame every 1/20 s, on a clock of its own, would leave some waiting nearly 50)."""
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        clock = FlushClock(app, monkeypatch)
        assert clock.change(after=1.0) == 0.0
        starts, waits, first = [], [], clock.now
        for n in range(60):
            if n:
                asked = clock.change(after=0.030)
                if asked is None or asked > 0:  # within the slot: waits for the next delta
                    first = min(first, clock.now)
                    continue
            starts.append(clock.now)
            waits.append(clock.now - first)
            clock.frame(cost=0.004)
            clock.now -= 0.004  # (the deltas keep their own clock)
            first = float("inf")
            for timer in clock.timers:
                assert timer.stopped or timer.due > clock.now + 0.030  # no timer beats the next delta
        gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
        assert len(starts) == 30 and all(gap == pytest.approx(0.060) for gap in gaps), gaps
        assert max(waits) == pytest.approx(0.030)
        # Jitter: a delta a little early (45 ms after the frame) is drawn at once on the slot
        # time the frames before left unused, at most STREAM_SLACK_S.
        assert clock.change(after=0.030) == 0.0  # (the pair's second delta)
        clock.frame(cost=0.004)
        assert clock.change(after=0.026) == pytest.approx(STREAM_PATIENCE_S)
        assert clock.change(after=0.015) == 0.0
        assert STREAM_FRAME_S - STREAM_SLACK_S <= 0.045


async def test_a_flood_of_deltas_gets_a_frame_a_slot_on_average(monkeypatch: pytest.MonkeyPatch) -> None:
    """The slack never adds up: deltas every millisecond get frames STREAM_FRAME_S apart, bar
    the first after a quiet spell."""
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        clock = FlushClock(app, monkeypatch)
        starts = []
        for _ in range(2000):
            asked = clock.change(after=0.001)
            if asked == 0.0:
                starts.append(clock.now)
                clock.frame(cost=0.002)
                clock.now -= 0.002  # (the deltas keep their clock)
            elif clock.live().due <= clock.now:
                clock.fire()
                starts.append(clock.now)
                clock.done(cost=0.002)
                clock.now -= 0.002
        gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
        assert len(gaps) > 30
        assert min(gaps) >= STREAM_FRAME_S - STREAM_SLACK_S - 1e-9, min(gaps)
        assert sum(gaps) / len(gaps) >= STREAM_FRAME_S - STREAM_SLACK_S / len(gaps) - 0.001, gaps


async def test_other_changes_keep_their_own_pace(monkeypatch: pytest.MonkeyPatch) -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        clock = FlushClock(app, monkeypatch)
        clock.frame(cost=0.002, after=1.0)
        # Anything but a streamed part (a status, a message) may come FRAME_S after a frame.
        assert clock.change(after=0.008, change=SessionChanged("ses")) == pytest.approx(FRAME_S - 0.01)
        clock.fire()
        # ... also when it comes while a streamed part waits for the next delta: sooner.
        assert clock.change(after=0.002) == pytest.approx(STREAM_PATIENCE_S)
        assert clock.change(after=0.002, change=SessionChanged("ses")) == pytest.approx(FRAME_S - 0.004)
        clock.fire()


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


async def test_a_key_in_a_flood_is_painted_with_the_frames_after_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A key releases a held flood, and the flood's next frames do not hold painting again while
    the user types: the key's own change (a letter in the composer) is handled after the release,
    and a frame held in between would show it up to a second late."""
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        main, now = await flooding_on_a_fake_clock(app, pilot, monkeypatch)
        monkeypatch.setattr(app, "_measure_growth", lambda: None)  # a flood all along
        parts: list[Change] = [PartChanged("ses", "msg", "text:0")]
        app._frame_applied(main, contextlib.nullcontext(), 0.0, parts)
        assert app._held is not None  # a flood's frame: painting held back
        await pilot.press("x")
        assert app._held is None  # the key paints at once ...
        now[0] += INPUT_PAINT_S - 0.01
        app._frame_applied(main, contextlib.nullcontext(), 0.0, parts)
        assert app._held is None  # ... and the flood's frames after it are painted too
        now[0] += 0.02
        app._frame_applied(main, contextlib.nullcontext(), 0.0, parts)
        assert app._held is not None  # once the user stops, the flood is held again
        app.release_paint()
        await pilot.pause()


@pytest.mark.parametrize("then", ["flood goes on", "flood over", "a key"])
async def test_a_flood_is_held_again_once_its_second_is_painted(then: str,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A review of the burst's bytes: once a flood's second was painted, nothing held it until
    its next frame, and the pieces rendered just after the paint (and the scroll bar) were two or
    three more paints within 60 ms, each much of a screen of new lines. Held again at once, it is
    one paint a second. A flood that is over (quiet), or a key, is not held again."""
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        main, now = await flooding_on_a_fake_clock(app, pilot, monkeypatch)
        monkeypatch.setattr(app, "_measure_growth", lambda: None)  # a flood all along
        app._frame_applied(main, contextlib.nullcontext(), 0.0, [PartChanged("ses", "msg", "text:0")])
        assert app._held is not None
        now[0] += FLOOD_FRAME_S + 0.01  # its second is up ...
        app._last_change = now[0] - (QUIET_S * 2 if then == "flood over" else 0.0)
        if then == "a key":
            await pilot.press("x")
        else:
            app.release_paint()
        assert app._held is None  # ... painted now,
        for _ in range(20):  # (bounded: the paint, and what runs after it)
            await pilot.pause()
        assert (app._held is not None) == (then == "flood goes on")
        app.release_paint()
        await pilot.pause()


class GrowthProbe:
    """Drives ``OctuiApp._measure_growth`` with a clock and a transcript height of its own."""

    def __init__(self, app: MainApp, monkeypatch: pytest.MonkeyPatch) -> None:
        import tui.app.app as app_module

        self.app, self.now, self.rows = app, 1000.0, 30
        monkeypatch.setattr(app_module, "perf_counter", lambda: self.now)
        monkeypatch.setattr(app, "main_or_none", lambda: self)
        app._growth.clear()
        app._flooding = False

    def content_rows(self) -> int:
        return self.rows

    def frame(self, after: float, grown: int) -> bool:
        self.now += after
        self.rows += grown
        self.app._measure_growth()
        return self.app._flooding

    def steady(self, screens_per_s: float, seconds: float) -> list[bool]:
        """Frames 1/20 s apart growing at ``screens_per_s`` (whole rows, as near as can be)."""
        rate = screens_per_s * self.app.size.height / 20  # rows per frame
        frames = range(1, int(seconds * 20) + 1)
        return [self.frame(0.05, int(n * rate) - int((n - 1) * rate)) for n in frames]

    def burst(self, wait: float) -> list[bool]:
        """Eight frames 1/16 s apart (exact in binary: the fifth is 0.25 s after the first)
        growing a screen and a half a second or a little more (whole rows), the first ``wait``
        after the frame before."""
        step = -(-self.app.size.height * 3 // 32)
        return [self.frame(wait if n == 0 else 0.0625, step) for n in range(8)]


async def test_a_burst_is_known_within_a_quarter_second_and_a_reading_pace_never(
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        height = app.size.height
        probe = GrowthProbe(app, monkeypatch)
        assert not probe.frame(0, 0)
        # A burst after a long idle time: a screen and a half a second. The idle frame long
        # before does not water the rate down; a quarter of a second of frames decides, or a
        # quarter of a screen if that comes first.
        decided = probe.burst(wait=10.0)
        assert not decided[0] and True in decided[:5], decided
        assert all(decided[decided.index(True):]), decided
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
        # A fast model (0.6 of a screen a second) is streamed, not held: its lines are read as
        # they come, and a second's lump of them would lag it by a second.
        assert not probe.frame(5.0, 0)
        assert not any(probe.steady(0.6, seconds=10))
        # A lump (a code block sealed at once) makes a flood, and it is over once the lump is a
        # second old, the model's own pace below the flood rate.
        assert not probe.frame(5.0, 0)
        assert probe.frame(0.05, height // 4 + 1)
        decided = probe.steady(0.6, seconds=3)
        assert not any(decided[-20:]), decided  # the last second: streamed again
        assert decided.index(False) <= 30, decided  # (frames 1/20 s apart: within 1.5 s)


async def test_a_burst_after_a_short_wait_is_not_watered_down_by_the_frame_before_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Measured with the real server: a frame 0.4 s before a burst (the prompt, the wait for the
    first words) counted in the burst's rate, and the burst was known as one a second late."""
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        probe = GrowthProbe(app, monkeypatch)
        assert not probe.frame(0, 0)
        decided = probe.burst(wait=0.4)
        assert True in decided[:5], decided


async def test_the_flood_rate_is_a_screen_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        probe = GrowthProbe(app, monkeypatch)
        assert not probe.frame(0, 0)
        assert not any(probe.steady(0.9, seconds=3))
        assert not probe.frame(5.0, 0)
        assert probe.steady(1.1, seconds=3)[-1]


async def test_an_answer_shorter_than_the_view_is_seen_to_grow() -> None:
    """A burst that fills an empty screen is a flood as much as one that scrolls: the content's
    height, not the view's, is what the flood rate is measured on."""
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        base = await started_answer(app, pilot)
        main = main_screen(app)
        app.server.emit("session.text.delta", base | {"ordinal": 0, "delta": "first line\n\n"})
        await settle(pilot)
        before = main.content_rows()
        for n in range(6):
            app.server.emit("session.text.delta", base | {"ordinal": 0, "delta": f"paragraph {n}\n\n"})
        await settle(pilot)
        after = main.content_rows()
        view = main.query_one(Transcript)
        assert before < after < view.size.height, (before, after, view.size.height)
        assert after - before >= 6 * 2 - 1  # six paragraphs, a line and a gap each


async def test_a_flood_is_painted_once_its_lines_are_rendered(monkeypatch: pytest.MonkeyPatch) -> None:
    """A quiet flood still rendering its pieces keeps painting held (placeholders painted now
    would be painted again a slice later), at most FLOOD_FRAME_S."""
    import tui.app.app as app_module

    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        main = main_screen(app)
        now = [1000.0]
        behind = [True]
        monkeypatch.setattr(app_module, "perf_counter", lambda: now[0])
        monkeypatch.setattr(main, "rendering_behind", lambda: behind[0])
        app._flooding = True
        app._last_change = now[0]
        app._hold_paint(FLOOD_FRAME_S)
        now[0] += QUIET_S * 2  # the flood is over ...
        app._held_tick()
        assert app._held is not None  # ... but its lines are placeholders yet
        behind[0] = False
        app._held_tick()
        assert app._held is None  # rendered: painted
        behind[0] = True
        app._last_change = now[0]
        app._hold_paint(FLOOD_FRAME_S)
        now[0] += FLOOD_FRAME_S + 0.01
        app._held_tick()
        assert app._held is not None  # a second of it, its lines placeholders: a moment more ...
        now[0] += RENDER_HOLD_S
        app._held_tick()
        assert app._held is None  # ... then, however far behind, a second of a flood is painted
        await pilot.pause()


async def test_an_answer_keeps_its_width_when_it_first_overflows_the_view() -> None:
    """The transcript keeps room for its scrollbar: the first answer to overflow the screen is not
    wrapped again a column narrower (a jump the reader sees, and a repaint of every line)."""
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        base = await started_answer(app, pilot)
        main = main_screen(app)
        view = main.query_one(Transcript)
        app.server.emit("session.text.delta", base | {"ordinal": 0, "delta": "first line\n\n"})
        await settle(pilot)
        block = main.query_one(TextBlockView)
        width = block.size.width
        assert view.max_scroll_y == 0
        for n in range(view.size.height):
            app.server.emit("session.text.delta", base | {"ordinal": 0, "delta": f"paragraph {n}\n\n"})
        await settle(pilot)
        assert view.max_scroll_y > 0 and view.vertical_scrollbar.display
        assert block.size.width == width


async def test_a_timer_that_fired_and_was_replaced_paints_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual queues a due timer's callback, and stopping the timer then does not take it back.
    A delta that comes once the slot is over queues a flush of its own: the stale callback must
    not paint a second frame right after (nor an empty one that moves the frame clock)."""
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        clock = FlushClock(app, monkeypatch)
        clock.frame(cost=0.002, after=1.0)
        assert clock.change(after=0.01) == pytest.approx(STREAM_PATIENCE_S)
        stale = clock.live()
        clock.now = stale.due  # it is due: its callback is queued ...
        assert clock.change(after=0.001) == 0.0  # ... when a delta comes, past the slot: a flush queued
        assert stale.stopped
        flushes = clock.flushes()
        stale.callback()  # the stale callback runs first
        assert clock.flushes() == flushes and len(app._pending) == 2
        app._flush_queued_now()
        assert clock.flushes() == flushes + 1 and not app._pending
        app._flush_queued_now()  # (a second call of a queued flush that already ran: nothing)
        assert clock.flushes() == flushes + 1


async def test_while_a_flood_is_held_its_parts_reach_the_widgets_at_the_flood_pace(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """No one sees a held flood's frames in between: its parts wait FLOOD_FLUSH_S, not a slot
    (each update of a growing block costs its work: a fence is lexed again whole)."""
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        clock = FlushClock(app, monkeypatch)
        clock.frame(cost=0.002, after=1.0)
        assert clock.change(after=0.001) == pytest.approx(STREAM_PATIENCE_S)  # streaming: a slot
        clock.fire()
        clock.done(cost=0.002)
        app._held, app._hold_flood = contextlib.nullcontext(), True  # a flood's painting held
        assert clock.change(after=0.001) == pytest.approx(FLOOD_FLUSH_S - 0.003)
        clock.fire()
        clock.done(cost=0.002)
        app._hold_flood = False  # held only for placeholders to render: the streaming pace
        assert clock.change(after=0.001) == pytest.approx(STREAM_FRAME_S - 0.003, abs=STREAM_SLACK_S)
        app._held = None


async def test_a_held_flood_is_painted_with_the_parts_still_pending(monkeypatch: pytest.MonkeyPatch) -> None:
    """A burst held at the flood pace: few updates of the answer's widget, and when it is over
    the parts that waited are applied before the paint is released (the end shows at once)."""
    import tui.app.app as app_module

    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        base = await started_answer(app, pilot)
        counter = FrameCounter(app)
        # A flood all along (as after a quarter of a second of a burst), held until it is over.
        monkeypatch.setattr(app_module, "FLOOD_FRAME_S", 30.0)
        monkeypatch.setattr(app, "_measure_growth", lambda: None)
        monkeypatch.setattr(app_module, "QUIET_S", 0.2)  # a stall of the loop is not its end
        app._flooding = True
        loop = asyncio.get_running_loop()
        started = loop.time()
        for n in range(60):  # a delta every ~10 ms
            app.server.emit("session.text.delta", base | {"ordinal": 0, "delta": f"w{n} "})
            await asyncio.sleep(0.01)
        elapsed = loop.time() - started
        monkeypatch.setattr(app_module, "QUIET_S", QUIET_S)  # its end is seen as soon as before
        view = main_screen(app).query_one(TextBlockView)
        message = app.store.session(base["sessionID"]).messages[base["assistantMessageID"]]
        # At each held paint released once the end had reached the app: the end applied? (A
        # loaded machine may release the hold as quiet before the end arrives; that paint is
        # right to show what had come, and the end's own frame is held and released after it.)
        released: list[bool] = []
        release = app.release_paint

        def release_paint() -> None:
            if app._held is not None and "THE-END" in "".join(getattr(p, "text", "") for p in message.parts):
                released.append(view.source.endswith("THE-END"))
            release()

        app.release_paint = release_paint  # type: ignore[method-assign]
        app.server.emit("session.text.delta", base | {"ordinal": 0, "delta": "THE-END"})
        await settle(pilot)
        assert view.source.endswith("w59 THE-END")
        assert released and all(released), released  # never painted without it
        assert app._held is None
        # At the streaming pace that is one update a slot (~13 in 0.6 s); at the flood pace one
        # every FLOOD_FLUSH_S, the first before the hold, the end's, and room for a slow loop.
        assert counter.flushes <= elapsed / FLOOD_FLUSH_S + 4, (counter.flushes, elapsed)
        assert counter.flushes < elapsed / STREAM_FRAME_S / 2, (counter.flushes, elapsed)
        assert "THE-END" in "".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_a_flood_still_rendering_with_parts_pending_is_painted_after_a_second(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Parts pending at the end of a hold are applied first; if its lines are still placeholders
    RENDER_HOLD_S after its second, a flood is painted all the same (it is not held for as long
    as it streams)."""
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        main, now = await flooding_on_a_fake_clock(app, pilot, monkeypatch)
        monkeypatch.setattr(main, "rendering_behind", lambda: True)
        ticks: list[object] = []  # ticks asked for are not run: the frame itself must paint
        monkeypatch.setattr(app, "set_timer", lambda wait, callback: ticks.append(callback))
        app._hold_paint(FLOOD_FRAME_S)
        app._pending, app._flush_queued = [PartChanged("ses", "msg", "text:0")], True  # waiting
        now[0] += FLOOD_FRAME_S + RENDER_HOLD_S + 0.01
        app._last_change = now[0]  # still streaming
        released: list[bool] = []
        release = app.release_paint

        def releasing() -> None:
            released.append(app._held is not None)
            release()

        monkeypatch.setattr(app, "release_paint", releasing)
        app._held_tick()
        assert app._held is not None and not app._pending  # the rest flushed first ...
        await pilot.pause()
        assert released == [True]  # ... and painted once applied, placeholders or not
