"""The agent's plan on the status line (``tui.state.todos``): the newest todo list, unfinished."""

from __future__ import annotations

from typing import Any

import pytest

from tests.snapshots.main_app import (
    MainApp,
    ManualClock,
    frozen,
    main_screen,
    make_demo,
    settle,
    wait_connected,
)
from tui.demo.fixtures import assistant, text, user
from tui.state.todos import TodoProgress, todo_progress
from tui.state.transcript import Message, SessionState, TextBlock, ToolCall
from widgets.status.status_bar import StatusBar, StatusInfo


def _todos(*statuses: str) -> list[dict[str, Any]]:
    return [{"content": f"step {i}", "status": status, "id": str(i)} for i, status in enumerate(statuses)]


def _state(*calls: ToolCall, after: int = 0) -> SessionState:
    state = SessionState(id="ses_1")
    for i, call in enumerate(calls):
        state.messages[f"msg_{i}"] = Message(id=f"msg_{i}", role="assistant", parts=[call])
    for j in range(after):
        state.messages[f"msg_text_{j}"] = Message(id=f"msg_text_{j}", role="assistant",
                                                   parts=[TextBlock("text", 0, "words")])
    return state


def _write(todos: list[dict[str, Any]] | None, name: str = "todowrite") -> ToolCall:
    return ToolCall(id="call", name=name, input={} if todos is None else {"todos": todos})


def test_the_newest_list_counts_what_is_done_and_names_what_is_being_done() -> None:
    state = _state(_write(_todos("completed", "pending")),
                   _write(_todos("completed", "completed", "in_progress", "pending", "cancelled")))
    assert todo_progress(state) == TodoProgress(done=2, total=4, doing="step 2")


def test_no_plan_when_there_is_none_or_it_was_emptied() -> None:
    assert todo_progress(_state()) is None
    assert todo_progress(_state(_write(None, name="todoread"))) is None
    assert todo_progress(_state(_write(_todos("pending")), _write([]))) is None  # emptied: no older one
    assert todo_progress(_state(_write(_todos("completed")))) == TodoProgress(1, 1, "")


def test_a_plan_written_hundreds_of_steps_ago_is_still_the_plan() -> None:
    # A review: each step of one long turn is a message, and the scan stopped at 200 of them.
    assert todo_progress(_state(_write(_todos("in_progress")), after=500)) == TodoProgress(0, 1, "step 0")


def test_a_failed_call_is_no_plan() -> None:
    # A review: a rejected call (bad input, an unknown tool, cut off) replaced the plan; 2.x
    # keeps an unknown tool's input.
    failed = _write(_todos("pending", "pending", "pending"))
    failed.status = "error"
    assert todo_progress(_state(_write(_todos("completed", "in_progress")), failed)) == \
        TodoProgress(done=1, total=2, doing="step 1")
    assert todo_progress(_state(failed)) is None


def test_a_blank_item_in_progress_names_nothing() -> None:
    assert todo_progress(_state(_write([{"content": "  \n ", "status": "in_progress"}]))) == \
        TodoProgress(0, 1, "")


def test_an_undone_turns_list_is_not_the_plan() -> None:
    state = _state(_write(_todos("pending", "pending")), _write(_todos("completed", "pending")))
    state.messages["msg_1"].reverted = True
    assert todo_progress(state) == TodoProgress(done=0, total=2, doing="")


@pytest.mark.parametrize("todos", [[{"content": 3, "status": "in_progress"}], ["text"], [None]])
def test_malformed_items_cost_nothing(todos: list[Any]) -> None:
    progress = todo_progress(_state(_write(todos)))
    assert progress is None or progress.doing == ""


async def test_the_status_line_shows_the_plan_and_drops_its_item_first() -> None:
    info = StatusInfo(connection="connected", server="1.18 preview 1.18.33", agent="build",
                      model="anthropic/claude-sonnet-4-5", busy=True, tokens=6_700, cost=0.0036,
                      todos_done=2, todos_total=5, doing="Write the [bold]parser[/] tests")
    with frozen():
        app = MainApp()
        async with app.run_test(size=(200, 24)) as pilot:
            await wait_connected(pilot)
            bar = app.screen_main().query_one(StatusBar)
            bar.info = info
            await pilot.pause()
            line = bar.render_line(0).text
            assert "☐ 2/5 todos" in line and "Write the [bold]parser[/] tests" in line
            await pilot.resize_terminal(100, 24)
            await pilot.pause()
            line = bar.render_line(0).text
            assert "☐ 2/5 todos" in line and "parser" not in line
            await pilot.resize_terminal(130, 24)  # the usage goes before the item in progress
            await pilot.pause()
            line = bar.render_line(0).text
            assert "parser" in line and "6.7k tok" not in line


async def test_the_status_line_follows_the_plan_while_the_turn_goes_on() -> None:
    """Refreshed when the todo call of the open session changes, not only when the turn ends
    (a review: no test read the line while the session was busy)."""
    with frozen():
        clock = ManualClock()
        demo = make_demo(clock)
        sid = demo.seed_session("S", [user("hi"), assistant(text("hello"))])["id"]
        app = MainApp(demo, session_id=sid, demo_clock=clock)
        async with app.run_test(size=(200, 30)) as pilot:
            await wait_connected(pilot)
            bar = main_screen(app).query_one(StatusBar)
            base = {"sessionID": sid, "assistantMessageID": "msg_live"}
            demo.emit("session.step.started",
                      base | {"agent": "build", "model": {"id": "scripted", "providerID": "demo"}})
            await settle(pilot)
            call = base | {"id": "call_plan", "executed": True}
            plan = {"todos": [{"content": "Do X", "status": "in_progress"},
                              {"content": "Y", "status": "pending"}]}
            demo.emit("session.tool.input.started", call | {"name": "todowrite"})
            demo.emit("session.tool.called", call | {"input": plan})
            demo.emit("session.tool.success", call | {"content": [{"type": "text", "text": "ok"}]})
            await pilot.pause(0.3)
            await settle(pilot)
            line = bar.render_line(0).text
            assert "busy" in line and "☐ 0/2 todos" in line and "Do X" in line, line
