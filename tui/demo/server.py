"""DemoServer: state, event emission, asks and task bookkeeping (no HTTP here; see routes)."""

from __future__ import annotations

import asyncio
import copy
import datetime
import json
from collections.abc import Callable
from typing import Any

from tui.app import clock as _clock
from tui.demo.generation import DemoGeneration
from tui.demo.ids import DURABLE_VERSIONS, PREVIEW_DURABLE_VERSIONS, IdGenerator
from tui.demo.projection import Json, Projection, add_tokens, zero_tokens
from tui.demo.runner import Runner, Turn
from tui.demo.scripts import SCRIPTS, Script, Step, pick_script

DEFAULT_MODEL: Json = {"id": "scripted", "providerID": "demo"}
# Events the 2.0 preview sends without a ``location`` envelope field (every traces-2.0 recording).
UNLOCATED_IN_PREVIEW = frozenset({
    "session.execution.started", "session.execution.succeeded", "session.execution.failed",
    "session.execution.interrupted", "session.usage.updated"})
PROJECT_ID = "prj_demo"


class DemoServer:
    """A scripted, in-process OpenCode v2 server (see the package docstring for the API)."""

    base_url = "http://demo.invalid"

    def __init__(
        self,
        *,
        clock: Callable[[], float] | None = None,
        speed: float = 1.0,
        heartbeat: float = 15.0,
        directory: str = "/home/demo/project",
        ids: Callable[[str], str] | None = None,
        generation: DemoGeneration | str = DemoGeneration.V2,
        password: str | None = None,
    ) -> None:
        from tui.demo.transport import DemoTransport  # transport imports server helpers

        self.generation = DemoGeneration(generation)
        self.password = password  # None: no auth; else Basic auth, user "opencode"
        self._durable = PREVIEW_DURABLE_VERSIONS if self.preview else DURABLE_VERSIONS
        self.clock = clock or _clock.now
        self.speed = speed
        self.heartbeat = heartbeat
        self.directory = directory
        self.ids: Callable[[str], str] = ids or IdGenerator()
        self.emitted: list[Json] = []
        self.state = Projection(lambda: self.ids("msg"))
        self.always_allowed: dict[str, list[str]] = {}
        """Per action, the patterns "allow always" saved (the request's ``save``), as a real server
        keeps them: a later ask of that action whose resources they all match is allowed."""
        self.shells: dict[str, str] = {}  # shell id -> output so far (GET /api/shell/{id}/output)
        self.transport = DemoTransport(self)
        self.runner = Runner(self)
        self._seq: dict[str, int] = {}
        self._subscribers: set[asyncio.Queue[bytes | None]] = set()
        self._tasks: dict[str, asyncio.Task[Turn | None]] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._scripts: dict[str, Script] = {}  # inbox id -> script to run on delivery
        self._waiters: dict[str, tuple[asyncio.Future[Any], asyncio.Task[Any] | None]] = {}
        self._blocked_on: dict[asyncio.Task[Any], asyncio.Task[Any] | None] = {}

    # -- basics --------------------------------------------------------------------------------

    @property
    def preview(self) -> bool:
        """True when speaking the 2.0 preview (tui/demo/generation.py)."""
        return self.generation is DemoGeneration.PREVIEW

    def now_ms(self) -> int:
        return int(self.clock() * 1000)

    @property
    def location(self) -> Json:
        return {"directory": self.directory}

    @property
    def location_info(self) -> Json:
        project = {"id": PROJECT_ID, "directory": self.directory, "canonical": self.directory}
        return {"directory": self.directory, "project": project}

    async def pause(self, ms: float) -> None:
        """Script pacing: ``ms × speed``; speed 0 only yields so other tasks (and cancel) run."""
        await asyncio.sleep(ms * self.speed / 1000.0 if self.speed > 0 else 0)

    def model_of(self, session_id: str) -> Json:
        return copy.deepcopy(self.state.sessions[session_id].get("model", DEFAULT_MODEL))

    # -- events --------------------------------------------------------------------------------

    def emit(self, type: str, data: Json, *, metadata: Json | None = None) -> Json:
        """Publish one event (v2 envelope, ``durable`` on durable types) to state and streams."""
        data = copy.deepcopy(data)
        event: Json = {"id": self.ids("evt"), "created": self.now_ms(), "type": type}
        if not (self.preview and type in UNLOCATED_IN_PREVIEW):
            event["location"] = self.location
        version = self._durable.get(type)
        if version is not None:
            aggregate = data.get("sessionID") or data.get("projectID") or ""
            seq = self._seq.get(aggregate, -1) + 1
            self._seq[aggregate] = seq
            event["durable"] = {"aggregateID": aggregate, "seq": seq, "version": version}
        if metadata is not None:
            event["metadata"] = copy.deepcopy(metadata)
        event["data"] = data
        self.state.apply(event)
        self.emitted.append(event)
        frame = b"data: " + json.dumps(event, separators=(",", ":")).encode() + b"\n\n"
        for queue in self._subscribers:
            queue.put_nowait(frame)
        return event

    def subscribe(self) -> asyncio.Queue[bytes | None]:
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._subscribers.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[bytes | None]) -> None:
        self._subscribers.discard(queue)

    def drop_connections(self) -> None:
        """End every open ``/api/event`` stream (clean EOF), as a restarting server would."""
        for queue in self._subscribers:
            queue.put_nowait(None)
        self._subscribers.clear()

    # -- sessions ------------------------------------------------------------------------------

    def create_session(self, *, title: str | None = None, parent_id: str | None = None,
                       agent: str | None = None, model: Json | None = None,
                       session_id: str | None = None) -> Json:
        sid = session_id or self.ids("ses")
        if self.preview:
            # The 2.0 preview names only what it was given; it titles a session itself after its
            # first step (session.renamed, TRACES.md 1).
            data: Json = {"sessionID": sid, "projectID": PROJECT_ID, "location": self.location,
                          "subpath": "", "slug": f"demo-{sid[-4:]}", "version": "local"}
            if parent_id is not None:
                data["parentID"] = parent_id
            data |= {k: v for k, v in (("title", title), ("agent", agent), ("model", model)) if v}
            self.emit("session.created", data)
            return self.state.sessions[sid]
        if title is None:
            stamp = datetime.datetime.fromtimestamp(self.clock(), datetime.UTC)
            title = "New session - " + stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        data = {"sessionID": sid, "projectID": PROJECT_ID, "location": self.location,
                "slug": f"demo-{sid[-4:]}", "title": title, "agent": agent or "build",
                "model": model or DEFAULT_MODEL, "version": "demo"}
        if parent_id is not None:
            data["parentID"] = parent_id
        self.emit("session.created", data)
        return self.state.sessions[sid]

    def seed_session(self, title: str, messages: list[Json] | None = None, *,
                     parent_id: str | None = None, agent: str = "build") -> Json:
        """Add a finished conversation without emitting events (for snapshot tests).

        ``messages`` are v2 message dicts (see ``tui.demo.fixtures``); missing ``id``/``time``
        are filled in, one minute apart, ending now.
        """
        sid = self.ids("ses")
        now = self.now_ms()
        messages = copy.deepcopy(messages or [])
        start = now - 60_000 * len(messages)
        info: Json = {"id": sid, "projectID": PROJECT_ID, "agent": agent, "model": DEFAULT_MODEL,
                      "cost": 0, "tokens": zero_tokens(), "time": {"created": start, "updated": now},
                      "title": title, "location": self.location}
        if parent_id is not None:
            info["parentID"] = parent_id
        for n, msg in enumerate(messages):
            msg.setdefault("id", self.ids("msg"))
            msg.setdefault("time", {}).setdefault("created", start + 60_000 * n)
            if msg.get("type") == "assistant":
                created = msg["time"]["created"]
                msg["time"].setdefault("completed", created)
                for part in msg.get("content", []):  # builders leave part times at 0
                    if "time" in part:
                        part["time"] = {k: v or created for k, v in part["time"].items()}
                info["cost"] += msg.get("cost", 0)
                add_tokens(info["tokens"], msg.get("tokens", zero_tokens()))
        self.state.sessions[sid] = info
        self.state.messages[sid] = messages
        self.state.inbox[sid] = []
        return info

    async def delete_session(self, session_id: str) -> None:
        """Delete a session and its children, stopping their runs first."""
        for child in [s for s, i in self.state.sessions.items() if i.get("parentID") == session_id]:
            await self.delete_session(child)
        await self.interrupt(session_id)
        self._tasks.pop(session_id, None)
        self.emit("session.deleted", {"sessionID": session_id})

    # -- prompts and runs ----------------------------------------------------------------------

    def prompt(self, session_id: str, text: str, *, delivery: str = "steer",
               inbox_id: str | None = None, script: Script | None = None,
               extra: Json | None = None) -> Json:
        """Admit a user prompt (``session.inbox.enqueued``; the 2.0 preview:
        ``session.input.admitted``) and make sure the session runs."""
        iid = inbox_id or self.ids("msg")
        payload = {"text": text} | (extra or {})
        if self.preview:
            self.emit("session.input.admitted", {"sessionID": session_id, "inputID": iid, "input": {
                "type": "user", "data": payload, "delivery": delivery}})
        else:
            self.emit("session.inbox.enqueued", {"sessionID": session_id, "inboxID": iid, "item": {
                "type": "user", "payload": payload, "delivery": delivery}})
        self._scripts[iid] = script or pick_script(text)
        item = next(i for i in self.state.inbox[session_id] if i["id"] == iid)
        self.runner_task(session_id)
        return copy.deepcopy(item)

    def compact(self, session_id: str, *, delivery: str = "steer", inbox_id: str | None = None) -> Json:
        """Admit a manual compaction (``POST …/compact``); the runner summarises when it is its turn."""
        iid = inbox_id or self.ids("msg")
        if self.preview:  # no delivery: a compaction is admitted, never promoted (TRACES.md 4)
            self.emit("session.compaction.admitted", {"sessionID": session_id, "inputID": iid})
        else:
            self.emit("session.inbox.enqueued", {"sessionID": session_id, "inboxID": iid, "item": {
                "type": "compaction", "payload": {}, "delivery": delivery}})
        item = next(i for i in self.state.inbox[session_id] if i["id"] == iid)
        self.runner_task(session_id)
        return copy.deepcopy(item)

    def activate_skill(self, session_id: str, skill: Json, *, resume: bool = True) -> None:
        """``POST …/skill``: append the skill message; an idle session then runs a turn with it."""
        self.emit("session.skill.activated", {"sessionID": session_id, "id": skill["id"],
                                              "name": skill["name"], "text": skill["content"]})
        task = self._tasks.get(session_id)
        if resume and (task is None or task.done()):
            text = f"Using the **{skill['name']}** skill: {skill.get('description', '')}."
            script = Script("skill", "", (Step(text=text),))
            self._tasks[session_id] = asyncio.get_running_loop().create_task(
                self.runner.run_resumed(session_id, script))

    def run_script(self, session_id: str, name: str) -> Json:
        """Prompt ``session_id`` with script ``name``'s own prompt text; returns the inbox item."""
        script = SCRIPTS[name]
        return self.prompt(session_id, script.prompt, script=script)

    def script_for(self, item: Json) -> Script:
        content = item.get("payload") or item.get("data") or {}  # v2 payload, 2.0 preview data
        return self._scripts.pop(item["id"], None) or pick_script(content.get("text", ""))

    def runner_task(self, session_id: str) -> asyncio.Task[Turn | None]:
        task = self._tasks.get(session_id)
        if task is None or task.done():
            task = asyncio.get_running_loop().create_task(self.runner.run_session(session_id))
            self._tasks[session_id] = task
        return task

    async def await_task(self, task: asyncio.Task[Turn | None]) -> Turn | None:
        """Await a child's run, marking the caller blocked on it (for ``idle``)."""
        me = asyncio.current_task()
        if me is not None:
            self._blocked_on[me] = task
        try:
            return await task
        finally:
            if me is not None:
                self._blocked_on.pop(me, None)

    def watch_background(self, parent: str, child: str, tool_input: Json,
                         task: asyncio.Task[Turn | None]) -> None:
        async def watch() -> None:
            try:
                result = await self.await_task(task)
            except asyncio.CancelledError:
                result, state, body = None, "cancelled", "Cancelled."
            else:
                failed = result is None or result.error is not None
                state = "error" if failed else "completed"
                body = (result.error or {}).get("message", "") if failed and result else (
                    result.final_text if result else "")
            description = tool_input["description"]
            if parent in self.state.sessions and self.preview:
                # The 2.0 preview: a synthetic input that wakes the parent (TRACES.md 2).
                iid = self.ids("msg")
                self._scripts[iid] = Script("subagent-result", "", (Step(
                    text=f"The background subagent “{description}” finished ({state})."),))
                self.emit("session.input.admitted", {"sessionID": parent, "inputID": iid, "input": {
                    "type": "synthetic", "delivery": "steer", "data": {
                        "text": f'<subagent id="{child}" state="{state}" '
                                f'description="{description}">\n{body}\n</subagent>',
                        "description": description,
                        "metadata": {"source": "subagent", "childID": child,
                                     "agent": tool_input["agent"], "state": state}}}})
                self.runner_task(parent)
            elif parent in self.state.sessions:
                self.emit("session.synthetic", {
                    "sessionID": parent, "description": description,
                    "text": f'<subagent sessionID="{child}" state="{state}" '
                            f'description="{description}">\n{body}\n</subagent>',
                    "metadata": {"source": "subagent", "childID": child,
                                 "agent": tool_input["agent"], "state": state}})

        watcher = asyncio.get_running_loop().create_task(watch())
        self._background.add(watcher)
        watcher.add_done_callback(self._background.discard)

    async def interrupt(self, session_id: str, *, resume: bool = False) -> None:
        task = self._tasks.get(session_id)
        if task is not None and not task.done():
            task.cancel()
            await asyncio.wait([task])
        self.reject_pending(session_id)
        if resume and self.state.inbox.get(session_id):
            self.runner_task(session_id)

    # -- asks ----------------------------------------------------------------------------------

    async def wait_answer(self, request_id: str) -> Any:
        """Block the calling script until ``answer(request_id, value)``."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        me = asyncio.current_task()
        self._waiters[request_id] = (future, me)
        if me is not None:
            self._blocked_on[me] = None
        try:
            return await future
        finally:
            self._waiters.pop(request_id, None)
            if me is not None and self._blocked_on.get(me, 0) is None:
                del self._blocked_on[me]

    def answer(self, request_id: str, value: Any) -> None:
        waiter = self._waiters.pop(request_id, None)
        if waiter is None:
            return
        future, task = waiter
        if task is not None:  # unblock now, so idle() cannot return before the script resumes
            self._blocked_on.pop(task, None)
        if not future.done():
            future.set_result(value)

    def reply_permission(self, session_id: str, request_id: str, reply: str) -> None:
        request = self.state.permissions[request_id]
        if reply == "always":  # (with no patterns offered, nothing is kept)
            self.always_allowed.setdefault(request["action"], []).extend(request.get("save") or [])
        self.emit("permission.replied", {"sessionID": session_id, "requestID": request_id,
                                         "reply": reply})
        self.answer(request_id, reply)

    def reply_question(self, session_id: str, request_id: str, answers: list[list[str]] | None) -> None:
        if answers is None:
            self.emit("question.rejected", {"sessionID": session_id, "requestID": request_id})
        else:
            self.emit("question.replied", {"sessionID": session_id, "requestID": request_id,
                                           "answers": answers})
        self.answer(request_id, answers)

    def reply_form(self, session_id: str, form_id: str, answer: Json | None) -> None:
        if answer is None:
            self.emit("form.cancelled", {"id": form_id, "sessionID": session_id})
        else:
            self.emit("form.replied", {"id": form_id, "sessionID": session_id, "answer": answer})
        self.answer(form_id, answer)

    def reject_pending(self, session_id: str) -> None:
        """Dismiss every open ask of a session (interrupt)."""
        st = self.state
        for rid in [k for k, v in st.permissions.items() if v["sessionID"] == session_id]:
            self.reply_permission(session_id, rid, "reject")
        for qid in [k for k, v in st.questions.items() if v["sessionID"] == session_id]:
            self.reply_question(session_id, qid, None)
        for fid in [k for k, v in st.forms.items() if v["sessionID"] == session_id]:
            self.reply_form(session_id, fid, None)

    # -- settling ------------------------------------------------------------------------------

    def _waiting(self, task: asyncio.Task[Any]) -> bool:
        if task not in self._blocked_on:
            return False
        target = self._blocked_on[task]
        return target is None or (not target.done() and self._waiting(target))

    def settled(self) -> bool:
        tasks = [*self._tasks.values(), *self._background]
        return all(t.done() or self._waiting(t) for t in tasks)

    async def idle(self, timeout: float = 10.0) -> None:
        """Return once every script is finished or waiting for an answer."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for _ in range(3):  # let freshly woken tasks take their next step
                await asyncio.sleep(0)
            if self.settled():
                return
            if loop.time() > deadline:
                raise TimeoutError("demo scripts did not settle")
            await asyncio.sleep(0 if self.speed == 0 else 0.002)

    wait_until_settled = idle

    async def aclose(self) -> None:
        tasks = [*self._tasks.values(), *self._background]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)
        self.drop_connections()
