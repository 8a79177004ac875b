"""The session header: title, directory and server on one line, degrading to fit a narrow terminal."""

from __future__ import annotations

from typing import Any

import pytest
from rich.cells import cell_len

from tests.snapshots.main_app import DIRECTORY, MainApp, frozen, settle, wait_connected
from tui.demo import assistant, text, user
from tui.text.sanitize import decode_tokens
from widgets.plain import content_runs
from widgets.status.session_header import SessionHeader, header_content, middle_ellipsis

TITLE = "Refactor the auth middleware"
LONG_DIR = "/home/someone/work/clients/acme/monorepo/services/payments-gateway"
SERVER = "127.0.0.1:4096"


def test_everything_fits_at_120() -> None:
    line = header_content(TITLE, "/home/demo/project", SERVER, 118).plain
    assert line.startswith(f"{TITLE}  /home/demo/project")
    assert line.endswith(SERVER) and len(line) == 118


def test_at_80_the_server_goes_before_the_directory_is_cut() -> None:
    line = header_content(TITLE, LONG_DIR, SERVER, 78).plain
    assert SERVER not in line
    assert line.startswith(f"{TITLE}  /home/")
    assert line.endswith("/payments-gateway") and "…" in line
    assert len(line) == 78


def test_server_stays_while_it_fits() -> None:
    line = header_content(TITLE, "/home/demo/project", SERVER, 78).plain
    assert line.endswith(SERVER)


def test_very_narrow_shortens_the_title_then_drops_the_directory() -> None:
    line = header_content("A very long session title that goes on and on", LONG_DIR, SERVER, 40).plain
    assert len(line) <= 40 and "…" in line and line.startswith("A very long")
    tiny = header_content("A very long session title that goes on and on", LONG_DIR, SERVER, 20).plain
    assert len(tiny) <= 20 and "/" not in tiny


@pytest.mark.parametrize("width", [1, 2, 5, 12, 17, 30])
def test_middle_ellipsis_keeps_the_width_and_the_last_folder(width: int) -> None:
    cut = middle_ellipsis("/home/demo/project", width)
    assert len(cut) == min(width, len("/home/demo/project"))
    if width >= 12:
        assert cut.endswith("/project")


def test_server_text_is_one_inert_line() -> None:
    line = header_content("evil\x1b]0;t\x07\ntitle", "/tmp", SERVER, 80).plain
    assert "\x1b" not in line and "\n" not in line


async def test_main_screen_shows_the_open_session_and_repaints_only_on_change() -> None:
    with frozen():
        app = MainApp()
        info = app.server.seed_session(TITLE, [user("hi"), assistant(text("hello"))])
        app.spec.session_id = str(info["id"])
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_connected(pilot)
            header = app.screen_main().query_one(SessionHeader)
            assert header.values == (TITLE, DIRECTORY, "demo.invalid")
            assert header.render_line(0).text.strip().startswith(f"{TITLE}  {DIRECTORY}")
            updates: list[object] = []
            original = header.update

            def counted(*args: Any, **kwargs: Any) -> Any:
                updates.append(args)
                return original(*args, **kwargs)

            header.update = counted  # type: ignore[method-assign]
            for _ in range(5):
                app.screen_main().refresh_status()
            assert updates == []  # nothing changed: no repaint
            app.server.emit("session.renamed", {"sessionID": info["id"], "title": "Renamed"})
            await settle(pilot)
            assert header.values[0] == "Renamed" and len(updates) == 1


async def test_the_status_bar_drops_details_to_fit_80_columns() -> None:
    from widgets.status.status_bar import StatusBar, StatusInfo

    info = StatusInfo(connection="connected", server="1.18 preview 1.18.33", agent="build",
                      model="anthropic/claude-sonnet-4-5", busy=True, tokens=6_700, cost=0.0036,
                      context_limit=200_000, context_used=4_000, asks=2, mode="auto-accept edits")
    with frozen():
        app = MainApp()
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_connected(pilot)
            bar = app.screen_main().query_one(StatusBar)
            bar.info = info
            await pilot.pause()
            line = bar.render_line(0).text.rstrip()
            assert len(line) <= 80 and line.endswith("⚑ 2 waiting")  # whole, never cut mid-part
            assert "connected" in line and "busy" in line and "auto-accept edits" in line
            assert "$0.0036" not in line  # the cost went first
            await pilot.resize_terminal(200, 24)
            await pilot.pause()
            assert "$0.0036" in bar.render_line(0).text


@pytest.mark.parametrize("width", range(8, 70, 3))
def test_hidden_characters_are_tokens_and_never_cut_in_half(width: int) -> None:
    """The header cuts the server's text to fit: a token (``<U+202E>``, ``␛``) is kept whole or
    left out, never shown in half, and every token is styled as one (it decodes back)."""
    title = "evil\u202etitle\x1b]0;x\x07 and more words"
    directory = "/home/\u200b\u200bsomeone/\u202eproj\x1b[2Jects/acme/project"
    line = header_content(title, directory, "host\u202e:4096", width)
    assert line.cell_length <= width
    for piece, token in content_runs(line):
        if token:
            decode_tokens(piece)  # raises on half a token
    assert "\x1b" not in line.plain and "\u202e" not in line.plain


def test_a_long_directory_keeps_its_last_folder() -> None:
    directory = "/" + "/".join(f"folder{i}" for i in range(80)) + "/project"
    line = header_content("t", directory, "", 60).plain
    assert line.startswith("t  /folder0/") and line.endswith("/project") and len(line) <= 60


def test_wide_characters_are_measured_in_cells() -> None:
    # A CJK folder or title is two cells a character: counted as one, the header ran past the
    # screen and the folder that names the project fell off its end.
    for width in (80, 40, 25):
        content = header_content("t", "/home/" + "漢" * 100 + "/project", "s", width)
        assert content.cell_length <= width and content.plain.endswith("/project"), (width, content.plain)
        title = header_content("漢字" * 30, "/home/x/project", "server", width)
        assert title.cell_length <= width and "…" in title.plain
    cut = middle_ellipsis("/home/" + "漢" * 20 + "/project", 20)
    assert cut.endswith("/project") and cell_len(cut) <= 20
