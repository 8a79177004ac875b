"""Demo routes that admit input: prompt, command, skill, compaction, inbox, interrupt."""

from __future__ import annotations

import base64
import binascii
import mimetypes
import re
from typing import TYPE_CHECKING

import httpx

from tui.demo.catalog import COMMANDS, SKILLS
from tui.demo.generation import DemoGeneration
from tui.demo.routing import ApiError, Json, Result, invalid, on, read_body

if TYPE_CHECKING:
    from tui.demo.server import DemoServer


_PROMPT = {"id": str, "text": str, "files": list, "agents": list, "skills": list, "metadata": dict,
           "delivery": str, "resume": bool}
_PREVIEW_PROMPT = {k: v for k, v in _PROMPT.items() if k != "skills"}  # the 2.0 preview has no skills


def _prompt_fields(s: DemoServer) -> dict[str, type]:
    return _PREVIEW_PROMPT if s.preview else _PROMPT


@on("POST", "/api/session/{sid}/prompt")
async def prompt(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    body = read_body(r, _prompt_fields(s), ("text",))
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
    if body.get("files"):
        extra["files"] = [_resolve_file(f) for f in body["files"]]
    if body.get("skills"):
        extra["skills"] = [_resolve_skill(k) for k in body["skills"]]
    return s.prompt(sid, text, delivery=delivery, inbox_id=body.get("id"), extra=extra)


_DATA_URI = re.compile(r"data:([\w.+-]+/[\w.+-]+)(?:;[\w=.+-]+)*;base64,(.*)\Z", re.S)


def _resolve_file(item: object) -> Json:
    """``PromptInput.FileAttachment`` -> the stored ``Prompt.FileAttachment``, as the server does.

    A ``data:`` URL is kept inline; any other URI is recorded by reference with no content (the
    demo has no files to read).
    """
    if not isinstance(item, dict) or not isinstance(item.get("uri"), str):
        raise invalid("files[] needs a uri", "files")
    uri: str = item["uri"]
    out: Json = {k: item[k] for k in ("name", "description", "mention") if k in item}
    match = _DATA_URI.match(uri)
    if match is not None:
        try:
            base64.b64decode(match.group(2), validate=True)
        except binascii.Error as exc:
            raise invalid("files[].uri is not valid base64", "files") from exc
        return out | {"data": match.group(2), "mime": match.group(1), "source": {"type": "inline"}}
    if uri.startswith("data:"):
        raise invalid("files[].uri: only base64 data URLs are supported", "files")
    mime = mimetypes.guess_type(uri)[0] or "text/plain"
    return out | {"data": "", "mime": mime, "source": {"type": "uri", "uri": uri}}


def _skill(skill_id: str) -> Json:
    found = next((k for k in SKILLS if k["id"] == skill_id), None)
    if found is None:
        raise ApiError(404, "SkillNotFoundError", f"Skill not found: {skill_id}", skill=skill_id)
    return found


def _resolve_skill(item: object) -> Json:
    """``PromptInput.SkillAttachment`` -> ``Prompt.SkillAttachment`` (name and content resolved)."""
    if not isinstance(item, dict) or not isinstance(item.get("id"), str):
        raise invalid("skills[] needs an id", "skills")
    found = next((k for k in SKILLS if k["id"] == item["id"]), None)
    if found is None:  # the prompt route declares no SkillNotFoundError: a bad request
        raise invalid(f"unknown skill {item['id']!r}", "skills")
    out: Json = {"id": found["id"], "name": found["name"], "text": found["content"]}
    return out | ({"mention": item["mention"]} if "mention" in item else {})


@on("POST", "/api/session/{sid}/command")
async def command(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    body = read_body(r, _prompt_fields(s) | {"command": str, "arguments": str, "agent": str, "model": dict},
                     ("command",))
    found = next((c for c in COMMANDS if c["name"] == body["command"]), None)
    if found is None:
        raise ApiError(404, "CommandNotFoundError", f"Command not found: {body['command']}",
                       command=body["command"])
    text = found["template"].replace("$ARGUMENTS", body.get("arguments", "")).strip()
    return 200, {"data": _admit(s, sid, body, text)}


@on("POST", "/api/session/{sid}/skill")
async def skill(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    body = read_body(r, {"id": str, "skill": str, "resume": bool}, ("skill",))
    s.activate_skill(sid, _skill(body["skill"]), resume=body.get("resume", True))
    return 204, None


@on("POST", "/api/session/{sid}/compact")
async def compact(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    body = read_body(r, {"id": str} if s.preview else {"id": str, "delivery": str})
    delivery = body.get("delivery", "steer")
    if delivery not in ("steer", "queue"):
        raise invalid("delivery must be steer or queue", "delivery")
    if "id" in body and not body["id"].startswith("msg_"):
        raise invalid("id must start with msg_", "id")
    return 200, {"data": s.compact(sid, delivery=delivery, inbox_id=body.get("id"))}


@on("GET", "/api/session/{sid}/inbox", only=DemoGeneration.V2)
async def inbox(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    return 200, {"data": s.state.inbox.get(sid, [])}


@on("GET", "/api/session/{sid}/pending", only=DemoGeneration.PREVIEW)
async def pending(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    """The 2.0 preview's read-only list of admitted inputs (no cancel or re-deliver route)."""
    return 200, {"data": s.state.inbox.get(sid, [])}


@on("POST", "/api/session/{sid}/interrupt")
async def interrupt(s: DemoServer, r: httpx.Request, sid: str) -> Result:
    # ``continue`` is a pinned-spec parameter; the 2.0 preview has none.
    await s.interrupt(sid, resume=not s.preview and r.url.params.get("continue") == "true")
    return 204, None


@on("DELETE", "/api/session/{sid}/inbox/{iid}", only=DemoGeneration.V2)
async def cancel_inbox(s: DemoServer, r: httpx.Request, sid: str, iid: str) -> Result:
    if not any(i["id"] == iid for i in s.state.inbox.get(sid, [])):
        raise ApiError(409, "ConflictError", f"Inbox item not pending: {iid}", resource="inbox")
    s.emit("session.inbox.cancelled", {"sessionID": sid, "inboxID": iid})
    return 204, None


@on("POST", "/api/session/{sid}/inbox/{iid}/{delivery}", only=DemoGeneration.V2)
async def inbox_delivery(s: DemoServer, r: httpx.Request, sid: str, iid: str, delivery: str) -> Result:
    if delivery not in ("steer", "queue"):
        raise invalid(f"unknown delivery {delivery!r}")
    if not any(i["id"] == iid for i in s.state.inbox.get(sid, [])):
        raise ApiError(409, "ConflictError", f"Inbox item not pending: {iid}", resource="inbox")
    s.emit("session.inbox.delivery.changed", {"sessionID": sid, "inboxID": iid, "delivery": delivery})
    return 204, None
