"""Reading the file a whole-file write replaces (``tui/session/current_file.py``), over a
scripted transport: the request, the size cap, and how a failed read is told apart."""

from __future__ import annotations

from urllib.parse import unquote

import httpx
import pytest

from tui.client.http import OpenCodeClient
from tui.session.current_file import CURRENT_MAX_BYTES, read_current
from tui.state.asks import COMPARE_MAX_LINES, CurrentFile, PermissionRequest, _diff_kinds, permission_preview
from tui.state.transcript import ToolCall

BASE = "http://127.0.0.1:4096"


def client_for(files: dict[str, bytes], folders: dict[str, list[str]],
               seen: list[httpx.Request]) -> OpenCodeClient:
    """A server holding ``files``; ``folders`` lists each folder the server can list."""

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        path = request.url.path
        if path.startswith("/api/fs/read/"):
            raw = request.url.raw_path.decode().split("?", 1)[0]
            name = unquote(raw.removeprefix("/api/fs/read/"))
            if name in files:
                return httpx.Response(200, content=files[name])
            return httpx.Response(500, json={"name": "UnknownError", "data": {"message": "Unexpected"}})
        if path == "/api/fs/list":
            folder = request.url.params.get("path", "")
            if folder in folders:
                return httpx.Response(200, json={"location": {}, "data": [
                    {"path": entry, "type": "directory" if entry.endswith("/") else "file"}
                    for entry in folders[folder]]})
            return httpx.Response(500, json={"name": "UnknownError", "data": {"message": "Unexpected"}})
        return httpx.Response(404)

    return OpenCodeClient(BASE, password="pw", transport=httpx.MockTransport(answer))


async def test_a_file_is_read_relative_to_the_session_folder_with_its_name_escaped() -> None:
    seen: list[httpx.Request] = []
    client = client_for({"src/a b#?.py": b"x = 1\n"}, {}, seen)
    current = await read_current(client, "/proj/src/a b#?.py", "/proj")
    assert current == CurrentFile("x = 1\n", exists=True)
    assert seen[0].url.raw_path.startswith(b"/api/fs/read/src/a%20b%23%3F.py?")
    assert seen[0].url.params["location[directory]"] == "/proj"
    assert "pw" not in str(seen[0].url)  # the password is in the auth header only


async def test_no_dot_segment_reaches_the_url() -> None:
    """httpx resolves ``..`` in a URL: ``fs/read/../../x`` would ask another route (review)."""
    client = client_for({}, {}, [])
    for path in ("../../etc/passwd", "a/./b", "a//b", ""):
        with pytest.raises(ValueError):
            await client.fs_read(path, "/proj")


async def test_a_large_or_binary_file_is_said_to_be_not_fetched_whole() -> None:
    seen: list[httpx.Request] = []
    client = client_for({"big.txt": b"x" * (CURRENT_MAX_BYTES + 5), "b.bin": b"\0\1"}, {}, seen)
    big = await read_current(client, "big.txt", "/proj")
    assert big.text is None and big.exists and "larger than" in big.note
    binary = await read_current(client, "b.bin", "/proj")
    assert binary.text is None and "not text" in binary.note


@pytest.mark.parametrize(("path", "folders", "exists", "note"), [
    ("new.txt", {"": ["old.txt"]}, False, ""),  # the folder lists no such file: new
    ("src/new.txt", {"": ["src/"], "src": ["src/a.py"]}, False, ""),
    ("fresh/deeper/new.txt", {"": ["src/"]}, False, ""),  # a new folder on the way: new too
    ("locked.txt", {"": ["locked.txt"]}, True, "could not read it"),  # listed, unreadable
    ("x/y.txt", {}, None, "could not read it"),  # nothing lists: not known
])
async def test_a_failed_read_is_told_from_a_new_file(path: str, folders: dict[str, list[str]],
                                                     exists: bool | None, note: str) -> None:
    current = await read_current(client_for({}, folders, []), path, "/proj")
    assert current.text is None and current.exists is exists and note in current.note


def test_a_removed_line_that_looks_like_a_header_is_still_a_removal() -> None:
    """Review: a removed ``---`` (a YAML rule) read as ``----`` and was drawn as a dim header."""
    lines = ["--- a/x.md", "+++ b/x.md", "@@ -1,3 +1,2 @@", "----", "--- sql comment", "+++added", " title",
             "=== y.md", "--- y.md", "+++ y.md", "@@ -1 +1 @@", "-a", "+b"]
    assert [kind for kind, _ in _diff_kinds(lines)] == [
        "meta", "meta", "hunk", "del", "del", "add", "ctx", "meta", "meta", "meta", "hunk", "del", "add"]


def test_a_write_that_changes_only_line_endings_or_a_huge_file_says_so() -> None:
    ask = PermissionRequest(id="p", sessionID="s", action="edit")
    write = ToolCall(id="c", name="write", input={"filePath": "n.txt", "content": "a\nb\n"})
    endings = permission_preview(ask, write, CurrentFile("a\nb", exists=True)).diff
    assert endings == [("meta", "=== n.txt (only its line endings, or the newline at its end, change)")]
    huge = "\n".join(f"line {n}" for n in range(COMPARE_MAX_LINES + 1))
    shown = permission_preview(ask, write, CurrentFile(huge, exists=True)).diff
    assert any("too many to compare" in line for _, line in shown) and not any(k == "del" for k, _ in shown)
