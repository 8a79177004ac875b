"""The session browser offers "Load more" only when there is more, over the real client.

Both servers answer ``GET /api/session`` with ``cursor: {previous, next}`` even at the edges
(TRACES.md §10; 1.18.33 does the same). The browser must decide by the page: a short page is the
last; a full page may have more, and an empty next page ends the list.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx
from textual.pilot import Pilot
from textual.widgets import Static

from tests.snapshots.sessions_app import SessionsApp
from tui.app.session_pages import SessionPages
from tui.client.http import OpenCodeClient
from tui.session.service import SessionService
from tui.state.store import Store
from widgets.sessions.session_list import SessionList

EDGE = {"previous": "cHJldg", "next": "bmV4dA"}  # present on every page, as the servers send them
PAGE = 50  # what SessionPages asks for


def session_json(n: int) -> dict[str, Any]:
    return {"id": f"ses_{n:03d}", "title": f"Session {n}", "time": {"created": n, "updated": n},
            "location": {"directory": "/proj"}}


@dataclass
class Spec:
    directory: str = "/proj"


@dataclass
class FakeApp:
    """What ``SessionPages`` reads from the app: the session service, the store."""

    session: SessionService
    store: Store = field(default_factory=Store)


def loader_over(pages: list[list[dict[str, Any]]]) -> tuple[SessionPages, list[httpx.Request]]:
    requests: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        data = pages[min(len(requests), len(pages)) - 1]
        return httpx.Response(200, content=json.dumps({"data": data, "cursor": EDGE}),
                              headers={"content-type": "application/json"})

    client = OpenCodeClient("http://127.0.0.1:9", transport=httpx.MockTransport(handle))
    store = Store()
    service = SessionService(client, store, lambda _changes: None, lambda _state: None,
                             directory=Spec().directory)
    return SessionPages(FakeApp(service, store)), requests  # type: ignore[arg-type]


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def status(app: SessionsApp) -> str:
    return str(app.screen.query_one("#sessions-status", Static).render())


async def test_one_session_with_edge_cursors_is_all_there_is() -> None:
    loader, requests = loader_over([[session_json(1)]])
    app = SessionsApp(loader)  # type: ignore[arg-type]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        listing = app.screen.query_one(SessionList)
        assert listing.sessions and not listing.has_more
        assert status(app) == "1 session"
        assert "Load more" not in "".join(str(listing.get_option_at_index(i).prompt)
                                          for i in range(listing.option_count))
        await pilot.press("end")
        await settle(pilot)
        assert len(requests) == 1  # nothing more was asked for


async def test_a_full_page_offers_more_until_the_next_page_is_empty() -> None:
    loader, requests = loader_over([[session_json(n) for n in range(PAGE, 0, -1)], []])
    app = SessionsApp(loader)  # type: ignore[arg-type]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        listing = app.screen.query_one(SessionList)
        assert len(listing.sessions) == PAGE and listing.has_more
        assert status(app) == f"{PAGE}+ sessions"
        await pilot.press("end")  # the "more" row: the next page comes back empty
        await settle(pilot)
        assert len(requests) == 2 and requests[1].url.params["cursor"] == EDGE["next"]
        assert len(listing.sessions) == PAGE and not listing.has_more
        assert status(app) == f"{PAGE} sessions"
