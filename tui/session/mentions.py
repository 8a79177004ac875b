"""Pure parsing of a composer draft: ``/command args``, ``@path`` mentions and completion context.

No Textual and no I/O. Offsets in the ``mention`` spans sent to the server are counted in UTF-16
code units, because the server (TypeScript) slices ``text`` with JavaScript string indices; for
text without astral characters (emoji and the like) they equal Python indices.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import PurePath, PurePosixPath, PureWindowsPath
from typing import Any, Literal

__all__ = [
    "CompletionContext",
    "Mention",
    "SlashCommand",
    "completion_context",
    "file_uri",
    "find_mentions",
    "fuzzy_filter",
    "fuzzy_score",
    "parse_slash",
    "prompt_files",
    "utf16_offset",
]

_MENTION = re.compile(r"(?<!\S)@([^\s@]+)")
_SLASH = re.compile(r"/([A-Za-z0-9][\w.:-]*)(?:[ \t]+(.*))?\Z", re.S)
_TRAILING_PUNCT = ".,;:!?)]}'\""
_ATTACH_ARG = re.compile(r"/attach[ \t]+(?=[^\n]*\Z)")


@dataclass(frozen=True)
class SlashCommand:
    """``/name arguments`` at the very start of a draft."""

    name: str
    arguments: str = ""


@dataclass(frozen=True)
class Mention:
    """An ``@path`` token: ``start``/``end`` are Python indices of the whole token (with the ``@``)."""

    start: int
    end: int
    path: str

    @property
    def text(self) -> str:
        return f"@{self.path}"


@dataclass(frozen=True)
class CompletionContext:
    """What the cursor is completing: a slash command name, an ``@`` path or a local file path.

    ``start`` is the index of the ``/`` or ``@`` (for ``path``: of the path's first character),
    ``end`` the cursor; ``query`` is the text between.
    """

    kind: Literal["slash", "mention", "path"]
    query: str
    start: int
    end: int


def parse_slash(text: str, known: Collection[str] | None = None) -> SlashCommand | None:
    """``/name args`` when ``text`` starts with a slash command (and ``name`` is ``known``, if given).

    A draft such as ``/usr/bin is odd`` is not a command when ``known`` lacks ``usr``.
    """
    stripped = text.strip()
    match = _SLASH.match(stripped)
    if match is None:
        return None
    name = match.group(1)
    if known is not None and name not in known:
        return None
    return SlashCommand(name, (match.group(2) or "").strip())


def find_mentions(text: str) -> list[Mention]:
    """Every ``@path`` token that starts the text or follows whitespace (``a@b.c`` is no mention).

    Trailing sentence punctuation is not part of the path: ``see @a.py.`` mentions ``a.py``.
    """
    found: list[Mention] = []
    for match in _MENTION.finditer(text):
        path = match.group(1).rstrip(_TRAILING_PUNCT)
        if path:
            found.append(Mention(match.start(), match.start() + 1 + len(path), path))
    return found


def utf16_offset(text: str, index: int) -> int:
    """The JavaScript (UTF-16) index of Python index ``index`` in ``text``."""
    return index + sum(1 for ch in text[:index] if ord(ch) > 0xFFFF)


def file_uri(directory: str, path: str) -> str:
    """``file://`` URI of ``path`` (relative to ``directory`` unless absolute)."""
    flavour: type[PurePath] = PureWindowsPath if _is_windows_path(directory) else PurePosixPath
    target = flavour(path)
    if not target.is_absolute():
        target = flavour(directory) / target
    return target.as_uri()


def _is_windows_path(directory: str) -> bool:
    return len(directory) > 1 and directory[1] == ":" or directory.startswith("\\\\")


def prompt_files(text: str, directory: str, accepted: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """The ``files`` of a prompt: one attachment per ``@path`` mention, with its span in ``text``.

    Args:
        text: The prompt text exactly as sent.
        directory: The session directory; mention paths are relative to it.
        accepted: Paths known to exist (picked from completion). ``None`` accepts every mention.
            Mentions not in the set stay plain text, so ``@someone`` never becomes a file.
    """
    allowed = None if accepted is None else set(accepted)
    files: list[dict[str, Any]] = []
    for mention in find_mentions(text):
        if allowed is not None and mention.path not in allowed:
            continue
        files.append({
            "uri": file_uri(directory, mention.path),
            "name": mention.path,
            "mention": {"start": utf16_offset(text, mention.start),
                        "end": utf16_offset(text, mention.end), "text": mention.text},
        })
    return files


MEDIA_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".pdf"})


def is_media_path(path: str) -> bool:
    """Whether a mentioned path is an image or a PDF (by its name): what a provider takes as media."""
    dot = path.rfind(".")
    return dot > path.rfind("/") and path[dot:].lower() in MEDIA_SUFFIXES


def completion_context(text: str, cursor: int) -> CompletionContext | None:
    """The completion the cursor is in, if any.

    * ``slash``: the draft starts with ``/`` and the cursor is still inside the first word.
    * ``path``: the cursor is in the argument of an ``/attach`` on the first line (local files).
    * ``mention``: the cursor ends an ``@partial`` token that starts the text or follows whitespace.
    """
    cursor = max(0, min(cursor, len(text)))
    head = text[:cursor]
    attach = _ATTACH_ARG.match(head)
    if attach is not None:
        return CompletionContext("path", head[attach.end():], attach.end(), cursor)
    if head.startswith("/") and not any(ch.isspace() for ch in head):
        return CompletionContext("slash", head[1:], 0, cursor)
    at = head.rfind("@")
    if at < 0:
        return None
    token = head[at + 1:]
    if any(ch.isspace() for ch in token) or (at > 0 and not head[at - 1].isspace()):
        return None
    return CompletionContext("mention", token, at, cursor)


def fuzzy_score(query: str, candidate: str) -> int | None:
    """Subsequence match score (higher is better), ``None`` when ``query`` does not match.

    Rewards a prefix match, consecutive letters and matches at word starts; case-insensitive.
    """
    if not query:
        return 0
    q, c = query.lower(), candidate.lower()
    if c.startswith(q):
        return 1000 - len(c)
    score, at, previous = 0, 0, -2
    for ch in q:
        found = c.find(ch, at)
        if found < 0:
            return None
        score += 10 if found == previous + 1 else 1
        if found == 0 or not c[found - 1].isalnum():
            score += 5
        previous, at = found, found + 1
    return score - len(c) // 10


def fuzzy_filter(query: str, items: Iterable[Any], key: Any = str) -> list[Any]:
    """``items`` that match ``query`` (via ``key(item)``), best first; stable for equal scores."""
    scored = [(s, i, item) for i, item in enumerate(items)
              if (s := fuzzy_score(query, key(item))) is not None]
    scored.sort(key=lambda t: (-t[0], t[1]))
    return [item for _, _, item in scored]
