"""A real ``OctuiApp`` fed by recorded 2.0-preview frames (``tests.replay.harness.ReplayServer``).

For snapshots of what a real 2.x server makes octui draw: the app boots against the replay
transport (generation from the served ``/openapi.json``), opens the recorded session, and only
then the recorded frames go out, so every run reaches the same state. The clock is frozen at the
time of the last frame shown.
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual.pilot import Pilot

from tests.replay.harness import BASE, TRACES_20, Connection, ReplayServer, records, sample
from tui.app.app import ConnectSpec, OctuiApp
from widgets.composer.composer import Composer

DIRECTORY = "/home/demo/project"
SIZE = (110, 30)


class ReplayApp(OctuiApp):
    def __init__(self, scenario: str, upto: int, info: dict[str, Any]) -> None:
        self.frames = records(TRACES_20 / "traces" / f"{scenario}.jsonl")[: upto + 1]
        self.connection = Connection(self.frames, hold_after=2)  # server.connected, heartbeat
        self.session_id = str(info["id"])
        self.replay = ReplayServer([self.connection], rest={
            f"GET /api/session/{self.session_id}": (200, {"data": info}),
            f"GET /api/session/{self.session_id}/message": (200, {"data": [], "cursor": {}}),
            f"GET /api/session/{self.session_id}/pending": (200, {"data": []}),
            "GET /api/session": (200, {"data": [], "cursor": {}}),
            "GET /api/model": (200, {"location": {"directory": DIRECTORY}, "data": []}),
        })
        spec = ConnectSpec(url=BASE, password="replay", transport=self.replay.transport,
                           directory=DIRECTORY, session_id=self.session_id)
        super().__init__(spec)
        self.animation_level = "none"

    @property
    def frozen_at(self) -> float:
        """Seconds: the ``created`` of the last frame shown."""
        stamps = [r["data"]["created"] for r in self.frames
                  if isinstance((r.get("data") or {}).get("created"), int)]
        return max(stamps) / 1000.0


def created_session(scenario: str) -> dict[str, Any]:
    """``POST /api/session``'s recorded answer in ``<scenario>.requests.json``."""
    for request in sample(f"{scenario}.requests.json"):
        if request["method"] == "POST" and request["path"] == "/api/session":
            info = request["response_body"]["data"]
            assert isinstance(info, dict)
            return info
    raise AssertionError(f"{scenario}: no session created")


async def play(pilot: Pilot[Any], timeout: float = 30.0) -> None:
    """Boot, open the session, release the recorded frames, wait until all are on screen."""
    app = pilot.app
    assert isinstance(app, ReplayApp)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout

    def state_loaded() -> bool:
        state = app.store.sessions.get(app.session_id)
        return state is not None and state.loaded

    while not app.session.is_ready or app.stream_state.phase != "connected" or not state_loaded():
        assert loop.time() < deadline, "the replay app did not open its session"
        await pilot.pause(0.02)
    app.screen.query_one(Composer).cursor_blink = False
    app.connection.release.set()
    await asyncio.wait_for(app.replay.done.wait(), timeout)
    calm = 0
    while calm < 3:
        service = app.session
        quiet = (not service.intake.resyncing and all(t.done() for t in service.intake.tasks)
                 and not app._pending and not app._flush_scheduled)
        calm = calm + 1 if quiet else 0
        assert loop.time() < deadline, "the replay app did not settle"
        await pilot.pause(0.05)
    await pilot.wait_for_scheduled_animations()
    for _ in range(2):
        await pilot.pause(0.1)
    await pilot.pause()
