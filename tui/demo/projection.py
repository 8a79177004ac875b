"""The demo server's state, built only from the events it emits.

Applying every emitted event here is what keeps REST reads (sessions, messages, pending asks,
inbox, active set) consistent with the stream, exactly like the real server's projections.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

Json = dict[str, Any]


def zero_tokens() -> Json:
    return {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}


def add_tokens(into: Json, more: Json) -> None:
    for key in ("input", "output", "reasoning"):
        into[key] = into.get(key, 0) + more.get(key, 0)
    for key in ("read", "write"):
        into["cache"][key] = into["cache"].get(key, 0) + more.get("cache", {}).get(key, 0)


class Projection:
    """Sessions, v2 messages, inbox, pending asks and the active set."""

    def __init__(self, new_message_id: Callable[[], str]) -> None:
        self._new_message_id = new_message_id
        self.sessions: dict[str, Json] = {}
        self.messages: dict[str, list[Json]] = {}
        self.inbox: dict[str, list[Json]] = {}
        self.permissions: dict[str, Json] = {}
        self.questions: dict[str, Json] = {}
        self.forms: dict[str, Json] = {}
        self.form_states: dict[str, Json] = {}
        self.active: set[str] = set()
        self._blocks: dict[tuple[str, str, int], Json] = {}
        self._tools: dict[tuple[str, str], Json] = {}
        self._compactions: dict[str, Json] = {}  # session id -> its running compaction message

    # -- reads -------------------------------------------------------------------------------

    def message(self, session_id: str, message_id: str) -> Json | None:
        return next((m for m in self.messages.get(session_id, []) if m["id"] == message_id), None)

    def add_message(self, session_id: str, message: Json) -> None:
        self.messages.setdefault(session_id, []).append(message)

    # -- apply -------------------------------------------------------------------------------

    def apply(self, event: Json) -> None:
        data: Json = event["data"]
        created = event.get("created", 0)
        handler = getattr(self, "_on_" + event["type"].replace(".", "_").replace("-", "_"), None)
        if handler is not None:
            handler(data, created)
        session = self.sessions.get(data.get("sessionID", ""))
        if session is not None and "durable" in event:
            session["time"]["updated"] = created

    def _on_session_created(self, d: Json, at: float) -> None:
        info: Json = {
            "id": d["sessionID"],
            "projectID": d["projectID"],
            "cost": 0,
            "tokens": zero_tokens(),
            "time": {"created": at, "updated": at},
            "location": d["location"],
        }
        for key in ("parentID", "title", "agent", "model", "subpath"):
            if key in d:
                info[key] = copy.deepcopy(d[key])
        self.sessions[d["sessionID"]] = info
        self.messages.setdefault(d["sessionID"], [])
        self.inbox.setdefault(d["sessionID"], [])

    def _on_session_renamed(self, d: Json, at: float) -> None:
        self.sessions[d["sessionID"]]["title"] = d["title"]

    def _on_session_deleted(self, d: Json, at: float) -> None:
        sid = d["sessionID"]
        self.sessions.pop(sid, None)
        self.messages.pop(sid, None)
        self.inbox.pop(sid, None)
        self.active.discard(sid)
        for pending in (self.permissions, self.questions, self.forms):
            for key in [k for k, v in pending.items() if v["sessionID"] == sid]:
                del pending[key]

    def _on_session_revert_staged(self, d: Json, at: float) -> None:
        self.sessions[d["sessionID"]]["revert"] = copy.deepcopy(d["revert"])

    def _on_session_revert_cleared(self, d: Json, at: float) -> None:
        self.sessions[d["sessionID"]].pop("revert", None)

    def _on_session_revert_committed(self, d: Json, at: float) -> None:
        """The boundary message and every one after it are gone."""
        sid = d["sessionID"]
        self.sessions[sid].pop("revert", None)
        kept = self.messages.get(sid, [])
        for index, message in enumerate(kept):
            if message["id"] == d["to"]:
                del kept[index:]
                break

    def _on_session_agent_selected(self, d: Json, at: float) -> None:
        self.sessions[d["sessionID"]]["agent"] = d["agent"]
        msg = {"id": self._new_message_id(), "time": {"created": at}, "type": "agent-switched"}
        self.add_message(d["sessionID"], msg | {k: d[k] for k in ("agent", "previous") if k in d})

    def _on_session_model_selected(self, d: Json, at: float) -> None:
        self.sessions[d["sessionID"]]["model"] = copy.deepcopy(d["model"])
        msg = {"id": self._new_message_id(), "time": {"created": at}, "type": "model-switched"}
        self.add_message(d["sessionID"], msg | {k: d[k] for k in ("model", "previous") if k in d})

    def _on_session_inbox_enqueued(self, d: Json, at: float) -> None:
        item = d["item"]
        self.inbox.setdefault(d["sessionID"], []).append({
            "id": d["inboxID"],
            "sessionID": d["sessionID"],
            "timeCreated": at,
            "type": item["type"],
            "payload": copy.deepcopy(item["payload"]),
            "delivery": item["delivery"],
        })

    def _on_session_inbox_delivered(self, d: Json, at: float) -> None:
        items = self.inbox.get(d["sessionID"], [])
        item = next((i for i in items if i["id"] == d["inboxID"]), None)
        if item is None:
            return
        items.remove(item)
        if item["type"] in ("user", "synthetic"):
            msg: Json = {"id": item["id"], "time": {"created": at}, "type": item["type"]}
            msg.update(copy.deepcopy(item["payload"]))
            self.add_message(d["sessionID"], msg)

    # -- the 2.0 preview's pending inputs: ``data`` where v2 has ``payload`` (TRACES.md 1) ------------

    def _on_session_input_admitted(self, d: Json, at: float) -> None:
        item = d["input"]
        self.inbox.setdefault(d["sessionID"], []).append({
            "id": d["inputID"],
            "sessionID": d["sessionID"],
            "timeCreated": at,
            "type": item["type"],
            "data": copy.deepcopy(item["data"]),
            "delivery": item["delivery"],
        })

    def _on_session_input_promoted(self, d: Json, at: float) -> None:
        items = self.inbox.get(d["sessionID"], [])
        item = next((i for i in items if i["id"] == d["inputID"]), None)
        if item is None:
            return
        items.remove(item)
        msg: Json = {"id": item["id"], "time": {"created": at}, "type": item["type"]}
        msg.update(copy.deepcopy(item["data"]))  # the user message id is the input id
        self.add_message(d["sessionID"], msg)

    def _on_session_compaction_admitted(self, d: Json, at: float) -> None:
        self.inbox.setdefault(d["sessionID"], []).append({
            "id": d["inputID"], "sessionID": d["sessionID"], "timeCreated": at, "type": "compaction"})

    def _on_session_inbox_cancelled(self, d: Json, at: float) -> None:
        items = self.inbox.get(d["sessionID"], [])
        items[:] = [i for i in items if i["id"] != d["inboxID"]]

    def _on_session_inbox_delivery_changed(self, d: Json, at: float) -> None:
        for item in self.inbox.get(d["sessionID"], []):
            if item["id"] == d["inboxID"]:
                item["delivery"] = d["delivery"]

    def _on_session_execution_started(self, d: Json, at: float) -> None:
        self.active.add(d["sessionID"])

    def _on_session_execution_succeeded(self, d: Json, at: float) -> None:
        self.active.discard(d["sessionID"])

    _on_session_execution_failed = _on_session_execution_succeeded
    _on_session_execution_interrupted = _on_session_execution_succeeded

    def _on_session_skill_activated(self, d: Json, at: float) -> None:
        msg: Json = {"id": self._new_message_id(), "time": {"created": at}, "type": "skill",
                     "skill": d["id"], "name": d["name"], "text": d["text"]}
        self.add_message(d["sessionID"], msg)

    # -- compaction: one message per run, keyed by the compaction's inbox id ---------------------

    def _compaction(self, d: Json, at: float) -> Json:
        open_run = self._compactions.get(d["sessionID"])
        if open_run is None:
            open_run = {"id": d.get("inputID") or self._new_message_id(), "time": {"created": at},
                        "type": "compaction", "status": "running", "reason": d.get("reason", "manual"),
                        "summary": "", "recent": ""}
            self._compactions[d["sessionID"]] = open_run
            self.add_message(d["sessionID"], open_run)
        return open_run

    def _on_session_compaction_started(self, d: Json, at: float) -> None:
        self._compaction(d, at)["recent"] = d["recent"]
        if "inputID" in d:  # the 2.0 preview never promotes a compaction: it leaves /pending here
            items = self.inbox.get(d["sessionID"], [])
            items[:] = [i for i in items if i["id"] != d["inputID"]]

    def _on_session_compaction_delta(self, d: Json, at: float) -> None:
        if d["sessionID"] in self._compactions:
            self._compactions[d["sessionID"]]["summary"] += d["text"]

    def _on_session_compaction_ended(self, d: Json, at: float) -> None:
        msg = self._compaction(d, at)
        msg.update(status="completed", summary=d["text"], recent=d["recent"])
        del self._compactions[d["sessionID"]]

    def _on_session_compaction_failed(self, d: Json, at: float) -> None:
        msg = self._compaction(d, at)
        for key in ("summary", "recent"):  # the failed variant has neither
            msg.pop(key, None)
        msg.update(status="failed", error=copy.deepcopy(d["error"]))
        del self._compactions[d["sessionID"]]

    def _on_session_synthetic(self, d: Json, at: float) -> None:
        msg: Json = {"id": self._new_message_id(), "time": {"created": at}, "type": "synthetic"}
        msg.update({k: copy.deepcopy(d[k]) for k in ("text", "description", "metadata") if k in d})
        self.add_message(d["sessionID"], msg)

    # -- assistant messages ------------------------------------------------------------------

    def _assistant(self, d: Json) -> Json | None:
        return self.message(d["sessionID"], d["assistantMessageID"])

    def _on_session_step_started(self, d: Json, at: float) -> None:
        msg = self._assistant(d)
        if msg is None:
            msg = {"id": d["assistantMessageID"], "time": {"created": at}, "type": "assistant",
                   "content": []}
            self.add_message(d["sessionID"], msg)
        for key in ("finish", "error", "cost", "tokens"):  # a retried step starts clean
            msg.pop(key, None)
        msg["time"].pop("completed", None)
        msg["agent"] = d["agent"]
        msg["model"] = copy.deepcopy(d["model"])
        if "snapshot" in d:
            msg["snapshot"] = {"start": d["snapshot"]}

    def _close_step(self, d: Json, at: float, finish: str) -> None:
        msg = self._assistant(d)
        if msg is None:
            return
        msg["finish"] = finish
        msg["time"]["completed"] = at
        if "cost" in d:
            msg["cost"] = d["cost"]
            self.sessions[d["sessionID"]]["cost"] += d["cost"]
        if "tokens" in d:
            msg["tokens"] = copy.deepcopy(d["tokens"])
            add_tokens(self.sessions[d["sessionID"]]["tokens"], d["tokens"])
        if "snapshot" in d:
            msg.setdefault("snapshot", {})["end"] = d["snapshot"]
        if "files" in d:
            msg.setdefault("snapshot", {})["files"] = list(d["files"])

    def _on_session_step_ended(self, d: Json, at: float) -> None:
        self._close_step(d, at, d["finish"])

    def _on_session_step_failed(self, d: Json, at: float) -> None:
        self._close_step(d, at, "error")
        msg = self._assistant(d)
        if msg is not None:
            msg["error"] = copy.deepcopy(d["error"])

    def _block_started(self, kind: str, d: Json, at: float) -> None:
        msg = self._assistant(d)
        if msg is None:
            return
        part: Json = {"type": kind, "text": ""}
        if kind == "reasoning":
            part["time"] = {"created": at}
        msg["content"].append(part)
        self._blocks[(d["assistantMessageID"], kind, d["ordinal"])] = part

    def _block_delta(self, kind: str, d: Json) -> None:
        part = self._blocks.get((d["assistantMessageID"], kind, d["ordinal"]))
        if part is not None:
            part["text"] += d["delta"]

    def _block_ended(self, kind: str, d: Json, at: float) -> None:
        part = self._blocks.get((d["assistantMessageID"], kind, d["ordinal"]))
        if part is not None:
            part["text"] = d["text"]
            if kind == "reasoning":
                part["time"]["completed"] = at

    def _on_session_text_started(self, d: Json, at: float) -> None:
        self._block_started("text", d, at)

    def _on_session_text_delta(self, d: Json, at: float) -> None:
        self._block_delta("text", d)

    def _on_session_text_ended(self, d: Json, at: float) -> None:
        self._block_ended("text", d, at)

    def _on_session_reasoning_started(self, d: Json, at: float) -> None:
        self._block_started("reasoning", d, at)

    def _on_session_reasoning_delta(self, d: Json, at: float) -> None:
        self._block_delta("reasoning", d)

    def _on_session_reasoning_ended(self, d: Json, at: float) -> None:
        self._block_ended("reasoning", d, at)

    # -- tools ---------------------------------------------------------------------------------

    def _tool(self, d: Json) -> Json | None:
        return self._tools.get((d["assistantMessageID"], d["id"]))

    def _on_session_tool_input_started(self, d: Json, at: float) -> None:
        msg = self._assistant(d)
        if msg is None:
            return
        part: Json = {"type": "tool", "id": d["id"], "name": d["name"], "time": {"created": at},
                      "state": {"status": "streaming", "input": ""}}
        msg["content"].append(part)
        self._tools[(d["assistantMessageID"], d["id"])] = part

    def _on_session_tool_input_delta(self, d: Json, at: float) -> None:
        part = self._tool(d)
        if part is not None and part["state"]["status"] == "streaming":
            part["state"]["input"] += d["delta"]

    def _on_session_tool_input_ended(self, d: Json, at: float) -> None:
        part = self._tool(d)
        if part is not None and part["state"]["status"] == "streaming":
            part["state"]["input"] = d["text"]

    def _on_session_tool_called(self, d: Json, at: float) -> None:
        part = self._tool(d)
        if part is None:
            return
        part["executed"] = d["executed"]
        part["time"]["ran"] = at
        part["state"] = {"status": "running", "input": copy.deepcopy(d["input"]), "metadata": {}}

    def _on_session_tool_progress(self, d: Json, at: float) -> None:
        part = self._tool(d)
        if part is not None and part["state"]["status"] == "running":
            part["state"]["metadata"] = copy.deepcopy(d["metadata"])

    def _tool_done(self, d: Json, at: float, state: Json) -> None:
        part = self._tool(d)
        if part is None:
            return
        old = part["state"]["input"]
        state["input"] = old if isinstance(old, dict) else {}
        for key in ("content", "metadata"):
            if key in d:
                state[key] = copy.deepcopy(d[key])
        part["state"] = state
        part["executed"] = d["executed"]
        part["time"]["completed"] = at

    def _on_session_tool_success(self, d: Json, at: float) -> None:
        self._tool_done(d, at, {"status": "completed"})

    def _on_session_tool_failed(self, d: Json, at: float) -> None:
        self._tool_done(d, at, {"status": "error", "error": copy.deepcopy(d["error"])})

    # -- pending asks --------------------------------------------------------------------------

    def _on_permission_asked(self, d: Json, at: float) -> None:
        self.permissions[d["id"]] = copy.deepcopy(d)

    def _on_permission_replied(self, d: Json, at: float) -> None:
        self.permissions.pop(d["requestID"], None)

    def _on_question_asked(self, d: Json, at: float) -> None:
        self.questions[d["id"]] = copy.deepcopy(d)

    def _on_question_replied(self, d: Json, at: float) -> None:
        self.questions.pop(d["requestID"], None)

    _on_question_rejected = _on_question_replied

    def _on_form_created(self, d: Json, at: float) -> None:
        self.forms[d["form"]["id"]] = copy.deepcopy(d["form"])
        self.form_states[d["form"]["id"]] = {"status": "pending"}

    def _on_form_replied(self, d: Json, at: float) -> None:
        self.forms.pop(d["id"], None)
        self.form_states[d["id"]] = {"status": "answered", "answer": copy.deepcopy(d["answer"])}

    def _on_form_cancelled(self, d: Json, at: float) -> None:
        self.forms.pop(d["id"], None)
        self.form_states[d["id"]] = {"status": "cancelled"}
