"""The stream's hot path in the store: the delta fast path (its changes are shared objects).

Most frames of a stream are text, reasoning or tool-input deltas for a part the store already
has. ``append_delta`` applies those straight from the frame's fields (``frames.plain_delta``),
with no event or payload object; whatever it cannot settle that simply goes the full way
(``parse_event`` + ``Store.apply``), and both ways leave the same state and the same changes.
"""

from __future__ import annotations

from tui.state.changes import Change, part_changed
from tui.state.transcript import SessionState, TextBlock, ToolCall

GAP = "…"
"""Stands in a streaming block for the deltas that never arrived."""


def append_delta(state: SessionState, kind: str, message_id: str, ref: int | str,
                 delta: str) -> list[Change] | None:
    """What ``session_events`` does with a text/reasoning/tool-input delta (``kind`` "text",
    "reasoning" or "tool"; ``ref`` the ordinal or the call id) when its part exists, else None
    (the caller then takes the full path)."""
    msg = state.messages.get(message_id)
    if msg is None:
        return None
    for part in msg.parts:
        if kind == "tool":
            if not isinstance(part, ToolCall) or part.id != ref:
                continue
            if part.status != "streaming" or not delta:
                return []
            part.input_text += delta
        else:
            if not isinstance(part, TextBlock) or part.ordinal != ref or part.kind != kind:
                continue
            if not part.streaming or not delta:
                return []  # the block already has its authoritative text
            if part.gap:
                delta = GAP + delta
                part.gap = False
            part.text += delta
        part.version += 1
        return [part_changed(state.id, msg.id, part.key)]
    return None
