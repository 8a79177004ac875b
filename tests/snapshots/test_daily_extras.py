"""SVG snapshots: the attachment chip row, ``/attach`` path completion and a compaction row.

The real ``OctuiApp`` over the in-process demo server (``tests.snapshots.main_app``); the files
to attach are written to a temp dir and only their names, kinds and sizes are on screen.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from tests.snapshots.main_app import NOW, SIZE, MainApp, frozen, make_demo, settle, wait_connected
from tui.demo import assistant, text, user
from widgets.composer.attachment_bar import AttachmentBar
from widgets.composer.completion import CompletionMenu
from widgets.composer.composer import Composer

SnapCompare = Callable[..., bool]
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ"
                       "/pLvAAAAAElFTkSuQmCC")


@pytest.fixture(autouse=True)
def deterministic(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)
    monkeypatch.setenv("OCTUI_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("OCTUI_STATE_DIR", str(tmp_path / "state"))
    with frozen(NOW):
        yield


@pytest.fixture
def files(tmp_path: Path) -> Path:
    root = tmp_path / "files"
    (root / "screens").mkdir(parents=True)
    (root / "screenshot.png").write_bytes(PNG)
    (root / "spec.md").write_text("# Spec\n\nThe greeting must say hello.\n", encoding="utf-8")
    (root / "server.log").write_text("started\n" * 200, encoding="utf-8")
    return root


class AttachApp(MainApp):
    """``MainApp`` on a seeded session whose relative ``/attach`` paths start in ``files``."""

    def __init__(self, files: Path) -> None:
        demo = make_demo()
        info = demo.seed_session("Greeting fix", [user("Fix the greeting."), assistant(text("Done."))])
        super().__init__(demo, session_id=str(info["id"]))
        self.files = files


def attach_app(pilot: Pilot[Any]) -> AttachApp:
    assert isinstance(pilot.app, AttachApp)
    return pilot.app


async def ready(pilot: Pilot[Any]) -> Composer:
    await wait_connected(pilot)
    main = attach_app(pilot).screen_main()
    main.composer.attach_base = str(attach_app(pilot).files)
    return main.query_one(Composer)


async def submit(pilot: Pilot[Any], draft: str) -> None:
    box = attach_app(pilot).screen_main().query_one(Composer)
    box.text = draft
    await pilot.press("enter")
    await pilot.pause(0.2)
    await settle(pilot)


async def chips_shown(pilot: Pilot[Any]) -> None:
    box = await ready(pilot)
    await submit(pilot, "/attach screenshot.png")
    await submit(pilot, "/attach spec.md")
    await submit(pilot, "/attach server.log")
    box.text = "Why does the greeting fail? See the screenshot and the log."
    box.move_cursor(box.document.end)
    await pilot.pause(0.1)
    assert attach_app(pilot).screen_main().query_one(AttachmentBar).display


async def path_menu_open(pilot: Pilot[Any]) -> None:
    await ready(pilot)
    for ch in "/attach s":
        await pilot.press("space" if ch == " " else ch)
    await pilot.pause(0.3)
    await settle(pilot)
    menu = attach_app(pilot).screen_main().query_one(CompletionMenu)
    assert [i.value for i in menu.items] == ["screens/", "screenshot.png", "server.log", "spec.md"]


async def compacted(pilot: Pilot[Any]) -> None:
    await ready(pilot)
    await submit(pilot, "/compact")
    app = attach_app(pilot)
    sid = app.screen_main().session_id
    assert sid is not None
    state = app.store.session(sid)
    assert any(m.role == "compaction" and m.time_completed for m in state.messages.values())


def test_attachment_chips(snap_compare: SnapCompare, files: Path) -> None:
    assert snap_compare(AttachApp(files), terminal_size=SIZE, run_before=chips_shown)


def test_attach_path_completion(snap_compare: SnapCompare, files: Path) -> None:
    assert snap_compare(AttachApp(files), terminal_size=SIZE, run_before=path_menu_open)


def test_compaction_row(snap_compare: SnapCompare, files: Path) -> None:
    assert snap_compare(AttachApp(files), terminal_size=SIZE, run_before=compacted)
