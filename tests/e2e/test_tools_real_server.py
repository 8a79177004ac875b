"""Tool rows (issue "Tool rows") through the headless app against the real server.

Each test opens a fresh session in the app, sends a prompt from the composer, answers the
permission dialog with ``o`` (allow once: nothing is saved, so no rule leaks into later tests of
this session-scoped server; ``always`` on ``edit`` would save ``*`` for the whole project, see
REAL-SERVER.md gotcha 10), and then checks what the row paints.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from rich.segment import Segment
from textual.pilot import Pilot
from textual.strip import Strip
from textual.widgets import Collapsible

from tests.e2e.fake_llm import FakeLLM
from tests.e2e.server import RealServer
from tests.e2e.ui_helpers import (
    running_app,
    screen_text,
    session_texts,
    show_widget,
    submit_prompt,
    tool_call,
    tool_row,
    wait_for_screen,
    wait_until,
    widget_strips,
    widget_text,
)
from tui.app.app import OctuiApp
from tui.screens.permission import PermissionScreen
from tui.state.asks import READING_CURRENT
from tui.state.transcript import ToolCall
from tui.text.tools import WRITE_NO_DIFF, exit_code
from widgets.status.status_bar import StatusBar
from widgets.tools.diff_view import DiffView
from widgets.tools.tool_header import ToolHeader
from widgets.tools.tool_row import ToolRow


def _unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


async def _allow_once(pilot: Pilot[Any], action: str) -> None:
    dialog = await wait_for_screen(pilot, PermissionScreen)
    assert dialog.ask.action == action
    await pilot.press("o")
    await wait_until(pilot, lambda: not isinstance(pilot.app.screen, PermissionScreen), "dialog closed")


async def _finished(pilot: Pilot[Any], app: OctuiApp, sid: str, name: str) -> ToolCall:
    return await wait_until(
        pilot,
        lambda: (call := tool_call(app, sid, name)) is not None and call.finished and call or None,
        f"the {name} call to finish",
    )


async def _painted_row(pilot: Pilot[Any], app: OctuiApp, call: ToolCall) -> ToolRow:
    """The call's row once it shows the finished call, scrolled to the top of the transcript."""

    def ready() -> ToolRow | None:
        # ``row.call`` is the store's object, finished before the row repaints: also wait until
        # the app has flushed every pending change to the screen.
        flushed = not app._pending and not app._flush_scheduled
        row = tool_row(app, call.id)
        return row if row is not None and row.call.finished and flushed else None

    row = await wait_until(pilot, ready, f"the {call.name} row showing the result")
    await show_widget(pilot, row)
    return row


def _line(strips: list[Strip], needle: str) -> Strip:
    found = [strip for strip in strips if needle in strip.text]
    assert found, f"no painted line contains {needle!r}:\n" + "\n".join(s.text for s in strips)
    return found[0]


def _segment(strip: Strip, text: str) -> Segment:
    found = [seg for seg in strip if text in seg.text and seg.style is not None]
    assert found, f"no styled segment with {text!r} in {strip.text!r}"
    return found[0]


def _background(strip: Strip, text: str) -> tuple[int, int, int]:
    style = _segment(strip, text).style
    assert style is not None and style.bgcolor is not None, f"{text!r} has no background"
    red, green, blue = style.bgcolor.get_truecolor()
    return red, green, blue


@pytest.mark.e2e
async def test_bash_coloured_output_and_failed_exit(live_server: RealServer, fake_llm: FakeLLM) -> None:
    sid = live_server.create_session()["id"]
    command = "printf '\\033[31mred\\033[0m\\n'; exit 3"
    tag = fake_llm.add_scenario(
        _unique("tools_bash_exit"),
        [{"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}, {"text": "Exit noted."}],
    )
    shell = live_server.wire.shell_tool  # the server's name for it (1.18 bash, 2.x shell)
    async with running_app(live_server, sid) as (app, pilot):
        await submit_prompt(pilot, f"Fail in colour. {tag}")
        await _allow_once(pilot, shell)
        call = await _finished(pilot, app, sid, shell)
        assert exit_code(call) == 3
        await wait_until(pilot, lambda: "Exit noted." in session_texts(app, sid), "the text after the tool")
        row = await _painted_row(pilot, app, call)

        # A non-zero exit: error styling, the failed-exit policy expands the row, a red badge.
        assert row.has_class("-failed-exit")
        assert row.expanded and row.has_class("-expanded")
        parts = row.query_one(ToolHeader).parts
        assert parts.badge == "exit 3" and not parts.badge_ok

        strips = widget_strips(row)
        header = strips[0].text
        assert shell in header and "exit 3" in header
        # The output line: just "red", painted red, with no escape sequence left over.
        body = strips[1:]
        output = [s for s in body if s.text.strip(" ▌") == "red"]
        assert len(output) == 1, "\n".join(s.text for s in strips)
        colour = _segment(output[0], "red").style
        assert colour is not None and colour.color is not None
        red, green, blue = colour.color.get_truecolor()
        assert red > 150 and green < 100, f"output not red: {(red, green, blue)}"
        assert not any("[31m" in s.text or "[0m" in s.text for s in body if "printf" not in s.text)
        assert "Command exited with code" not in widget_text(row)  # became the badge
        assert "\x1b" not in screen_text(app.screen)


@pytest.mark.e2e
async def test_edit_row_shows_diff(live_server: RealServer, fake_llm: FakeLLM) -> None:
    sid = live_server.create_session()["id"]
    name = _unique("edit_me") + ".txt"
    target = live_server.project_dir / name
    target.write_text("line one\nline two\nline three\n")
    tag = fake_llm.add_scenario(
        _unique("tools_edit"),
        [
            {
                "tool_calls": [
                    {
                        "name": "edit",
                        "arguments": {"path": name, "oldString": "line two",
                                      "newString": "line 2 (edited)\nline 2b"},
                    }
                ]
            },
            {"text": "Edited."},
        ],
    )
    async with running_app(live_server, sid) as (app, pilot):
        await submit_prompt(pilot, f"Edit the file. {tag}")
        await _allow_once(pilot, "edit")
        call = await _finished(pilot, app, sid, "edit")
        assert call.status == "completed", call.error
        assert target.read_text() == "line one\nline 2 (edited)\nline 2b\nline three\n"
        row = await _painted_row(pilot, app, call)

        # Expanded by the per-kind policy (the user never toggled it), one diff view.
        assert row.expanded and row._user_expanded is None
        assert len(row.query(DiffView)) == 1
        strips = widget_strips(row)
        assert name in strips[0].text and "+2 −1" in strips[0].text
        assert f"{name}  modified  +2 −1" in widget_text(row)
        removed = _line(strips, "- line two")
        added = [_line(strips, "+ line 2 (edited)"), _line(strips, "+ line 2b")]
        context = _line(strips, "line three")
        r, g, _ = _background(removed, "line two")
        assert r > g, f"removed line background is not red-tinted: {(r, g)}"
        for line in added:
            r, g, _ = _background(line, "line 2")
            assert g > r, f"added line background is not green-tinted: {(r, g)}"
        assert _background(context, "line three") != _background(removed, "line two")


@pytest.mark.e2e
async def test_a_write_over_a_file_shows_what_it_replaces(live_server: RealServer, fake_llm: FakeLLM) -> None:
    """QA: a ``write`` over an 8-line file was shown as a new file (``@@ -0,0 +1,6 @@``, all
    added), so what it would replace was not seen before allowing it. The dialog shows the old
    lines it removes (1.18 sends no diff with the ask: octui reads the file through the server),
    and a file that does not exist yet as a new one."""
    sid = live_server.create_session()["id"]
    name = _unique("write_me") + ".txt"
    target = live_server.project_dir / name
    target.write_text("keep this line\nold line two\nold line three\n")
    fresh = _unique("new_file") + ".txt"
    tag = fake_llm.add_scenario(_unique("tools_write"), [
        {"tool_calls": [{"name": "write", "arguments": {"filePath": str(target),
                                                         "content": "keep this line\nnew line two\n"}}]},
        {"tool_calls": [{"name": "write", "arguments": {"filePath": str(live_server.project_dir / fresh),
                                                         "content": "brand new\n"}}]},
        {"text": "Written."},
    ])
    async with running_app(live_server, sid) as (app, pilot):
        await submit_prompt(pilot, f"Rewrite the file. {tag}")
        dialog = await wait_for_screen(pilot, PermissionScreen)

        def diff_text() -> str:
            found = dialog.query("#diff")
            return widget_text(found.first()) if found else ""

        def diff_with(needle: str) -> str | None:
            text = diff_text()
            return text if needle in text and READING_CURRENT not in text else None

        shown = await wait_until(pilot, lambda: diff_with("old line two"),
                                 "the dialog to show the lines the write replaces")
        assert "-old line two" in shown and "-old line three" in shown and "+new line two" in shown
        assert "@@ -0,0" not in shown
        assert target.read_text().startswith("keep this line\nold line two")  # nothing written yet
        await pilot.press("o")
        await wait_until(pilot, lambda: target.read_text() == "keep this line\nnew line two\n", "the write")

        dialog = await wait_for_screen(pilot, PermissionScreen)
        shown = await wait_until(pilot, lambda: diff_with("brand new"), "the new file's diff")
        assert "+brand new" in shown and not any(line.lstrip().startswith("-") for line in shown.splitlines())
        await pilot.press("r")
        await wait_until(pilot, lambda: not isinstance(pilot.app.screen, PermissionScreen), "dialog closed")
        assert not (live_server.project_dir / fresh).exists()

        # QA: after the overwrite was allowed, its row showed only the new content ("+2 −?").
        # It shows what it replaced: the diff the dialog showed (1.18), or the server's (2.x).
        call = await _finished(pilot, app, sid, "write")
        text = widget_text(await _painted_row(pilot, app, call))
        assert "- old line two" in text and "- old line three" in text and "+ new line two" in text, text
        assert "+1 −2" in text, text  # counts of the real change, not "+2 −?"
        assert WRITE_NO_DIFF not in text
        # The history read again (as after a reconnect) rebuilds the calls: the diff stays.
        app.session.on_changes(await app.session.history.newest(sid))

        def rebuilt() -> ToolCall | None:
            found = tool_call(app, sid, "write")
            return found if found is not call else None

        reloaded = await wait_until(pilot, rebuilt, "the history read again")
        text = widget_text(await _painted_row(pilot, app, reloaded))
        assert "- old line two" in text and "+1 −2" in text, text


@pytest.mark.e2e
async def test_apply_patch_row_shows_added_file(live_server: RealServer, fake_llm: FakeLLM) -> None:
    sid = live_server.create_session()["id"]
    new_name = _unique("added") + ".py"
    old_name = _unique("patched") + ".txt"
    (live_server.project_dir / old_name).write_text("alpha\nbeta\n")
    patch = (
        "*** Begin Patch\n"
        f"*** Add File: {new_name}\n+print('hello')\n+print('bye')\n"
        f"*** Update File: {old_name}\n@@\n alpha\n-beta\n+gamma\n"
        "*** End Patch"
    )
    tag = fake_llm.add_scenario(
        _unique("tools_patch"),
        [{"tool_calls": [{"name": "apply_patch", "arguments": {"patchText": patch}}]}, {"text": "Patched."}],
    )
    scenario = tag.removeprefix("[[scenario:").removesuffix("]]")
    async with running_app(live_server, sid) as (app, pilot):
        await submit_prompt(pilot, f"Patch it. {tag}")
        first = await wait_until(pilot, lambda: fake_llm.requests_for(scenario), "the model request")
        if "apply_patch" not in first[0]["offered_tools"]:
            # A server without the tool (2.x offers edit/write only, traces-2.0 more_tools.json):
            # the call fails as unknown, no ask, nothing written (TRACES.md 2: "Unknown tool: ...").
            call = await _finished(pilot, app, sid, "apply_patch")
            assert call.status == "error" and call.error is not None
            assert "apply_patch" in call.error.message  # the server names the tool it lacks
            assert not isinstance(app.screen, PermissionScreen) and not app.store.asks
            assert not (live_server.project_dir / new_name).exists()
            assert (live_server.project_dir / old_name).read_text() == "alpha\nbeta\n"
            row = await _painted_row(pilot, app, call)
            assert row.has_class("-error")
            return
        await _allow_once(pilot, "edit")
        call = await _finished(pilot, app, sid, "apply_patch")
        assert call.status == "completed", call.error
        assert (live_server.project_dir / new_name).read_text() == "print('hello')\nprint('bye')\n"
        row = await _painted_row(pilot, app, call)

        assert row.expanded
        header = widget_strips(row)[0].text
        assert "apply_patch" in header and "2 files +3 −1" in header
        sections = {str(c.title): c for c in row.query(Collapsible).results(Collapsible)}
        added_title = f"{new_name}  added  +2 −0"
        assert set(sections) == {added_title, f"{old_name}  modified  +1 −1"}
        added = sections[added_title]
        assert not added.collapsed
        text = widget_text(added)
        assert added_title in text
        for code in ("print('hello')", "print('bye')"):
            # Syntax colours split the code into tokens: any token carries the row background.
            r, g, _ = _background(_line(widget_strips(added), f"+ {code}"), "print")
            assert g > r, f"added line {code!r} is not green-tinted"


@pytest.mark.e2e
async def test_the_agents_plan_is_on_the_status_line(live_server: RealServer, fake_llm: FakeLLM) -> None:
    """The todo tool's newest list, unfinished: how far the agent got and what it is doing now
    (OpenCode's TUI keeps it in a sidebar). A server without the tool (the recorded 2.x offers
    none) fails the call as unknown, and no plan is shown."""
    sid = live_server.create_session()["id"]
    todos = [{"content": "Read the parser", "status": "completed", "priority": "high", "id": "1"},
             {"content": "Write the [bold]tests[/]", "status": "in_progress", "priority": "high", "id": "2"},
             {"content": "Run them", "status": "pending", "priority": "low", "id": "3"}]
    tag = fake_llm.add_scenario(
        _unique("tools_todo"),
        [{"tool_calls": [{"name": "todowrite", "arguments": {"todos": todos}}]}, {"text": "Planned."}],
    )
    scenario = tag.removeprefix("[[scenario:").removesuffix("]]")
    async with running_app(live_server, sid) as (app, pilot):
        await submit_prompt(pilot, f"Plan it. {tag}")
        first = await wait_until(pilot, lambda: fake_llm.requests_for(scenario), "the model request")
        offered = "todowrite" in first[0]["offered_tools"]
        if offered:
            if isinstance(app.screen, PermissionScreen) or app.store.asks:  # (a server that asks)
                await _allow_once(pilot, "todowrite")
        call = await _finished(pilot, app, sid, "todowrite")
        await wait_until(pilot, lambda: "Planned." in session_texts(app, sid), "the text after the tool")
        bar = app.screen_main().query_one(StatusBar)
        line = bar.render_line(0).text
        if not offered:
            assert call.status == "error" and "☐" not in line
            return
        assert call.status == "completed"
        assert "☐ 1/3 todos" in line and "Write the [bold]tests[/]" in line, line


@pytest.mark.e2e
async def test_the_file_a_write_replaces_is_read_as_the_server_holds_it(live_server: RealServer) -> None:
    """What the write dialog says about the file it replaces, from the real server's answers:
    its text, a new file (in a folder or not), not text, too large, outside the session's folder."""
    from tui.client.http import OpenCodeClient
    from tui.session.current_file import CURRENT_MAX_BYTES, read_current

    project = live_server.project_dir
    folder = _unique("current")
    (project / folder).mkdir()
    (project / folder / "text.txt").write_text("héllo\nworld\n")
    (project / folder / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    (project / folder / "big.txt").write_text("x" * (CURRENT_MAX_BYTES + 10))
    client = OpenCodeClient(live_server.url, username=live_server.username, password=live_server.password)
    directory = str(project)
    try:
        text = await read_current(client, str(project / folder / "text.txt"), directory)
        assert (text.text, text.exists) == ("héllo\nworld\n", True)
        relative = await read_current(client, f"{folder}/text.txt", directory)
        assert relative.text == "héllo\nworld\n"
        for name in (f"{folder}/missing.txt", f"{folder}/new/deeper.txt", _unique("top") + ".txt"):
            missing = await read_current(client, name, directory)
            assert missing.text is None and missing.exists is not True, (name, missing)
        assert (await read_current(client, f"{folder}/missing.txt", directory)).exists is False
        blob = await read_current(client, f"{folder}/blob.bin", directory)
        assert blob.text is None and "not text" in blob.note
        big = await read_current(client, f"{folder}/big.txt", directory)
        assert big.text is None and "larger than" in big.note
        outside = await read_current(client, "/etc/hostname", directory)
        assert outside.text is None and "outside" in outside.note
    finally:
        await client.aclose()
