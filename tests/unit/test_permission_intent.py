"""A shell ask's dialog shows what the agent says the command is for (its ``description``), as
the agent's own words, hidden characters and all (QA: OpenCode's TUI shows it, octui never did)."""

from __future__ import annotations

from textual.widgets import Static

from tests.snapshots.test_dialogs import SIZE, app_for, settle
from tui.protocol.models import PermissionRequest
from tui.screens.permission import PermissionScreen
from tui.state.transcript import ToolCall


def ask_with(description: object) -> tuple[PermissionRequest, ToolCall]:
    ask = PermissionRequest(id="per_1", sessionID="ses_a", action="bash", resources=["seq 1 60"])
    tool = ToolCall(id="call_1", name="bash", session_id="ses_a",
                    input={"command": "seq 1 60", "description": description})
    return ask, tool


async def test_the_agents_description_is_shown_as_its_words() -> None:
    ask, tool = ask_with("count to sixty")
    app = app_for(lambda: PermissionScreen(ask, tool=tool, session_title="s"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        intent = app.screen.query_one("#intent", Static)
        assert str(intent.render()) == "The agent says it is to: count to sixty"
        assert not app.screen.query("#hidden-warning")


async def test_a_hidden_character_in_it_is_shown_and_warned_of() -> None:
    ask, tool = ask_with("tidy up \u202eterces\u202c files")
    app = app_for(lambda: PermissionScreen(ask, tool=tool, session_title="s"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = str(app.screen.query_one("#intent", Static).render())
        assert "\u202e" not in shown and "U+202E" in shown  # a visible token, never the character
        assert app.screen.query("#hidden-warning")


async def test_no_description_or_not_text_shows_nothing() -> None:
    for description in ("", "   ", None, ["x"]):
        ask, tool = ask_with(description)
        app = app_for(lambda: PermissionScreen(ask, tool=tool, session_title="s"))  # noqa: B023
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert not app.screen.query("#intent"), description


async def test_a_description_of_many_lines_stays_on_one_and_cannot_fake_the_command() -> None:
    """Review: newlines in it drew a "Command / $ ls" block above the real command and pushed
    that out of view (at 80x24 the dialog then refused Allow as cramped)."""
    ask, tool = ask_with("list files\n\nCommand\n $ ls -la\n" + "\n" * 20 + "end")
    app = app_for(lambda: PermissionScreen(ask, tool=tool, session_title="s"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        intent = app.screen.query_one("#intent", Static)
        assert intent.region.height == 1
        assert "⏎" in str(intent.render())  # the breaks are shown, not made
        assert not app.screen.has_class("-cramped")
        assert "$ seq 1 60" in "\n".join(strip.text for strip in app.screen._compositor.render_strips())
