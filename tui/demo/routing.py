"""Routing for the demo server's REST API: registration, strict bodies, paging, v2 error bodies.

Route handlers live in ``routes`` (server, catalog, sessions, messages), ``routes_input`` (prompt,
command, skill, compaction, inbox, interrupt) and ``routes_asks`` (permissions, questions, forms,
shell output, file search). ``routes`` imports the other two, so importing it registers them all.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import httpx

from tui.demo.generation import DemoGeneration

if TYPE_CHECKING:
    from tui.demo.server import DemoServer

Json = dict[str, Any]
Result = tuple[int, Any]
Handler = Callable[..., Awaitable[Result]]
# (method, pattern as written, compiled, handler, generations it exists in; None = all)
_ROUTES: list[tuple[str, str, re.Pattern[str], Handler, frozenset[DemoGeneration] | None]] = []
# Path parameter names as the real server's own spec spells them (for /openapi.json).
_SPEC_NAMES = {"sid": "sessionID", "rid": "requestID", "fid": "formID", "mid": "messageID",
               "iid": "inboxID", "shell_id": "id", "delivery": "delivery"}


class ApiError(Exception):
    def __init__(self, status: int, tag: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.body: Json | None = {"_tag": tag, "message": message} | extra


class NoRoute(ApiError):
    """An authorised request to a path nobody serves (the 2.0 preview answers with no body)."""


def invalid(message: str, field: str | None = None) -> ApiError:
    return ApiError(400, "InvalidRequestError", message, **({"field": field} if field else {}))


def on(method: str, pattern: str, *, only: DemoGeneration | None = None) -> Callable[[Handler], Handler]:
    """Register a route; ``only``: it exists in that generation alone."""
    regex = re.compile("^" + re.sub(r"{(\w+)}", r"(?P<\1>[^/]+)", pattern) + "$")
    generations = None if only is None else frozenset({only})

    def register(handler: Handler) -> Handler:
        _ROUTES.append((method, pattern, regex, handler, generations))
        return handler

    return register


def served(generation: DemoGeneration) -> list[tuple[str, str]]:
    """(method, path with the real server's parameter names) of every route of ``generation``."""
    out = []
    for method, pattern, _, _, generations in _ROUTES:
        if generations is None or generation in generations:
            out.append((method, re.sub(r"{(\w+)}", lambda m: "{" + _SPEC_NAMES.get(m[1], m[1]) + "}",
                                       pattern)))
    return out


async def route(s: DemoServer, request: httpx.Request) -> Result:
    path = request.url.path
    for method, _, regex, handler, generations in _ROUTES:
        if generations is not None and s.generation not in generations:
            continue
        match = regex.match(path)
        if match and method == request.method:
            params = match.groupdict()
            if "sid" in params:
                check_session(s, params["sid"])
            return await handler(s, request, **params)
    raise NoRoute(404, "NotFoundError", f"no route for {request.method} {path}")


def check_session(s: DemoServer, sid: str) -> None:
    if not sid.startswith("ses"):
        raise invalid(f"invalid sessionID {sid!r}", "sessionID")
    if sid not in s.state.sessions:
        raise ApiError(404, "SessionNotFoundError", f"Session not found: {sid}", sessionID=sid)


def read_body(request: httpx.Request, spec: Mapping[str, type],
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


def limit_param(request: httpx.Request, default: int, maximum: int) -> int:
    raw = request.url.params.get("limit")
    if raw is None:
        return default
    if not raw.isdigit() or not 1 <= int(raw) <= maximum:
        raise invalid(f"limit must be an integer 1..{maximum}", "limit")
    return int(raw)


def paged(request: httpx.Request, items: list[Any], default: int, maximum: int) -> Json:
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
    limit = limit_param(request, default, maximum)
    ordered = items[::-1] if order == "desc" else items

    def cursor(at: int) -> str:
        return base64.urlsafe_b64encode(f"{order}:{at}:{limit}".encode()).decode()

    end = start + limit
    return {"data": ordered[start:end], "cursor": {
        "previous": cursor(max(0, start - limit)) if start > 0 else None,
        "next": cursor(end) if end < len(ordered) else None}}


def located(s: DemoServer, data: Any) -> Result:
    return 200, {"location": s.location_info, "data": data}
