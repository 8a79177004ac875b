"""The stream's first steps, before any event object: JSON of a frame, and plain deltas.

``decode_frame`` turns one SSE ``data`` payload into JSON; ``plain_delta`` recognises the frames
that make up most of a stream (text, reasoning and tool-input deltas) so the store can apply them
straight from their fields (``Store.apply_delta``) instead of through ``events.parse_event``.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic_core import from_json

# Delta event types and the kind of part each one extends (the ``Store.apply_delta`` fast path).
_PLAIN_DELTAS = {"session.text.delta": "text", "session.reasoning.delta": "reasoning",
                 "session.tool.input.delta": "tool"}
PlainDelta = tuple[str, str, str, int | str, str]


def plain_delta(obj: dict[str, Any]) -> PlainDelta | None:
    """``(part kind, sessionID, assistantMessageID, ordinal or call id, delta)`` of a v2 delta
    frame without a ``durable`` envelope whose fields have exactly the types its payload model
    wants (so validation would neither refuse nor change them); None for anything else."""
    kind = obj.get("type")
    part = _PLAIN_DELTAS.get(kind) if type(kind) is str else None
    if part is None or obj.get("durable") is not None:
        return None
    data = obj.get("data")
    if type(data) is not dict:
        return None
    return delta_fields(part, data, data.get("id" if part == "tool" else "ordinal"))


def delta_fields(part: str, data: dict[str, Any], ref: Any) -> PlainDelta | None:
    """The ``plain_delta`` tuple when ``data`` and ``ref`` (ordinal or call id) have exact types."""
    session_id = data.get("sessionID")
    message_id = data.get("assistantMessageID")
    delta = data.get("delta")
    if type(session_id) is not str or not session_id or type(message_id) is not str \
            or type(delta) is not str:
        return None
    if part == "tool":
        if type(ref) is not str or not ref:  # ToolPayload.id: min_length=1
            return None
    elif type(ref) is not int or ref < 0:  # BlockDelta.ordinal: ge=0 (and a bool is no ordinal)
        return None
    return part, session_id, message_id, ref, delta


def decode_frame(payload: bytes) -> Any:
    """JSON of one SSE ``data`` payload; raises ``ValueError`` (or ``RecursionError``) like json.loads.

    pydantic-core's parser is several times faster than ``json.loads``. It is stricter (it refuses
    lone surrogates, a UTF-8 BOM and nesting deeper than 200), so whatever it refuses goes to
    ``json.loads``, which then decides exactly as before: the result never differs.

    Only keys go through pydantic-core's string cache: by default it also keeps every short value
    (up to 16,384 of them), here each delta's words and each event's id, seen once and never again
    (~1 MB held for nothing in a long session).
    """
    try:
        return from_json(payload, cache_strings="keys")
    except ValueError:
        return json.loads(payload)
