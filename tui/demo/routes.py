"""REST routes of the demo server (PROTOCOL.md §4), with v2 error bodies (§9)."""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import httpx

from tui.demo.catalog import AGENTS, COMMANDS, MODELS

if TYPE_CHECKING:
    from tui.demo.server import DemoServer

Json = dict[str, Any]
Result = tuple[int, Any]
Handler = Callable[..., Awaitable[Result]]
_ROUTES: list[tuple[str, re.Pattern[str], Handler]] = []


class ApiError(Exception):
    def __init__(self, status: int, tag: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.body: Json = {"_tag": tag, "message": message} | extra


def invalid(message: str, field: str | None = None) -> ApiError:
    return ApiError(400, "InvalidRequestError", message, **({"field": field} if field else {}))


def _on(method: str, pattern: str) -> Callable[[Handler], Handler]:
    regex = re.compile("^" + re.sub(r"{(\w+)}", r"(?P<\1>[^/]+)", pattern) + "$")

    def register(handler: Handler) -> Handler:
        _ROUTES.append((method, regex, handler))
        return handler

    return register


async def route(s: DemoServer, request: httpx.Request) -> Result:
    path = request.url.path
    for method, regex, handler in _ROUTES:
        match = regex.match(path)
        if match and method == request.method:
            params = match.groupdict()
            if "sid" in params:
                _check_session(s, params["sid"])
            return await handler(s, request, **params)
    raise ApiError(404, "NotFoundError", f"no route for {request.method} {path}")


def _check_session(s: DemoServer, sid: str) -> None:
    if not sid.startswith("ses"):
        raise invalid(f"invalid sessionID {sid!r}", "sessionID")
    if sid not in s.state.sessions:
        raise ApiError(404, "SessionNotFoundError", f"Session not found: {sid}", sessionID=sid)


def _body(request: httpx.Request, spec: Mapping[str, type],
          required: tuple[str, ...] = ()) -> Json:
    """Strict JSON object body: known keys only, required keys present, simple type checks."""
    try:
        obj = json.loads(request.content or b"null")
    except ValueError as exc:
        raise invalid("request body is not JSON") from exc
    if not isinstance(obj, dict):
        raise invalid("request body must be a JSON object")
    for key, value in obj.items():
        if key not in spec:
            raise invalid(f"unexpected field {key!r}", key)
        if value is not None and not isinstance(value, spec[key]):
            raise invalid(f"field {key!r} has the wrong type", key)
    for key in required:
        if obj.get(key) is None:
            raise invalid(f"missing field {key!r}", key)
    return {k: v for k, v in obj.items() if v is not None}


def _limit(request: httpx.Request, default: int, maximum: int) -> int:
    raw = request.url.params.get("limit")
    if raw is None:
        return default
    if not raw.isdigit() or not 1 <= int(raw) <= maximum:
        raise invalid(f"limit must be an integer 1..{maximum}", "limit")
    return int(raw)


def _page(request: httpx.Request, items: list[Any], default: int, maximum: int) -> Json:
    """Offset paging behind opaque cursors (they remember order and limit); ``items`` oldest first."""
    raw = request.url.params.get("cursor")
    if raw:
        try:
            order, offset, size = base64.urlsafe_b64decode(raw.encode()).decode().split(":")
            start, default = int(offset), int(size)
            if order not in ("asc", "desc") or start < 0 or not 1 <= default <= maximum:
                raise ValueError(order)
        except ValueError as exc:
            raise ApiError(400, "InvalidCursorError", "invalid cursor") from exc
    else:
        order, start = request.url.params.get("order") or "desc", 0
        if order not in ("asc", "desc"):
            raise invalid("order must be asc or desc", "order")
    limit = _limit(request, default, maximum)
    ordered = items[::-1] if order == "desc" else items

    def cursor(at: int) -> str:
        return base64.urlsafe_b64encode(f"{order}:{at}:{limit}".encode()).decode()

    end = start + limit
    return {"data": ordered[start:end], "cursor": {
        "previous": cursor(max(0, start - limit)) if start > 0 else None,
        "next": cursor(end) if end < len(ordered) else None}}


# -- server / catalog ------------------------------------------------------------------------------

@_on("GET", "/api/health")
async def health(s: DemoServer, r: httpx.Request) -> Result:
    return 200, {"healthy": True, "version": "demo", "pid": os.getpid()}


@_on("GET", "/api/server")
async def server_urls(s: DemoServer, r: httpx.Request) -> Result:
    return 200, {"urls": [s.base_url]}


@_on("GET", "/api/location")
async def location(s: DemoServer, r: httpx.Request) -> Result:
    return 200, s.location_info


@_on("GET", "/api/project/current")
async def project(s: DemoServer, r: httpx.Request) -> Result:
    return 200, s.location_info["project"]


def _located(s: DemoServer, data: Any) -> Result:
    return 200, {"location": s.location_info, "data": data}


@_on("GET", "/api/model")
async def models(s: DemoServer, r: httpx.Request) -> Result:
    return _located(s, MODELS)


@_on("GET", "/api/model/default")
async def default_model(s: DemoServer, r: httpx.Request) -> Result:
    return _located(s, MODELS[0])


@_on("GET", "/api/agent")
async def agents(s: DemoServer, r: httpx.Request) -> Result:
    return _located(s, AGENTS)


@_on("GET", "/api/command")
async def commands(s: DemoServer, r: httpx.Request) -> Result:
    return _located(s, COMMANDS)


@_on("GET", "/api/skill")
async def skills(s: DemoServer, r: httpx.Request) -> Result:
    return _located(s, [])


@_on("GET", "/api/permission/request")
async def all_permissions(s: DemoServer, r: httpx.Request) -> Result:
    return _located(s, list(s.state.permissions.values()))


@_on("GET", "/api/question/request")
async def all_questions(s: DemoServer, r: httpx.Request) -> Result:
    return _located(s, list(s.state.questions.values()))


@_on("GET", "/api/form/request")
async def all_forms(s: DemoServer, r: httpx.Request) -> Result:
    return _located(s, list(s.state.forms.values()))


# -- sessions ----------------------------------------------------------------------------------------

@_on("GET", "/api/session")
async def list_sessions(s: DemoServer, r: httpx.Request) -> Result:
    items = list(s.state.sessions.values())
    search, parent = r.url.params.get("search"), r.url.params.get("parentID")
    if search:
        items = [i for i in items if search.lower() in i.get("title", "").lower()]
    if parent == "null":
        items = [i for i in items if "parentID" not in i]
    elif parent:
        items = [i for i in items if i.get("parentID") == parent]
    return 200, _page(r, items, 50, 1000)


@_on("POST", "/api/session")
async def create_session(s: DemoServer, r: httpx.Request) -> Result:
    body = _body(r, {"id": str, "title": str, "agent": str, "model": dict, "location": dict})
    if body.get("id") in s.state.sessions:
        raise ApiError(409, "ConflictError", "session id already exists", resource="session")
    info = s.create_session(title=body.get("title"), agent=body.get("agent"),
                            model=body.get("model"), session_id=body.get("id"))
    return 200, {"data": info}


@_on("GET", "/api/session/active")
async def active(s: DemoServer, r: httpx.Request) -> Result:
    return 200, {"data": {sid: {"type": "running"} for sid in sorted(s.state.active)}}


@_on("GET", "/api/session/{sid}")
async def get_session(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    return 200, {"data": s.state.sessions[sid]}


@_on("DELETE", "/api/session/{sid}")
async def delete_session(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    await s.delete_session(sid)
    return 204, None


@_on("POST", "/api/session/{sid}/rename")
async def rename(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    body = _body(r, {"title": str}, ("title",))
    s.emit("session.renamed", {"sessionID": sid, "title": body["title"]})
    return 204, None


@_on("POST", "/api/session/{sid}/agent")
async def select_agent(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    body = _body(r, {"agent": str}, ("agent",))
    if body["agent"] not in {a["id"] for a in AGENTS}:
        raise ApiError(404, "AgentNotFoundError", f"Agent not found: {body['agent']}",
                       agentID=body["agent"])
    data = {"sessionID": sid, "agent": body["agent"]}
    previous = s.state.sessions[sid].get("agent")
    s.emit("session.agent.selected", data | ({"previous": previous} if previous else {}))
    return 204, None


@_on("POST", "/api/session/{sid}/model")
async def select_model(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    model = _body(r, {"model": dict}, ("model",))["model"]
    if not isinstance(model.get("id"), str) or not isinstance(model.get("providerID"), str):
        raise invalid("model needs id and providerID", "model")
    data = {"sessionID": sid, "model": model}
    previous = s.state.sessions[sid].get("model")
    s.emit("session.model.selected", data | ({"previous": previous} if previous else {}))
    return 204, None


# -- messages and input ------------------------------------------------------------------------------

@_on("GET", "/api/session/{sid}/message")
async def messages(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    return 200, _page(r, s.state.messages.get(sid, []), 50, 200)


@_on("GET", "/api/session/{sid}/message/{mid}")
async def message(s: DemoServer, r: httpx.Request, sid: str, mid: str) -> Result:
    found = s.state.message(sid, mid)
    if found is None:
        raise ApiError(404, "MessageNotFoundError", f"Message not found: {mid}", sessionID=sid,
                       messageID=mid)
    return 200, {"data": found}


_PROMPT = {"id": str, "text": str, "files": list, "agents": list, "skills": list, "metadata": dict,
           "delivery": str, "resume": bool}


@_on("POST", "/api/session/{sid}/prompt")
async def prompt(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    body = _body(r, _PROMPT, ("text",))
    return 200, {"data": _admit(s, sid, body, body["text"])}


def _admit(s: DemoServer, sid: str, body: Json, text: str) -> Json:
    delivery = body.get("delivery", "steer")
    if delivery not in ("steer", "queue"):
        raise invalid("delivery must be steer or queue", "delivery")
    if "id" in body and not body["id"].startswith("msg_"):
        raise invalid("id must start with msg_", "id")
    if "id" in body and any(m["id"] == body["id"] for m in s.state.messages.get(sid, [])):
        raise ApiError(409, "ConflictError", "input id already used", resource="message")
    extra: Json = {k: body[k] for k in ("agents", "metadata") if k in body}
    return s.prompt(sid, text, delivery=delivery, inbox_id=body.get("id"), extra=extra)


@_on("POST", "/api/session/{sid}/command")
async def command(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    body = _body(r, _PROMPT | {"command": str, "arguments": str, "agent": str, "model": dict},
                 ("command",))
    found = next((c for c in COMMANDS if c["name"] == body["command"]), None)
    if found is None:
        raise ApiError(404, "CommandNotFoundError", f"Command not found: {body['command']}",
                       command=body["command"])
    text = found["template"].replace("$ARGUMENTS", body.get("arguments", "")).strip()
    return 200, {"data": _admit(s, sid, body, text)}


@_on("GET", "/api/session/{sid}/inbox")
async def inbox(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    return 200, {"data": s.state.inbox.get(sid, [])}


@_on("POST", "/api/session/{sid}/interrupt")
async def interrupt(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    await s.interrupt(sid, resume=r.url.params.get("continue") == "true")
    return 204, None


# -- asks --------------------------------------------------------------------------------------------

def _of_session(pending: dict[str, Json], sid: str) -> list[Json]:
    return [v for v in pending.values() if v["sessionID"] == sid]


def _pending(pending: dict[str, Json], sid: str, rid: str, tag: str, key: str) -> Json:
    found = pending.get(rid)
    if found is None or found["sessionID"] != sid:
        raise ApiError(404, tag, f"Request not found: {rid}", **{key: rid})
    return found


@_on("GET", "/api/session/{sid}/permission")
async def permissions(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    return 200, {"data": _of_session(s.state.permissions, sid)}


@_on("GET", "/api/session/{sid}/permission/{rid}")
async def permission(s: DemoServer, r: httpx.Request, sid: str, rid: str) -> Result:
    return 200, {"data": _pending(s.state.permissions, sid, rid, "PermissionNotFoundError", "requestID")}


@_on("POST", "/api/session/{sid}/permission/{rid}/reply")
async def permission_reply(s: DemoServer, r: httpx.Request, sid: str, rid: str) -> Result:
    body = _body(r, {"reply": str, "message": str}, ("reply",))
    if body["reply"] not in ("once", "always", "reject"):
        raise invalid(f"Expected Permission.Reply, got {body['reply']!r}", "reply")
    _pending(s.state.permissions, sid, rid, "PermissionNotFoundError", "requestID")
    s.reply_permission(sid, rid, body["reply"])
    return 204, None


@_on("GET", "/api/session/{sid}/question")
async def questions(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    return 200, {"data": _of_session(s.state.questions, sid)}


@_on("POST", "/api/session/{sid}/question/{rid}/reply")
async def question_reply(s: DemoServer, r: httpx.Request, sid: str, rid: str) -> Result:
    answers = _body(r, {"answers": list}, ("answers",))["answers"]
    if not all(isinstance(a, list) and all(isinstance(x, str) for x in a) for a in answers):
        raise invalid("answers must be string[][]", "answers")
    _pending(s.state.questions, sid, rid, "QuestionNotFoundError", "requestID")
    s.reply_question(sid, rid, answers)
    return 204, None


@_on("POST", "/api/session/{sid}/question/{rid}/reject")
async def question_reject(s: DemoServer, r: httpx.Request, sid: str, rid: str) -> Result:
    _pending(s.state.questions, sid, rid, "QuestionNotFoundError", "requestID")
    s.reply_question(sid, rid, None)
    return 204, None


@_on("GET", "/api/session/{sid}/form")
async def forms(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    return 200, {"data": _of_session(s.state.forms, sid)}


@_on("GET", "/api/session/{sid}/form/{fid}")
async def form(s: DemoServer, r: httpx.Request, sid: str, fid: str) -> Result:
    return 200, {"data": _pending(s.state.forms, sid, fid, "FormNotFoundError", "id")}


@_on("GET", "/api/session/{sid}/form/{fid}/state")
async def form_state(s: DemoServer, r: httpx.Request, sid: str, fid: str) -> Result:
    state = s.state.form_states.get(fid)
    if state is None:
        raise ApiError(404, "FormNotFoundError", f"Form not found: {fid}", id=fid)
    return 200, {"data": state}


def _settled_form(s: DemoServer, sid: str, fid: str) -> Json:
    if s.state.form_states.get(fid, {}).get("status") in ("answered", "cancelled"):
        raise ApiError(409, "FormAlreadySettledError", f"Form already settled: {fid}", id=fid)
    return _pending(s.state.forms, sid, fid, "FormNotFoundError", "id")


@_on("POST", "/api/session/{sid}/form/{fid}/reply")
async def form_reply(s: DemoServer, r: httpx.Request, sid: str, fid: str) -> Result:
    answer = _body(r, {"answer": dict}, ("answer",))["answer"]
    info = _settled_form(s, sid, fid)
    keys = {f["key"] for f in info["fields"]}
    ok = (str, int, float, bool, list)
    if set(answer) - keys or not all(isinstance(v, ok) for v in answer.values()):
        raise ApiError(400, "FormInvalidAnswerError", "answer does not match the form", id=fid)
    s.reply_form(sid, fid, answer)
    return 204, None


@_on("POST", "/api/session/{sid}/form/{fid}/cancel")
async def form_cancel(s: DemoServer, r: httpx.Request, sid: str, fid: str) -> Result:
    _settled_form(s, sid, fid)
    s.reply_form(sid, fid, None)
    return 204, None


@_on("DELETE", "/api/session/{sid}/inbox/{iid}")
async def cancel_inbox(s: DemoServer, r: httpx.Request, sid: str, iid: str) -> Result:
    if not any(i["id"] == iid for i in s.state.inbox.get(sid, [])):
        raise ApiError(409, "ConflictError", f"Inbox item not pending: {iid}", resource="inbox")
    s.emit("session.inbox.cancelled", {"sessionID": sid, "inboxID": iid})
    return 204, None


@_on("POST", "/api/session/{sid}/inbox/{iid}/{delivery}")
async def inbox_delivery(s: DemoServer, r: httpx.Request, sid: str, iid: str, delivery: str) -> Result:
    if delivery not in ("steer", "queue"):
        raise invalid(f"unknown delivery {delivery!r}")
    if not any(i["id"] == iid for i in s.state.inbox.get(sid, [])):
        raise ApiError(409, "ConflictError", f"Inbox item not pending: {iid}", resource="inbox")
    s.emit("session.inbox.delivery.changed", {"sessionID": sid, "inboxID": iid, "delivery": delivery})
    return 204, None


@_on("GET", "/api/shell/{shell_id}/output")
async def shell_output(s: DemoServer, r: httpx.Request, shell_id: str) -> Result:
    if shell_id not in s.shells:
        raise ApiError(404, "ShellNotFoundError", f"Shell not found: {shell_id}", id=shell_id)
    text = s.shells[shell_id]
    raw = r.url.params.get("cursor") or "0"
    start = int(raw) if raw.isdigit() else 0
    output = text.encode()[start:].decode(errors="replace")
    size = len(text.encode())
    return _located(s, {"output": output, "cursor": size, "size": size, "truncated": False})


FILES = ["README.md", "src", "src/greet.py", "src/main.py", "src/run.sh", "tests", "tests/test_greet.py"]


@_on("GET", "/api/fs/find")
async def find_files(s: DemoServer, r: httpx.Request) -> Result:
    query = (r.url.params.get("query") or "").lower()
    kind = r.url.params.get("type")
    found = [{"path": p, "type": "file" if "." in p else "directory"} for p in FILES if query in p.lower()]
    return _located(s, [f for f in found if kind in (None, f["type"])])
