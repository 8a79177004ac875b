"""Local file attachments: reading and limits (``tui.session.attachments``), ``/attach`` with path
completion, pasted image paths, the chip row, and what the prompt carries (pilot over the demo).
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest
from textual import events

from tests.snapshots.main_app import settle, wait_connected
from tests.unit.test_bounded_read import within
from tests.unit.test_pickers import composer, menu_labels, recorded_app, seeded, type_text
from tui.session.attachments import (
    MAX_ATTACHMENT_BYTES,
    AttachmentError,
    parse_attach,
    pasted_path,
    path_completions,
    read_attachment,
    resolve_path,
)
from tui.session.mentions import completion_context
from tui.storage import bounded_read
from widgets.composer.attachment_bar import AttachmentBar
from widgets.composer.attachment_chip import AttachmentChip

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ"
                       "/pLvAAAAAElFTkSuQmCC")


@pytest.fixture
def files(tmp_path: Path) -> Path:
    root = tmp_path / "files"
    (root / "pics").mkdir(parents=True)
    (root / "pics" / "dot.png").write_bytes(PNG)
    (root / "notes.md").write_text("# Notes\nhello\n", encoding="utf-8")
    (root / "data.json").write_text('{"a": 1}', encoding="utf-8")
    (root / "logo.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", encoding="utf-8")
    (root / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    (root / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    (root / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 20)
    (root / "doc.pdf").write_bytes(b"%PDF-1.4\n%\xe2\xe3\n")
    (root / "anim.webp").write_bytes(b"RIFF\x10\x00\x00\x00WEBPVP8 ")
    (root / ".hidden").write_text("secret", encoding="utf-8")
    (root / "with space.png").write_bytes(PNG)
    return root


# ---------------------------------------------------------------------------- reading


@pytest.mark.parametrize(("name", "mime", "kind"), [
    ("pics/dot.png", "image/png", "image"),
    ("photo.jpg", "image/jpeg", "image"),
    ("anim.webp", "image/webp", "image"),
    ("doc.pdf", "application/pdf", "pdf"),
    ("logo.svg", "image/svg+xml", "image"),
    ("notes.md", "text/markdown", "text"),
    ("data.json", "application/json", "text"),
])
def test_read_detects_the_type_from_content_then_extension(files: Path, name: str, mime: str,
                                                           kind: str) -> None:
    item = read_attachment(name, str(files))
    assert (item.mime, item.kind, item.name) == (mime, kind, Path(name).name)
    assert item.path == str(files / name) and item.size == (files / name).stat().st_size
    assert item.data_uri() == f"data:{mime};base64," + base64.b64encode((files / name).read_bytes()).decode()
    assert item.file_part() == {"uri": item.data_uri(), "name": Path(name).name}


def test_magic_bytes_beat_a_wrong_extension(files: Path) -> None:
    (files / "really-a-png.txt").write_bytes(PNG)
    assert read_attachment("really-a-png.txt", str(files)).mime == "image/png"


@pytest.mark.parametrize(("raw", "message"), [
    ("", "No path given"),
    ("missing.png", "No such file: missing.png"),
    ("pics", "pics is a directory"),
    ("blob.bin", "blob.bin is not an image, PDF or text file."),
    ("latin1.txt", "not an image, PDF or UTF-8 text file"),
])
def test_refusals_say_why(files: Path, raw: str, message: str) -> None:
    with pytest.raises(AttachmentError, match=message.replace(".", r"\.")):
        read_attachment(raw, str(files))


def test_size_limit_is_checked_before_reading(files: Path) -> None:
    big = files / "big.png"
    big.write_bytes(PNG + b"\x00" * 2048)
    with pytest.raises(AttachmentError, match=r"big.png is 2\.1 KB; the limit is 1\.0 KB"):
        read_attachment("big.png", str(files), max_bytes=1024)
    assert read_attachment("big.png", str(files), max_bytes=4096).size == big.stat().st_size
    assert MAX_ATTACHMENT_BYTES == 10 * 1024 * 1024


def test_fifo_and_devices_are_refused_without_blocking(files: Path) -> None:
    os.mkfifo(files / "pipe")
    with pytest.raises(AttachmentError, match="pipe is a named pipe .FIFO., not a regular file; attach"):
        within(5.0, lambda: read_attachment("pipe", str(files)))  # open() would block for a writer
    if os.path.exists("/dev/zero"):
        with pytest.raises(AttachmentError, match="/dev/zero is a character device"):
            read_attachment("/dev/zero", str(files))


def test_unreadable_file_is_reported(files: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(self: Path, *args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(bounded_read.os, "open", denied)  # chmod 000 does not stop root, so fake it
    with pytest.raises(AttachmentError, match="Cannot read notes.md: Permission denied"):
        read_attachment("notes.md", str(files))


def test_paths_as_typed_or_pasted(files: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(files))
    cwd = str(files / "pics")
    assert resolve_path("dot.png", cwd) == files / "pics" / "dot.png"
    assert resolve_path("'with space.png'", cwd) == Path(cwd) / "with space.png"
    assert resolve_path("/tmp/with\\ space.png", cwd) == Path("/tmp/with space.png")
    assert resolve_path("file:///tmp/with%20space.png", cwd) == Path("/tmp/with space.png")
    assert resolve_path("~/notes.md", cwd) == files / "notes.md"
    assert read_attachment(f'"{files}/with space.png"', "/").name == "with space.png"


def test_parse_attach_keeps_the_rest_of_the_draft() -> None:
    assert parse_attach("/attach a.png") == ("a.png", "")
    assert parse_attach("/attach   my file.png  \nand explain it") == ("my file.png", "and explain it")
    assert parse_attach("/attach") == ("", "")
    assert parse_attach("/attachment x") is None
    assert parse_attach("say /attach x") is None


@pytest.mark.parametrize(("text", "expected"), [
    ("/home/me/shot.png", "/home/me/shot.png"),
    ("  '/home/me/my shot.PNG'\n", "'/home/me/my shot.PNG'"),
    ("file:///home/me/a.pdf", "file:///home/me/a.pdf"),
    ("~/pics/a.webp", "~/pics/a.webp"),
    ("/home/me/notes.md", None),  # text files stay text when pasted
    ("look at /home/me/a.png", None),
    ("a.png", None),  # a bare word is not a path
    ("/a.png\n/b.png", None),
    ("https://example.com/a.png", None),
])
def test_pasted_path_only_for_images_and_pdf(text: str, expected: str | None) -> None:
    assert pasted_path(text) == expected


def test_path_completions(files: Path) -> None:
    cwd = str(files)
    assert path_completions("", cwd) == [
        ("pics/", True), ("anim.webp", False), ("blob.bin", False), ("data.json", False),
        ("doc.pdf", False), ("latin1.txt", False), ("logo.svg", False), ("notes.md", False),
        ("photo.jpg", False), ("with space.png", False)]
    assert path_completions("p", cwd) == [("pics/", True), ("photo.jpg", False)]
    assert path_completions("pics/", cwd) == [("pics/dot.png", False)]
    assert path_completions(".h", cwd) == [(".hidden", False)]
    assert path_completions("notes.md", cwd) == []  # an exact file: the menu closes, Enter attaches
    assert path_completions(f"{files}/no", "/") == [(f"{files}/notes.md", False)]
    assert path_completions("nowhere/", cwd) == []


def test_completion_context_for_attach_paths() -> None:
    ctx = completion_context("/attach pics/d", 14)
    assert ctx is not None and (ctx.kind, ctx.query, ctx.start) == ("path", "pics/d", 8)
    assert completion_context("/attach", 7) is not None and completion_context("/attach", 7).kind == "slash"  # type: ignore[union-attr]
    assert completion_context("/attach a\nmore", 14) is None


# ---------------------------------------------------------------------------- in the app


def chips(app: Any) -> list[str]:
    bar = app.screen_main().query_one(AttachmentBar)
    return [c.key for c in bar.query(AttachmentChip)] if bar.display else []


async def test_attach_with_path_completion_then_send_carries_the_file(files: Path) -> None:
    with seeded() as (demo, sid):
        app, recorder = recorded_app(demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            app.screen_main().composer.attach_base = str(files)
            await type_text(pilot, "/att")
            assert menu_labels(app)[0] == "attach"
            await pilot.press("tab")  # accepts /attach and opens the path menu at once
            await pilot.pause(0.2)
            assert composer(app).text == "/attach "
            assert menu_labels(app)[0] == "pics/"
            await type_text(pilot, "pi")
            await pilot.press("tab")  # a directory: keep completing inside it
            await pilot.pause(0.2)
            assert composer(app).text == "/attach pics/"
            assert menu_labels(app) == ["pics/dot.png"]
            await pilot.press("tab")
            await pilot.pause(0.2)
            assert composer(app).text == "/attach pics/dot.png" and menu_labels(app) == []
            await pilot.press("enter")
            await settle(pilot)
            assert chips(app) == [str(files / "pics" / "dot.png")]
            assert composer(app).text == ""
            await type_text(pilot, "what is this")
            await pilot.press("enter")
            await settle(pilot)
            assert chips(app) == []
            assert "Sent with 1 attachment: dot.png" in [str(n.message) for n in app._notifications]
    sent = recorder.posts("/prompt")
    assert sent == [{"text": "what is this", "delivery": "steer",
                     "files": [{"uri": "data:image/png;base64," + base64.b64encode(PNG).decode(),
                                "name": "dot.png"}]}]
    user = [m for m in demo.state.messages[sid] if m["type"] == "user"][-1]
    assert user["files"][0]["mime"] == "image/png" and user["files"][0]["source"] == {"type": "inline"}


async def test_attach_keeps_the_rest_of_the_draft_and_refuses_clearly(files: Path) -> None:
    with seeded() as (_demo, sid):
        app, recorder = recorded_app(_demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            main = app.screen_main()
            main.composer.attach_base = str(files)
            composer(app).text = "/attach missing.png\nmy long question"
            await pilot.press("enter")
            await settle(pilot)
            assert composer(app).text == "/attach missing.png\nmy long question"  # nothing lost
            assert any("Not attached: No such file: missing.png" in str(n.message)
                       for n in app._notifications)
            assert chips(app) == []
            composer(app).text = "/attach notes.md\nmy long question"
            await pilot.press("enter")
            await settle(pilot)
            assert composer(app).text == "my long question"
            assert chips(app) == [str(files / "notes.md")]
            composer(app).text = "/attach notes.md"  # twice: one chip
            await pilot.press("enter")
            await settle(pilot)
            assert chips(app) == [str(files / "notes.md")]
            composer(app).text = "/attach blob.bin"
            await pilot.press("enter")
            await settle(pilot)
            assert any("blob.bin is not an image" in str(n.message) for n in app._notifications)
    assert recorder.posts("/prompt") == []


async def test_chips_are_removed_with_a_key_or_a_click_and_detach_clears(files: Path) -> None:
    with seeded() as (demo, sid):
        app, _ = recorded_app(demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            main = app.screen_main()
            main.composer.attach_base = str(files)
            for name in ("notes.md", "doc.pdf", "logo.svg"):
                composer(app).text = f"/attach {name}"
                await pilot.press("enter")
                await settle(pilot)
            assert [Path(k).name for k in chips(app)] == ["notes.md", "doc.pdf", "logo.svg"]
            await pilot.press("shift+tab")  # from the composer back to the last chip
            assert isinstance(app.focused, AttachmentChip) and app.focused.key.endswith("logo.svg")
            await pilot.press("delete")
            await settle(pilot)
            assert [Path(k).name for k in chips(app)] == ["notes.md", "doc.pdf"]
            assert app.focused is composer(app)
            chip = main.query_one(AttachmentBar).query(AttachmentChip).first()
            await pilot.click(chip)
            await settle(pilot)
            assert [Path(k).name for k in chips(app)] == ["doc.pdf"]
            composer(app).text = "/detach"
            await pilot.press("enter")
            await settle(pilot)
            assert chips(app) == [] and not main.query_one(AttachmentBar).display


async def test_pasting_an_image_path_attaches_it_and_a_bad_one_stays_text(files: Path) -> None:
    with seeded() as (demo, sid):
        app, recorder = recorded_app(demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            app.screen_main().composer.attach_base = "/"
            box = composer(app)
            box.focus()
            box.post_message(events.Paste(f"'{files}/with space.png'"))
            await settle(pilot)
            assert chips(app) == [str(files / "with space.png")] and box.text == ""
            box.post_message(events.Paste(f"{files}/gone.png"))
            await settle(pilot)
            assert box.text == f"{files}/gone.png"  # not attached: the paste is kept as text
            box.text = "/review"
            await pilot.press("enter")  # a server command also carries the attachment
            await settle(pilot)
    (command,) = recorder.posts("/command")
    assert command["command"] == "review"
    assert [f["name"] for f in command["files"]] == ["with space.png"]
    assert json.dumps(command).count("data:image/png;base64,") == 1


async def test_a_failed_send_keeps_the_attachments(files: Path) -> None:
    with seeded() as (demo, sid):
        app, _ = recorded_app(demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            main = app.screen_main()
            main.composer.attach_base = str(files)
            composer(app).text = "/attach notes.md"
            await pilot.press("enter")
            await settle(pilot)
            demo.state.sessions.pop(sid)  # the session is gone: the prompt answers 404
            composer(app).text = "please read"
            await pilot.press("enter")
            await settle(pilot)
            assert composer(app).text == "please read"
            assert chips(app) == [str(files / "notes.md")]
