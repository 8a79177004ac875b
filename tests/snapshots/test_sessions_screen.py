"""Session browser: SVG snapshots plus functional checks of paging, search, keys and errors."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from tests.snapshots.sessions_app import NOW, FakeLoader, SessionsApp, sample_sessions
from tui.app import clock
from tui.screens import sessions as sessions_module
from tui.screens.sessions import SEARCH_DEBOUNCE, SessionsScreen
from widgets.sessions.session_list import SessionList, format_age

SIZE = (100, 30)
SnapCompare = Callable[..., bool]


@pytest.fixture(autouse=True)
def frozen_clock() -> Iterator[None]:
    clock.freeze(NOW)
    yield
    clock.freeze(None)


async def settle(pilot: Pilot[Any]) -> None:
    """Let every loader call finish and the screen repaint."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


class TestSnapshots:
    def test_empty(self, snap_compare: SnapCompare) -> None:
        assert snap_compare(SessionsApp(FakeLoader()), terminal_size=SIZE, run_before=settle)

    def test_all_sessions_busy_and_child(self, snap_compare: SnapCompare) -> None:
        loader = FakeLoader(sample_sessions(), busy={"ses_01"})

        async def run_before(pilot: Pilot[Any]) -> None:
            await settle(pilot)
            await pilot.press("c")  # roots only -> all sessions, so the child ses_02 shows
            await settle(pilot)
            await pilot.press("down")  # highlight the child row

        assert snap_compare(SessionsApp(loader), terminal_size=SIZE, run_before=run_before)

    def test_search_in_progress(self, snap_compare: SnapCompare) -> None:
        loader = FakeLoader(sample_sessions(), busy={"ses_01"}, block_search=True)

        async def run_before(pilot: Pilot[Any]) -> None:
            await settle(pilot)
            await pilot.press("slash", *"auth")  # focus the search box and type
            await pilot.pause(SEARCH_DEBOUNCE + 0.2)  # debounce fires; the loader never answers

        assert snap_compare(SessionsApp(loader), terminal_size=SIZE, run_before=run_before)

    def test_load_error(self, snap_compare: SnapCompare) -> None:
        loader = FakeLoader(error=RuntimeError("401 Unauthorized: check OPENCODE_SERVER_PASSWORD"))
        assert snap_compare(SessionsApp(loader), terminal_size=SIZE, run_before=settle)


def status_text(app: SessionsApp) -> str:
    return str(app.screen.query_one("#sessions-status", Static).render())


async def test_roots_only_by_default_and_toggle() -> None:
    loader = FakeLoader(sample_sessions())
    app = SessionsApp(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        listing = app.screen.query_one(SessionList)
        assert [s.id for s in listing.sessions] == [f"ses_0{i}" for i in (1, 3, 4, 5, 6, 7, 8)]
        await pilot.press("c")
        await settle(pilot)
        assert len(listing.sessions) == 8
        assert loader.calls == [(None, None, True), (None, None, False)]


async def test_paging_by_reaching_the_end() -> None:
    loader = FakeLoader(sample_sessions(), page_size=3)
    app = SessionsApp(loader, roots_only=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        listing = app.screen.query_one(SessionList)
        assert len(listing.sessions) == 3 and listing.has_more
        await pilot.press("end")  # lands on the "more" row -> next page
        await settle(pilot)
        assert len(listing.sessions) == 6 and listing.has_more
        await pilot.press("end")
        await settle(pilot)
        assert len(listing.sessions) == 8 and not listing.has_more
        assert [c[0] for c in loader.calls] == [None, "3", "6"]
        assert status_text(app) == "8 sessions"


async def test_search_is_debounced_and_server_side(monkeypatch: pytest.MonkeyPatch) -> None:
    # A long debounce for this test only: on a loaded machine key presses can arrive >0.25 s apart.
    debounce = 2.0
    monkeypatch.setattr(sessions_module, "SEARCH_DEBOUNCE", debounce)
    loader = FakeLoader(sample_sessions())
    app = SessionsApp(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"auth")
        await pilot.pause(debounce + 0.3)
        await settle(pilot)
        assert loader.calls == [(None, None, True), (None, "auth", True)]
        assert [s.id for s in app.screen.query_one(SessionList).sessions] == ["ses_01"]
        assert status_text(app) == "1 session matching “auth”"
        app.screen.query_one(Input).value = "zzz"
        await pilot.press("enter")  # submit skips the debounce
        await settle(pilot)
        empty = app.screen.query_one("#sessions-empty", Static)
        assert empty.display and str(empty.render()) == "No sessions match “zzz”"


async def test_enter_opens_and_n_starts_new() -> None:
    app = SessionsApp(FakeLoader(sample_sessions()))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.opened == ["ses_03"]
        await pilot.press("n")
        await pilot.pause()
        assert app.new_sessions == 1


async def test_the_session_the_user_is_in_is_highlighted_first() -> None:
    """The cursor started on the newest session, not the one the user came from (QA): Enter
    took them elsewhere, and moving from "here" meant finding it first."""
    sessions = sample_sessions()
    here = sessions[3].id
    app = SessionsApp(FakeLoader(sessions), current=here)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.screen.query_one(SessionList).highlighted_session_id == here
        await pilot.press("enter")
        await pilot.pause()
        assert app.opened == [here]


async def test_scrolling_to_the_end_loads_more() -> None:
    loader = FakeLoader(sample_sessions(), page_size=6)
    app = SessionsApp(loader, roots_only=False)
    async with app.run_test(size=(80, 14)) as pilot:
        await settle(pilot)
        listing = app.screen.query_one(SessionList)
        assert len(listing.sessions) == 6 and listing.max_scroll_y > 0
        listing.scroll_end(animate=False, immediate=True)  # like the mouse wheel: highlight stays
        await settle(pilot)
        assert len(listing.sessions) == 8 and listing.highlighted_session_id == "ses_01"


async def test_dismisses_with_the_chosen_id_when_pushed() -> None:
    app = SessionsApp(FakeLoader(sample_sessions()), dismiss=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert app.opened == ["ses_01"] and app.results == ["ses_01"]
        assert not isinstance(app.screen, SessionsScreen)


async def test_escape_leaves_search_then_closes() -> None:
    app = SessionsApp(FakeLoader(sample_sessions()), dismiss=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press("escape")
        assert isinstance(app.focused, SessionList)
        await pilot.press("escape")
        await pilot.pause()
        assert app.results == [None] and app.opened == []


async def test_click_opens() -> None:
    app = SessionsApp(FakeLoader(sample_sessions()))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.click(SessionList, offset=(10, 2))  # second row (two lines per row)
        await pilot.pause()
        assert app.opened == ["ses_03"]


async def test_error_is_one_line_and_refresh_recovers() -> None:
    loader = FakeLoader(sample_sessions(), error=RuntimeError("boom\nTraceback (most recent call last)"))
    app = SessionsApp(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert status_text(app) == (
            "Could not load sessions: boom Traceback (most recent call last) — ctrl+r to retry"
        )
        assert app.screen.query_one("#sessions-status").has_class("-error")
        loader.error = None
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert status_text(app) == "7 sessions"
        assert not app.screen.query_one("#sessions-status").has_class("-error")


async def test_busy_badges_follow_the_loader() -> None:
    loader = FakeLoader(sample_sessions())
    app = SessionsApp(loader)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        loader.busy = {"ses_03"}
        screen.refresh_busy()
        await pilot.pause()
        listing = screen.query_one(SessionList)
        assert "busy" in str(listing.get_option("ses_03").prompt)
        assert "busy" not in str(listing.get_option("ses_01").prompt)


@pytest.mark.parametrize(
    ("age_s", "text"),
    [(5, "just now"), (180, "3m ago"), (7200, "2h ago"), (3 * 86400, "3d ago"),
     (15 * 86400, "2w ago"), (400 * 86400, "1y ago")],
)
def test_format_age(age_s: float, text: str) -> None:
    assert format_age((NOW - age_s) * 1000, NOW * 1000) == text


async def test_enter_in_the_search_opens_its_match_and_an_empty_search_keeps_the_keys() -> None:
    """QA: Enter in a search that found nothing moved the focus to the empty, hidden list, and
    the letters typed next were its keys ("c" changed the scope, "n" opened a new session). And
    with matches shown, Enter only moved to the list: a second Enter opened."""
    app = SessionsApp(FakeLoader(sample_sessions()))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"zzz", "enter")
        await settle(pilot)
        assert isinstance(app.focused, Input) and app.screen.query_one("#sessions-empty", Static).display
        await pilot.press(*"cn")
        await settle(pilot)
        assert app.new_sessions == 0 and app.screen.query_one(Input).value == "zzzcn"
        app.screen.query_one(Input).value = "auth"
        await pilot.press("enter")  # a new search: its results take the focus
        await settle(pilot)
        assert isinstance(app.focused, SessionList) and app.opened == []
        await pilot.press("slash", "enter")  # the same search again: opens what it shows
        await settle(pilot)
        assert app.opened == ["ses_01"]
