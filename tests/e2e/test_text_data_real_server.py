"""Server text is data, against the real server: commands that look like markup, and commands that
hide part of themselves from a terminal, in the approval dialog and the tool row.

The fake LLM asks for ``bash`` with the command as the tool's JSON arguments, exactly as a model
would (fitted to the server's shell tool: 1.18 ``bash``, 2.x ``shell``); the server turns it into a
permission ask; octui shows it; the user answers with a key. Event names are the generation's
(``wire.ev``).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from tests.e2e.fake_llm import FakeLLM
from tests.e2e.server import EventRecorder, RealServer
from tests.e2e.ui_helpers import (
    running_app,
    screen_strips,
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
from tui.screens.main import MainScreen
from tui.screens.permission import PermissionScreen
from tui.state.transcript import ToolCall
from tui.text.tools import exit_code
from widgets.plain import decode_runs

HOSTNAME = Path("/etc/hostname")
ESCAPES = ("\x1b", "\x07", "\x9d", "\u202e")


def _unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def _bash(command: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}


def _of(sid: str) -> Any:
    return lambda data: data.get("sessionID") == sid


async def _finished(pilot: Pilot[Any], app: OctuiApp, sid: str, shell: str, index: int = 0) -> ToolCall:
    """The ``index``-th call of the server's shell tool (``wire.shell_tool``) once it finished."""
    return await wait_until(
        pilot,
        lambda: (call := tool_call(app, sid, shell, index)) is not None and call.finished and call or None,
        f"{shell} call #{index} to finish",
    )


async def _closed(pilot: Pilot[Any], dialog: PermissionScreen) -> None:
    await wait_until(pilot, lambda: pilot.app.screen is not dialog, "the dialog to close")


def _shown_command(dialog: PermissionScreen) -> str:
    """The #command widget's lines decoded back (reverse-video runs are tokens), ``$ `` removed."""
    lines = []
    for strip in widget_strips(dialog.query_one("#command", Static)):
        runs = [(seg.text, bool(seg.style is not None and seg.style.reverse)) for seg in strip]
        lines.append(decode_runs(runs).strip(" ▌▐"))
    return "\n".join(lines).removeprefix("$ ")


def _no_raw_escape(app: OctuiApp) -> None:
    for strip in screen_strips(app.screen):
        for segment in strip:
            assert not any(char in segment.text for char in ESCAPES), repr(segment.text)
            assert segment.style is None or not segment.style.link


@pytest.mark.e2e
@pytest.mark.skipif(not HOSTNAME.is_file(), reason="this machine has no /etc/hostname")
async def test_markup_looking_command_is_shown_and_runs(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder
) -> None:
    """``awk -F'[/:]'`` used to crash the dialog (an unmatched ``[/:]`` closing tag) on every open."""
    sid = live_server.create_session()["id"]
    command = "awk -F'[/:]' '{print $1}' /etc/hostname"
    expected = HOSTNAME.read_text(encoding="utf-8").splitlines()[0].replace(":", "/").split("/")[0]
    tag = fake_llm.add_scenario(_unique("textdata_awk"), [_bash(command), {"text": "Host read."}])
    async with running_app(live_server, sid) as (app, pilot):
        await submit_prompt(pilot, f"Read the host name. {tag}")
        dialog = await wait_for_screen(pilot, PermissionScreen)
        assert dialog.ask.sessionID == sid and dialog.tool is not None
        assert f"$ {command}" in screen_text(dialog)
        assert _shown_command(dialog) == command
        assert "Hidden or control characters" not in screen_text(dialog)
        assert not dialog.query("#resources")  # the command is shown once (the 1.18 resource is it)
        await pilot.press("o")
        await _closed(pilot, dialog)
        call = await _finished(pilot, app, sid, live_server.wire.shell_tool)
        assert call.status == "completed" and exit_code(call) == 0
        assert call.output_text.strip().startswith(expected)
        await wait_until(pilot, lambda: "Host read." in session_texts(app, sid), "the text after the tool")
        row = await wait_until(pilot, lambda: tool_row(app, call.id), "the bash row")
        row.expanded = True
        await show_widget(pilot, row)
        await wait_until(pilot, lambda: expected in widget_text(row), "the row to show the output")
        text = widget_text(row)
        assert command in text  # header and body show the command as sent, brackets and all
        _no_raw_escape(app)
    (reply,) = events.of_type(live_server.wire.ev("permission.replied"), _of(sid))
    assert reply["data"]["reply"] == "once"


@pytest.mark.e2e
async def test_hidden_command_parts_are_shown_in_the_dialog(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder
) -> None:
    """An OSC string (``ESC ] … BEL``) and a carriage return used to hide ``touch HIDDEN`` and
    ``touch X``: the terminal swallowed the one, the sanitiser kept only the text after the other."""
    sid = live_server.create_session()["id"]
    hidden_osc = "echo harmless \x1b]; touch HIDDEN \x07"
    hidden_cr = "touch X\recho benign"
    scenario = _unique("textdata_hidden")
    tag = fake_llm.add_scenario(scenario, [_bash(hidden_osc), _bash(hidden_cr), {"text": "Both refused."}])
    async with running_app(live_server, sid) as (app, pilot):
        await submit_prompt(pilot, f"Run these. {tag}")

        dialog = await wait_for_screen(pilot, PermissionScreen)
        assert dialog.tool is not None and dialog.tool.input.get("command") == hidden_osc
        text = screen_text(dialog)
        assert "echo harmless ␛]; touch HIDDEN ␇" in text
        assert "Hidden or control characters" in text and "escape" in text and "bell" in text
        assert _shown_command(dialog) == hidden_osc
        _no_raw_escape(app)
        await pilot.press("m")
        await pilot.press(*"not with escapes")
        await pilot.press("enter")
        await _closed(pilot, dialog)

        dialog = await wait_for_screen(pilot, PermissionScreen)
        assert dialog.tool is not None and dialog.tool.input.get("command") == hidden_cr
        text = screen_text(dialog)
        assert "touch X\\recho benign" in text and "carriage return" in text
        assert _shown_command(dialog) == hidden_cr
        await pilot.press("r")
        await _closed(pilot, dialog)

        first = await _finished(pilot, app, sid, live_server.wire.shell_tool, 0)
        second = await _finished(pilot, app, sid, live_server.wire.shell_tool, 1)
        assert first.status == second.status == "error"
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen), "the main screen")
        row = await wait_until(pilot, lambda: tool_row(app, first.id), "the first bash row")
        await show_widget(pilot, row)
        await wait_until(pilot, lambda: "touch HIDDEN ␇" in widget_text(row), "the row to show the command")
        assert "echo harmless ␛]; touch HIDDEN ␇" in widget_text(row)
        _no_raw_escape(app)
    assert not (live_server.project_dir / "HIDDEN").exists()
    assert not (live_server.project_dir / "X").exists()
    replies = events.of_type(live_server.wire.ev("permission.replied"), _of(sid))
    assert [r["data"]["reply"] for r in replies] == ["reject", "reject"]
