"""Demo routes for asks (permissions, questions, forms), shell output and file search."""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx

from tui.demo.routing import ApiError, Json, Result, invalid, located, on, read_body

if TYPE_CHECKING:
    from tui.demo.server import DemoServer


# -- asks --------------------------------------------------------------------------------------------

def _of_session(pending: dict[str, Json], sid: str) -> list[Json]:
    return [v for v in pending.values() if v["sessionID"] == sid]


def _pending(pending: dict[str, Json], sid: str, rid: str, tag: str, key: str) -> Json:
    found = pending.get(rid)
    if found is None or found["sessionID"] != sid:
        raise ApiError(404, tag, f"Request not found: {rid}", **{key: rid})
    return found


@on("GET", "/api/session/{sid}/permission")
async def permissions(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    return 200, {"data": _of_session(s.state.permissions, sid)}


@on("GET", "/api/session/{sid}/permission/{rid}")
async def permission(s: DemoServer, r: httpx.Request, sid: str, rid: str) -> Result:
    return 200, {"data": _pending(s.state.permissions, sid, rid, "PermissionNotFoundError", "requestID")}


@on("POST", "/api/session/{sid}/permission/{rid}/reply")
async def permission_reply(s: DemoServer, r: httpx.Request, sid: str, rid: str) -> Result:
    body = read_body(r, {"reply": str, "message": str}, ("reply",))
    if body["reply"] not in ("once", "always", "reject"):
        raise invalid(f"Expected Permission.Reply, got {body['reply']!r}", "reply")
    _pending(s.state.permissions, sid, rid, "PermissionNotFoundError", "requestID")
    s.reply_permission(sid, rid, body["reply"])
    return 204, None


@on("GET", "/api/session/{sid}/question")
async def questions(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    return 200, {"data": _of_session(s.state.questions, sid)}


@on("POST", "/api/session/{sid}/question/{rid}/reply")
async def question_reply(s: DemoServer, r: httpx.Request, sid: str, rid: str) -> Result:
    answers = read_body(r, {"answers": list}, ("answers",))["answers"]
    if not all(isinstance(a, list) and all(isinstance(x, str) for x in a) for a in answers):
        raise invalid("answers must be string[][]", "answers")
    _pending(s.state.questions, sid, rid, "QuestionNotFoundError", "requestID")
    s.reply_question(sid, rid, answers)
    return 204, None


@on("POST", "/api/session/{sid}/question/{rid}/reject")
async def question_reject(s: DemoServer, r: httpx.Request, sid: str, rid: str) -> Result:
    _pending(s.state.questions, sid, rid, "QuestionNotFoundError", "requestID")
    s.reply_question(sid, rid, None)
    return 204, None


@on("GET", "/api/session/{sid}/form")
async def forms(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    return 200, {"data": _of_session(s.state.forms, sid)}


@on("GET", "/api/session/{sid}/form/{fid}")
async def form(s: DemoServer, r: httpx.Request, sid: str, fid: str) -> Result:
    return 200, {"data": _pending(s.state.forms, sid, fid, "FormNotFoundError", "id")}


@on("GET", "/api/session/{sid}/form/{fid}/state")
async def form_state(s: DemoServer, r: httpx.Request, sid: str, fid: str) -> Result:
    state = s.state.form_states.get(fid)
    if state is None:
        raise ApiError(404, "FormNotFoundError", f"Form not found: {fid}", id=fid)
    return 200, {"data": state}


def _settled_form(s: DemoServer, sid: str, fid: str) -> Json:
    if s.state.form_states.get(fid, {}).get("status") in ("answered", "cancelled"):
        raise ApiError(409, "FormAlreadySettledError", f"Form already settled: {fid}", id=fid)
    return _pending(s.state.forms, sid, fid, "FormNotFoundError", "id")


@on("POST", "/api/session/{sid}/form/{fid}/reply")
async def form_reply(s: DemoServer, r: httpx.Request, sid: str, fid: str) -> Result:
    answer = read_body(r, {"answer": dict}, ("answer",))["answer"]
    info = _settled_form(s, sid, fid)
    keys = {f["key"] for f in info["fields"]}
    ok = (str, int, float, bool, list)
    if set(answer) - keys or not all(isinstance(v, ok) for v in answer.values()):
        raise ApiError(400, "FormInvalidAnswerError", "answer does not match the form", id=fid)
    s.reply_form(sid, fid, answer)
    return 204, None


@on("POST", "/api/session/{sid}/form/{fid}/cancel")
async def form_cancel(s: DemoServer, r: httpx.Request, sid: str, fid: str) -> Result:
    _settled_form(s, sid, fid)
    s.reply_form(sid, fid, None)
    return 204, None


@on("GET", "/api/shell/{shell_id}/output")
async def shell_output(s: DemoServer, r: httpx.Request, shell_id: str) -> Result:
    if shell_id not in s.shells:
        raise ApiError(404, "ShellNotFoundError", f"Shell not found: {shell_id}", id=shell_id)
    text = s.shells[shell_id]
    raw = r.url.params.get("cursor") or "0"
    start = int(raw) if raw.isdigit() else 0
    output = text.encode()[start:].decode(errors="replace")
    size = len(text.encode())
    return located(s, {"output": output, "cursor": size, "size": size, "truncated": False})


FILES = ["README.md", "src", "src/greet.py", "src/main.py", "src/run.sh", "tests", "tests/test_greet.py"]


@on("GET", "/api/fs/find")
async def find_files(s: DemoServer, r: httpx.Request) -> Result:
    query = (r.url.params.get("query") or "").lower()
    kind = r.url.params.get("type")
    found = [{"path": p, "type": "file" if "." in p else "directory"} for p in FILES if query in p.lower()]
    return located(s, [f for f in found if kind in (None, f["type"])])
