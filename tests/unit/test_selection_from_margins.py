"""A mouse drag begun in the transcript's own cells (its padding columns, the blank rows between
messages) starts at the text beside it, as in a terminal (QA: a drag from the left edge of a line
of an answer selected, and copied, the answer from its top)."""

from __future__ import annotations

from typing import Any

from tests.snapshots.main_app import SIZE, MainApp, main_screen, settle, wait_connected
from widgets.transcript.transcript import Transcript

ANSWER = "Intro paragraph.\n\nLine two here.\n\nLine three here.\n\nLine four here.\n"


async def answered(app: MainApp, pilot: Any, *answers: str) -> None:
    """Each answer in an assistant message of its own (a blank row of the transcript between)."""
    await wait_connected(pilot)
    session = app.server.create_session(title="margins")
    await app.open_session(session["id"])
    server = app.server
    for answer in answers or (ANSWER,):
        base = {"sessionID": session["id"], "assistantMessageID": server.ids("msg")}
        model = server.model_of(session["id"])
        server.emit("session.step.started", base | {"agent": "build", "model": model})
        server.emit("session.text.started", base | {"ordinal": 0})
        server.emit("session.text.delta", base | {"ordinal": 0, "delta": answer})
        server.emit("session.text.ended", base | {"ordinal": 0, "text": answer})
        server.emit("session.step.ended", base | {"finish": "stop"})
        await settle(pilot)


def row_of(app: MainApp, needle: str) -> int:
    rows = [strip.text for strip in app.screen._compositor.render_strips()]
    [y] = [y for y, row in enumerate(rows) if needle in row]
    return y


async def test_a_drag_from_the_left_edge_starts_on_that_line() -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await answered(app, pilot)
        transcript = main_screen(app).query_one(Transcript)
        edge = transcript.region.x  # the transcript's padding column, left of every message
        assert app.screen.get_widget_and_offset_at(edge, row_of(app, "Line three"))[0] is not transcript
        three, four = row_of(app, "Line three"), row_of(app, "Line four")
        text_x = app.screen._compositor.render_strips()[four].text.index("Line four")
        await pilot.mouse_down(offset=(edge, three))
        await pilot.hover(offset=(text_x + 3, four))
        await pilot.mouse_up(offset=(text_x + 3, four))
        await pilot.pause()
        assert app.screen.get_selected_text() == "Line three here.\n\nLine"


async def test_a_drag_from_the_blank_row_between_messages_starts_at_the_next_one() -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await answered(app, pilot, "First answer.\n", "Second answer here.\n\nMore of it.\n")
        transcript = main_screen(app).query_one(Transcript)
        first, second = row_of(app, "First answer"), row_of(app, "Second answer")
        compositor = app.screen._compositor  # (what is under a cell, before the screen's remap)
        gap = next(y for y in range(first + 1, second)
                   if compositor.get_widget_and_offset_at(10, y)[0] is transcript)
        more = row_of(app, "More of it")
        text_x = app.screen._compositor.render_strips()[more].text.index("More")
        await pilot.mouse_down(offset=(text_x + 5, gap))  # a row of the transcript's own
        await pilot.hover(offset=(text_x + 3, more))
        await pilot.mouse_up(offset=(text_x + 3, more))
        await pilot.pause()
        assert app.screen.get_selected_text() == "Second answer here.\n\nMore"


async def test_a_drag_ending_in_the_right_padding_ends_on_that_line() -> None:
    """Review: released right of the scroll bar (the transcript's right padding), the drag took
    the paragraph below the pointer too."""
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await answered(app, pilot, "First answer.\n", "Second answer here.\n\nMore of it.\n")
        transcript = main_screen(app).query_one(Transcript)
        first, second = row_of(app, "First answer"), row_of(app, "Second answer")
        text_x = app.screen._compositor.render_strips()[first].text.index("First")
        right = transcript.region.right - 1  # the transcript's last column: its padding
        assert app.screen._compositor.get_widget_and_offset_at(right, second)[0] is transcript
        await pilot.mouse_down(offset=(text_x, first))
        await pilot.hover(offset=(right, second))
        await pilot.mouse_up(offset=(right, second))
        await pilot.pause()
        copied = app.screen.get_selected_text()
        assert copied is not None and copied.startswith("First answer.")
        assert copied.rstrip().endswith("Second answer here.") and "More" not in copied, copied
