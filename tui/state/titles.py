"""A title for a session the server leaves untitled.

OpenCode titles a session from its first exchange; a 1.18 server does not for sessions made
through ``/api`` (every one octui makes read "New session - 2026-12-07T21:11:12.123Z" in the
session list, QA). Once the first turn is over, a session octui made that still has the
server's default title is titled from its first prompt, as the server would have (a 2.x
server titles its own by then, and is left alone).
"""

from __future__ import annotations

import re

from tui.text.sanitize import one_line

_DEFAULT = re.compile(r"^(New|Child) session - \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")
TITLE_CHARS = 60


def is_default_title(title: str | None) -> bool:
    """The server's own placeholder title (or none at all)."""
    return not title or bool(_DEFAULT.match(title))


def title_from_prompt(text: str) -> str | None:
    """The prompt's first line that says something, cut to ``TITLE_CHARS``; None if none does."""
    for line in text.splitlines():
        if line.strip():
            return one_line(line.strip(), TITLE_CHARS)
    return None
