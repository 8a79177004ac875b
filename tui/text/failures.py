"""Provides the words for a failed turn: which model and provider, the server's cause, the fix.

A turn fails with ``step.failed`` (1.18 and 2.x: the provider request failed) or, on 2.x, with
``execution.failed`` and no step at all (``provider.no-route``: the selected model does not
exist). The server's ``{type, message}`` is shown as given; the model comes from the failed
step, else from the session's selected model. No Textual here: the transcript and the log both
use these lines.
"""

from __future__ import annotations

import re

from tui.protocol.models import ModelRef, StructuredError
from tui.text.sanitize import one_line

__all__ = ["FIX", "FIX_BUSY", "FIX_MEDIA", "FIX_MODEL", "Piece", "failure_fix", "failure_headline",
           "failure_log_line", "failure_pieces", "is_interruption"]

FIX = ("Fix: Ctrl+K picks another model, or set up a provider where the server runs "
       "(`opencode auth login`, or \"provider\" in opencode.json)")
"""What the user can do about a failed provider request, in one line (when the cause says no
more: an unreachable provider, an unknown error)."""
FIX_BUSY = ("Fix: send the prompt again in a moment (the provider is busy or limits requests), "
            "or Ctrl+K picks another model")
"""A rate limit or an overloaded provider: the setup is fine, the moment is not."""
FIX_MODEL = "Fix: Ctrl+K picks a model the server has"
"""The selected model does not exist where the server runs (2.x ``provider.no-route``)."""
FIX_MEDIA = ("Fix: Ctrl+N starts a new session (this one's history holds a file the model cannot "
             "take), or Ctrl+K picks a model that takes it")
"""A file in the session the provider refuses ("does not support media type text/plain"): every
later turn fails on it too, whatever is sent (QA, 1.18.33)."""
_MEDIA = re.compile(r"does not support (?:media|mime|file) type", re.IGNORECASE)

# The provider's own words, as the server passes them on (2.x: "Provider request failed with HTTP
# 429: …", type provider.rate-limit; 1.18: the message alone). A 5xx is the provider's trouble.
_BUSY = re.compile(r"\bHTTP (?:429|5\d\d)\b|rate[ -]?limit|overloaded|too many requests|"
                   r"temporarily unavailable|capacity", re.IGNORECASE)

_GENERIC_TYPES = frozenset({"", "unknown"})


def is_interruption(error: StructuredError) -> bool:
    """The user (or octui) stopped the turn: nothing to fix."""
    lowered = error.message.lower()
    return error.type == "aborted" or "interrupted" in lowered or "aborted" in lowered


Piece = tuple[str, int]
"""A piece of a failure line: ``(text, limit)``. ``limit > 0``: the server's text, shown on one
line cut to ``limit`` characters (with its hidden characters as tokens); ``0``: octui's words."""


def _cause(error: StructuredError) -> list[Piece]:
    if one_line(error.message, 400):
        pieces: list[Piece] = [(error.message, 400)]
    elif one_line(error.type, 400):
        pieces = [(error.type, 400)]
    else:
        pieces = [("unknown error", 0)]
    shown = one_line(error.message, 400) or error.type
    if error.type not in _GENERIC_TYPES and error.type not in shown:
        pieces += [(" [", 0), (error.type, 60), ("]", 0)]
    return pieces


def _who(model: ModelRef | None) -> list[Piece]:
    if model is None or not model.id:
        return []
    pieces: list[Piece] = [("model ", 0), (model.id, 80)]
    if model.variant and model.variant != "default":
        pieces += [("#", 0), (model.variant, 40)]
    if one_line(model.providerID, 60):
        pieces += [(" (provider ", 0), (model.providerID, 60), (")", 0)]
    return pieces


def failure_pieces(error: StructuredError, model: ModelRef | None) -> list[Piece]:
    """The headline as pieces, so a widget can show the server's parts through ``widgets.plain``."""
    if is_interruption(error):
        return [("✗ ", 0), *_cause(error)]
    who = _who(model)
    if who:
        return [("✗ ", 0), *who, (" failed: ", 0), *_cause(error)]
    return [("✗ The turn failed: ", 0), *_cause(error)]


def _joined(pieces: list[Piece]) -> str:
    return "".join(one_line(text, limit) if limit else text for text, limit in pieces)


def failure_headline(error: StructuredError, model: ModelRef | None) -> str:
    """``✗ model fake-model (provider mock) failed: HTTP transport failed`` (hidden characters as
    tokens, on one line)."""
    return _joined(failure_pieces(error, model))


def failure_fix(error: StructuredError) -> str | None:
    """The fix line for the cause, or None for an interruption."""
    if is_interruption(error):
        return None
    if error.type == "provider.no-route":
        return FIX_MODEL
    if error.type == "provider.rate-limit" or _BUSY.search(error.message):
        return FIX_BUSY
    if _MEDIA.search(error.message):
        return FIX_MEDIA
    return FIX


def failure_log_line(session_id: str, error: StructuredError, model: ModelRef | None) -> str:
    """One line for ``octui.log``: the session, the model and the cause as the server gave it."""
    who = _joined(_who(model)) or "model unknown"
    return (f"turn failed in {session_id}: {who}: {one_line(error.message, 400) or '(no message)'} "
            f"[type {one_line(error.type, 60) or 'unknown'}]")
