"""QA repro in the app with the demo server: the `subagents` prompt, Alt+Down into a child, Alt+Up
back to the parent (its history is loaded again). The failed subagent's row still names its child
and opens it; before the fix it read "failed no child yet" / "no child session yet"."""

from __future__ import annotations

from typing import Any

from tests.snapshots.main_app import MainApp, frozen, main_screen, settle, type_prompt, wait_connected
from widgets.tools.tool_header import ToolHeader
from widgets.tools.tool_row import ToolRow


def failed_row(app: MainApp) -> ToolRow:
    return next(r for r in main_screen(app).query(ToolRow) if "flaky" in str(r.call.input))


async def test_a_failed_subagent_keeps_its_child_after_leaving_and_coming_back() -> None:
    with frozen():
        app = MainApp()
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_connected(pilot)
            await type_prompt(pilot, "subagents")
            await settle(pilot)
            await pilot.press("escape")  # leave the child's permission in the inbox
            await settle(pilot)
            parent = main_screen(app).session_id
            child = failed_row(app).call.child_session_id
            assert child is not None and child.startswith("ses_")
            loads = 0
            load_history = app.store.load_history

            def counted(*args: Any, **kwargs: Any) -> Any:
                nonlocal loads
                loads += args[0] == parent
                return load_history(*args, **kwargs)

            app.store.load_history = counted  # type: ignore[method-assign]
            await pilot.press("alt+down")
            await settle(pilot)
            assert main_screen(app).session_id != parent
            await pilot.press("alt+up")
            await settle(pilot)
            assert main_screen(app).session_id == parent
            assert loads >= 1  # coming back did reload the parent's history

            row = failed_row(app)
            assert row.call.status == "error" and row.call.child_session_id == child
            summary = row.query_one(ToolHeader).parts.summary.plain
            assert summary == f"failed → {child}", summary
