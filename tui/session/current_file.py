"""What a whole-file write would replace: the file as the server reads it now.

A ``write`` ask carries only the new content, and a server that sends no diff with it (1.18)
leaves a client to show that content as if the file were new, whatever it replaces. The dialog
asks for the file (``GET /api/fs/read``) and shows the real change; when the read fails it says
why, and whether the server lists such a file at all (``GET /api/fs/list`` of its folder).
"""

from __future__ import annotations

from tui.client.errors import OctuiError
from tui.client.http import OpenCodeClient
from tui.state.asks import CurrentFile, project_relative
from tui.storage.bounded_read import human_bytes

CURRENT_MAX_BYTES = 1 << 20  # compared up to this; a larger file is said to be, not fetched whole


async def read_current(client: OpenCodeClient, path: str, directory: str) -> CurrentFile:
    """The file at ``path`` (absolute, or relative to ``directory``) as the server holds it."""
    relative = project_relative(path, directory)
    if relative is None:
        return CurrentFile(None, note="it is outside the session's folder (the only one the server reads)")
    try:
        data = await client.fs_read(relative, directory, limit=CURRENT_MAX_BYTES)
    except OctuiError as exc:
        return await _unread(client, relative, directory, exc)
    if len(data) > CURRENT_MAX_BYTES:
        limit = human_bytes(CURRENT_MAX_BYTES)
        return CurrentFile(None, exists=True, note=f"the current file is larger than {limit}")
    if b"\0" in data:
        return CurrentFile(None, exists=True, note=f"the current file is not text ({human_bytes(len(data))})")
    try:
        return CurrentFile(data.decode("utf-8"), exists=True)
    except UnicodeDecodeError:
        return CurrentFile(None, exists=True, note="the current file is not UTF-8 text")


async def _unread(client: OpenCodeClient, relative: str, directory: str, error: OctuiError) -> CurrentFile:
    """A read that failed: the servers answer 500 for a file that does not exist (and for a
    folder), so the listing of the nearest folder on its path that lists tells a new file (in
    a new folder, maybe) from one that could not be read."""
    parts = relative.split("/")
    for depth in range(len(parts) - 1, -1, -1):
        folder = "/".join(parts[:depth])
        try:
            entries = await client.fs_list(folder, directory)
        except OctuiError:
            continue  # no such folder either: the one above
        listed = {str(entry.get("path", "")).rstrip("/") for entry in entries}
        step = "/".join(parts[:depth + 1])  # the file, or the first folder on its way
        if step not in listed:
            return CurrentFile(None, exists=False)
        if step == relative:
            return CurrentFile(None, exists=True, note=f"the server could not read it ({error})")
        break  # a folder that lists above one that does not: not a plain new file
    return CurrentFile(None, note=f"the server could not read it ({error})")
