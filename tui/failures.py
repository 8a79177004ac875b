"""Provides the words for a failed turn: which model and provider, the server's cause, the fix.

A turn fails with ``step.failed`` (1.18 and 2.x: the provider request failed) or, on 2.x, with
``execution.failed`` and no step at all (``provider.no-route``: the selected model does not
exist). The server's ``{type, message}`` is shown as given; the model comes from the failed
step, else from the session's selected model. No Textual here: the transcript and the log both
use these lines.
"""

from __future__ import annotations

from tui.protocol.models import ModelRef, StructuredError
from tui.sanitize import one_line

__all__ = ["FIX", "failure_fix", "failure_headline", "failure_log_line", "is_interruption"]

FIX = ("Fix: Ctrl+K picks another model, or set up a provider where the server runs "
       "(`opencode auth login`, or \"provider\" in opencode.json)")
"""What the user can do about a failed provider request, in one line."""

_GENERIC_TYPES = frozenset({"", "unknown"})


def is_interruption(error: StructuredError) -> bool:
    """The user (or octui) stopped the turn: nothing to fix."""
    lowered = error.message.lower()
    return error.type == "aborted" or "interrupted" in lowered or "aborted" in lowered


def _cause(error: StructuredError) -> str:
    cause = one_line(error.message, 400) or error.type or "unknown error"
    if error.type not in _GENERIC_TYPES and error.type not in cause:
        cause += f" [{one_line(error.type, 60)}]"
    return cause


def _who(model: ModelRef | None) -> str:
    if model is None or not model.id:
        return ""
    name = one_line(model.id, 80)
    if model.variant and model.variant != "default":
        name += f"#{one_line(model.variant, 40)}"
    provider = one_line(model.providerID, 60)
    return f"model {name} (provider {provider})" if provider else f"model {name}"


def failure_headline(error: StructuredError, model: ModelRef | None) -> str:
    """``✗ model fake-model (provider mock) failed: HTTP transport failed``."""
    if is_interruption(error):
        return f"✗ {_cause(error)}"
    who = _who(model)
    return f"✗ {who} failed: {_cause(error)}" if who else f"✗ The turn failed: {_cause(error)}"


def failure_fix(error: StructuredError) -> str | None:
    """The fix line, or None for an interruption."""
    return None if is_interruption(error) else FIX


def failure_log_line(session_id: str, error: StructuredError, model: ModelRef | None) -> str:
    """One line for ``octui.log``: the session, the model and the cause as the server gave it."""
    who = _who(model) or "model unknown"
    return (f"turn failed in {session_id}: {who}: {one_line(error.message, 400) or '(no message)'} "
            f"[type {one_line(error.type, 60) or 'unknown'}]")
