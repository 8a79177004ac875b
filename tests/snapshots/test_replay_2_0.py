"""Snapshots of what the 2.0 preview's recorded frames make octui draw: the user's own prompts in
the live transcript, and prompts waiting as steer/queue chips (traces-2.0 ``m01_queue``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from tests.replay.harness import TRACES_20, records
from tests.snapshots.replay_app import SIZE, ReplayApp, created_session, play
from tui.app import clock

SnapCompare = Callable[..., bool]
SCENARIO = "m01_queue"


def nth(kind: str, n: int) -> int:
    """Index in the m01_queue trace of the ``n``-th frame of type ``kind``."""
    seen = 0
    for i, record in enumerate(records(TRACES_20 / "traces" / f"{SCENARIO}.jsonl")):
        if (record.get("data") or {}).get("type") == kind:
            seen += 1
            if seen == n:
                return i
    raise AssertionError(kind)


@pytest.fixture(autouse=True)
def steady_cursors(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)
    yield
    clock.freeze(None)


def app_at(upto: int) -> ReplayApp:
    app = ReplayApp(SCENARIO, upto, created_session(SCENARIO))
    clock.freeze(app.frozen_at + 1.0)
    return app


async def shown(pilot: Pilot[Any]) -> None:
    await play(pilot)


def test_prompt_drawn_and_queue_and_steer_chips_while_the_answer_streams(snap_compare: SnapCompare) -> None:
    """After the 3rd ``input.admitted``: the first prompt is drawn above its streaming answer; the
    queued follow-up and the steer wait as chips, in admission order (as ``/pending`` listed them)."""
    assert snap_compare(app_at(nth("session.input.admitted", 3)), terminal_size=SIZE, run_before=shown)


def test_steer_drawn_where_it_was_promoted_and_the_queue_still_waits(snap_compare: SnapCompare) -> None:
    """After the 2nd ``input.promoted`` and a few deltas of the step answering it: the steer is a
    user message between the two answers; the queued prompt is still a chip."""
    assert snap_compare(app_at(nth("session.input.promoted", 2) + 6), terminal_size=SIZE, run_before=shown)
