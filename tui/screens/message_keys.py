"""A letter typed while a message has the focus: its own key, or the first letter of a prompt?

A message's letters act on it (``y`` copies it, ``c`` its code, ``u`` undoes to it; a tool
row's ``d`` and ``a``), and any other letter goes to the prompt. So "check git" typed on a
focused tool row lost its "c" to "copy code" (QA). A message's letter is held for
``TYPING_WINDOW_S``: another character in that time (not the same letter again: ``u u`` is the
undo's own second press) means it was typing, and both go to the prompt; otherwise it acts.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import ActiveBinding
from textual.timer import Timer

TYPING_WINDOW_S = 0.3  # a second character within this: the first one was typed, not a command


@dataclass
class HeldKey:
    """A message's letter waiting to be told from typing."""

    bound: ActiveBinding
    character: str
    timer: Timer


@dataclass(frozen=True)
class KeyDecision:
    """What the app does with a key typed while the transcript has the focus."""

    run: tuple[ActiveBinding, ...] = ()
    """Bindings to run first, in order (a held letter, then maybe this key's own)."""
    consumed: bool = False
    """This key was one of them (or is held): it goes no further."""
