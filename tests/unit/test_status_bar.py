"""The status line says how long a busy turn has run (QA: waiting 6 s for a first word, or on a
provider's retries, nothing on screen moved: a fixed "busy")."""

from __future__ import annotations

from textual.app import App, ComposeResult

from tui.app import clock
from tui.state.transcript import Message, SessionState
from widgets.status.status_area import StatusArea
from widgets.status.status_bar import StatusBar, StatusInfo

T0 = 1_800_000_000.0


class BarApp(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusBar()


async def test_a_busy_turn_shows_its_time_and_the_line_moves_each_second() -> None:
    clock.freeze(T0)
    try:
        app = BarApp()
        async with app.run_test(size=(100, 3)) as pilot:
            bar = app.query_one(StatusBar)
            bar.info = StatusInfo(connection="connected", busy=True, busy_since=T0 - 7)
            await pilot.pause()
            assert "busy 7s" in bar.render().plain
            clock.freeze(T0 + 58)  # the line is drawn again within a second, by itself
            await pilot.pause(1.2)
            assert "busy 1m05s" in app.screen._compositor.render_strips()[0].text
            bar.info = StatusInfo(connection="connected", busy=False)
            await pilot.pause()
            assert "idle" in bar.render().plain and bar._ticking is None  # idle: nothing ticks
    finally:
        clock.freeze(None)


def test_a_turn_seen_starting_is_timed_here_and_one_opened_busy_from_its_prompt() -> None:
    """A remote server's clock may be off: a turn that starts on screen is timed by this clock;
    a session opened while busy can only be timed from its prompt's time."""
    clock.freeze(T0)
    try:
        area = StatusArea()
        state = SessionState(id="ses_1")
        prompt = Message(id="msg_u", role="user", text="hi", time_created=(T0 - 300) * 1000)
        state.messages = {prompt.id: prompt}
        assert area._turn_began(state) is None  # idle, on screen
        state.busy = True
        clock.freeze(T0 + 2)
        assert area._turn_began(state) == T0 + 2  # seen starting (the prompt's clock is not ours)
        clock.freeze(T0 + 9)
        assert area._turn_began(state) == T0 + 2  # the same turn
        # Its next turn (a new prompt), begun while it was not looked at: timed anew (review).
        state.messages["msg_u2"] = Message(id="msg_u2", role="user", text="again", time_created=T0 * 1000)
        clock.freeze(T0 + 30)
        assert area._turn_began(state) == T0 + 30
        other = SessionState(id="ses_2", busy=True)
        other.messages = {"msg_v": Message(id="msg_v", role="user", text="hi", time_created=(T0 - 40) * 1000)}
        assert area._turn_began(other) == T0 - 40  # opened busy: from its prompt
    finally:
        clock.freeze(None)


async def test_before_the_first_prompt_the_line_names_the_model_a_new_session_gets() -> None:
    """QA: at launch the status line named no model until a prompt was sent. It shows the
    server's default (``GET /api/model/default``), or the one picked for the next session."""
    from tests.snapshots.main_app import MainApp, main_screen, wait_connected, wait_until
    from tui.protocol.models import ModelRef
    from widgets.status.model_agent import ModelAgentChoice

    app = MainApp()
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_connected(pilot)
        bar = main_screen(app).query_one(StatusBar)
        await wait_until(pilot, lambda: bar.info.model == "demo/scripted")
        main_screen(app).query_one(ModelAgentChoice).pending_model = ModelRef(id="scripted-mini",
                                                                               providerID="demo")
        main_screen(app).refresh_status()
        await pilot.pause()
        assert bar.info.model == "demo/scripted-mini"
