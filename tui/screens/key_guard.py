"""Keys typed for the prompt never answer an ask's dialog.

QA: a permission dialog that opened while a prompt was being typed took the next keys: ``a``
(of "add tests") chose Allow always, which the server saved; Enter allowed once; Space picked a
question's option. Two guards:

- an ask's dialog opens by itself only once typing pauses for ``TYPING_PAUSE_S`` (the inbox
  badge and a toast say it waits); Ctrl+B opens it at once;
- for ``KEY_GUARD_S`` after such a dialog opens, keys are held back (typing resumed right then,
  unaware of it), and each key held pushes that end back: keys typed on without a pause never
  reach the dialog. A mouse click is not held: it is aimed.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

TYPING_PAUSE_S = 0.8  # a typist's keys come 0.1-0.3 s apart: this long is a pause
KEY_GUARD_S = 0.5  # (browsers hold a security dialog's buttons for about as long)
PAUSE_CHECK_S = 0.25  # a waiting ask looks at the typing again at least this often

_last_key: WeakKeyDictionary[object, float] = WeakKeyDictionary()  # a dialog's opening, or last key held


def typing_pause_left(typed_at: float, now: float) -> float:
    """How long until typing has paused long enough for a dialog to open (0: it has)."""
    return max(0.0, typed_at + TYPING_PAUSE_S - now)


def hold_keys(screen: object, now: float) -> None:
    """``screen`` (a dialog opening by itself at ``now``) takes no key for ``KEY_GUARD_S``."""
    _last_key[screen] = now


def keys_taken(screen: object, now: float) -> bool:
    """Whether ``screen`` takes a key typed at ``now`` (for tests, which answer dialogs by keys)."""
    last = _last_key.get(screen)
    return last is None or now - last >= KEY_GUARD_S


def held_keys(screen: object, now: float) -> bool:
    """Whether a key typed at ``now`` on ``screen`` is held back (and the hold goes on from it)."""
    if keys_taken(screen, now):
        return False
    _last_key[screen] = now
    return True
