"""Wherever the screen waits it says so: opening a session, ``--continue``, the model and agent
lists, starting the local server. Each wait is held open by hand so the cue can be seen."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual.widgets import OptionList, Static

from tests.snapshots.main_app import MainApp, frozen, settle, wait_connected
from tui.client.errors import OctuiError
from tui.client.http import OpenCodeClient
from tui.demo import assistant, text, user
from tui.screens.agent_picker import AgentPicker
from tui.screens.model_picker import ModelPicker
from tui.session.commands import Catalog
from widgets.status.connection_banner import ConnectionBanner
from widgets.status.session_header import SessionHeader
from widgets.transcript.transcript import Transcript

SIZE = (100, 24)


def transcript_text(app: MainApp) -> str:
    transcript = app.screen_main().query_one(Transcript)
    return "\n".join(str(w.render()) for w in transcript.query(Static))


def screen_text(app: MainApp) -> str:
    return "\n".join(strip.text for strip in app.screen_main()._compositor.render_strips())


def seeded() -> tuple[MainApp, str]:
    app = MainApp()
    info = app.server.seed_session("List the sources",
                                   [user("What is in src/?"), assistant(text("Four files."))])
    return app, str(info["id"])


async def wait_for(pilot: Any, predicate: Any, what: str) -> None:
    for _ in range(300):
        if predicate():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def hold_opening(app: MainApp) -> asyncio.Event:
    """Opening a session waits (its history loading) until the returned event is set."""
    gate = asyncio.Event()
    real_open = app.session.open_session

    async def slow_open(session_id: str) -> None:
        await gate.wait()
        await real_open(session_id)

    app.session.open_session = slow_open  # type: ignore[method-assign]
    return gate


async def test_opening_a_session_shows_a_loading_cue_until_its_history_arrives() -> None:
    with frozen():
        app, sid = seeded()
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            assert app.session.is_ready
            gate = hold_opening(app)
            app.screen_main().open(sid)
            await wait_for(pilot, lambda: "◌ Loading session" in transcript_text(app), "the cue")
            gate.set()
            await settle(pilot)
            assert "Loading" not in transcript_text(app)
            assert "Four files." in screen_text(app)
            assert app.screen_main().query_one(SessionHeader).values[0] == "List the sources"


async def test_a_failed_open_puts_back_what_was_there() -> None:
    with frozen():
        app, sid = seeded()
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            assert app.session.is_ready

            async def failing_open(session_id: str) -> None:
                raise OctuiError("server said no")

            app.session.open_session = failing_open  # type: ignore[method-assign]
            app.screen_main().open(sid)
            await settle(pilot)
            assert "Loading" not in transcript_text(app)
            assert "No session open" in transcript_text(app)


async def test_continue_says_it_is_opening_the_latest_session(monkeypatch: pytest.MonkeyPatch) -> None:
    gate = asyncio.Event()
    real_list = OpenCodeClient.list_sessions

    async def slow_list(self: OpenCodeClient, *args: Any, **kwargs: Any) -> Any:
        await gate.wait()
        return await real_list(self, *args, **kwargs)

    monkeypatch.setattr(OpenCodeClient, "list_sessions", slow_list)
    with frozen():
        app, _ = seeded()
        app.spec.continue_last = True
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: "◌ Opening the latest session…" in transcript_text(app), "the cue")
            gate.set()
            await wait_connected(pilot)
            assert "Four files." in screen_text(app)


@pytest.mark.parametrize(("key", "screen", "cue"), [
    ("ctrl+k", ModelPicker, "◌ Loading the model list…"),
    ("ctrl+l", AgentPicker, "◌ Loading the agent list…"),
])
async def test_pickers_open_at_once_and_say_they_are_loading(
        monkeypatch: pytest.MonkeyPatch, key: str, screen: type, cue: str) -> None:
    gate = asyncio.Event()
    real_load = Catalog.load

    async def slow_load(self: Catalog, kind: str) -> list[Any]:
        if kind in ("models", "agents"):
            await gate.wait()
        return await real_load(self, kind)

    monkeypatch.setattr(Catalog, "load", slow_load)
    with frozen():
        app, _ = seeded()
        async with app.run_test(size=SIZE) as pilot:
            await wait_connected(pilot)
            await pilot.press(key)
            await wait_for(pilot, lambda: isinstance(app.screen, screen), "the picker")
            await pilot.pause()
            options = app.screen.query_one(OptionList)
            assert [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)] == [cue]
            painted = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
            assert cue in painted and "Switch" in painted  # the dialog itself is drawn, not a blank
            gate.set()
            await wait_for(pilot, lambda: options.option_count > 1, "the list")
            shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
            assert cue not in shown


async def test_starting_the_local_server_shows_in_the_banner(monkeypatch: pytest.MonkeyPatch) -> None:
    gate = asyncio.Event()

    class SlowLocalServer:
        async def start(self, cwd: str) -> Any:
            await gate.wait()
            raise OctuiError("stopped by the test")

        async def stop(self) -> None:
            return None

    monkeypatch.setattr("tui.app.app.LocalServer", SlowLocalServer)
    with frozen():
        app = MainApp()
        app.spec.url = None
        app.spec.start_local = True
        async with app.run_test(size=SIZE) as pilot:
            banner = app.screen_main().query_one(ConnectionBanner)
            await wait_for(pilot, lambda: "Starting a local OpenCode server" in str(banner.render()),
                           "the cue")
            assert banner.display
            gate.set()
            await pilot.pause(0.1)


async def test_while_a_session_loads_the_status_line_drops_the_one_left() -> None:
    """A review: while a slow session loaded, the status line still showed the plan (and model
    and usage) of the session left."""
    from tui.demo.fixtures import tool
    from widgets.status.status_bar import StatusBar

    with frozen():
        app, other = seeded()
        plan = {"todos": [{"content": "Write it", "status": "in_progress"},
                          {"content": "Ship", "status": "pending"}]}
        first = str(app.server.seed_session("Planned", [user("Plan it"),
                                                        assistant(tool("todowrite", plan))])["id"])
        async with app.run_test(size=(160, 24)) as pilot:
            await wait_connected(pilot)
            app.screen_main().open(first)
            bar = app.screen_main().query_one(StatusBar)
            await wait_for(pilot, lambda: "☐ 0/2 todos" in bar.render_line(0).text, "the plan")
            gate = hold_opening(app)
            app.screen_main().open(other)
            await wait_for(pilot, lambda: "◌ Loading session" in transcript_text(app), "the cue")
            line = bar.render_line(0).text
            gate.set()
            await settle(pilot)
        assert "todos" not in line and "Write it" not in line, line
