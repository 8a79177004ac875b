"""REST routes of the demo server (PROTOCOL.md §4), with v2 error bodies (§9): server, catalog,
sessions and messages. Input and ask routes are in ``routes_input`` and ``routes_asks``.
"""

from __future__ import annotations

import os
import re
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


def _restored_files(s: DemoServer, sid: str, mid: str) -> list[Json]:
    """What staging a revert at ``mid`` restores, in the shape a real server lists it
    (traces-2.0 m03): per file, the diff back to before the edits after the boundary. The demo
    writes no files; its edits' own diffs stand for the snapshots a server keeps. Its scripts
    edit a file once: a file edited twice is listed with its last edit undone."""
    messages = s.state.messages.get(sid, [])
    start = next((i for i, m in enumerate(messages) if m["id"] == mid), len(messages))
    edits: dict[str, Json] = {}
    for message in messages[start:]:
        for part in message.get("content") or []:
            state = (part.get("state") or {}) if part.get("type") == "tool" else {}
            if state.get("status") == "completed":
                for diff in (state.get("metadata") or {}).get("files") or []:
                    edits[diff["file"]] = diff
    return [_inverse(diff) for diff in edits.values()]


_HUNK = re.compile(r"@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")
_INVERSE_STATUS = {"added": "deleted", "deleted": "added", "modified": "modified"}
_INVERSE_HEADER = (("new file mode ", "deleted file mode "), ("deleted file mode ", "new file mode "))


def _inverse(diff: Json) -> Json:
    """``diff`` the other way round (a unified diff, plain or git's): the lines it added are
    removed and its removed ones added (removals first in each run of changes, each with its
    "\\ No newline" marker), hunk ranges and file names swapped."""
    lines = str(diff.get("patch", "")).splitlines(keepends=True)
    out: list[str] = []
    old_left = new_left = 0  # lines of the hunk still to come, counted as the diff counts them
    i = 0
    while i < len(lines):
        line = lines[i]
        if old_left > 0 or new_left > 0:
            removed: list[str] = []
            added: list[str] = []
            while i < len(lines) and lines[i][:1] in ("+", "-") and (old_left > 0 or new_left > 0):
                kind = lines[i][0]
                old_left -= kind == "-"
                new_left -= kind == "+"
                unit = [("+" if kind == "-" else "-") + lines[i][1:]]
                i += 1
                if i < len(lines) and lines[i].startswith("\\"):
                    unit.append(lines[i])
                    i += 1
                (added if kind == "-" else removed).extend(unit)
            if removed or added:
                out += removed + added
                continue
            if not line.startswith("\\"):  # a context line (an empty one: a blank line's)
                old_left -= 1
                new_left -= 1
            out.append(line)
            i += 1
            continue
        hunk = _HUNK.match(line)
        if hunk:
            a, b, c, d = hunk.groups()
            old_left, new_left = int(b[1:]) if b else 1, int(d[1:]) if d else 1
            line = f"@@ -{c}{d or ''} +{a}{b or ''} @@" + line[hunk.end():]
        elif line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            old, new = line[4:].rstrip("\n"), lines[i + 1][4:].rstrip("\n")
            out += [f"--- {_relabel(new, old, 'a/')}\n", f"+++ {_relabel(old, new, 'b/')}\n"]
            i += 2
            continue
        elif line.startswith("diff --git a/") and " b/" in line:
            first, second = line.rstrip("\n")[len("diff --git a/"):].split(" b/", 1)
            line = f"diff --git a/{second} b/{first}\n"
        elif line.startswith("index ") and ".." in line:
            hashes, _, mode = line.rstrip("\n")[6:].partition(" ")
            before, _, after = hashes.partition("..")
            line = f"index {after}..{before}" + (f" {mode}" if mode else "") + "\n"
        else:
            for was, now in _INVERSE_HEADER:
                if line.startswith(was):
                    line = now + line[len(was):]
                    break
        out.append(line)
        i += 1
    return {"file": diff["file"], "patch": "".join(out), "additions": diff.get("deletions", 0),
            "deletions": diff.get("additions", 0),
            "status": _INVERSE_STATUS.get(diff.get("status", "modified"), "modified")}


def _relabel(path: str, other: str, prefix: str) -> str:
    """``path`` as the other side of the header names it: git's ``a/``/``b/`` stay in their
    places (``/dev/null`` has none)."""
    if path == "/dev/null":
        return path
    bare = path[2:] if path[:2] in ("a/", "b/") else path
    prefixed = other[:2] in ("a/", "b/") or (other == "/dev/null" and path[:2] in ("a/", "b/"))
    return prefix + bare if prefixed else bare


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
