"""Local files attached to a prompt by path: reading, type detection, limits and path completion.

No Textual here. A file is read on the client and sent inline as a ``data:`` URL (``files[].uri``
of the prompt, PROTOCOL.md §4.4), because the server may run on another machine and a
``file://`` URI would name a path there. Images (PNG, JPEG, GIF, WebP, SVG), PDF and UTF-8 text
are accepted; anything else, a directory, a missing or unreadable path, or a file larger than
``MAX_ATTACHMENT_BYTES`` raises ``AttachmentError`` with a message meant for the user.

``pasted_path`` recognises a paste that is just the path of an image or PDF (as terminals paste a
dragged file), so it can be attached instead of inserted as text.
"""

from __future__ import annotations

import base64
import mimetypes
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from tui.session.mentions import MEDIA_SUFFIXES
from tui.storage.bounded_read import FileRefused, human_bytes, read_bounded

__all__ = [
    "MAX_ATTACHMENT_BYTES",
    "AttachmentError",
    "LocalAttachment",
    "parse_attach",
    "pasted_path",
    "path_completions",
    "read_attachment",
    "resolve_path",
]

MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024
"""Largest file octui attaches (its base64 form is a third larger in the request)."""

_MAGIC: list[tuple[bytes, str]] = [
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
]
_PASTE_EXTENSIONS = MEDIA_SUFFIXES | {".svg"}
_TEXT_APPLICATION = {"application/json", "application/xml", "application/javascript",
                     "application/x-sh", "application/toml", "application/yaml", "application/x-yaml",
                     "image/svg+xml"}
_ATTACH = re.compile(r"/attach(?:[ \t]+(?P<path>[^\n]*))?[ \t]*(?:\n|\Z)")


class AttachmentError(Exception):
    """A file that cannot be attached; ``str(error)`` is the user-facing reason."""


@dataclass(frozen=True)
class LocalAttachment:
    """One local file read into memory, ready to send."""

    path: str
    """Absolute path it was read from."""
    name: str
    mime: str
    size: int
    data: bytes = field(repr=False)

    @property
    def kind(self) -> str:
        """``image``, ``pdf`` or ``text`` (for the chip label)."""
        if self.mime.startswith("image/"):
            return "image"
        return "pdf" if self.mime == "application/pdf" else "text"

    @property
    def label(self) -> str:
        return f"{self.name} · {self.kind} · {human_bytes(self.size)}"

    def data_uri(self) -> str:
        return f"data:{self.mime};base64,{base64.b64encode(self.data).decode('ascii')}"

    def file_part(self) -> dict[str, str]:
        """The prompt ``files`` entry (``PromptInput.FileAttachment``: ``uri`` + ``name``)."""
        return {"uri": self.data_uri(), "name": self.name}


def resolve_path(raw: str, cwd: str) -> Path:
    """The absolute path a user typed or pasted: quotes, ``file://`` URLs, ``~`` and ``\\ `` handled."""
    text = raw.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    if text.startswith("file://"):
        parts = urlsplit(text)
        text = unquote(parts.path)
    elif os.sep == "/":
        text = re.sub(r"\\(.)", r"\1", text)  # shell-escaped spaces from a terminal drag
    path = Path(text).expanduser()
    return path if path.is_absolute() else Path(cwd) / path


def parse_attach(text: str) -> tuple[str, str] | None:
    """``(path, rest)`` when the draft's first line is ``/attach [PATH]``; ``rest`` is the other lines."""
    match = _ATTACH.match(text)
    if match is None:
        return None
    return (match.group("path") or "").strip(), text[match.end():]


def pasted_path(text: str) -> str | None:
    """The path when a paste is a single image/PDF path (plain, quoted or ``file://``)."""
    candidate = text.strip()
    if not candidate or "\n" in candidate or len(candidate) > 4096:
        return None
    bare = candidate.strip("'\"")
    looks_like_path = bare.startswith(("/", "~/", "./", "../", "file://")) or re.match(r"[A-Za-z]:\\", bare)
    if not looks_like_path:
        return None
    suffix = Path(unquote(urlsplit(bare).path) if bare.startswith("file://") else bare).suffix
    return candidate if suffix.lower() in _PASTE_EXTENSIONS else None


def _sniff(head: bytes) -> str | None:
    for magic, mime in _MAGIC:
        if head.startswith(magic):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def _text_mime(path: Path) -> str:
    guessed, _ = mimetypes.guess_type(path.name)
    if guessed and (guessed.startswith("text/") or guessed in _TEXT_APPLICATION):
        return guessed
    if path.suffix.lower() in (".md", ".markdown"):
        return "text/markdown"  # not in every platform's mimetypes table
    return "text/plain"


def read_attachment(raw: str, cwd: str, *, max_bytes: int = MAX_ATTACHMENT_BYTES) -> LocalAttachment:
    """Read the file at ``raw`` (relative to ``cwd``) for attaching.

    Raises:
        AttachmentError: the path is empty, missing, a directory, unreadable, too large, or not
            an image, PDF or UTF-8 text file.
    """
    if not raw.strip():
        raise AttachmentError("No path given: type /attach PATH (Tab completes paths).")
    path = resolve_path(raw, cwd)
    shown = raw.strip()
    try:
        # Checked before it is opened: a FIFO would block the reader for ever, /dev/zero never
        # ends (tui/storage/bounded_read.py).
        data = read_bounded(path, max_bytes)
    except FileNotFoundError:
        raise AttachmentError(f"No such file: {shown}") from None
    except FileRefused as exc:
        if exc.reason == "is a directory":
            raise AttachmentError(f"{shown} is a directory; attach a file inside it.") from None
        if exc.size is not None:
            raise AttachmentError(f"{path.name} is {human_bytes(exc.size)}; the limit is "
                                  f"{human_bytes(max_bytes)}.") from None
        raise AttachmentError(f"{shown} {exc.reason}; attach an image, PDF or text file.") from None
    except OSError as exc:
        raise AttachmentError(f"Cannot read {shown}: {exc.strerror or exc}") from None
    mime = _sniff(data[:16])
    if mime is None:
        if b"\x00" in data:
            raise AttachmentError(f"{path.name} is not an image, PDF or text file.")
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            raise AttachmentError(f"{path.name} is not an image, PDF or UTF-8 text file.") from None
        mime = _text_mime(path)
    return LocalAttachment(path=str(path), name=path.name, mime=mime, size=len(data), data=data)


def path_completions(query: str, cwd: str, limit: int = 50) -> list[tuple[str, bool]]:
    """``(value, is_dir)`` entries completing ``query`` on the local filesystem.

    ``value`` is ``query`` with its last segment completed (directories end in ``/``). Entries
    starting with ``.`` are listed only when the segment typed starts with ``.``. A query that
    already names a file exactly gets no entries, so the menu closes and Enter attaches it.
    """
    head, _, prefix = query.rpartition("/")
    base = head + "/" if head or query.startswith("/") else ""
    directory = resolve_path(base or ".", cwd)
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name.lower())
    except OSError:
        return []
    found: list[tuple[str, bool]] = []
    for entry in entries:
        name = entry.name
        if name.startswith(".") and not prefix.startswith("."):
            continue
        if not name.lower().startswith(prefix.lower()):
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            continue
        if not is_dir and name == prefix:
            return []
        found.append((base + name + ("/" if is_dir else ""), is_dir))
    found.sort(key=lambda item: not item[1])  # directories first, each group by name
    return found[:limit]
