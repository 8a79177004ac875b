"""OctuiApp headless over the demo server: prompt → permission → answer, interrupt, reasoning
toggle and transcript windowing."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from textual.widgets import Button

from tests.snapshots.main_app import (
    NOW,
    SIZE,
    MainApp,
    ManualClock,
    frozen,
    main_screen,
    make_demo,
    permission_open,
    settle,
    type_prompt,
    wait_connected,
    wait_until,
)
from tui.demo import SCRIPTS, DemoServer, IdGenerator, history_fixture
from tui.protocol.models import PermissionRequest
from tui.screens.key_guard import keys_taken
from tui.screens.main import MainScreen
from tui.screens.permission import PermissionScreen
from widgets.composer.composer import Composer
from widgets.tools.tool_header import ToolHeader
from widgets.tools.tool_row import ToolRow
from widgets.transcript.message_view import MessageView
from widgets.transcript.reasoning_block import ReasoningView
from widgets.transcript.text_block import TextBlockView
from widgets.transcript.transcript import PAGE, WINDOW, Transcript


@pytest.fixture(autouse=True)
def frozen_clock() -> Iterator[None]:
    with frozen(NOW):
        yield


async def test_prompt_permission_answer_and_final_text() -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await permission_open(pilot)
        assert isinstance(app.screen, PermissionScreen)
        assert app.screen.ask_id in app.store.asks

        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)  # not re-opened while the reply is in flight
        assert not app.store.asks
        replies = [e["data"]["reply"] for e in app.server.emitted if e["type"] == "permission.replied"]
        assert replies == ["once"]

        screen = main_screen(app)
        assert screen.session_id is not None
        state = app.store.sessions[screen.session_id]
        assert not state.busy and len(state.messages) == 4
        final_text = SCRIPTS["welcome"].steps[-1].text
        transcript = screen.query_one(Transcript)
        last = list(transcript.query(MessageView))[-1]
        [block] = list(last.query(TextBlockView))
        assert block.source == final_text
        assert transcript.region.contains_region(block.region)  # followed to the bottom: on screen
        assert screen.composer_text() == ""


async def test_escape_interrupts_the_long_script() -> None:
    demo_clock = ManualClock()
    demo = DemoServer(clock=demo_clock, speed=1.0, heartbeat=0, directory="/home/demo/project",
                      ids=IdGenerator())  # real pacing: ~30 ms a delta, seconds in total
    app = MainApp(demo, demo_clock=demo_clock)
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await type_prompt(pilot, "Write something long.")
        screen = main_screen(app)

        def streaming() -> bool:
            state = screen.state
            return state is not None and state.busy and any(
                m.role == "assistant" and m.parts for m in state.messages.values())

        await wait_until(pilot, streaming)
        await pilot.press("escape")
        await demo.idle(timeout=5)
        await wait_until(pilot, lambda: screen.state is not None and not screen.state.busy)

        kinds = [e["type"] for e in demo.emitted]
        assert "session.execution.interrupted" in kinds
        assert "session.execution.succeeded" not in kinds
        assert screen.state is not None
        answer = [m for m in screen.state.messages.values() if m.role == "assistant"][-1]
        assert answer.error is not None and answer.error.type == "aborted"
        streamed = "".join(getattr(p, "text", "") for p in answer.parts)
        assert 0 < len(streamed) < len(SCRIPTS["long"].steps[0].text)


async def test_escape_counts_only_the_sessions_it_stopped() -> None:
    """Finished subagents of earlier turns are stopped too (harmless), but not counted: the
    toast said "Interrupted 6 sessions." when one was running."""
    demo_clock = ManualClock()
    demo = DemoServer(clock=demo_clock, speed=1.0, heartbeat=0, directory="/home/demo/project",
                      ids=IdGenerator())
    app = MainApp(demo, demo_clock=demo_clock)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_connected(pilot)
        parent = demo.create_session(title="parent")["id"]
        for n in range(3):
            demo.create_session(title=f"done {n}", parent_id=parent)
        await app.open_session(parent)
        await settle(pilot)
        screen = main_screen(app)
        await wait_until(pilot, lambda: len(app.store.children(parent)) == 3)
        await type_prompt(pilot, "Write something long.")
        await wait_until(pilot, lambda: screen.state is not None and screen.state.busy)
        await pilot.press("escape")
        await wait_until(pilot, lambda: any("Interrupted" in str(n.message) for n in app._notifications))
        said = [str(n.message) for n in app._notifications if "Interrupted" in str(n.message)]
        assert said == ["Interrupted."]
        interrupted = [e for e in demo.emitted if e["type"] == "session.execution.interrupted"]
        assert {e["data"]["sessionID"] for e in interrupted} == {parent}


async def test_ctrl_t_toggles_reasoning() -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await type_prompt(pilot, "Trigger a provider error.")  # one step: reasoning + text
        await settle(pilot)
        screen = main_screen(app)
        [reasoning] = list(screen.query(ReasoningView))
        assert reasoning.collapsed

        await pilot.press("ctrl+t")
        await pilot.pause()
        assert not reasoning.collapsed and not screen.reasoning_collapsed
        body = reasoning.query_one(".reasoning-text")
        assert str(body.render()) == SCRIPTS["error"].steps[0].reasoning

        await pilot.press("ctrl+t")
        await pilot.pause()
        assert reasoning.collapsed and screen.reasoning_collapsed


async def test_long_session_is_windowed_and_pages_older_in() -> None:
    demo_clock = ManualClock()
    demo = make_demo(demo_clock)
    info = demo.seed_session("Five hundred messages", history_fixture(500))
    app = MainApp(demo, session_id=info["id"], demo_clock=demo_clock)
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        transcript = main_screen(app).query_one(Transcript)
        assert len(app.store.sessions[info["id"]].messages) == 500
        assert transcript.mounted_messages == WINDOW
        assert len(transcript.query(MessageView)) == WINDOW
        older = transcript.query_one(".load-older", Button)
        assert older.display

        older.press()
        await settle(pilot)
        assert transcript.mounted_messages == WINDOW + PAGE
        assert len(transcript.query(MessageView)) == WINDOW + PAGE
        ids = list(app.store.sessions[info["id"]].messages)
        first = transcript.query(MessageView).first()
        assert first.message.id == ids[500 - WINDOW - PAGE]  # the oldest mounted, in order

        assert older.display  # 250 of 500: more to page in


async def test_reader_scrolled_up_is_not_yanked_and_gets_a_new_activity_chip() -> None:
    demo_clock = ManualClock()
    demo = make_demo(demo_clock)
    info = demo.seed_session("Reading history", history_fixture(60))
    sid = info["id"]
    app = MainApp(demo, session_id=sid, demo_clock=demo_clock)
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        screen = main_screen(app)
        transcript = screen.query_one(Transcript)
        chip = screen.query_one("#new-activity", Button)
        transcript.scroll_home(animate=False, immediate=True)
        transcript.release_anchor()
        await settle(pilot)
        assert transcript.scroll_y < transcript.max_scroll_y
        assert not chip.display
        base = {"sessionID": sid, "assistantMessageID": "msg_live_chip"}
        demo.emit("session.step.started", base | {"agent": "build",
                                                  "model": {"id": "scripted", "providerID": "demo"}})
        demo.emit("session.text.started", base | {"ordinal": 0})
        demo.emit("session.text.delta", base | {"ordinal": 0, "delta": "news below"})
        await wait_until(pilot, lambda: chip.display)
        assert transcript.scroll_y < transcript.max_scroll_y  # not yanked to the bottom
        assert "new text below, in 1 message " in str(chip.label)
        # More parts of the same answer are still one new message (the chip counted parts: QA).
        demo.emit("session.text.started", base | {"ordinal": 1})
        demo.emit("session.text.delta", base | {"ordinal": 1, "delta": "a second part"})
        await wait_until(pilot, lambda: "msg_live_chip" in app.store.sessions[sid].messages
                         and len(app.store.sessions[sid].messages["msg_live_chip"].parts) >= 2)
        await settle(pilot)
        assert "new text below, in 1 message " in str(chip.label)

        chip.press()
        await settle(pilot)
        assert transcript.scroll_y >= transcript.max_scroll_y - 1
        assert not chip.display


async def test_a_tool_waiting_on_a_permission_says_so_until_it_is_answered() -> None:
    """Its timer alone read as a command still running (QA), after Esc put the ask in the inbox."""
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await permission_open(pilot)
        await pilot.press("escape")  # later: the ask stays, in the inbox
        await settle(pilot)
        screen = main_screen(app)
        (ask,) = [a for a in app.store.asks.values() if isinstance(a, PermissionRequest)]
        assert ask.source is not None

        def summary() -> str:
            row = next(r for r in screen.query(ToolRow) if r.call.id == ask.source.id)  # type: ignore[union-attr]
            return row.query_one(ToolHeader).parts.summary.plain

        assert summary() == "waiting for your approval"
        await app.session.reply_permission(ask.sessionID, ask.id, "once")
        await app.server.idle(timeout=5)
        await settle(pilot)
        assert summary() != "waiting for your approval"


async def test_a_question_left_for_later_reopens_from_the_inbox_as_it_was_left() -> None:
    from tui.screens.inbox import InboxScreen
    from tui.screens.question import QuestionScreen

    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await type_prompt(pilot, "question")
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen))
        dialog = app.screen
        assert isinstance(dialog, QuestionScreen)
        ask_id = dialog.ask_id
        # (its choices, once mounted; and taking keys: opened by itself, it holds them a moment)
        await wait_until(pilot, lambda: dialog.focused is not None
                         and keys_taken(dialog, time.perf_counter()))
        await pilot.press("2")
        await wait_until(pilot, lambda: bool(dialog.states[0].selected))
        picked = [state.selected for state in dialog.states]
        assert picked[0] == [1]
        await pilot.press("escape")  # later: it stays asked, in the inbox
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
        assert ask_id in app.store.asks
        await pilot.press("ctrl+b")
        await wait_until(pilot, lambda: isinstance(app.screen, InboxScreen))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen))
        reopened = app.screen
        assert isinstance(reopened, QuestionScreen) and reopened is not dialog
        assert reopened.ask_id == ask_id and [state.selected for state in reopened.states] == picked


async def test_a_question_answered_elsewhere_closes_its_dialog_with_one_toast() -> None:
    """Another client rejected the question whose dialog was open: the app crashed (the
    question dialog's close took no reason), and a permission's said it twice (QA)."""
    from tui.screens.question import QuestionScreen

    app = MainApp()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_connected(pilot)
        await type_prompt(pilot, "question")
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen))
        dialog = app.screen
        assert isinstance(dialog, QuestionScreen)
        app.server.reply_question(dialog.ask.sessionID, dialog.ask_id, None)  # another client
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
        await settle(pilot)
        said = [str(n.message) for n in app._notifications if "elsewhere" in str(n.message)]
        assert said == ["Question answered elsewhere (rejected)."]
        assert app.is_running and dialog.ask_id not in app.store.asks


async def test_keys_typed_for_the_prompt_never_answer_an_ask(monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: a permission dialog that opened mid-prompt took the keys being typed: "a" (of "add
    tests") chose Allow always, which the server saved. The dialog waits for typing to pause,
    and then holds keys a moment (typing resumed right as it opened). (The pause and the hold
    are made long while the test types, so a loaded machine's gaps between keys are no pause.)"""
    from tui.screens import key_guard

    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        monkeypatch.setattr(key_guard, "TYPING_PAUSE_S", 30.0)
        monkeypatch.setattr(key_guard, "KEY_GUARD_S", 30.0)
        await type_prompt(pilot, "Give me a tour of this project.")
        await wait_until(pilot, lambda: bool(app.store.asks))  # (the welcome script's shell ask)
        composer = main_screen(app).query_one(Composer)
        for key in [*"then", "space", *"add", "space", *"tests"]:
            await pilot.press(key)
            await pilot.pause(0.05)
            assert isinstance(app.screen, MainScreen), "opened mid-word"
        assert composer.text == "then add tests"
        monkeypatch.setattr(key_guard, "TYPING_PAUSE_S", 0.8)  # typing has paused
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        dialog = app.screen
        await pilot.press("a", "enter")  # typing resumed as it opened: held, answers nothing
        await pilot.pause(0.2)
        assert app.screen is dialog
        assert not [e for e in app.server.emitted if e["type"] == "permission.replied"]
        # ... and the letter goes on into the prompt under it (QA: a draft typed then was lost);
        # Enter is dropped: the prompt was not sent.
        assert composer.text == "then add testsa"
        monkeypatch.setattr(key_guard, "KEY_GUARD_S", 0.5)
        await wait_until(pilot, lambda: keys_taken(dialog, time.perf_counter()))
        await pilot.press("o")
        await settle(pilot)
        replies = [e["data"]["reply"] for e in app.server.emitted if e["type"] == "permission.replied"]
        assert replies == ["once"] and composer.text == "then add testsa"


async def test_an_ask_waiting_for_typing_to_pause_lets_the_app_close(monkeypatch: pytest.MonkeyPatch) -> None:
    """A suite run failed when the timer of an ask waiting for typing to pause fired as the app
    closed: the main screen was already gone, and the timer raised "main screen missing"."""
    from tui.screens import key_guard
    from widgets.asks.ask_flow import AskFlow

    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        monkeypatch.setattr(key_guard, "TYPING_PAUSE_S", 30.0)
        await type_prompt(pilot, "Give me a tour of this project.")
        await wait_until(pilot, lambda: bool(app.store.asks))  # (the welcome script's shell ask)
        flow = main_screen(app).query_one(AskFlow)
        await wait_until(pilot, lambda: flow.waiting_for_pause)
        monkeypatch.setattr(app, "main_or_none", lambda: None)  # as while the app closes
        flow._paused()  # the timer's callback, at that moment
        await pilot.pause()
        assert app.is_running and not isinstance(app.screen, PermissionScreen)


async def test_a_click_on_the_waiting_flag_opens_the_inbox() -> None:
    """QA: clicking "⚑ 1 waiting" on the status line did nothing; it opens the inbox, as Ctrl+B
    does. A click elsewhere on the line (before it, or on the blank after it: review) opens
    nothing."""
    from tui.screens.inbox import InboxScreen
    from tui.screens.question import QuestionScreen
    from widgets.status.status_bar import StatusBar

    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await type_prompt(pilot, "question")
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen))
        dialog = app.screen  # (opened by itself: it takes keys a moment after)
        await wait_until(pilot, lambda: keys_taken(dialog, time.perf_counter()))
        await pilot.press("escape")  # later: it stays asked
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
        bar = main_screen(app).query_one(StatusBar)
        await wait_until(pilot, lambda: bar.asks_span is not None)
        assert bar.asks_span is not None
        start, end = bar.asks_span
        left = bar.styles.padding.left
        assert bar.render().plain[start:end] == "⚑ 1 waiting" and end < bar.content_region.width
        for x in (start - 2, end, bar.content_region.width - 1):  # the "│" before it, the blank after
            await pilot.click(StatusBar, offset=(left + x, 0))
            await pilot.pause()
            assert isinstance(app.screen, MainScreen), x
        await pilot.click(StatusBar, offset=(left + end - 1, 0))
        await wait_until(pilot, lambda: isinstance(app.screen, InboxScreen))


async def test_a_boot_that_finds_the_app_closing_ends_quietly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Review: with --continue, boot asks for the latest session and then opens it; if the app
    began closing in between, opening it raised "main screen missing" (a worker's error)."""
    import dataclasses

    from tui.session.service import SessionService

    demo = make_demo()
    demo.create_session(title="latest")
    app = MainApp(demo)
    app.spec = dataclasses.replace(app.spec, continue_last=True)
    asked = SessionService.latest_root_session

    async def closing_meanwhile(self: SessionService) -> object:
        latest = await asked(self)
        monkeypatch.setattr(app, "main_or_none", lambda: None)  # as while the app closes
        return latest

    monkeypatch.setattr(SessionService, "latest_root_session", closing_meanwhile)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: not any(w.name == "_boot" and not w.is_finished
                                                for w in app.workers))
        await pilot.pause()
        assert not [n for n in app._notifications if "failed" in str(n.message)]


async def test_toasts_leave_the_prompt_box_and_the_status_line_clear() -> None:
    """QA: a toast stood in Textual's corner, bottom right, over the prompt box and the text being
    typed in it. Toasts stand at the top right now, under the session header."""
    from widgets.composer.composer import Composer
    from widgets.plain import toast
    from widgets.status.session_header import SessionHeader
    from widgets.status.status_bar import StatusBar

    app = MainApp()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_connected(pilot)
        for text in ("first: a toast with a long message that wraps onto a second line of its box",
                     "second", "third"):
            toast(app, text, timeout=30)
        await wait_until(pilot, lambda: len(app.screen.query("Toast")) == 3)
        await pilot.pause()
        screen = main_screen(app)
        kept_clear = [screen.query_one(Composer).region, screen.query_one(StatusBar).region,
                      screen.query_one(SessionHeader).region]
        for shown in app.screen.query("Toast"):
            assert shown.region.area > 0
            for region in kept_clear:
                assert not shown.region.overlaps(region), (shown.region, region)


async def test_no_toast_stands_over_an_approval_dialog() -> None:
    """Review: at the top right, a toast covered the head of a centred permission dialog (who
    asks, the hidden-character warning). Toasts wait for the main screen."""
    from tui.screens.permission import PermissionScreen
    from widgets.plain import toast

    app = MainApp()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_connected(pilot)
        ask = PermissionRequest(id="per_t", sessionID="ses_t", action="bash", resources=["ls"])
        await app.push_screen(PermissionScreen(ask, tool=None, session_title="a session"))
        toast(app, "A toast that must not cover the dialog", timeout=30)
        await pilot.pause()
        await pilot.pause()

        def shown() -> str:
            return "\n".join(strip.text for strip in app.screen._compositor.render_strips())

        assert "Permission" in shown() and "must not cover" not in shown()
        app.pop_screen()
        await wait_until(pilot, lambda: "must not cover" in shown())  # back on the main screen
