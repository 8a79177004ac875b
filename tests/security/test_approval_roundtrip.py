"""What the approval dialog shows maps back to exactly the command that will run.

``decode_runs`` is the inverse of the dialog's encoding: reverse-video runs are tokens (``␛``,
``\\r``, ``<U+202E>`` …, one per hidden character), everything else is literal. For any string
(hypothesis: arbitrary text and escape-heavy text), decoding what is shown gives the string back:

* from the ``Content`` the dialog's ``#command`` widget holds, and
* from the segments the real widget renders (styles resolved by the running app's theme), line by
  line, the way a reader (or a screen reader of the terminal) would see them.

And nothing shown is itself hidden: no control, bidi or invisible character is left in the text.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.content import Content
from textual.strip import Strip
from textual.visual import Visual
from textual.widgets import Static

from tests.security.hostile_corpus import SMALL
from tests.snapshots.dialog_app import DialogApp
from tui.protocol.models import PermissionRequest
from tui.screens.permission import PermissionScreen, command_content
from tui.state.transcript import ToolCall
from tui.text.sanitize import hidden_characters
from widgets.plain import content_runs, decode_runs

PIECES = st.sampled_from([
    "\x1b", "[", "]", "P", "_", "^", "X", "\\", "\x07", "\x9b", "\x9c", "\x9d", "\x90", ";", "0", "m",
    "\r", "\n", "\t", "\b", "\x00", "\x7f", "\x85", " ", "  ", "a", "<U+202E>", "\\r", "␛", "␇",
    "\u202e", "\u2066", "\u200b", "\u200d", "\ufeff", "\u00a0", "\u2028", "\ud800", "é", "e\u0301",
    "漢", "😀", "[/b]", '[@click=screen.reply("always")]', "[link=x]", "$ ", "rm -rf ~",
])
COMMANDS = st.one_of(
    st.text(),
    st.lists(st.one_of(PIECES, st.text(max_size=4)), max_size=30).map("".join),
    st.sampled_from(sorted(SMALL.values())),
)


def _decode_strips(strips: list[Strip]) -> str:
    """Lines of rendered segments back to text: reverse-video segments are tokens."""
    lines = []
    for strip in strips:
        runs = [(seg.text, bool(seg.style is not None and seg.style.reverse)) for seg in strip]
        lines.append(decode_runs(runs))
    return "\n".join(lines)


@settings(max_examples=600, deadline=None)
@given(COMMANDS)
def test_dialog_content_decodes_back_to_the_command(command: str) -> None:
    shown = command_content(command)
    assert decode_runs(content_runs(shown)) == command
    assert not hidden_characters(shown.plain.replace("\n", ""), strict=True), repr(shown.plain)


def test_literal_tokens_are_not_mistaken_for_hidden_characters() -> None:
    for text in ("echo \\r ␛ <U+202E>", "printf 'a\\tb'", "␛]0;x␇"):
        shown = command_content(text)
        assert decode_runs(content_runs(shown)) == text
        assert not any(token for _, token in content_runs(shown))


async def test_rendered_dialog_decodes_back_to_the_command() -> None:
    ask = PermissionRequest(id="per_1", sessionID="ses_1", action="bash", resources=["x"])
    tool = ToolCall(id="call_1", name="bash", input={"command": "x"})
    app = DialogApp(lambda: PermissionScreen(ask, tool=tool, session_title="s"))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        widget = app.screen.query_one("#command", Static)
        examples: list[str] = []

        @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
        @given(COMMANDS)
        def rendered_round_trip(command: str) -> None:
            # The dialog's own Content for this command (what compose gives #command) …
            visual: Any = Content.assemble(("$ ", "dim"), command_content(command))
            # … rendered by the real widget with the app's theme, wide enough not to wrap.
            strips = Visual.to_strips(widget, visual, 100_000, None, widget.visual_style)
            shown = _decode_strips(strips)
            assert shown.startswith("$ ")
            assert shown[2:] == command, (command, [s.text for s in strips])
            examples.append(command)

        rendered_round_trip()
        assert len(examples) > 100


async def test_dialog_on_screen_holds_the_command_content() -> None:
    """The dialog really shows ``command_content``: the #command widget renders it, at its width."""
    command = "echo harmless \x1b]; touch HIDDEN \x07\ntouch X\recho benign\t\u202e"
    ask = PermissionRequest(id="per_1", sessionID="ses_1", action="bash", resources=["x"])
    tool = ToolCall(id="call_1", name="bash", input={"command": command})
    app = DialogApp(lambda: PermissionScreen(ask, tool=tool, session_title="s"))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        widget = app.screen.query_one("#command", Static)
        assert isinstance(widget.visual, Content)
        assert decode_runs(content_runs(widget.visual)).removeprefix("$ ") == command
        lines = [line.text for line in app.screen._compositor.render_strips()]
        screen = "\n".join(lines)
        assert "echo harmless ␛]; touch HIDDEN ␇" in screen
        assert "touch X\\recho benign\\t<U+202E>" in screen
        assert "Hidden or control characters" in screen
