"""The permission dialog fits the screen however much the server sends: the title, who asks, the
buttons and the key hints always stay in view, and every resource and every "always" pattern (the
ones the ``a`` key saves) can be scrolled into view, at every size the snapshot tests use."""

from __future__ import annotations

import re
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget

from tests.snapshots.dialog_app import DialogApp
from tui.app.app import OctuiApp
from tui.protocol.models import PermissionRequest
from tui.screens.permission import PermissionScreen
from tui.state.transcript import ToolCall

SIZES = [(80, 24), (100, 30), (100, 34), (120, 40), (140, 60), (200, 60)]
PATTERNS = [f"pattern-{i}" for i in range(60)] + ["rm -rf /*"]
RESOURCES = [f"src/module_{i}.py" for i in range(60)] + ["/etc/shadow"]
ALWAYS_VISIBLE = ["#dialog-title", "#who", "#buttons Button", ".dialog-hint"]


class SizedDialogApp(DialogApp):
    """``DialogApp`` with octui's breakpoints, so the ``-narrow`` and ``-short`` rules apply."""

    HORIZONTAL_BREAKPOINTS = OctuiApp.HORIZONTAL_BREAKPOINTS
    VERTICAL_BREAKPOINTS = OctuiApp.VERTICAL_BREAKPOINTS


def long_bash() -> tuple[PermissionRequest, ToolCall | None]:
    ask = PermissionRequest(id="per_long", sessionID="ses_a", action="bash",
                            resources=["make test"], save=PATTERNS)
    tool = ToolCall(id="call_1", name="bash", session_id="ses_a", input={"command": "make test"})
    return ask, tool


def long_edit() -> tuple[PermissionRequest, ToolCall | None]:
    ask = PermissionRequest(id="per_long", sessionID="ses_a", action="edit", resources=RESOURCES,
                            save=PATTERNS)
    return ask, None


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.pause()


def painted(app: DialogApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def never_seen(texts: list[str], seen: str) -> list[str]:
    """The ``texts`` that were never painted as a whole word (``pattern-1`` is not ``pattern-10``)."""
    return [t for t in texts if not re.search(rf"(?<![\w-]){re.escape(t)}(?![\w-])", seen)]


def assert_fixed_parts_in_view(app: DialogApp, across: bool = True) -> None:
    """Title, who, every button and the hints: inside the screen and the dialog, not under the
    scrolling body (``across``: also left to right; only top to bottom when not)."""
    screen = app.screen
    dialog = screen.query_one("#dialog").content_region
    regions: list[tuple[str, Region]] = []
    for selector in ALWAYS_VISIBLE:
        widgets: list[Widget] = list(screen.query(selector))
        assert widgets, selector
        for widget in widgets:
            region = widget.region
            if not across:  # keep its rows, take its columns from the dialog's
                region = Region(dialog.x, region.y, dialog.width, region.height)
            assert region.height > 0, (selector, region)
            assert screen.region.contains_region(region), (selector, region, screen.region)
            assert dialog.contains_region(region), (selector, region, dialog)
            regions.append((selector, region))
    body = screen.query_one("#dialog-body").region
    for selector, region in regions:
        assert not body.overlaps(region), (selector, region, body)


@pytest.mark.parametrize("app_class", [DialogApp, SizedDialogApp], ids=["plain", "breakpoints"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("make", [long_bash, long_edit], ids=["bash", "edit"])
async def test_long_lists_stay_reachable(app_class: type[DialogApp], size: tuple[int, int],
                                         make: Any) -> None:
    ask, tool = make()
    app = app_class(lambda: PermissionScreen(ask, tool=tool, session_title="Fix the flaky tests"))
    # DialogApp has no breakpoints: under 100 columns it lacks the two-row buttons (``-narrow``)
    # that octui always uses there, so its last button runs off the right edge; only rows count.
    across = app_class is SizedDialogApp or size[0] >= 100
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert_fixed_parts_in_view(app, across)
        body = app.screen.query_one("#dialog-body", VerticalScroll)
        assert body.show_vertical_scrollbar, "the body must show it scrolls"
        assert app.screen.has_class("-body-scrolls")
        assert app.screen.query_one("#scroll-cue").display
        assert "Scroll to read all" in painted(app)
        seen = painted(app)
        for _ in range(60):  # PgDn through the body: each step keeps the buttons in view
            if body.scroll_y >= body.max_scroll_y:
                break
            await pilot.press("pagedown")
            await settle(pilot)
            assert_fixed_parts_in_view(app, across)
            seen += "\n" + painted(app)
        assert body.scroll_y == body.max_scroll_y
        assert "rm -rf /*" in painted(app)  # the last pattern, with the buttons, at the end
        # QA: the cue kept asking to scroll once the end was read.
        assert "Scrolled to the end" in painted(app) and "Scroll to read all" not in painted(app)
        assert not never_seen(PATTERNS, seen), "every pattern the a key saves can be read"
        if ask.action == "edit":
            assert not never_seen(RESOURCES, seen), "every resource can be read"
        await pilot.press("a")
        await settle(pilot)
    assert app.answered


@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=["80x24", "100x30"])
async def test_reject_message_box_also_fits(size: tuple[int, int]) -> None:
    ask, tool = long_edit()
    app = SizedDialogApp(lambda: PermissionScreen(ask, tool=tool, session_title="s"))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        assert_fixed_parts_in_view(app)
        box = app.screen.query_one("#reject-message")
        assert app.screen.region.contains_region(box.region) and box.region.height > 0


async def test_short_dialog_does_not_scroll_or_cue() -> None:
    ask = PermissionRequest(id="per_bash", sessionID="ses_a", action="bash", resources=["make test"],
                            save=["make *"])
    app = DialogApp(lambda: PermissionScreen(ask, tool=None, session_title="s"))
    async with app.run_test(size=(100, 34)) as pilot:
        await settle(pilot)
        body = app.screen.query_one("#dialog-body", VerticalScroll)
        assert not body.show_vertical_scrollbar and not body.focusable
        assert not app.screen.query_one("#scroll-cue").display
        assert_fixed_parts_in_view(app)


async def test_tab_reaches_a_scrolling_body() -> None:
    ask, tool = long_edit()
    app = DialogApp(lambda: PermissionScreen(ask, tool=tool, session_title="s"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        body = app.screen.query_one("#dialog-body", VerticalScroll)
        for _ in range(6):
            if app.focused is body:
                break
            await pilot.press("tab")
        assert app.focused is body
        await pilot.press("end")
        await settle(pilot)
        assert body.scroll_y == body.max_scroll_y and "rm -rf /*" in painted(app)
        assert_fixed_parts_in_view(app)


@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=["80x24", "100x30"])
async def test_a_long_diff_is_paged_with_the_body(size: tuple[int, int]) -> None:
    # The command or diff had a scroll of its own (40% of the screen) inside the body: the body
    # did not scroll, PgDn moved nothing, and most of the diff was never drawn.
    lines = [f"+added line {i}" for i in range(60)]
    patch = "@@ -0,0 +1,60 @@\n" + "\n".join(lines) + "\n"
    ask = PermissionRequest(id="per_diff", sessionID="ses_a", action="edit", resources=["a.py"],
                            metadata={"files": [{"file": "a.py", "patch": patch, "additions": 60}]})
    app = SizedDialogApp(lambda: PermissionScreen(ask, tool=None, session_title="s"))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        body = app.screen.query_one("#dialog-body", VerticalScroll)
        seen = painted(app)
        for _ in range(60):
            if body.max_scroll_y and body.scroll_y >= body.max_scroll_y:
                break
            await pilot.press("pagedown")
            await settle(pilot)
            assert_fixed_parts_in_view(app)
            seen += "\n" + painted(app)
        assert app.screen.has_class("-body-scrolls")
        assert not never_seen([line.lstrip("+") for line in lines], seen), "every line of the diff"
