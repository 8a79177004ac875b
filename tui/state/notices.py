"""Client-side transcript lines (role ``notice``) that the server does not store.

Pure: no Textual. Used for octui's own records, e.g. "auto-allowed: bash `make test`". Such lines
are lost when ``Store.load_history`` rebuilds a transcript, so their owner re-inserts them.
"""

from __future__ import annotations

from tui.state.changes import Change, message_changed
from tui.state.store import Store
from tui.state.transcript import Message


def insert_notice(store: Store, session_id: str, key: str, text: str, *, after: str | None = None,
                  time_created: float | None = None) -> list[Change]:
    """Put a notice ``key`` in the session's transcript, right after message ``after`` if known.

    Inserting again with the same ``key`` updates the text in place.
    """
    state = store.session(session_id)
    existing = state.messages.get(key)
    if existing is not None:
        if existing.text == text:
            return []
        existing.text = text
        existing.version += 1
        return [message_changed(session_id, key)]
    notice = Message(id=key, role="notice", session_id=session_id, text=text, time_created=time_created)
    ids = list(state.messages)
    if after is None or after not in state.messages:
        state.messages[key] = notice
    else:
        # Right after ``after`` and after the notices of the same kind already there (arrival order).
        prefix = key.split(":", 1)[0] + ":"
        position = ids.index(after) + 1
        while position < len(ids) and ids[position].startswith(prefix):
            position += 1
        ids.insert(position, key)
        messages = {**state.messages, key: notice}
        state.messages = {mid: messages[mid] for mid in ids}
    state.version += 1
    return [message_changed(session_id, key)]
