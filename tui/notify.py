"""Background notifications: tell the user when a turn ends or an ask arrives while octui is unfocused.

Textual enables terminal focus reporting (``CSI ? 1004 h``) and keeps ``App.app_focus`` up to date
from the terminal's FocusIn/FocusOut. While the app is focused nothing is sent (the screen already
shows it). While it is in the background each alert is:

* an in-app toast (``App.notify``), still on screen when the user comes back, and
* the terminal bell (``App.bell``), which most terminals and multiplexers turn into an urgency hint
  or a desktop notification.

Textual 8.2.8 has no API for OSC 9 / OSC 777 desktop notifications, and writing escapes past
Textual's driver could interleave with a frame being written, so octui does not send them: the bell
is the one signal it can send safely. ``notify = false`` in the config turns all of this off.

Alerts are deduplicated: one per ask id, one per ended turn; a turn that ends in a subagent session
only alerts when it is the session being viewed (its parent's turn end covers the rest).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from tui.sanitize import one_line
from tui.state.store import Store
from tui.state.transcript import Change

__all__ = ["Alert", "Notifier", "alerts_for"]


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
        if change.kind != "asks" or change.detail != "asked" or not change.part_key:
            continue
        if change.part_key in seen_asks or change.part_key not in store.asks:
            continue
        seen_asks.add(change.part_key)
        sid = change.session_id or store.asks[change.part_key].sessionID
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
