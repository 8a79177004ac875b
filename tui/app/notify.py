"""Background notifications: tell the user when a turn ends or an ask arrives while octui is unfocused.

Textual enables terminal focus reporting (``CSI ? 1004 h``) and keeps ``App.app_focus`` up to date
from the terminal's FocusIn/FocusOut. While the app is focused nothing is sent (the screen already
shows it). While it is in the background each alert is:

* an in-app toast (``App.notify``), still on screen when the user comes back, and
* a terminal signal chosen by ``notify_method`` in the config (``terminal_signal``):

  - ``osc777``: ``ESC ] 777 ; notify ; TITLE ; BODY ST``, a desktop notification with a title
    (rxvt-unicode, foot, WezTerm, recent Windows Terminal);
  - ``osc9``: ``ESC ] 9 ; TITLE: BODY ST``, a desktop notification (iTerm2, kitty, Ghostty, WezTerm);
  - ``bell``: BEL, which most terminals and multiplexers turn into an urgency hint;
  - ``auto`` (default): ``detect_method`` picks one of those from ``TERM_PROGRAM``/``TERM`` and the
    variables terminals export (``KITTY_WINDOW_ID``, ``WEZTERM_PANE``, …); unknown terminals (and
    Konsole, GNOME Terminal/VTE, Alacritty, Terminal.app, whose support is missing or unconfirmed)
    get the bell.

  Inside tmux (``$TMUX``) an OSC is wrapped in tmux's DCS passthrough (``ESC P tmux; … ESC \\``,
  every ESC doubled), which reaches the outer terminal only with ``set -g allow-passthrough on``
  (tmux 3.3+); the bell is sent too, since tmux drops the passthrough otherwise and turns the bell
  into its own window alert. GNU screen gets the bell only.

The title and body are server text (session titles): ``notification_field`` turns escape
sequences and control characters (BEL, ESC, C1 ST included) into visible tokens with
``tui.text.sanitize`` and replaces ``;``, so nothing in them can end the sequence early or smuggle
another one in. ``notify = false``
in the config turns all of this off.

Alerts are deduplicated: one per ask id, one per ended turn; a turn that ends in a subagent session
only alerts when it is the session being viewed (its parent's turn end covers the rest).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from tui.state.changes import AsksChanged, Change
from tui.state.store import Store
from tui.text.sanitize import one_line

__all__ = [
    "METHODS",
    "Alert",
    "NotifyMethod",
    "Notifier",
    "alerts_for",
    "detect_method",
    "notification_field",
    "notification_sequence",
    "terminal_signal",
    "tmux_passthrough",
]

NotifyMethod = Literal["auto", "osc777", "osc9", "bell"]
METHODS: tuple[str, ...] = ("auto", "osc777", "osc9", "bell")
BEL = "\a"
ST = "\x1b\\"
FIELD_LIMIT = 200


def notification_field(text: str, limit: int = FIELD_LIMIT) -> str:
    """Server text made safe inside an OSC: one clean line, no controls/escapes, no ``;``."""
    return one_line(text, limit).replace(";", ",")


def notification_sequence(method: str, title: str, body: str) -> str:
    """The raw OSC for ``method`` (``osc777`` or ``osc9``); both fields are sanitised here."""
    title, body = notification_field(title, 80), notification_field(body)
    if method == "osc777":
        return f"\x1b]777;notify;{title};{body}{ST}"
    if method == "osc9":
        return f"\x1b]9;{title}: {body}{ST}" if title else f"\x1b]9;{body}{ST}"
    raise ValueError(f"not an OSC notification method: {method!r}")


def tmux_passthrough(sequence: str) -> str:
    """Wrap an escape sequence in tmux's DCS passthrough (inner ESCs doubled)."""
    return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + ST


def detect_method(env: Mapping[str, str]) -> str:
    """``osc777``, ``osc9`` or ``bell`` for the terminal described by ``env``.

    Markers a terminal exports are checked before ``TERM_PROGRAM`` because inside tmux that names
    tmux, while variables such as ``KITTY_WINDOW_ID`` survive from the outer terminal.
    """
    program = env.get("TERM_PROGRAM", "").lower()
    term = env.get("TERM", "").lower()
    if "KITTY_WINDOW_ID" in env or term == "xterm-kitty" or program == "kitty":
        return "osc9"
    if "GHOSTTY_RESOURCES_DIR" in env or term == "xterm-ghostty" or program == "ghostty":
        return "osc9"
    if "ITERM_SESSION_ID" in env or env.get("LC_TERMINAL") == "iTerm2" or program == "iterm.app":
        return "osc9"
    if "WEZTERM_PANE" in env or program == "wezterm":
        return "osc777"
    if term.startswith(("foot", "rxvt-unicode")):
        return "osc777"
    if "WT_SESSION" in env:
        return "osc777"  # Windows Terminal: OSC 9 is ConEmu's progress/cwd channel there
    return "bell"


def terminal_signal(method: str, title: str, body: str, env: Mapping[str, str]) -> str:
    """What to write to the terminal for one alert (``method`` may be ``auto``)."""
    chosen = detect_method(env) if method == "auto" else method
    if chosen not in ("osc777", "osc9") or "STY" in env and "TMUX" not in env:
        return BEL  # the bell, or GNU screen (which has no passthrough octui uses)
    sequence = notification_sequence(chosen, title, body)
    if "TMUX" in env:
        return tmux_passthrough(sequence) + BEL
    return sequence


@dataclass(frozen=True)
class Alert:
    """One background notification."""

    kind: str  # "turn" | "ask"
    session_id: str
    text: str


def alerts_for(
    changes: Iterable[Change],
    store: Store,
    was_busy: set[str],
    now_busy: set[str],
    current: str | None,
    seen_asks: set[str],
) -> list[Alert]:
    """The alerts a batch of store changes calls for (pure; ``seen_asks`` is updated)."""
    alerts: list[Alert] = []
    for change in changes:
        if not isinstance(change, AsksChanged) or change.how != "asked" or not change.ask_id:
            continue
        if change.ask_id in seen_asks or change.ask_id not in store.asks:
            continue
        seen_asks.add(change.ask_id)
        sid = change.session_id or store.asks[change.ask_id].sessionID
        alerts.append(Alert("ask", sid, f"Needs your answer: {_title(store, sid)}"))
    for sid in sorted(was_busy - now_busy):
        state = store.sessions.get(sid)
        if state is None or (state.parent_id and sid != current):
            continue
        last = next((m for m in reversed(state.messages.values()) if m.role == "assistant"), None)
        failed = last is not None and last.error is not None
        verb = "Turn failed" if failed else "Turn finished"
        alerts.append(Alert("turn", sid, f"{verb}: {_title(store, sid)}"))
    return alerts


def _title(store: Store, session_id: str) -> str:
    state = store.sessions.get(session_id)
    return one_line(state.title if state else session_id, 60)


class Notifier:
    """Feeds on every flushed batch of changes; alerts only while the app is in the background.

    Args:
        store: The app's store.
        focused: Returns whether the terminal has focus (``lambda: app.app_focus``).
        deliver: Sends one alert (toast + bell in the app; a list append in tests).
        current: Returns the id of the session on screen, if any.
        enabled: The config's ``notify`` switch.
    """

    def __init__(self, store: Store, focused: Callable[[], bool], deliver: Callable[[Alert], None],
                 current: Callable[[], str | None] = lambda: None, *, enabled: bool = True) -> None:
        self.store = store
        self.focused = focused
        self.deliver = deliver
        self.current = current
        self.enabled = enabled
        self._busy: set[str] = set()
        self._seen_asks: set[str] = set()

    def observe(self, changes: list[Change]) -> list[Alert]:
        """Call with each batch of changes (after the store applied them). Returns what was sent."""
        now_busy = self.store.busy_ids()
        was_busy, self._busy = self._busy, now_busy
        self._seen_asks &= set(self.store.asks)  # settled asks are forgotten
        alerts = alerts_for(changes, self.store, was_busy, now_busy, self.current(), self._seen_asks)
        if not self.enabled or self.focused():
            return []
        for alert in alerts:
            self.deliver(alert)
        return alerts
