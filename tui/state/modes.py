"""Permission modes: how much octui answers on the user's behalf. Pure: no Textual, no I/O.

Three modes, per session tree (a subagent uses its root's mode):

* ``SUPERVISED`` (default): reads, searches, the question tool and starting subagents are
  allowed; every other permission ask is shown.
* ``AUTO_EDITS``: as supervised, and ``edit``-action asks (edit, write, apply_patch, patch) are
  allowed too.
* ``FULL``: every permission ask is allowed.

``decide`` only ever answers ``"once"``: octui never saves an ``always`` rule for the user.
Questions and forms ask the user something rather than for permission: never auto-answered.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from tui.protocol.models import PermissionRequest
from tui.state.transcript import Ask

__all__ = [
    "ALWAYS_ALLOWED", "DEFAULT_MODE", "EDIT_ACTIONS", "Mode", "decide", "next_mode", "parse_mode",
]

AutoReply = Literal["once"]


class Mode(StrEnum):
    """A permission mode; the value is what the state dir stores."""

    SUPERVISED = "supervised"
    AUTO_EDITS = "auto-edits"
    FULL = "full"

    @property
    def label(self) -> str:
        """Human name, e.g. for the command palette and notifications."""
        return _LABELS[self]

    @property
    def short(self) -> str:
        """Status-bar text."""
        return _SHORT[self]

    @property
    def help(self) -> str:
        """One line saying what the mode answers."""
        return _HELP[self]


_LABELS = {Mode.SUPERVISED: "Supervised", Mode.AUTO_EDITS: "Auto-accept edits",
           Mode.FULL: "Full access"}
_SHORT = {Mode.SUPERVISED: "supervised", Mode.AUTO_EDITS: "✎ auto-edits",
          Mode.FULL: "⚠ full access"}
_HELP = {
    Mode.SUPERVISED: "ask before anything but reads, searches, questions and subagents",
    Mode.AUTO_EDITS: "allow file edits once each; ask before shell commands and the rest",
    Mode.FULL: "allow every permission request once each; questions still ask you",
}

DEFAULT_MODE = Mode.SUPERVISED
_CYCLE = [Mode.SUPERVISED, Mode.AUTO_EDITS, Mode.FULL]

ALWAYS_ALLOWED = frozenset({
    "read", "grep", "glob", "list",  # reads and searches
    "question",  # the question tool asks the user anyway
    "subagent", "task",  # starting a subagent (v2 / 1.18); its own asks follow this mode
})
"""Actions allowed in every mode."""

EDIT_ACTIONS = frozenset({"edit", "write", "apply_patch", "patch"})
"""Actions ``AUTO_EDITS`` allows (the servers ask ``edit`` for all of them; the tool names are kept
in case a server asks with the tool's own name)."""


def next_mode(mode: Mode) -> Mode:
    """The mode after ``mode`` in the cycle supervised → auto-edits → full → supervised."""
    return _CYCLE[(_CYCLE.index(mode) + 1) % len(_CYCLE)]


def parse_mode(value: object) -> Mode:
    """A stored value back to a ``Mode``; anything unknown is the default (never more trust)."""
    if isinstance(value, str):
        try:
            return Mode(value)
        except ValueError:
            return DEFAULT_MODE
    return DEFAULT_MODE


def decide(mode: Mode, ask: Ask) -> AutoReply | None:
    """``"once"`` when ``mode`` answers ``ask`` without the user, ``None`` when it must be shown."""
    if not isinstance(ask, PermissionRequest):
        return None  # questions and forms ask the user something: always shown
    action = ask.action.strip().lower()
    if mode is Mode.FULL:
        return "once"
    if action in ALWAYS_ALLOWED:
        return "once"
    if mode is Mode.AUTO_EDITS and action in EDIT_ACTIONS:
        return "once"
    return None
