"""Turns scripts into v2 events: one task per session drains its inbox, one turn per item.

The 2.0 preview (``DemoServer.preview``) runs differently, as recorded in traces-2.0 (TRACES.md 1):
one execution drains every pending input, steers before queued ones, each promoted
(``session.input.promoted``) before the steps that answer it; a new session is titled after its
first step; a dismissed question ends the execution (``reason: "shutdown"``); a subagent cannot
start another. Simplification: a steer waits for the whole script of the running input, where the
real server promotes it at the next step boundary.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tui.demo.scripts import FormAsk, PermissionAsk, QuestionAsk, Script, Step, Tool

if TYPE_CHECKING:
    from tui.demo.server import DemoServer

Json = dict[str, Any]

DELTA_MS = 30.0  # spacing of deltas at speed 1
TOOL_MS = 250.0  # "work" time of a tool at speed 1
SUBAGENT_PREFIX = "You are a subagent spawned by another session.\n"
INTERRUPTED: Json = {"type": "aborted", "message": "interrupted"}
STEP_INTERRUPTED: Json = {"type": "aborted", "message": "Step interrupted"}  # 2.0 preview wording
DISMISSED = "The user dismissed this question"
SNAPSHOT = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's empty tree: a snapshot id of that shape
INSTRUCTIONS: dict[str, str] = {  # what the 2.0 preview's instructions.updated carries: hashes
    key: hashlib.sha256(f"demo {key}".encode()).hexdigest() for key in ("core/environment", "core/date")}


@dataclass
class Turn:
    """What is open in a running turn, so an interrupt can close it cleanly."""

    session_id: str
    message_id: str | None = None
    ordinals: dict[str, int] = field(default_factory=dict)
    blocks: dict[tuple[str, int], str] = field(default_factory=dict)
    tools: dict[str, str] = field(default_factory=dict)  # call id -> message if cancelled
    final_text: str = ""
    error: Json | None = None
    end_reason: str | None = None  # 2.0 preview: why the execution was interrupted ("shutdown")

    def next_ordinal(self, kind: str) -> int:
        n = self.ordinals.get(kind, 0)
        self.ordinals[kind] = n + 1
        return n


def chunks(text: str, words: int = 3) -> list[str]:
    """Split into deltas of a few words, keeping every character (whitespace included)."""
    pieces = text.split(" ")
    out = [" ".join(pieces[i:i + words]) for i in range(0, len(pieces), words)]
    return [c + " " for c in out[:-1]] + out[-1:]


class Runner:
    def __init__(self, server: DemoServer) -> None:
        self.s = server

    async def run_session(self, session_id: str) -> Turn | None:
        """Task body: deliver inbox items in order, running one turn each."""
        last: Turn | None = None
        if self.s.preview:
            while self.s.state.inbox.get(session_id):
                last = await self.run_execution(session_id) or last
            return last
        while items := self.s.state.inbox.get(session_id):
            item = items[0]
            if item["type"] == "compaction":
                await self.run_compaction(session_id, item["id"])
                continue
            last = await self.run_turn(session_id, item["id"], self.s.script_for(item))
        return last

    async def run_resumed(self, session_id: str, script: Script) -> Turn | None:
        """A turn with no inbox item (a skill activated on an idle session), then the inbox."""
        if self.s.preview:
            turn = await self.run_execution(session_id, script)
        else:
            turn = await self.run_turn(session_id, None, script)
        return await self.run_session(session_id) or turn

    def next_input(self, session_id: str) -> Json | None:
        """The 2.0 preview promotes steers (and compactions) before queued inputs (m01_queue)."""
        items = self.s.state.inbox.get(session_id) or []
        return next((i for i in items if i.get("delivery") != "queue"), items[0] if items else None)

    async def run_execution(self, session_id: str, first: Script | None = None) -> Turn | None:
        """2.0 preview: one execution that answers pending inputs until none is left (or a turn
        fails); ``first``: a script to run before them (a skill activated on an idle session)."""
        emit, sid = self.s.emit, {"sessionID": session_id}
        emit("session.execution.started", sid)
        emit("session.instructions.updated", sid | {"delta": dict(INSTRUCTIONS)},
             metadata={"instructions": {"initial": True}})
        turn, last = Turn(session_id), None
        try:
            if first is not None:
                await self.run_steps(turn, first)
                last = turn
            while (last is None or last.error is None) and (item := self.next_input(session_id)):
                if item["type"] == "compaction":
                    await self.compaction_body(session_id, item["id"])
                    continue
                turn = Turn(session_id)
                emit("session.input.promoted", sid | {"inputID": item["id"]})
                await self.run_steps(turn, self.s.script_for(item))
                last = turn
        except asyncio.CancelledError:
            self.abort(turn)
            raise
        if last is not None and last.error is not None and last.end_reason is not None:
            emit("session.execution.interrupted", sid | {"reason": last.end_reason})
        elif last is not None and last.error is not None:
            emit("session.execution.failed", sid | {"error": last.error})
        else:
            emit("session.execution.succeeded", sid)
        return last

    async def run_steps(self, turn: Turn, script: Script) -> None:
        for step in script.steps:
            await self.run_step(turn, step, script.agent)
            if turn.error is not None:
                break

    async def run_turn(self, session_id: str, inbox_id: str | None, script: Script) -> Turn:
        emit, sid = self.s.emit, {"sessionID": session_id}
        if inbox_id is not None:
            emit("session.inbox.delivered", sid | {"inboxID": inbox_id})
        emit("session.execution.started", sid)
        emit("session.status", sid | {"status": {"type": "busy"}})
        turn = Turn(session_id)
        try:
            await self.run_steps(turn, script)
        except asyncio.CancelledError:
            self.abort(turn)
            raise
        if turn.error is not None:
            emit("session.execution.failed", sid | {"error": turn.error})
        else:
            emit("session.execution.succeeded", sid)
        self._settle(session_id)
        return turn

    async def run_compaction(self, session_id: str, inbox_id: str) -> None:
        """Summarise the session: ``compaction.started``, summary deltas, ``compaction.ended``.

        A session with nothing to summarise gets ``compaction.failed`` instead.
        """
        emit, sid = self.s.emit, {"sessionID": session_id}
        emit("session.inbox.delivered", sid | {"inboxID": inbox_id})
        emit("session.status", sid | {"status": {"type": "busy"}})
        await self.compaction_body(session_id, inbox_id)
        self._settle(session_id)

    async def compaction_body(self, session_id: str, inbox_id: str) -> None:
        """``compaction.started``, summary deltas, ``compaction.ended`` (or ``failed``)."""
        emit, sid = self.s.emit, {"sessionID": session_id}
        history = self.s.state.messages.get(session_id, [])
        messages = [m for m in history if m["type"] in ("user", "assistant")]
        base = sid | {"reason": "manual"}
        if not messages:
            emit("session.compaction.failed", base | {"inputID": inbox_id, "error": {
                "type": "compaction", "message": "Nothing to compact yet."}})
            return
        # The 2.0 preview keeps no recent tail in this build: ``recent`` is "" (TRACES.md 4).
        recent = "" if self.s.preview else next(
            (m["id"] for m in reversed(messages) if m["type"] == "user"), messages[-1]["id"])
        emit("session.compaction.started", base | {"recent": recent, "inputID": inbox_id})
        summary = compaction_summary(messages)
        try:
            for delta in chunks(summary, words=4):
                await self.s.pause(DELTA_MS)
                emit("session.compaction.delta", sid | {"text": delta})
        except asyncio.CancelledError:
            emit("session.compaction.failed", base | {"inputID": inbox_id, "error": INTERRUPTED})
            if not self.s.preview:
                self._settle(session_id)
            raise
        emit("session.compaction.ended", base | {"text": summary, "recent": recent})

    def _settle(self, session_id: str) -> None:
        if self.s.preview:  # the 2.0 preview never sends session.status / session.idle
            return
        self.s.emit("session.status", {"sessionID": session_id, "status": {"type": "idle"}})
        self.s.emit("session.idle", {"sessionID": session_id})

    def abort(self, turn: Turn) -> None:
        """Interrupted: reject asks, close open blocks and tools, fail the step."""
        emit, sid = self.s.emit, turn.session_id
        self.s.reject_pending(sid)
        if turn.message_id is not None:
            mid = {"sessionID": sid, "assistantMessageID": turn.message_id}
            for (kind, ordinal), text in turn.blocks.items():
                emit(f"session.{kind}.ended", mid | {"ordinal": ordinal, "text": text})
            for call, message in turn.tools.items():
                emit("session.tool.failed", mid | {
                    "id": call, "error": {"type": "aborted", "message": message}, "executed": True})
            emit("session.step.failed", mid | {"error": STEP_INTERRUPTED if self.s.preview else INTERRUPTED})
        emit("session.execution.interrupted", {"sessionID": sid, "reason": "user"})
        self._settle(sid)

    # -- steps -------------------------------------------------------------------------------

    async def run_step(self, turn: Turn, step: Step, agent: str) -> None:
        emit = self.s.emit
        turn.message_id = self.s.ids("msg")
        turn.ordinals.clear()
        mid = {"sessionID": turn.session_id, "assistantMessageID": turn.message_id}
        snapshot: Json = {"snapshot": SNAPSHOT} if self.s.preview else {}
        emit("session.step.started", mid | {"agent": agent, "model": self.s.model_of(turn.session_id)}
             | snapshot)
        if step.reasoning:
            await self.stream_block(turn, "reasoning", step.reasoning)
        if step.text:
            await self.stream_block(turn, "text", step.text)
            turn.final_text = step.text
        for tool in step.tools:
            await self.run_tool(turn, tool)
            if turn.error is not None:  # a dismissed question ends the step (2.0 preview)
                break
        usage = {"cost": step.cost, "tokens": step.tokens}
        files: Json = snapshot | ({"files": []} if self.s.preview else {})
        if turn.error is not None:
            emit("session.step.failed", mid | {"error": turn.error} | usage | files)
        elif step.error is not None:
            turn.error = step.error
            emit("session.step.failed", mid | {"error": step.error} | usage | files)
        else:
            emit("session.step.ended", mid | {"finish": "tool-calls" if step.tools else "stop"} | usage
                 | files)
        info = self.s.state.sessions[turn.session_id]
        emit("session.usage.updated", {"sessionID": turn.session_id, "cost": info["cost"],
                                       "tokens": info["tokens"]})
        if self.s.preview and not info.get("title"):
            self._title(turn.session_id)
        turn.message_id = None

    def _title(self, session_id: str) -> None:
        """The 2.0 preview titles a new session after its first step (its title agent's answer,
        counted in a second usage.updated); the demo's title is the first prompt, shortened."""
        info = self.s.state.sessions[session_id]
        self.s.emit("session.usage.updated", {"sessionID": session_id, "cost": info["cost"],
                                              "tokens": info["tokens"]})
        first = next((m.get("text", "") for m in self.s.state.messages.get(session_id, [])
                      if m["type"] == "user"), "")
        words = " ".join(first.split()[:6]).rstrip(".?!,;:") or "Demo session"
        self.s.emit("session.renamed", {"sessionID": session_id, "title": words[:50]})

    async def stream_block(self, turn: Turn, kind: str, text: str) -> None:
        emit, ordinal = self.s.emit, turn.next_ordinal(kind)
        base = {"sessionID": turn.session_id, "assistantMessageID": turn.message_id, "ordinal": ordinal}
        emit(f"session.{kind}.started", base)
        turn.blocks[(kind, ordinal)] = ""
        for delta in chunks(text):
            await self.s.pause(DELTA_MS)
            turn.blocks[(kind, ordinal)] += delta
            emit(f"session.{kind}.delta", base | {"delta": delta})
        del turn.blocks[(kind, ordinal)]
        emit(f"session.{kind}.ended", base | {"text": text})

    # -- tools -------------------------------------------------------------------------------

    async def run_tool(self, turn: Turn, tool: Tool) -> None:
        emit, call = self.s.emit, self.s.ids("call")
        base = {"sessionID": turn.session_id, "assistantMessageID": turn.message_id, "id": call}
        raw = json.dumps(tool.input)
        emit("session.tool.input.started", base | {"name": tool.name})
        turn.tools[call] = "Tool execution interrupted"
        for delta in (raw[i:i + 24] for i in range(0, len(raw), 24)):
            await self.s.pause(DELTA_MS)
            emit("session.tool.input.delta", base | {"delta": delta})
        emit("session.tool.input.ended", base | {"text": raw})
        emit("session.tool.called", base | {"input": tool.input, "executed": True})
        is_child = "parentID" in self.s.state.sessions[turn.session_id]
        if tool.subagent is not None and self.s.preview and is_child:
            # The 2.0 preview offers children no subagent tool (TRACES.md 2, m02_subagent_nested).
            return self._fail(turn, base, f"Unknown tool: {tool.name}", "tool.execution")
        if tool.subagent is not None:
            await self.run_subagent(turn, base, tool)
            return
        result = await self.ask(turn, base, tool)
        if result == DISMISSED and self.s.preview:
            # Dismissing the question ends the turn (TRACES.md 04b): the step fails as interrupted
            # and the execution ends with reason "shutdown".
            self._fail(turn, base, DISMISSED, "aborted")
            turn.error, turn.end_reason = dict(STEP_INTERRUPTED), "shutdown"
            return None
        if isinstance(result, str):
            return self._fail(turn, base, result)
        for progress in tool.progress:
            await self.s.pause(TOOL_MS)
            emit("session.tool.progress", base | {"metadata": progress})
        if tool.name == "shell" and tool.output:
            await self.stream_shell(base, tool)
        await self.s.pause(TOOL_MS)
        if tool.error is not None:
            return self._fail(turn, base, tool.error)
        content = [{"type": "text", "text": text} for text in tool.output]
        metadata: Json | None = tool.metadata
        if result is not None:  # a question: the answers are the result
            content = [{"type": "text", "text": "User answered: " + json.dumps(result)}]
            metadata = {"answers": result}
        self._succeed(turn, base, content, metadata)

    async def stream_shell(self, base: Json, tool: Tool) -> None:
        """Like a v2 shell: progress names a ``shellID`` whose output grows line by line."""
        shell_id = self.s.ids("sh")
        self.s.shells[shell_id] = ""
        self.s.emit("session.tool.progress",
                    base | {"metadata": {"status": "running", "shellID": shell_id}})
        for line in tool.output[0].splitlines(keepends=True):
            await self.s.pause(TOOL_MS)
            self.s.shells[shell_id] += line

    def _succeed(self, turn: Turn, base: Json, content: list[Json], metadata: Json | None) -> None:
        data = base | {"content": content, "executed": True}
        if metadata is not None:
            data["metadata"] = metadata
        turn.tools.pop(base["id"], None)
        self.s.emit("session.tool.success", data)

    def _fail(self, turn: Turn, base: Json, message: str, kind: str = "tool") -> None:
        turn.tools.pop(base["id"], None)
        self.s.emit("session.tool.failed", base | {
            "error": {"type": kind, "message": message}, "executed": True})

    async def ask(self, turn: Turn, base: Json, tool: Tool) -> str | list[list[str]] | None:
        """Ask and wait. Returns an error message (denied), answers (question) or None (allowed)."""
        ask, s, sid = tool.ask, self.s, turn.session_id
        tool_ref = {"messageID": base["assistantMessageID"], "id": base["id"]}
        if isinstance(ask, PermissionAsk):
            saved = s.always_allowed.get(ask.action, [])
            if saved and ask.resources and all(any(_wildcard(r, p) for p in saved) for r in ask.resources):
                return None  # "allow always" saved patterns that cover it
            request: Json = {"id": s.ids("per"), "sessionID": sid, "action": ask.action,
                             "resources": list(ask.resources), "source": {"type": "tool"} | tool_ref}
            if ask.save:
                request["save"] = list(ask.save)
            if ask.metadata is not None:
                request["metadata"] = ask.metadata
            s.emit("permission.asked", request)
            reply = await s.wait_answer(request["id"])
            return None if reply in ("once", "always") else "The user rejected permission to use this tool"
        if isinstance(ask, QuestionAsk) and not s.preview:  # the 2.0 preview asks only by forms
            qid = s.ids("que")
            s.emit("question.asked", {"id": qid, "sessionID": sid, "questions": list(ask.questions),
                                      "tool": tool_ref})
            answers = await s.wait_answer(qid)
            return "The user dismissed the question" if answers is None else list(answers)
        if isinstance(ask, (FormAsk, QuestionAsk)):
            form = question_form(s.ids("frm"), sid, ask.questions, tool_ref)
            s.emit("form.created", {"form": form})
            answer = await s.wait_answer(form["id"])
            if answer is None:
                return DISMISSED if s.preview else "The user dismissed the question"
            values = [answer.get(f["key"]) for f in form["fields"]]
            return [v if isinstance(v, list) else ([] if v is None else [str(v)]) for v in values]
        return None

    # -- subagents -----------------------------------------------------------------------------

    async def run_subagent(self, turn: Turn, base: Json, tool: Tool) -> None:
        s, inp, sub = self.s, tool.input, tool.subagent
        assert sub is not None
        child = s.create_session(title=inp["description"], parent_id=turn.session_id,
                                 agent=inp["agent"])["id"]
        turn.tools[base["id"]] = f"Subagent cancelled (sessionID: {child})"
        running = {"sessionID": child, "status": "running"}
        # The 2.0 preview nests the child's id one level down in progress (TRACES.md 2).
        s.emit("session.tool.progress", base | {"metadata": {"metadata": running} if s.preview else running})
        s.prompt(child, SUBAGENT_PREFIX + sub.script.prompt, script=sub.script)
        task = s.runner_task(child)
        flat = {"truncated": False} if s.preview else {}
        if sub.background:
            s.watch_background(turn.session_id, child, inp, task)
            text = (f"The subagent is working in the background (id: {child}). You will be notified "
                    "automatically when it finishes." if s.preview else
                    f"Subagent started in the background (sessionID: {child}). Its result will "
                    "arrive as a message when it finishes.")
            self._succeed(turn, base, [{"type": "text", "text": text}], running | flat)
            return
        try:
            result = await s.await_task(task)
        except asyncio.CancelledError:
            me = asyncio.current_task()
            if me is not None and me.cancelling():
                raise
            return self._fail(turn, base, f"Subagent cancelled (sessionID: {child})", "aborted")
        if result is None or result.error is not None:
            why = result.error["message"] if result and result.error else "no result"
            return self._fail(turn, base, f"Subagent failed (sessionID: {child}): {why}")
        text = result.final_text if s.preview else (  # 2.0 preview: the child's answer as it is
            f'<subagent sessionID="{child}" state="completed">\n{result.final_text}\n</subagent>')
        self._succeed(turn, base, [{"type": "text", "text": text}],
                      {"sessionID": child, "status": "completed"} | flat)


def compaction_summary(messages: list[Json]) -> str:
    """A deterministic stand-in for the model's summary of ``messages`` (user/assistant only)."""
    users = [m.get("text", "") for m in messages if m["type"] == "user"]
    tools = sum(1 for m in messages if m["type"] == "assistant"
                for part in m.get("content", []) if part.get("type") == "tool")
    first = " ".join(users[0].split())[:80] if users else "nothing yet"
    return (f"Summary of {len(messages)} earlier messages: the user asked “{first}”; "
            f"{_count(len(users), 'prompt')} and {_count(tools, 'tool call')} so far. Older turns "
            "are folded into this summary to free context; the latest prompt is kept as it was.")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def question_form(form_id: str, session_id: str, questions: Any, tool_ref: Json) -> Json:
    """The v2 question tool's form: one field per question, keys q0, q1, … (PROTOCOL §4.9)."""
    fields = []
    for n, q in enumerate(questions):
        options = [{"value": o["label"], "label": o["label"]}
                   | ({"description": o["description"]} if o.get("description") else {})
                   for o in q["options"]]
        fields.append({"key": f"q{n}", "title": q["header"], "description": q["question"],
                       "type": "multiselect" if q.get("multiple") else "string",
                       "options": options, "custom": True})
    return {"id": form_id, "sessionID": session_id, "title": "Questions",
            "metadata": {"kind": "question", "tool": tool_ref}, "fields": fields}


def _wildcard(text: str, pattern: str) -> bool:
    """A permission pattern as OpenCode matches it: ``*`` any run, ``?`` one character, the
    rest literal (``[`` too); a pattern ending in `` *`` also matches without it (``ls *``: ``ls``)."""
    body = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    if pattern.endswith(" *"):
        body = body[: -len(re.escape(" ") + ".*")] + "(?: .*)?"
    return re.fullmatch(body, text, re.DOTALL) is not None
