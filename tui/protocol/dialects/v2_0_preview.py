"""The "2.0 preview" generation (upstream ``v2`` branch, August 2026; reports ``version: "local"``).

Older than the pinned ``openapi.json``; recorded in ``traces-2.0`` (TRACES.md). What differs:

* pending inputs are ``session.input.admitted {inputID, input:{type, data, delivery}}`` and
  ``session.input.promoted {inputID}`` (pinned: ``session.inbox.enqueued/delivered`` with
  ``inboxID`` and ``item.payload``), listed by ``GET …/pending`` whose items carry ``data``;
  there is no route to cancel one or to change its delivery;
* a compaction is admitted with ``session.compaction.admitted {inputID}`` and never promoted;
* a subagent's ``tool.progress`` nests the child id one level down
  (``metadata.metadata.sessionID``);
* ``/prompt`` and ``/command`` take no ``skills``, ``/compact`` no ``delivery``, ``/interrupt``
  no ``?continue=``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

from tui.protocol.dialects.base import Capabilities, Dialect, without_skills
from tui.protocol.dialects.v2_current import STARTUP_2X
from tui.protocol.events import ProtocolError
from tui.protocol.frames import PlainDelta, plain_delta

Fix = Callable[[dict[str, Any]], tuple[str, dict[str, Any]]]


def _admitted(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    out = {k: v for k, v in data.items() if k not in ("inputID", "input")}
    if "inputID" in data:
        out["inboxID"] = data["inputID"]
    raw = data.get("input")
    if isinstance(raw, dict):
        item = {k: v for k, v in raw.items() if k != "data"}
        item["payload"] = raw.get("data") if isinstance(raw.get("data"), dict) else {}
        out["item"] = item
    return "session.inbox.enqueued", out


def _promoted(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    out = {k: v for k, v in data.items() if k != "inputID"}
    if "inputID" in data:
        out["inboxID"] = data["inputID"]
    return "session.inbox.delivered", out


def _compaction_admitted(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    out = {k: v for k, v in data.items() if k != "inputID"}
    if "inputID" in data:
        out["inboxID"] = data["inputID"]
    out["item"] = {"type": "compaction", "payload": {}, "delivery": "steer"}
    return "session.inbox.enqueued", out


def _lifted(metadata: Any) -> Any:
    """``{metadata: {sessionID, status}}`` -> ``{sessionID, status}`` (outer keys win)."""
    inner = metadata.get("metadata") if isinstance(metadata, dict) else None
    if not isinstance(inner, dict) or not isinstance(metadata, dict):
        return metadata
    return {**inner, **{k: v for k, v in metadata.items() if k != "metadata"}}


def _progress(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A subagent's ``tool.progress`` nests its metadata one level down: lift it."""
    lifted = _lifted(data.get("metadata"))
    return "session.tool.progress", data if lifted is data.get("metadata") else {**data, "metadata": lifted}


_FIXES: dict[str, Fix] = {
    "session.input.admitted": _admitted,
    "session.input.promoted": _promoted,
    "session.compaction.admitted": _compaction_admitted,
    "session.tool.progress": _progress,
}


class PreviewFrames:
    """Renames the pending-input events and flattens subagent progress; the rest passes."""

    identity = False

    def event(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        if not isinstance(obj, dict):
            raise ProtocolError(f"event frame is a {type(obj).__name__}, not an object")
        kind = obj.get("type")
        fix = _FIXES.get(kind) if type(kind) is str else None
        data = obj.get("data")
        if fix is None or not isinstance(data, dict):
            return obj
        out = dict(obj)
        out["type"], out["data"] = fix(data)
        return out

    def plain_delta(self, obj: dict[str, Any]) -> PlainDelta | None:
        return plain_delta(obj)  # deltas have the pinned shape


class V2Preview(Dialect):
    name: ClassVar[str] = "2.0-preview"
    label: ClassVar[str] = "2.0 preview"
    caps: ClassVar[Capabilities] = Capabilities(
        flat_api=True, pending_route="pending", pending_cancel=False, pending_redeliver=False,
        prompt_skills=False, compaction=True, compaction_delivery=False, interrupt_continue=False,
        forms=True, subagents=True, shell_output=True, default_model=True, durable_history=False,
        session_title=True, text_files=True, reject_message=True)
    marker_types: ClassVar[frozenset[str]] = frozenset({
        "session.input.admitted", "session.input.promoted", "session.compaction.admitted"})
    spec_routes: ClassVar[frozenset[str]] = frozenset({"/api/session/{}/pending"})
    startup: ClassVar[re.Pattern[str] | None] = STARTUP_2X

    def frames(self) -> PreviewFrames:
        return PreviewFrames()

    def message(self, info: dict[str, Any]) -> dict[str, Any]:
        """A running tool's stored state may hold the nested progress metadata: lift it too."""
        content = info.get("content")
        if info.get("type") != "assistant" or not isinstance(content, list):
            return info
        parts = []
        for part in content:
            state = part.get("state") if isinstance(part, dict) else None
            if isinstance(state, dict) and isinstance(state.get("metadata"), dict) \
                    and isinstance(state["metadata"].get("metadata"), dict):
                part = {**part, "state": {**state, "metadata": _lifted(state["metadata"])}}
            parts.append(part)
        return {**info, "content": parts}

    def pending_item(self, item: dict[str, Any]) -> dict[str, Any]:
        if "payload" in item or "data" not in item:
            return item
        out = {k: v for k, v in item.items() if k != "data"}
        out["payload"] = item["data"] if isinstance(item["data"], dict) else {}
        return out

    def prompt_body(self, body: dict[str, Any]) -> dict[str, Any]:
        return without_skills(body)

    def command_body(self, body: dict[str, Any]) -> dict[str, Any]:
        return without_skills(body)
