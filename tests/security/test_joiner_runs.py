"""Two zero-width joiners in a row before wide text: Rich (15.0) measures a string that starts so
two ways (``cell_len`` counts the character after them, its grapheme split does not), and cutting
such a line to a width raised IndexError in ``rich.cells._split_text``: an answer holding one
ended the app at some terminal widths (60 and 62 columns here). Two joiners meet in what Rich
draws also when markdown or an SGR sequence stood between them (found by a reviewer). A joiner
stays only after a character it can join; ``clean_text`` shows any other as a token, and the
text renders at every width."""

from __future__ import annotations

import asyncio

import pytest

from tests.unit.tail_growth import CONSOLE
from tui.text.sanitize import clean_text
from widgets.transcript.markdown_chunk import render_piece
from widgets.transcript.markdown_seal import Piece

RUNS = ("\u200d\u200d" + "日" * 30 + " ") * 10  # each word starts with two joiners
WIDTHS = range(10, 121)


def _render(markdown: str, width: int) -> None:
    render_piece(CONSOLE, Piece(markdown, markdown), width)


def test_rich_itself_fails_on_the_raw_text() -> None:
    """The control: uncleaned (``render_piece`` cleans what it renders), the paragraph fails in
    Rich at some widths. If a Rich release fixes this, the test says so, and the token could go."""
    from rich.markdown import Markdown

    failed = []
    for width in WIDTHS:
        try:
            CONSOLE.render_lines(Markdown(RUNS), CONSOLE.options.update(width=width))
        except IndexError:
            failed.append(width)
    assert failed, "Rich renders joiner runs now"


@pytest.mark.parametrize("wrap", ["{}", "```text\n{}\n```\n", "> {}\n", "- {}\n", "**{}**"])
def test_cleaned_joiner_runs_render_at_every_width(wrap: str) -> None:
    cleaned = clean_text(RUNS)
    assert "\u200d" not in cleaned and "<U+200D><U+200D>" in cleaned
    for width in WIDTHS:
        _render(wrap.format(cleaned), width)


@pytest.mark.parametrize("mark", ["**", "*", "~~", "`"])
def test_joiners_with_markdown_between_render_at_every_width(mark: str) -> None:
    """``\u200d**\u200d日…**``: no two joiners meet in the source, but they do in what Rich draws
    (the marks are not drawn). Through the app's own rendering (which cleans the markdown)."""
    markdown = (f"\u200d{mark}\u200d" + "日" * 30 + f"{mark} ") * 10
    for width in WIDTHS:
        _render(markdown, width)


def test_joiners_with_colours_between_wrap_at_every_width() -> None:
    """Tool output: ``plain_ansi`` reads the text between SGR sequences piece by piece, and Rich
    joins the pieces."""
    from widgets.plain import plain_ansi

    content = plain_ansi(("\u200d\x1b[1m\u200d" + "日" * 30 + "\x1b[0m ") * 10)
    assert "\u200d" not in content.plain
    for width in WIDTHS:
        content.wrap(width)


async def test_an_answer_with_joiner_runs_is_shown_at_sixty_columns() -> None:
    from tests.e2e.ui_helpers import screen_text
    from tui.app.app import ConnectSpec, OctuiApp
    from tui.demo import DemoServer

    server = DemoServer(speed=0, heartbeat=0)
    sid = server.create_session(title="joiners")["id"]
    app = OctuiApp(ConnectSpec(url=server.base_url, transport=server.transport, session_id=sid))
    text = RUNS + "\nafter the joiners\n"
    try:
        async with app.run_test(size=(60, 30)) as pilot:
            for _ in range(500):  # bounded: the session open and the stream up
                if app.session.is_ready and app.session.current == sid and \
                        app.stream_state.phase == "connected":
                    break
                await asyncio.sleep(0.01)
            base = {"sessionID": sid, "assistantMessageID": server.ids("msg")}
            server.emit("session.step.started", base | {"agent": "build", "model": server.model_of(sid)})
            server.emit("session.text.started", base | {"ordinal": 0})
            server.emit("session.text.delta", base | {"ordinal": 0, "delta": text})
            server.emit("session.text.ended", base | {"ordinal": 0, "text": text})
            for _ in range(200):  # bounded: ≤ ~2 s
                if "after the joiners" in screen_text(app.screen):
                    break
                await pilot.pause(0.01)
            shown = screen_text(app.screen)
            assert app.is_running
            assert "after the joiners" in shown and "<U+200D>" in shown
    finally:
        await server.aclose()
