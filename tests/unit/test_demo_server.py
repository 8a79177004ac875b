"""The scripted demo server, driven through a plain httpx client as octui would drive it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from tui.demo import DemoServer, assistant, history_fixture, text, tool, user

Json = dict[str, Any]
CLOCK = 1_700_000_000.0


class Stream:
    """Reads ``/api/event`` in a task; keeps parsed events and the raw frames."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client
        self.events: list[Json] = []
        self.raw: list[str] = []
        self.ended = asyncio.Event()
        self._task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async with self.client.stream("GET", "/api/event") as response:
            assert response.headers["content-type"] == "text/event-stream"
            buffer = ""
            async for chunk in response.aiter_text():
                buffer += chunk
                while "\n\n" in buffer:
                    frame, buffer = buffer.split("\n\n", 1)
                    self.raw.append(frame)
                    if frame.startswith("data: "):
                        self.events.append(json.loads(frame[6:]))
        self.ended.set()

    def types(self) -> list[str]:
        return [e["type"] for e in self.events]

    async def wait_for(self, kind: str, count: int = 1, timeout: float = 5.0) -> Json:
        async def poll() -> Json:
            while True:
                found = [e for e in self.events if e["type"] == kind]
                if len(found) >= count:
                    return found[count - 1]
                await asyncio.sleep(0.001)

        return await asyncio.wait_for(poll(), timeout)

    async def close(self) -> None:
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


@pytest.fixture
async def server() -> AsyncIterator[DemoServer]:
    demo = DemoServer(speed=0, clock=lambda: CLOCK)
    yield demo
    await demo.aclose()


@pytest.fixture
async def client(server: DemoServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=server.transport, base_url=server.base_url) as http:
        yield http


async def new_session(client: httpx.AsyncClient, **body: Any) -> str:
    response = await client.post("/api/session", json=body)
    assert response.status_code == 200, response.text
    return str(response.json()["data"]["id"])


async def welcome_answered(server: DemoServer, client: httpx.AsyncClient, reply: str,
                           check: Callable[[Json], None] | None = None) -> str:
    """A new session's welcome turn, its one permission (``check``ed first) answered ``reply``
    through the route, and the turn run on; returns the session id."""
    sid = await new_session(client)
    server.run_script(sid, "welcome")
    await server.idle()
    (rid,) = server.state.permissions
    if check is not None:
        check(server.state.permissions[rid])
    await client.post(f"/api/session/{sid}/permission/{rid}/reply", json={"reply": reply})
    await server.idle()
    return sid


async def test_health_and_catalog(client: httpx.AsyncClient) -> None:
    health = (await client.get("/api/health")).json()
    assert health["healthy"] is True and health["version"] == "demo" and isinstance(health["pid"], int)
    models = (await client.get("/api/model")).json()
    assert models["location"]["directory"] == "/home/demo/project"
    assert models["data"][0]["providerID"] == "demo" and models["data"][0]["limit"]["context"] == 128000
    agents = [a["id"] for a in (await client.get("/api/agent")).json()["data"]]
    assert {"build", "plan"} <= set(agents)
    commands = [c["name"] for c in (await client.get("/api/command")).json()["data"]]
    assert commands == ["init", "review"]


async def test_welcome_flow_over_the_event_stream(server: DemoServer, client: httpx.AsyncClient) -> None:
    stream = Stream(client)
    try:
        await stream.wait_for("server.connected")  # as a client does before reading state
        sid = await new_session(client)
        inbox = (await client.post(f"/api/session/{sid}/prompt", json={"text": "hi there"})).json()
        assert inbox["data"]["type"] == "user" and inbox["data"]["payload"] == {"text": "hi there"}
        asked = await stream.wait_for("permission.asked")
        assert asked["data"]["action"] == "shell" and asked["data"]["resources"] == ["ls -la src"]
        assert asked["data"]["save"] == ["ls *"] and asked["data"]["source"]["type"] == "tool"
        await server.idle()
        assert (await client.get("/api/session/active")).json()["data"] == {sid: {"type": "running"}}
        pending = (await client.get(f"/api/session/{sid}/permission")).json()["data"]
        assert [p["id"] for p in pending] == [asked["data"]["id"]]

        reply = await client.post(f"/api/session/{sid}/permission/{asked['data']['id']}/reply",
                                  json={"reply": "once"})
        assert reply.status_code == 204
        await stream.wait_for("session.idle")
    finally:
        await stream.close()

    assert stream.raw[0].startswith('data: {"id":"evt_') and stream.events[0]["type"] == "server.connected"
    assert stream.raw[1] == ": heartbeat"
    types = stream.types()
    for kind in ("session.inbox.enqueued", "session.inbox.delivered", "session.execution.started",
                 "session.reasoning.delta", "session.text.delta", "permission.replied",
                 "session.tool.success", "session.step.ended", "session.execution.succeeded"):
        assert kind in types, kind
    successes = [e["data"] for e in stream.events if e["type"] == "session.tool.success"]
    shell, edit = successes
    assert "\x1b[" in shell["content"][0]["text"] and shell["metadata"]["exit"] == 0
    assert edit["metadata"]["files"][0]["patch"].count("@@") == 2
    ends = [e["data"]["finish"] for e in stream.events if e["type"] == "session.step.ended"]
    assert ends == ["tool-calls", "tool-calls", "stop"]
    assert (await client.get("/api/session/active")).json()["data"] == {}

    # The message list is what the events built.
    listed = (await client.get(f"/api/session/{sid}/message", params={"order": "asc"})).json()["data"]
    assert [m["type"] for m in listed] == ["user", "assistant", "assistant", "assistant"]
    first = listed[1]
    assert [p["type"] for p in first["content"]] == ["reasoning", "text", "tool"]
    text_ended = next(e["data"] for e in stream.events if e["type"] == "session.text.ended")
    assert first["content"][1]["text"] == text_ended["text"]
    assert first["content"][2]["state"]["status"] == "completed"
    assert first["content"][2]["state"]["content"] == shell["content"]
    one = (await client.get(f"/api/session/{sid}/message/{first['id']}")).json()["data"]
    assert one == first
    session = (await client.get(f"/api/session/{sid}")).json()["data"]
    assert session["tokens"]["input"] == 3 * 1200


async def test_durable_sequence_per_session(server: DemoServer) -> None:
    sid = server.create_session()["id"]
    server.run_script(sid, "error")
    await server.idle()
    seqs = [e["durable"]["seq"] for e in server.emitted if "durable" in e]
    assert seqs == list(range(len(seqs)))
    assert all("durable" not in e for e in server.emitted if e["type"].endswith(".delta"))
    failed = next(e for e in server.emitted if e["type"] == "session.step.failed")
    assert failed["data"]["error"]["message"].startswith("Provider request failed with HTTP 500")
    assert server.emitted[-3]["type"] == "session.execution.failed"


async def test_reject_permission_fails_the_tool_and_continues(server: DemoServer,
                                                              client: httpx.AsyncClient) -> None:
    await welcome_answered(server, client, "reject")
    failed = next(e["data"] for e in server.emitted if e["type"] == "session.tool.failed")
    assert "rejected" in failed["error"]["message"]
    assert server.emitted[-1]["type"] == "session.idle"


async def test_interrupt_long_answer() -> None:
    server = DemoServer(speed=0.2, clock=lambda: CLOCK)
    async with httpx.AsyncClient(transport=server.transport, base_url=server.base_url) as client:
        stream = Stream(client)
        try:
            await stream.wait_for("server.connected")
            sid = await new_session(client)
            await client.post(f"/api/session/{sid}/prompt", json={"text": "something long please"})
            await stream.wait_for("session.text.delta", 3)
            assert (await client.post(f"/api/session/{sid}/interrupt")).status_code == 204
            await stream.wait_for("session.idle")
        finally:
            await stream.close()
            await server.aclose()
    types = stream.types()
    tail = [t for t in types if not t.endswith(".delta")][-5:]
    assert tail == ["session.text.ended", "session.step.failed", "session.execution.interrupted",
                    "session.status", "session.idle"]
    failed = next(e["data"] for e in stream.events if e["type"] == "session.step.failed")
    assert failed["error"]["message"] == "interrupted"
    partial = next(e["data"]["text"] for e in stream.events if e["type"] == "session.text.ended")
    deltas = "".join(e["data"]["delta"] for e in stream.events if e["type"] == "session.text.delta")
    assert partial == deltas and len(partial) < 1000
    msg = server.state.messages[sid][-1]
    assert msg["finish"] == "error" and msg["error"]["message"] == "interrupted"
    assert server.state.active == set()


async def test_interrupt_rejects_pending_asks(server: DemoServer, client: httpx.AsyncClient) -> None:
    sid = await new_session(client)
    server.run_script(sid, "welcome")
    await server.idle()
    assert server.state.permissions
    await client.post(f"/api/session/{sid}/interrupt")
    types = [e["type"] for e in server.emitted]
    assert "permission.replied" in types and "session.tool.failed" in types
    assert types[-3:] == ["session.execution.interrupted", "session.status", "session.idle"]
    assert (await client.get(f"/api/session/{sid}/permission")).json()["data"] == []
    # Idle again: a new prompt runs normally.
    server.run_script(sid, "error")
    await server.idle()
    assert server.emitted[-3]["type"] == "session.execution.failed"


async def test_drop_connections_ends_streams_and_reconnect_works(server: DemoServer,
                                                                 client: httpx.AsyncClient) -> None:
    first = Stream(client)
    await first.wait_for("server.connected")
    server.drop_connections()
    await asyncio.wait_for(first.ended.wait(), 2)
    second = Stream(client)
    try:
        await second.wait_for("server.connected")
        server.emit("tui.toast.show", {"message": "hello", "variant": "info"})
        toast = await second.wait_for("tui.toast.show")
        assert toast["data"]["message"] == "hello" and "durable" not in toast
        assert first.events[0]["id"] != second.events[0]["id"]
    finally:
        await second.close()


async def test_heartbeats() -> None:
    server = DemoServer(speed=0, heartbeat=0.02)
    async with httpx.AsyncClient(transport=server.transport, base_url=server.base_url) as client:
        stream = Stream(client)
        # One at once, then one per period: wait (bounded) rather than sleep a fixed time, which a
        # loaded machine can stretch past a few periods without a single timer firing.
        deadline = asyncio.get_running_loop().time() + 5.0
        while stream.raw.count(": heartbeat") < 3 and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.02)
        await stream.close()
    await server.aclose()
    assert stream.raw.count(": heartbeat") >= 3


async def test_question_form_and_legacy_question(server: DemoServer, client: httpx.AsyncClient) -> None:
    sid = await new_session(client)
    await client.post(f"/api/session/{sid}/prompt", json={"text": "question time"})
    await server.idle()
    forms = (await client.get("/api/form/request")).json()["data"]
    (form,) = forms
    assert form["title"] == "Questions" and form["metadata"]["kind"] == "question"
    assert [(f["key"], f["type"]) for f in form["fields"]] == [("q0", "string"), ("q1", "multiselect")]
    bad = await client.post(f"/api/session/{sid}/form/{form['id']}/reply", json={"answer": {"zz": 1}})
    assert bad.status_code == 400 and bad.json()["_tag"] == "FormInvalidAnswerError"
    await client.post(f"/api/session/{sid}/form/{form['id']}/reply",
                      json={"answer": {"q0": "pytest", "q1": ["Lint", "Tests"]}})
    await server.idle()
    state = (await client.get(f"/api/session/{sid}/form/{form['id']}/state")).json()["data"]
    assert state["status"] == "answered"
    success = next(e["data"] for e in server.emitted if e["type"] == "session.tool.success")
    assert success["metadata"] == {"answers": [["pytest"], ["Lint", "Tests"]]}

    await client.post(f"/api/session/{sid}/prompt", json={"text": "question-legacy now"})
    await server.idle()
    (question,) = (await client.get(f"/api/session/{sid}/question")).json()["data"]
    assert question["tool"]["id"].startswith("call_")
    await client.post(f"/api/session/{sid}/question/{question['id']}/reject")
    await server.idle()
    assert [e["type"] for e in server.emitted if e["type"].startswith("question.")] == [
        "question.asked", "question.rejected"]
    assert server.emitted[-1]["type"] == "session.idle"


async def test_subagents_build_a_session_tree(server: DemoServer, client: httpx.AsyncClient) -> None:
    root = await new_session(client)
    server.run_script(root, "subagents")
    await server.idle()
    (ask,) = server.state.permissions.values()
    assert ask["sessionID"] != root
    await client.post(f"/api/session/{ask['sessionID']}/permission/{ask['id']}/reply", json={"reply": "once"})
    await server.idle()
    children = (await client.get("/api/session", params={"parentID": root})).json()["data"]
    assert len(children) == 4
    roots = (await client.get("/api/session", params={"parentID": "null"})).json()["data"]
    assert [s["id"] for s in roots] == [root]
    progress = [e["data"]["metadata"] for e in server.emitted
                if e["type"] == "session.tool.progress" and e["data"]["sessionID"] == root]
    assert all(p["status"] == "running" for p in progress) and len(progress) == 4
    failed = next(e["data"] for e in server.emitted if e["type"] == "session.tool.failed")
    assert failed["error"]["message"].startswith("Subagent failed (sessionID: ses_")
    synthetic = next(e["data"] for e in server.emitted if e["type"] == "session.synthetic")
    assert synthetic["sessionID"] == root and synthetic["metadata"]["source"] == "subagent"
    assert synthetic["text"].startswith("<subagent sessionID=")
    grandchildren = [s for s in server.state.sessions.values()
                     if s.get("parentID") and s["parentID"] != root]
    assert len(grandchildren) == 1


async def test_session_and_message_paging(server: DemoServer, client: httpx.AsyncClient) -> None:
    ids = [await new_session(client, title=f"Session {n}") for n in range(5)]
    page = (await client.get("/api/session", params={"limit": "2"})).json()
    assert [s["id"] for s in page["data"]] == ids[::-1][:2] and page["cursor"]["previous"] is None
    second = (await client.get("/api/session", params={"cursor": page["cursor"]["next"]})).json()
    assert [s["id"] for s in second["data"]] == ids[::-1][2:4]
    found = (await client.get("/api/session", params={"search": "session 3"})).json()["data"]
    assert [s["id"] for s in found] == [ids[3]]
    bad = await client.get("/api/session", params={"cursor": "nope"})
    assert bad.status_code == 400 and bad.json()["_tag"] == "InvalidCursorError"

    seeded = server.seed_session("Long", history_fixture(30))["id"]
    walked: list[str] = []
    params: dict[str, str] = {"limit": "7"}
    while True:
        body = (await client.get(f"/api/session/{seeded}/message", params=params)).json()
        walked += [m["id"] for m in body["data"]]
        if not body["cursor"]["next"]:
            break
        params = {"limit": "7", "cursor": body["cursor"]["next"]}
    assert walked == [m["id"] for m in server.state.messages[seeded]][::-1]
    assert len(walked) == 30


async def test_errors(server: DemoServer, client: httpx.AsyncClient) -> None:
    missing = await client.get("/api/session/ses_nope")
    assert missing.status_code == 404
    assert missing.json() == {"_tag": "SessionNotFoundError", "message": "Session not found: ses_nope",
                              "sessionID": "ses_nope"}
    assert (await client.get("/api/session/xyz")).json()["field"] == "sessionID"
    sid = await new_session(client)
    for body in ({}, {"text": 3}, {"text": "x", "bogus": 1}, {"text": "x", "delivery": "later"}):
        response = await client.post(f"/api/session/{sid}/prompt", json=body)
        assert response.status_code == 400 and response.json()["_tag"] == "InvalidRequestError", body
    assert (await client.post(f"/api/session/{sid}/prompt", content=b"{not json")).status_code == 400
    reply = await client.post(f"/api/session/{sid}/permission/per_x/reply", json={"reply": "bogus"})
    assert reply.status_code == 400
    reply = await client.post(f"/api/session/{sid}/permission/per_x/reply", json={"reply": "once"})
    assert reply.status_code == 404 and reply.json()["_tag"] == "PermissionNotFoundError"
    msg = await client.get(f"/api/session/{sid}/message/msg_nope")
    assert msg.json()["_tag"] == "MessageNotFoundError"


async def test_agent_model_rename_delete(server: DemoServer, client: httpx.AsyncClient) -> None:
    sid = await new_session(client)
    assert (await client.post(f"/api/session/{sid}/agent", json={"agent": "plan"})).status_code == 204
    model = {"id": "scripted-mini", "providerID": "demo"}
    assert (await client.post(f"/api/session/{sid}/model", json={"model": model})).status_code == 204
    assert (await client.post(f"/api/session/{sid}/rename", json={"title": "Renamed"})).status_code == 204
    info = (await client.get(f"/api/session/{sid}")).json()["data"]
    assert (info["agent"], info["model"], info["title"]) == ("plan", model, "Renamed")
    selected = next(e["data"] for e in server.emitted if e["type"] == "session.agent.selected")
    assert selected == {"sessionID": sid, "agent": "plan", "previous": "build"}
    kinds = [m["type"] for m in (await client.get(f"/api/session/{sid}/message")).json()["data"]]
    assert kinds == ["model-switched", "agent-switched"]
    assert (await client.delete(f"/api/session/{sid}")).status_code == 204
    assert (await client.get(f"/api/session/{sid}")).status_code == 404
    assert server.emitted[-1]["type"] == "session.deleted"


async def test_queued_prompt_runs_after_the_first(server: DemoServer, client: httpx.AsyncClient) -> None:
    sid = await new_session(client)
    await client.post(f"/api/session/{sid}/prompt", json={"text": "error please"})
    queued = await client.post(f"/api/session/{sid}/prompt",
                               json={"text": "error again", "delivery": "queue", "id": "msg_mine"})
    assert queued.json()["data"]["id"] == "msg_mine"
    assert [i["id"] for i in (await client.get(f"/api/session/{sid}/inbox")).json()["data"]][-1] == "msg_mine"
    await server.idle()
    delivered = [e["data"]["inboxID"] for e in server.emitted if e["type"] == "session.inbox.delivered"]
    assert delivered[-1] == "msg_mine" and len(delivered) == 2
    assert (await client.get(f"/api/session/{sid}/inbox")).json()["data"] == []


async def test_seed_session_and_fixtures(server: DemoServer, client: httpx.AsyncClient) -> None:
    messages = [user("hello"), assistant(text("hi"), tool("shell", {"command": "ls"}, "a\nb"))]
    sid = server.seed_session("Seeded", messages)["id"]
    listed = (await client.get(f"/api/session/{sid}/message", params={"order": "asc"})).json()["data"]
    assert [m["type"] for m in listed] == ["user", "assistant"]
    assert listed[0]["id"].startswith("msg_") and listed[0]["time"]["created"] < listed[1]["time"]["created"]
    assert server.emitted == []
    history = history_fixture(200)
    assert len(history) == 200 and history == history_fixture(200)
    assert {"user", "assistant"} == {m["type"] for m in history}


async def test_runs_are_deterministic() -> None:
    async def run() -> list[Json]:
        server = DemoServer(speed=0, clock=lambda: CLOCK)
        sid = server.create_session()["id"]
        server.run_script(sid, "subagents")
        await server.idle()
        for ask in list(server.state.permissions.values()):
            server.reply_permission(ask["sessionID"], ask["id"], "once")
        await server.idle()
        await server.aclose()
        return server.emitted

    assert await run() == await run()


async def test_revert_stage_clear_and_commit(server: DemoServer, client: httpx.AsyncClient) -> None:
    """F4 (undo) in --demo got "no route for POST …/revert/stage": the routes of PROTOCOL.md §4."""
    sid = await new_session(client)
    for _ in range(2):  # two turns that ask nothing
        server.run_script(sid, "long")
        await server.idle()
    listed = (await client.get(f"/api/session/{sid}/message")).json()["data"]
    listed.reverse()  # (listed newest first)
    second = [m["id"] for m in listed if m["type"] == "user"][1]
    missing = await client.post(f"/api/session/{sid}/revert/stage", json={"messageID": "msg_nope"})
    assert missing.status_code == 404 and missing.json()["_tag"] == "MessageNotFoundError"

    staged = await client.post(f"/api/session/{sid}/revert/stage", json={"messageID": second})
    assert staged.status_code == 200 and staged.json()["data"]["messageID"] == second
    assert (await client.get(f"/api/session/{sid}")).json()["data"]["revert"]["messageID"] == second
    assert (await client.post(f"/api/session/{sid}/revert/clear")).status_code == 204
    assert "revert" not in (await client.get(f"/api/session/{sid}")).json()["data"]

    await client.post(f"/api/session/{sid}/revert/stage", json={"messageID": second})
    assert (await client.post(f"/api/session/{sid}/revert/commit")).status_code == 204
    kept = [m["id"] for m in (await client.get(f"/api/session/{sid}/message")).json()["data"]]
    before = [m["id"] for m in listed]
    assert sorted(kept) == sorted(before[:before.index(second)])  # the first turn, whole
    assert [e["type"] for e in server.emitted if e["type"].startswith("session.revert.")] == [
        "session.revert.staged", "session.revert.cleared", "session.revert.staged",
        "session.revert.committed"]


async def test_allow_always_covers_the_saved_patterns_only(server: DemoServer,
                                                          client: httpx.AsyncClient) -> None:
    """"Allow always" on ``ls -la src`` (pattern ``ls *``) allowed every later shell command,
    ``rm -rf build`` too (QA): as a real server does, it keeps the patterns, not the tool."""
    from tui.demo.scripts import _CHILD_ASKS

    def offers_ls(asked: Json) -> None:
        assert asked["save"] == ["ls *"]

    sid = await welcome_answered(server, client, "always", offers_ls)
    server.run_script(sid, "welcome")  # ls again: allowed without asking
    await server.idle()
    assert not server.state.permissions
    server.prompt(sid, _CHILD_ASKS.prompt, script=_CHILD_ASKS)  # rm: still asks
    await server.idle()
    (asked,) = server.state.permissions.values()
    assert asked["resources"] == ["rm -rf build"]


async def test_revert_lists_the_files_it_restores(server: DemoServer, client: httpx.AsyncClient) -> None:
    """F4 in --demo said "No file changes were staged" after the welcome turn's edit: the demo
    lists what a revert restores as a real server does (traces-2.0 m03), each edit undone."""
    from tui.demo.routes import _inverse as inverse
    from tui.demo.scripts import GREET_DIFF

    sid = await welcome_answered(server, client, "once")
    prompt = next(m["id"] for m in server.state.messages[sid] if m["type"] == "user")
    staged = (await client.post(f"/api/session/{sid}/revert/stage", json={"messageID": prompt})).json()
    (restored,) = staged["data"]["files"]
    assert restored["file"] == "src/greet.py" and restored["status"] == "modified"
    assert restored["additions"] == GREET_DIFF["deletions"]
    assert restored["deletions"] == GREET_DIFF["additions"]
    changed = [line for line in restored["patch"].splitlines()
               if line.startswith(("+", "-")) and not line.startswith(("+++ ", "--- "))]
    assert changed == ['-    return f"Hello, {name}!"', '+    return "Hello " + name']
    assert inverse(restored) == GREET_DIFF  # undoing the undo is the edit again
    assert (await client.post(f"/api/session/{sid}/revert/clear")).status_code == 204
    untouched = await client.post(f"/api/session/{sid}/revert/stage",
                                  json={"messageID": prompt, "files": False})
    assert untouched.json()["data"]["files"] == []


def test_a_diff_undone_keeps_its_markers_headers_and_hunks() -> None:
    """The revert's diff is the edit's, inverted: git's headers (a new file is a deleted one),
    each hunk's ranges, "\\ No newline" with the line it belongs to, removals first."""
    from tui.demo.routes import _inverse as inverse

    added = {"file": "n.txt", "additions": 2, "deletions": 0, "status": "added", "patch": (
        "diff --git a/n.txt b/n.txt\nnew file mode 100644\nindex 000..abc\n--- /dev/null\n"
        "+++ b/n.txt\n@@ -0,0 +1,2 @@\n+x\n+-- y\n")}
    undone = inverse(added)
    assert undone["status"] == "deleted" and (undone["additions"], undone["deletions"]) == (0, 2)
    assert undone["patch"] == ("diff --git a/n.txt b/n.txt\ndeleted file mode 100644\nindex abc..000\n"
                               "--- a/n.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n--- y\n")
    marked = {"file": "q", "additions": 1, "deletions": 1, "status": "modified", "patch": (
        "--- q\n+++ q\n@@ -1,2 +1,2 @@\n a\n-x\n+y\n\\ No newline at end of file\n"
        "@@ -9 +9 @@\n-p\n+P\n")}
    assert inverse(marked)["patch"] == (
        "--- q\n+++ q\n@@ -1,2 +1,2 @@\n a\n-y\n\\ No newline at end of file\n+x\n"
        "@@ -9 +9 @@\n-P\n+p\n")
    for diff in (added, marked):
        assert inverse(inverse(diff)) == diff


def test_saved_patterns_match_as_opencode_matches_them() -> None:
    from tui.demo.runner import _wildcard as matches

    assert matches("ls -la src", "ls *") and matches("ls", "ls *")  # the trailing " *" is optional
    assert not matches("lsblk", "ls *") and not matches("rm -rf build", "ls *")
    assert matches("cat a[1].txt", "cat a[1].txt") and not matches("cat a1.txt", "cat a[1].txt")
    assert matches("ab", "a?") and not matches("a.b", "a?c")
