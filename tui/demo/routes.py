"""REST routes of the demo server (PROTOCOL.md §4), with v2 error bodies (§9): server, catalog,
sessions and messages. Input and ask routes are in ``routes_input`` and ``routes_asks``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import httpx

from tui.demo import routes_asks, routes_input  # noqa: F401 (importing registers their routes)
from tui.demo.catalog import AGENTS, COMMANDS, MODELS, SKILLS
from tui.demo.generation import DemoGeneration
from tui.demo.routing import ApiError, Json, Result, invalid, located, on, paged, read_body, route, served

if TYPE_CHECKING:
    from tui.demo.server import DemoServer

__all__ = ["ApiError", "route"]


# -- server / catalog ------------------------------------------------------------------------------

@on("GET", "/api/health")
async def health(s: DemoServer, r: httpx.Request) -> Result:
    # A source build of the 2.0 preview reports "local" (traces-2.0 rest_probes).
    return 200, {"healthy": True, "version": "local" if s.preview else "demo", "pid": os.getpid()}


@on("GET", "/openapi.json", only=DemoGeneration.PREVIEW)
async def openapi(s: DemoServer, r: httpx.Request) -> Result:
    """Like the 2.0 preview, the server's own spec: exactly the routes it serves."""
    paths: dict[str, dict[str, Json]] = {"/api/event": {"get": {"responses": {"200": {
        "description": "Success"}}}}}  # served by the transport, not a route handler
    for method, path in served(s.generation):
        if path != "/openapi.json":  # the document does not list itself
            paths.setdefault(path, {})[method.lower()] = {"responses": {"200": {"description": "Success"}}}
    return 200, {"openapi": "3.1.0", "info": {"title": "opencode", "version": "local"}, "paths": paths}


@on("GET", "/api/server")
async def server_urls(s: DemoServer, r: httpx.Request) -> Result:
    return 200, {"urls": [s.base_url]}


@on("GET", "/api/location")
async def location(s: DemoServer, r: httpx.Request) -> Result:
    return 200, s.location_info


@on("GET", "/api/project/current")
async def project(s: DemoServer, r: httpx.Request) -> Result:
    return 200, s.location_info["project"]


@on("GET", "/api/model")
async def models(s: DemoServer, r: httpx.Request) -> Result:
    return located(s, MODELS)


@on("GET", "/api/model/default")
async def default_model(s: DemoServer, r: httpx.Request) -> Result:
    return located(s, MODELS[0])


@on("GET", "/api/agent")
async def agents(s: DemoServer, r: httpx.Request) -> Result:
    return located(s, AGENTS)


@on("GET", "/api/command")
async def commands(s: DemoServer, r: httpx.Request) -> Result:
    return located(s, COMMANDS)


@on("GET", "/api/skill")
async def skills(s: DemoServer, r: httpx.Request) -> Result:
    return located(s, SKILLS)


@on("GET", "/api/permission/request")
async def all_permissions(s: DemoServer, r: httpx.Request) -> Result:
    return located(s, list(s.state.permissions.values()))


@on("GET", "/api/question/request")
async def all_questions(s: DemoServer, r: httpx.Request) -> Result:
    return located(s, list(s.state.questions.values()))


@on("GET", "/api/form/request")
async def all_forms(s: DemoServer, r: httpx.Request) -> Result:
    return located(s, list(s.state.forms.values()))


# -- sessions ----------------------------------------------------------------------------------------

@on("GET", "/api/session")
async def list_sessions(s: DemoServer, r: httpx.Request) -> Result:
    items = list(s.state.sessions.values())
    search, parent = r.url.params.get("search"), r.url.params.get("parentID")
    if search:
        items = [i for i in items if search.lower() in i.get("title", "").lower()]
    if parent == "null":
        items = [i for i in items if "parentID" not in i]
    elif parent:
        items = [i for i in items if i.get("parentID") == parent]
    return 200, paged(r, items, 50, 1000)


@on("POST", "/api/session")
async def create_session(s: DemoServer, r: httpx.Request) -> Result:
    body = read_body(r, {"id": str, "title": str, "agent": str, "model": dict, "location": dict})
    if body.get("id") in s.state.sessions:
        raise ApiError(409, "ConflictError", "session id already exists", resource="session")
    info = s.create_session(title=body.get("title"), agent=body.get("agent"),
                            model=body.get("model"), session_id=body.get("id"))
    return 200, {"data": info}


@on("GET", "/api/session/active")
async def active(s: DemoServer, r: httpx.Request) -> Result:
    return 200, {"data": {sid: {"type": "running"} for sid in sorted(s.state.active)}}


@on("GET", "/api/session/{sid}")
async def get_session(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    return 200, {"data": s.state.sessions[sid]}


@on("DELETE", "/api/session/{sid}")
async def delete_session(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    await s.delete_session(sid)
    return 204, None


@on("POST", "/api/session/{sid}/rename")
async def rename(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    body = read_body(r, {"title": str}, ("title",))
    s.emit("session.renamed", {"sessionID": sid, "title": body["title"]})
    return 204, None


@on("POST", "/api/session/{sid}/agent")
async def select_agent(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    body = read_body(r, {"agent": str}, ("agent",))
    # The 2.0 preview validates nothing here: the next turn fails instead (TRACES.md 6).
    if not s.preview and body["agent"] not in {a["id"] for a in AGENTS}:
        raise ApiError(404, "AgentNotFoundError", f"Agent not found: {body['agent']}",
                       agentID=body["agent"])
    data = {"sessionID": sid, "agent": body["agent"]}
    previous = None if s.preview else s.state.sessions[sid].get("agent")  # 2.0: no previous (m06)
    s.emit("session.agent.selected", data | ({"previous": previous} if previous else {}))
    return 204, None


@on("POST", "/api/session/{sid}/model")
async def select_model(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    model = read_body(r, {"model": dict}, ("model",))["model"]
    if not isinstance(model.get("id"), str) or not isinstance(model.get("providerID"), str):
        raise invalid("model needs id and providerID", "model")
    data = {"sessionID": sid, "model": model}
    previous = None if s.preview else s.state.sessions[sid].get("model")  # 2.0: no previous (m06)
    s.emit("session.model.selected", data | ({"previous": previous} if previous else {}))
    return 204, None


# -- revert (PROTOCOL.md §4: stage a boundary, then clear it or commit it) ------------------------------

def _idle(s: DemoServer, sid: str) -> None:
    if sid in s.state.active:
        raise ApiError(409, "SessionBusyError", f"Session is busy: {sid}", sessionID=sid)


_INVERSE_STATUS = {"added": "deleted", "deleted": "added", "modified": "modified"}


def _restored_files(s: DemoServer, sid: str, mid: str) -> list[Json]:
    """What staging a revert at ``mid`` restores, as a real server lists it (traces-2.0 m03): the
    diff from each file as the edits after the boundary left it back to before them. The demo
    writes no files; its edits' own diffs stand for the snapshots a server keeps."""
    messages = s.state.messages.get(sid, [])
    start = next((i for i, m in enumerate(messages) if m["id"] == mid), len(messages))
    edits: dict[str, list[Json]] = {}
    for message in messages[start:]:
        for part in message.get("content") or []:
            state = (part.get("state") or {}) if part.get("type") == "tool" else {}
            if state.get("status") == "completed":
                for diff in (state.get("metadata") or {}).get("files") or []:
                    edits.setdefault(diff["file"], []).append(diff)
    # One file edited twice is one entry; its inverse is that of the last edit (enough for a demo).
    return [_inverse(diffs[-1]) for diffs in edits.values()]


def _inverse(diff: Json) -> Json:
    """A unified diff the other way round: the lines it added are removed, and so on."""
    lines: list[str] = []
    in_hunk = False
    for line in str(diff.get("patch", "")).splitlines(keepends=True):
        if line.startswith("@@ "):
            in_hunk = True
            head = line.split(" ")
            if len(head) > 3:
                head[1], head[2] = "-" + head[2][1:], "+" + head[1][1:]
            line = " ".join(head)
        elif not in_hunk and line.startswith("+++ ") and lines and lines[-1].startswith("--- "):
            lines[-1], line = "--- " + line[4:], "+++ " + lines[-1][4:]  # the names, swapped
        elif in_hunk and line[:1] in ("+", "-"):
            line = ("-" if line[0] == "+" else "+") + line[1:]
            run = len(lines)  # a run of changed lines lists its removals first, as diffs do
            while run and lines[run - 1][:1] == "+" and line[0] == "-":
                run -= 1
            lines.insert(run, line)
            continue
        lines.append(line)
    return {"file": diff["file"], "patch": "".join(lines), "additions": diff.get("deletions", 0),
            "deletions": diff.get("additions", 0),
            "status": _INVERSE_STATUS.get(diff.get("status", "modified"), "modified")}


@on("POST", "/api/session/{sid}/revert/stage")
async def revert_stage(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    body = read_body(r, {"messageID": str, "files": bool}, ("messageID",))
    _idle(s, sid)
    mid = body["messageID"]
    if s.state.message(sid, mid) is None:
        raise ApiError(404, "MessageNotFoundError", f"Message not found: {mid}", sessionID=sid,
                       messageID=mid)
    files = _restored_files(s, sid, mid) if body.get("files", True) else []
    revert: Json = {"messageID": mid, "files": files}
    s.emit("session.revert.staged", {"sessionID": sid, "revert": revert})
    return 200, {"data": revert}


@on("POST", "/api/session/{sid}/revert/clear")
async def revert_clear(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    _idle(s, sid)
    if "revert" in s.state.sessions[sid]:
        s.emit("session.revert.cleared", {"sessionID": sid})
    return 204, None


@on("POST", "/api/session/{sid}/revert/commit")
async def revert_commit(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    _idle(s, sid)
    staged = s.state.sessions[sid].get("revert")
    if staged is not None:
        s.emit("session.revert.committed", {"sessionID": sid, "to": staged["messageID"]})
    return 204, None


# -- messages ------------------------------------------------------------------------------------------

@on("GET", "/api/session/{sid}/message")
async def messages(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    return 200, paged(r, s.state.messages.get(sid, []), 50, 200)


@on("GET", "/api/session/{sid}/message/{mid}")
async def message(s: DemoServer, r: httpx.Request, sid: str, mid: str) -> Result:
    found = s.state.message(sid, mid)
    if found is None:
        raise ApiError(404, "MessageNotFoundError", f"Message not found: {mid}", sessionID=sid,
                       messageID=mid)
    return 200, {"data": found}
