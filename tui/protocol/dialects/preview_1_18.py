"""The 1.18.33 preview (npm ``opencode-ai@1.18.33``, ``/api``): normalised into pinned v2 shapes.

It differs in event names (``session.next.*``, ``permission.v2.*``, ``question.v2.*``), a few field
names (``textID``, ``callID``, ``structured``), the nested prompt body, per-event
``data.timestamp`` and the routes it lacks (DIALECTS.md). Its start-up line is
``opencode server listening on URL``; its spec is served at ``/doc``; ``/api/health`` is only
``{healthy}``.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from tui.protocol.dialects.base import Capabilities, Dialect, Family
from tui.protocol.events import ProtocolError
from tui.protocol.frames import PlainDelta, delta_fields

PREVIEW_PREFIXES = ("session.next.", "permission.v2.", "question.v2.")  # only 1.18 sends these

_RENAMED = {
    "prompt.admitted": "session.inbox.enqueued",
    "prompted": "session.inbox.delivered",
    "agent.switched": "session.agent.selected",
    "model.switched": "session.model.selected",
    "retried": "session.retry.scheduled",
    "context.updated": "session.instructions.updated",
}

_ORDINAL_RE = re.compile(r"(\d+)$")
_PARSED: dict[str, int] = {}  # "text-0" -> 0: a block's id comes again with each of its deltas
_NEXT = len("session.next.")
_PLAIN_DELTAS = {"session.next.text.delta": "text", "session.next.reasoning.delta": "reasoning",
                 "session.next.tool.input.delta": "tool"}


class Normaliser:
    """Turns 1.18 frames into v2 frames (a ``FrameNormaliser``).

    Stateful only for odd block ids (see ``_ordinal``)."""

    identity = False

    def __init__(self) -> None:
        self._ordinals: dict[tuple[str, str], int] = {}

    def event(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """Return the v2 form of a frame, or None for a frame that must be ignored.

        Raises ``ProtocolError`` (like ``parse_event``) when ``obj`` is not an object at all.
        """
        if not isinstance(obj, dict):  # never mistake e.g. a JSON null for "ignore this frame"
            raise ProtocolError(f"event frame is a {type(obj).__name__}, not an object")
        kind = obj.get("type")
        data = obj.get("data")
        if not isinstance(kind, str) or not isinstance(data, dict):
            return obj
        data = dict(data)
        out = dict(obj)
        stamp = data.pop("timestamp", None)
        if "created" not in out and isinstance(stamp, (int, float)):
            out["created"] = stamp

        if kind.startswith("session.next."):
            kind = self._session_next(kind[_NEXT:], data)
        elif kind in ("permission.v2.asked", "permission.v2.replied"):
            kind = "permission." + kind.rsplit(".", 1)[1]
            data = permission_request(data) if kind == "permission.asked" else data
        elif kind.startswith("question.v2."):
            kind = "question." + kind[len("question.v2."):]
            data = question_request(data) if kind == "question.asked" else data
        elif kind == "permission.asked" and "action" not in data:
            return None  # 1.18 legacy V1 shape under the v2 name: the v2 twin follows
        elif kind == "permission.replied" and "requestID" not in data:
            return None
        elif kind in ("session.created", "session.updated") and isinstance(data.get("info"), dict):
            data = _flatten_session(data)
        elif kind == "session.deleted":
            data = {"sessionID": data.get("sessionID")}
        out["type"] = kind
        out["data"] = data
        return out

    def plain_delta(self, obj: dict[str, Any]) -> PlainDelta | None:
        """``frames.plain_delta`` of the v2 form of a 1.18 delta frame, without building it.

        None unless it is that simple: no ``durable``, and a block id whose ordinal is known
        already (``_PARSED``; odd ids and the first frame of a block take ``event``)."""
        kind = obj.get("type")
        part = _PLAIN_DELTAS.get(kind) if type(kind) is str else None
        if part is None or obj.get("durable") is not None:
            return None
        data = obj.get("data")
        if type(data) is not dict:
            return None
        if part == "tool":
            ref = data["callID"] if "callID" in data else data.get("id")
        else:
            block_id = data.get("textID" if part == "text" else "reasoningID")
            ref = _PARSED.get(block_id) if type(block_id) is str else None
        return delta_fields(part, data, ref)

    def _session_next(self, rest: str, data: dict[str, Any]) -> str:
        kind = _RENAMED.get(rest, "session." + rest)
        # Most frequent first (deltas): the branches are disjoint, so their order is free.
        if rest.startswith(("text.", "reasoning.")):
            block_key = "textID" if rest.startswith("text.") else "reasoningID"
            block_id = data.pop(block_key, None)
            if block_id is not None:  # a missing id stays missing: the payload is then invalid
                data["ordinal"] = self._ordinal(data, block_key, block_id)
        elif rest.startswith("tool."):
            if "callID" in data:
                data["id"] = data.pop("callID")
            provider = data.pop("provider", None)
            if isinstance(provider, dict):
                data.setdefault("executed", bool(provider.get("executed", False)))
            if "tool" in data and rest == "tool.called":
                data["name"] = data.pop("tool")
            if "structured" in data:
                data["metadata"] = data.pop("structured")
            _keep_output_paths(data, data.pop("outputPaths", None))
            data.pop("result", None)
        elif rest == "prompt.admitted":
            prompt = data.pop("prompt", {}) or {}
            data["inboxID"] = data.pop("messageID", "")
            data["item"] = {"type": "user", "payload": prompt, "delivery": data.pop("delivery", "steer")}
        elif rest == "prompted":
            data["inboxID"] = data.pop("messageID", "")
        elif rest in ("agent.switched", "model.switched", "synthetic", "context.updated"):
            data.pop("messageID", None)
        elif rest == "shell.started":
            data["shell"] = {"id": data.pop("callID", ""), "command": data.pop("command", ""),
                             "status": "running"}
            data.pop("messageID", None)
        elif rest == "shell.ended":
            output = data.pop("output", "")
            data["shell"] = {"id": data.pop("callID", ""), "status": "exited"}
            data["output"] = {"output": output if isinstance(output, str) else str(output)}
        elif rest.startswith("compaction."):
            data.pop("messageID", None)
        elif rest == "moved" and "subdirectory" in data:
            subdirectory = data.pop("subdirectory")
            if subdirectory:
                data["subpath"] = subdirectory
        elif rest == "revert.staged" and isinstance(data.get("revert"), dict):
            data["revert"] = revert_state(data["revert"])
        elif rest == "revert.committed":
            data["to"] = data.pop("messageID", "")
            data["keepBoundary"] = True  # 1.18 keeps the staged message itself (DIALECTS.md §7)
        return kind

    def _ordinal(self, data: dict[str, Any], key: str, block_id: Any) -> int:
        """1.18 block ids look like ``text-0``; anything else gets a stable per-message number."""
        if isinstance(block_id, int):
            return block_id
        text = str(block_id)
        ordinal = _PARSED.get(text)
        if ordinal is not None:
            return ordinal
        match = _ORDINAL_RE.search(text)
        if match:
            ordinal = int(match.group(1))
            if len(_PARSED) < 4096:  # bounded; ids are few ("text-0", "reasoning-1", ...)
                _PARSED[text] = ordinal
            return ordinal
        message_id = str(data.get("assistantMessageID", ""))
        slot = (message_id, key + ":" + text)
        if slot not in self._ordinals:
            taken = sum(1 for m, _ in self._ordinals if m == message_id)
            self._ordinals[slot] = 1000 + taken
        return self._ordinals[slot]


def _flatten_session(data: dict[str, Any]) -> dict[str, Any]:
    info = data.get("info") or {}
    flat = {k: v for k, v in data.items() if k != "info"}
    flat.update(session_info(info))
    flat["sessionID"] = data.get("sessionID") or info.get("id")
    return flat


def session_info(info: dict[str, Any]) -> dict[str, Any]:
    """1.18 ``Session.Info`` has ``directory``/``path``; v2 has ``location``/``subpath``."""
    out = dict(info)
    if "location" not in out and isinstance(out.get("directory"), str):
        out["location"] = {"directory": out.pop("directory")}
    if "subpath" not in out and "path" in out:
        path = out.pop("path")
        if path:
            out["subpath"] = path
    if isinstance(out.get("revert"), dict):
        out["revert"] = revert_state(out["revert"])
    return out


def revert_state(revert: dict[str, Any]) -> dict[str, Any]:
    """1.18 keeps the staged message itself on commit (DIALECTS.md §7): the revert says so."""
    return {**revert, "keepBoundary": True}


def _call_id_to_id(data: dict[str, Any], key: str) -> dict[str, Any]:
    """1.18 names the tool call ``callID`` inside ``source``/``tool``; v2 names it ``id``."""
    out = dict(data)
    ref = out.get(key)
    if isinstance(ref, dict) and "callID" in ref:
        ref = dict(ref)
        ref["id"] = ref.pop("callID")
        out[key] = ref
    return out


def permission_request(data: dict[str, Any]) -> dict[str, Any]:
    return _call_id_to_id(data, "source")


def question_request(data: dict[str, Any]) -> dict[str, Any]:
    return _call_id_to_id(data, "tool")


def _keep_output_paths(data: dict[str, Any], paths: Any) -> None:
    """1.18 names the files where it saved a tool's whole output (``outputPaths``, beside
    ``structured``: the output it sent was cut to its limits); v2 puts one in
    ``metadata.outputPath``. Kept as ``metadata.outputPaths`` (the text ones, when there are any)."""
    kept = [path for path in paths if isinstance(path, str) and path] if isinstance(paths, list) else []
    metadata = data.get("metadata")
    if kept and (metadata is None or isinstance(metadata, dict)):
        data["metadata"] = {**(metadata or {}), "outputPaths": kept}


def message(info: dict[str, Any]) -> dict[str, Any]:
    """Normalise one history message (``GET /api/session/{id}/message``) to the v2 shape."""
    if info.get("type") != "assistant" or not isinstance(info.get("content"), list):
        return info
    out = dict(info)
    parts = []
    for part in info["content"]:
        if isinstance(part, dict) and part.get("type") == "tool":
            part = dict(part)
            provider = part.pop("provider", None)
            if isinstance(provider, dict):
                part.setdefault("executed", bool(provider.get("executed", False)))
            state = part.get("state")
            if isinstance(state, dict) and ("structured" in state or "outputPaths" in state):
                state = dict(state)
                if "structured" in state:
                    state["metadata"] = state.pop("structured")
                _keep_output_paths(state, state.pop("outputPaths", None))
                part["state"] = state
        parts.append(part)
    out["content"] = parts
    return out

def prompt_body(body: dict[str, Any]) -> dict[str, Any]:
    """The nested 1.18 prompt body from the v2 flat form (``skills`` has no place in it)."""
    prompt: dict[str, Any] = {"text": body.get("text", "")}
    if body.get("files"):
        prompt["files"] = [_mention_to_source(f) for f in body["files"]]
    if body.get("agents"):
        prompt["agents"] = [_mention_to_source(a) for a in body["agents"]]
    nested: dict[str, Any] = {"prompt": prompt}
    for key in ("id", "delivery", "resume"):
        if body.get(key) is not None:
            nested[key] = body[key]
    return nested


class Preview118(Dialect):
    name: ClassVar[str] = "1.18"
    label: ClassVar[str] = "1.18 preview"
    family: ClassVar[Family] = "1.18"
    family_default: ClassVar[bool] = True
    caps: ClassVar[Capabilities] = Capabilities(
        flat_api=False, pending_route=None, pending_cancel=False, pending_redeliver=False,
        prompt_skills=False, compaction=False, compaction_delivery=False, interrupt_continue=False,
        forms=False, subagents=False, shell_output=False, default_model=False, durable_history=True,
        session_title=False, text_files=False, reject_message=False)
    marker_prefixes: ClassVar[tuple[str, ...]] = PREVIEW_PREFIXES
    spec_routes: ClassVar[frozenset[str]] = frozenset({"/api/session/{}/history"})
    startup: ClassVar[re.Pattern[str] | None] = re.compile(r"\bopencode server listening on (\S+)")

    def frames(self) -> Normaliser:
        return Normaliser()

    def message(self, info: dict[str, Any]) -> dict[str, Any]:
        return message(info)

    def session_info(self, info: dict[str, Any]) -> dict[str, Any]:
        return session_info(info)

    def revert_state(self, revert: dict[str, Any]) -> dict[str, Any]:
        return revert_state(revert)

    def permission_request(self, data: dict[str, Any]) -> dict[str, Any]:
        return permission_request(data)

    def question_request(self, data: dict[str, Any]) -> dict[str, Any]:
        return question_request(data)

    def prompt_body(self, body: dict[str, Any]) -> dict[str, Any]:
        return prompt_body(body)

    def compact_body(self, delivery: str | None = None) -> dict[str, Any]:
        return {}  # never sent: 1.18 takes no body (and answers 503)


def _mention_to_source(item: dict[str, Any]) -> dict[str, Any]:
    out = dict(item)
    if "mention" in out:
        out["source"] = out.pop("mention")
    return out
