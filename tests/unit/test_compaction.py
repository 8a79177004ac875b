"""``/compact`` on v2: the demo server's compaction run, its rows live and from history."""

from __future__ import annotations

from typing import Any

from tests.e2e.ui_helpers import screen_text
from tests.snapshots.main_app import settle, wait_connected
from tests.unit.test_pickers import composer, recorded_app, seeded
from tui.demo import DemoServer
from tui.state.history import message_from_wire
from tui.state.transcript import PendingInput
from widgets.composer.pending_inputs import PendingInputs


def test_history_compaction_rows_know_whether_they_finished() -> None:
    base = {"type": "compaction", "time": {"created": 5}, "reason": "manual"}
    done = message_from_wire(base | {"id": "msg_1", "status": "completed", "summary": "S"}, "s")
    running = message_from_wire(base | {"id": "msg_2", "status": "running", "summary": ""}, "s")
    failed = message_from_wire(base | {"id": "msg_3", "status": "failed",
                                       "error": {"type": "x", "message": "boom"}}, "s")
    legacy = message_from_wire(base | {"id": "msg_4", "summary": "old", "recent": ""}, "s")  # 1.18
    assert done is not None and (done.role, done.text, done.time_completed) == ("compaction", "S", 5.0)
    assert running is not None and running.time_completed is None
    assert failed is not None and failed.error is not None and failed.error.message == "boom"
    assert failed.time_completed == 5.0
    assert legacy is not None and legacy.time_completed == 5.0


def test_pending_compaction_is_labelled() -> None:
    label = PendingInputs._label(PendingInput(id="msg_1", text="", kind="compaction"))
    assert "compaction" in label.plain


def compaction_rows(app: Any, sid: str) -> list[tuple[str, bool, str | None]]:
    state = app.store.session(sid)
    return [(m.text, m.time_completed is not None, m.error.message if m.error else None)
            for m in state.messages.values() if m.role == "compaction"]


async def test_compact_shows_the_running_then_finished_summary_row() -> None:
    with seeded() as (demo, sid):
        app, recorder = recorded_app(demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            composer(app).text = "/compact"
            await pilot.press("enter")
            await settle(pilot)
            ((summary, finished, error),) = compaction_rows(app, sid)
            assert finished and error is None
            assert summary.startswith("Summary of 2 earlier messages: the user asked \u201chi\u201d")
            assert "compaction done: Summary of 2 earlier messages" in screen_text(app.screen_main())
    assert recorder.posts("/compact") == [{}]
    stored = [m for m in demo.state.messages[sid] if m["type"] == "compaction"]
    assert [(m["status"], m["reason"]) for m in stored] == [("completed", "manual")]
    types = [e["type"] for e in demo.emitted]
    assert types.index("session.compaction.started") < types.index("session.compaction.delta") \
        < types.index("session.compaction.ended")


async def test_compacting_an_empty_session_fails_with_a_reason() -> None:
    demo = DemoServer(speed=0, heartbeat=0)
    sid = demo.seed_session("Empty", [])["id"]
    app, _ = recorded_app(demo, sid)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_connected(pilot)
        composer(app).text = "/compact"
        await pilot.press("enter")
        await settle(pilot)
        assert compaction_rows(app, sid) == [("", True, "Nothing to compact yet.")]
