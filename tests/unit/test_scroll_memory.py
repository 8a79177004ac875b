"""The transcript keeps the reader's place per session: switch away, come back, be where you were.

``plan_window`` (pure) decides what to mount; the app-level tests switch sessions in the headless
app with new messages arriving in the session that is not shown.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button

from tests.snapshots.main_app import (
    NOW,
    SIZE,
    MainApp,
    ManualClock,
    frozen,
    main_screen,
    make_demo,
    settle,
    wait_until,
)
from tui.demo import DemoServer, history_fixture
from widgets.transcript.message_view import MessageView
from widgets.transcript.transcript import PAGE, WINDOW, Transcript
from widgets.transcript.transcript_window import TranscriptPosition, plan_window

IDS = [f"m{n}" for n in range(100)]


def test_following_or_unknown_positions_show_the_newest() -> None:
    for position in (None, TranscriptPosition(following=True, newest="m50")):
        plan = plan_window(IDS, position, 12, 48)
        assert (plan.start, plan.end, plan.anchor, plan.unseen) == (88, 100, None, [])
    gone = TranscriptPosition(following=False, first="x1", last="x2", anchor="x1", newest="x3")
    assert plan_window(IDS, gone, 12, 48).start == 88


def test_a_scrolled_up_position_comes_back_with_the_new_messages_counted() -> None:
    position = TranscriptPosition(following=False, first="m40", last=None, anchor="m45", offset=3,
                                  newest="m97")
    plan = plan_window(IDS, position, 12, 80)
    assert (plan.start, plan.end, plan.anchor, plan.offset) == (40, 100, "m45", 3)
    assert plan.unseen == ["m98", "m99"]


def test_a_window_that_would_grow_past_the_limit_is_cut_on_its_newer_side() -> None:
    position = TranscriptPosition(following=False, first="m10", last=None, anchor="m12", newest="m20")
    plan = plan_window(IDS, position, 12, 48)
    assert (plan.start, plan.end) == (10, 58)
    far = TranscriptPosition(following=False, first="m0", last="m99", anchor="m70", newest="m99")
    plan = plan_window(IDS, far, 12, 20)
    assert (plan.start, plan.end, plan.anchor) == (70, 90, "m70")


def test_a_closed_window_keeps_its_end_and_a_lost_anchor_falls_back() -> None:
    position = TranscriptPosition(following=False, first="m20", last="m40", anchor="gone", offset=5,
                                  newest="m99")
    plan = plan_window(IDS, position, 12, 48)
    assert (plan.start, plan.end, plan.anchor, plan.offset) == (20, 41, "m20", 0)


# ---------------------------------------------------------------------------- in the app
@pytest.fixture(autouse=True)
def frozen_clock() -> Iterator[None]:
    with frozen(NOW):
        yield


def new_answer(demo: DemoServer, sid: str, message_id: str, text: str) -> None:
    """A new assistant message in ``sid``, arriving live (as a subagent's would)."""
    base = {"sessionID": sid, "assistantMessageID": message_id}
    demo.emit("session.step.started", base | {"agent": "build",
                                              "model": {"id": "scripted", "providerID": "demo"}})
    demo.emit("session.text.started", base | {"ordinal": 0})
    demo.emit("session.text.delta", base | {"ordinal": 0, "delta": text})


async def open_session(pilot: Pilot[Any], session_id: str) -> None:
    main_screen(pilot.app).open(session_id)
    await wait_until(pilot, lambda: main_screen(pilot.app).session_id == session_id)
    await settle(pilot)


def top_message(transcript: Transcript) -> tuple[str, int]:
    """The message at the top of the viewport and how many of its rows are scrolled past."""
    for view in transcript.query(MessageView):
        region = view.virtual_region
        if region.bottom > transcript.scroll_y:
            return view.message.id, round(transcript.scroll_y) - region.y
    raise AssertionError("no message on screen")


async def two_sessions(pilot: Pilot[Any], demo: DemoServer) -> tuple[str, str]:
    a = demo.seed_session("Reading", history_fixture(80))["id"]
    b = demo.seed_session("Elsewhere", history_fixture(6))["id"]
    await wait_until(pilot, lambda: pilot.app.session.is_ready  # type: ignore[attr-defined]
                     and pilot.app.stream_state.phase == "connected")  # type: ignore[attr-defined]
    await settle(pilot)
    await open_session(pilot, a)
    return a, b


async def test_back_at_the_bottom_follows_and_shows_what_arrived_meanwhile() -> None:
    clock = ManualClock()
    demo = make_demo(clock)
    app = MainApp(demo, demo_clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        a, b = await two_sessions(pilot, demo)
        screen = main_screen(app)
        transcript = screen.query_one(Transcript)
        assert transcript.scroll_y >= transcript.max_scroll_y - 1

        await open_session(pilot, b)
        new_answer(demo, a, "msg_zz_live", "arrived while away")
        await wait_until(pilot, lambda: "msg_zz_live" in app.store.sessions[a].messages)
        await open_session(pilot, a)

        views = list(transcript.query(MessageView))
        assert views[-1].message.id == "msg_zz_live"
        assert transcript.scroll_y >= transcript.max_scroll_y - 1  # at the bottom, following
        assert transcript.region.contains_region(views[-1].region)
        assert not screen.query_one("#new-activity", Button).display


async def test_back_where_the_reader_was_with_the_new_messages_counted() -> None:
    clock = ManualClock()
    demo = make_demo(clock)
    app = MainApp(demo, demo_clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        a, b = await two_sessions(pilot, demo)
        screen = main_screen(app)
        transcript = screen.query_one(Transcript)
        transcript.page_older()
        await settle(pilot)
        assert transcript.mounted_messages == WINDOW + PAGE
        transcript.scroll_to(y=transcript.max_scroll_y // 2 + 3, animate=False, immediate=True)
        await settle(pilot)
        before = top_message(transcript)
        mounted = [v.message.id for v in transcript.query(MessageView)]
        assert 0 < before[1] or before[0] != mounted[0]  # somewhere in the middle

        await open_session(pilot, b)
        assert top_message(transcript)[0] not in mounted  # really elsewhere
        new_answer(demo, a, "msg_zz_one", "first while away")
        new_answer(demo, a, "msg_zz_two", "second while away")
        await wait_until(pilot, lambda: "msg_zz_two" in app.store.sessions[a].messages)
        await open_session(pilot, a)

        assert top_message(transcript) == before
        after = [v.message.id for v in transcript.query(MessageView)]
        assert after[:len(mounted)] == mounted
        chip = screen.query_one("#new-activity", Button)
        assert chip.display and "new text below, in 2 messages " in str(chip.label)

        chip.press()
        await settle(pilot)
        assert transcript.scroll_y >= transcript.max_scroll_y - 1
        assert list(transcript.query(MessageView))[-1].message.id == "msg_zz_two"
        assert not chip.display


async def test_each_session_keeps_its_own_place() -> None:
    clock = ManualClock()
    demo = make_demo(clock)
    app = MainApp(demo, demo_clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        a, _ = await two_sessions(pilot, demo)
        c = demo.seed_session("Third", history_fixture(40))["id"]
        transcript = main_screen(app).query_one(Transcript)
        transcript.scroll_home(animate=False, immediate=True)
        await settle(pilot)
        place_a = top_message(transcript)

        await open_session(pilot, c)
        assert transcript.scroll_y >= transcript.max_scroll_y - 1  # first visit: the bottom
        transcript.scroll_to(y=5, animate=False, immediate=True)
        await settle(pilot)
        place_c = top_message(transcript)

        await open_session(pilot, a)
        assert top_message(transcript) == place_a
        await open_session(pilot, c)
        assert top_message(transcript) == place_c
