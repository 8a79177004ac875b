"""``OpenCodeClient``: one async method per REST route a chat client needs (PROTOCOL.md §4).

Everything returned is in pinned v2 shapes: the answers of other generations pass through the
connected ``Dialect`` (``tui.protocol.dialects``) first, and routes its ``caps`` lack either degrade
(empty list) or raise ``NotSupported``. Call ``identify()`` (or at least ``connect()``) first so
``dialect`` is known; it is refined later by what the server does (event names, a route's 404).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import httpx

from tui.client.core import ClientCore, location_query, seg
from tui.client.core import query as qs
from tui.client.errors import BadResponse, NotSupported, OctuiError, RouteMissing
from tui.protocol.dialects import Dialect, detect
from tui.protocol.models import (
    AgentInfo,
    CommandInfo,
    FormInfo,
    Health,
    ModelInfo,
    ModelRef,
    PermissionReply,
    PermissionRequest,
    QuestionRequest,
    SessionInfo,
    SkillInfo,
)

Delivery = Literal["steer", "queue"]


def model_ref_body(model: ModelRef | Mapping[str, Any]) -> dict[str, Any]:
    """Only the three declared keys: ``Model.Ref`` is a strict object (extra keys -> 400)."""
    raw = model.model_dump() if isinstance(model, ModelRef) else dict(model)
    out: dict[str, Any] = {"id": str(raw.get("id", "")), "providerID": str(raw.get("providerID", ""))}
    if raw.get("variant"):
        out["variant"] = str(raw["variant"])
    return out


class OpenCodeClient(ClientCore):
    """Async REST client. ``dialect`` defaults to the current v2 until detection says otherwise."""

    def __init__(
        self,
        base_url: str,
        *,
        username: str = "opencode",
        password: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 10.0,
    ) -> None:
        super().__init__(base_url, username=username, password=password, transport=transport, timeout=timeout)
        self.dialect: Dialect = Dialect.V2

    async def __aenter__(self) -> OpenCodeClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    @property
    def is_v2(self) -> bool:
        """A 2.x generation (flat bodies, forms, ``/command``…), whichever one."""
        return self.dialect.caps.flat_api

    def _require(self, available: bool, operation: str) -> None:
        if not available:
            raise NotSupported(operation, self.dialect.label)

    def _v2_only(self, operation: str) -> None:
        self._require(self.is_v2, operation)

    # Server ----------------------------------------------------------------------------------

    async def _health_raw(self) -> dict[str, Any]:
        body = await self.request("GET", "/api/health")
        if not isinstance(body, dict):
            raise BadResponse(self.display_url, "GET", "/api/health", "health is not an object")
        return body

    async def health(self) -> Health:
        return Health.model_validate(await self._health_raw())

    async def connect(self) -> Health:
        """Probe ``/api/health`` (typed errors on failure); it tells the server's family.

        A finer guess of the same family made before (``identify``, a start-up line) is kept."""
        raw = await self._health_raw()
        guess = detect.from_health(raw)
        if guess.family != self.dialect.family:
            self.dialect = guess
        return Health.model_validate(raw)

    def hint_startup_line(self, line: str) -> None:
        """Take the family a local ``opencode serve`` start-up line shows (1.18 and 2.x print
        different lines), before ``identify``; a line that is neither changes nothing."""
        found = detect.from_startup_line(line)
        if found is not None and found.family != self.dialect.family:
            self.dialect = found

    async def identify(self) -> Health:
        """``connect()``, then tell the 2.x generations apart by the routes the server serves."""
        health = await self.connect()
        if self.dialect.family == "2.x":
            await self.probe_spec()
        return health

    async def probe_spec(self) -> Dialect | None:
        """Read the server's own ``GET /openapi.json`` (it lists exactly the routes it serves) and
        switch to the generation it shows; None (and no change) when it is missing or says nothing."""
        try:
            doc = await self.request("GET", "/openapi.json", timeout=max(self.timeout, 15.0))
        except OctuiError:
            return None  # older servers serve no spec there: events and 404s will tell
        found = detect.from_spec(doc)
        if found is not None and found.family == self.dialect.family:
            self.dialect = found
        return found

    async def legacy_version(self) -> str | None:
        """1.18 keeps its version on the legacy ``/global/health`` route (best effort)."""
        try:
            legacy = await self.request("GET", "/global/health")
        except OctuiError:
            return None
        version = legacy.get("version") if isinstance(legacy, dict) else None
        return version if isinstance(version, str) else None

    async def active(self) -> dict[str, dict[str, Any]]:
        """Busy sessions: ``{sessionID: {type: "running"}}``; absent means idle."""
        data = await self.get_data("/api/session/active")
        if not isinstance(data, dict):
            return {}
        return {str(k): v if isinstance(v, dict) else {"type": str(v)} for k, v in data.items()}

    # Sessions --------------------------------------------------------------------------------

    def _session(self, raw: Any) -> SessionInfo:
        if not isinstance(raw, dict):
            raise BadResponse(self.display_url, "GET", "/api/session", "session is not an object")
        return SessionInfo.model_validate(self.dialect.session_info(raw))

    async def list_sessions(
        self,
        limit: int = 50,
        cursor: str | None = None,
        search: str | None = None,
        directory: str | None = None,
        parent_id: str | None = None,
        roots_only: bool = False,
        order: Literal["asc", "desc"] | None = None,
    ) -> tuple[list[SessionInfo], str | None]:
        parent = parent_id or ("null" if roots_only else None)
        params = qs(
            limit=limit,
            cursor=cursor,
            # ``order`` applies to the first page only and must not be combined with a cursor.
            order=None if cursor else order,
            search=search or None,
            directory=directory,
            parentID=parent if self.is_v2 else None,
        )
        body = await self.request("GET", "/api/session", params=params)
        items, nxt = self.page(body, "GET", "/api/session")
        nxt = last_page_cursor(items, limit, nxt)
        sessions = [self._session(item) for item in items]
        if not self.is_v2 and parent:
            # 1.18 has no parentID filter: apply it here so callers see the same result.
            want = None if parent == "null" else parent
            sessions = [s for s in sessions if s.parentID == want]
        return sessions, nxt

    async def get_session(self, session_id: str) -> SessionInfo:
        return self._session(await self.get_data(f"/api/session/{seg(session_id)}"))

    async def create_session(
        self,
        directory: str | None = None,
        agent: str | None = None,
        model: ModelRef | Mapping[str, Any] | None = None,
        title: str | None = None,
    ) -> SessionInfo:
        body: dict[str, Any] = {}
        if title and self.dialect.caps.session_title:  # 1.18 rejects ``title`` (strict body)
            body["title"] = title
        if agent:
            body["agent"] = agent
        if model is not None:
            body["model"] = model_ref_body(model)
        if directory:
            body["location"] = {"directory": directory}
        return self._session(self.data(await self.post("/api/session", body), "POST", "/api/session"))

    async def delete_session(self, session_id: str) -> None:
        if self.is_v2:
            await self.request("DELETE", f"/api/session/{seg(session_id)}")
        else:
            # 1.18 has no /api delete; its legacy v1 route does the same thing.
            await self.request("DELETE", f"/session/{seg(session_id)}")

    async def rename_session(self, session_id: str, title: str) -> None:
        if self.is_v2:
            await self.post(f"/api/session/{seg(session_id)}/rename", {"title": title})
        else:
            await self.request("PATCH", f"/session/{seg(session_id)}", body={"title": title})

    async def set_agent(self, session_id: str, agent: str) -> None:
        await self.post(f"/api/session/{seg(session_id)}/agent", {"agent": agent})

    async def set_model(self, session_id: str, model: ModelRef | Mapping[str, Any]) -> None:
        await self.post(f"/api/session/{seg(session_id)}/model", {"model": model_ref_body(model)})

    # Messages --------------------------------------------------------------------------------

    async def list_messages(
        self,
        session_id: str,
        limit: int = 50,
        cursor: str | None = None,
        order: Literal["asc", "desc"] = "desc",
    ) -> tuple[list[dict[str, Any]], str | None]:
        path = f"/api/session/{seg(session_id)}/message"
        params = qs(limit=limit, cursor=cursor, order=None if cursor else order)
        items, nxt = self.page(await self.request("GET", path, params=params), "GET", path)
        normalise = self.dialect.message
        return [normalise(m) for m in items if isinstance(m, dict)], last_page_cursor(items, limit, nxt)

    async def get_message(self, session_id: str, message_id: str) -> dict[str, Any]:
        path = f"/api/session/{seg(session_id)}/message/{seg(message_id)}"
        data = await self.get_data(path)
        if not isinstance(data, dict):
            raise BadResponse(self.display_url, "GET", path, "message is not an object")
        return self.dialect.message(data)

    async def history(
        self, session_id: str, after: int | None = None, limit: int | None = None
    ) -> tuple[list[dict[str, Any]], bool]:
        """1.18 only: durable session events after ``seq`` ``after`` -> (events, has_more)."""
        self._require(self.dialect.caps.durable_history, "session history")
        path = f"/api/session/{seg(session_id)}/history"
        body = await self.request("GET", path, params=qs(after=after, limit=limit))
        events = self.data_list(body, "GET", path)
        return [e for e in events if isinstance(e, dict)], bool(body.get("hasMore"))

    # Input and execution ---------------------------------------------------------------------

    def prompt_v2_body(
        self,
        text: str,
        delivery: Delivery = "steer",
        files: Iterable[Mapping[str, Any]] | None = None,
        agents: Iterable[Mapping[str, Any]] | None = None,
        message_id: str | None = None,
        skills: Iterable[Mapping[str, Any]] | None = None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"text": text, "delivery": delivery}
        if message_id:
            body["id"] = message_id
        if files:
            body["files"] = [dict(f) for f in files]
        if agents:
            body["agents"] = [dict(a) for a in agents]
        if skills:  # the dialect's prompt_body drops them where the server takes none
            body["skills"] = [dict(k) for k in skills]
        return body

    async def prompt(
        self,
        session_id: str,
        text: str,
        delivery: Delivery = "steer",
        files: Iterable[Mapping[str, Any]] | None = None,
        agents: Iterable[Mapping[str, Any]] | None = None,
        message_id: str | None = None,
        skills: Iterable[Mapping[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Admit a user prompt; returns the admitted item as ``Session.Inbox.User`` (2.x) or
        ``SessionInputAdmitted`` (1.18)."""
        v2_body = self.prompt_v2_body(text, delivery, files, agents, message_id, skills)
        path = f"/api/session/{seg(session_id)}/prompt"
        data = self.data(await self.post(path, self.dialect.prompt_body(v2_body)), "POST", path)
        return self.dialect.pending_item(data) if isinstance(data, dict) else {}

    async def interrupt(self, session_id: str, resume_pending: bool | None = None) -> None:
        """Stop the running turn. ``resume_pending`` maps to ``?continue=`` where the server has it."""
        params = qs(**{"continue": resume_pending}) if self.dialect.caps.interrupt_continue else None
        await self.post(f"/api/session/{seg(session_id)}/interrupt", params=params)

    async def compact(self, session_id: str) -> dict[str, Any] | None:
        """2.x: returns the compaction item. 1.18: no body, and it answers 503 (Unavailable)."""
        path = f"/api/session/{seg(session_id)}/compact"
        if not self.is_v2:
            await self.post(path)
            return None
        data = self.data(await self.post(path, self.dialect.compact_body()), "POST", path)
        return self.dialect.pending_item(data) if isinstance(data, dict) else None

    async def pending_inputs(self, session_id: str) -> list[dict[str, Any]]:
        """Inputs admitted but not yet delivered, as ``Session.Inbox.*`` items (admission order).

        The route depends on the generation (``/inbox``, ``/pending``; 1.18 has none). A route the
        server does not have (404, empty body) means another generation of the family: switch to
        it and ask there, once."""
        for _ in range(2):
            route = self.dialect.caps.pending_route
            if route is None:
                return []  # 1.18 has no pending-input API (DIALECTS.md §7)
            try:
                items = await self.get_list(f"/api/session/{seg(session_id)}/{route}")
            except RouteMissing:
                other = detect.after_missing_pending_route(self.dialect)
                if other is None:
                    raise
                self.dialect = other
                continue
            normalise = self.dialect.pending_item
            return [normalise(i) for i in items if isinstance(i, dict)]
        return []

    async def inbox(self, session_id: str) -> list[dict[str, Any]]:
        """Old name of ``pending_inputs``."""
        return await self.pending_inputs(session_id)

    async def inbox_cancel(self, session_id: str, inbox_id: str) -> None:
        self._require(self.dialect.caps.pending_cancel, "cancelling a pending prompt")
        await self.request("DELETE", f"/api/session/{seg(session_id)}/inbox/{seg(inbox_id)}")

    async def inbox_delivery(self, session_id: str, inbox_id: str, delivery: Delivery) -> None:
        """Switch a pending prompt between steer and queue (the current v2 only)."""
        self._require(self.dialect.caps.pending_redeliver, "changing how a pending prompt is delivered")
        await self.post(f"/api/session/{seg(session_id)}/inbox/{seg(inbox_id)}/{delivery}")

    async def shell_output(self, shell_id: str, cursor: int | None = None) -> dict[str, Any]:
        """2.x: ``{output, cursor, size, truncated}`` of a shell from byte ``cursor``."""
        self._require(self.dialect.caps.shell_output, "live shell output")
        data = await self.get_data(f"/api/shell/{seg(shell_id)}/output", qs(cursor=cursor))
        return data if isinstance(data, dict) else {}

    # Revert ----------------------------------------------------------------------------------

    async def revert_stage(
        self, session_id: str, message_id: str, files: bool | None = None
    ) -> dict[str, Any]:
        path = f"/api/session/{seg(session_id)}/revert/stage"
        body: dict[str, Any] = {"messageID": message_id}
        if files is not None:
            body["files"] = files
        data = self.data(await self.post(path, body), "POST", path)
        return self.dialect.revert_state(data) if isinstance(data, dict) else {}

    async def revert_clear(self, session_id: str) -> None:
        await self.post(f"/api/session/{seg(session_id)}/revert/clear")

    async def revert_commit(self, session_id: str) -> None:
        await self.post(f"/api/session/{seg(session_id)}/revert/commit")

    # Permissions, questions, forms -----------------------------------------------------------

    async def permission_reply(
        self, session_id: str, request_id: str, reply: PermissionReply, message: str | None = None
    ) -> None:
        body: dict[str, Any] = {"reply": reply}
        if message:
            body["message"] = message
        await self.post(f"/api/session/{seg(session_id)}/permission/{seg(request_id)}/reply", body)

    async def question_reply(self, session_id: str, request_id: str, answers: list[list[str]]) -> None:
        body = {"answers": [[str(a) for a in group] for group in answers]}
        await self.post(f"/api/session/{seg(session_id)}/question/{seg(request_id)}/reply", body)

    async def question_reject(self, session_id: str, request_id: str) -> None:
        await self.post(f"/api/session/{seg(session_id)}/question/{seg(request_id)}/reject")

    async def form_reply(self, session_id: str, form_id: str, answer: Mapping[str, Any]) -> None:
        self._require(self.dialect.caps.forms, "form reply")
        await self.post(f"/api/session/{seg(session_id)}/form/{seg(form_id)}/reply", {"answer": dict(answer)})

    async def form_cancel(self, session_id: str, form_id: str) -> None:
        self._require(self.dialect.caps.forms, "form cancel")
        await self.post(f"/api/session/{seg(session_id)}/form/{seg(form_id)}/cancel")

    def _permissions(self, items: list[Any]) -> list[PermissionRequest]:
        valid, normalise = PermissionRequest.model_validate, self.dialect.permission_request
        return [valid(normalise(i)) for i in items if isinstance(i, dict)]

    def _questions(self, items: list[Any]) -> list[QuestionRequest]:
        valid, normalise = QuestionRequest.model_validate, self.dialect.question_request
        return [valid(normalise(i)) for i in items if isinstance(i, dict)]

    async def pending_permissions(self, directory: str | None = None) -> list[PermissionRequest]:
        return self._permissions(await self.get_list("/api/permission/request", location_query(directory)))

    async def pending_questions(self, directory: str | None = None) -> list[QuestionRequest]:
        return self._questions(await self.get_list("/api/question/request", location_query(directory)))

    async def pending_forms(self, directory: str | None = None) -> list[FormInfo]:
        if not self.dialect.caps.forms:
            return []
        items = await self.get_list("/api/form/request", location_query(directory))
        return [FormInfo.model_validate(i) for i in items if isinstance(i, dict)]

    async def session_permissions(self, session_id: str) -> list[PermissionRequest]:
        return self._permissions(await self.get_list(f"/api/session/{seg(session_id)}/permission"))

    async def session_questions(self, session_id: str) -> list[QuestionRequest]:
        return self._questions(await self.get_list(f"/api/session/{seg(session_id)}/question"))

    async def session_forms(self, session_id: str) -> list[FormInfo]:
        if not self.dialect.caps.forms:
            return []
        items = await self.get_list(f"/api/session/{seg(session_id)}/form")
        return [FormInfo.model_validate(i) for i in items if isinstance(i, dict)]

    # Catalog and files -----------------------------------------------------------------------

    async def models(self, directory: str | None = None) -> list[ModelInfo]:
        items = await self.get_list("/api/model", location_query(directory))
        return [ModelInfo.model_validate(i) for i in items if isinstance(i, dict)]

    async def default_model(self, directory: str | None = None) -> ModelInfo | None:
        if not self.dialect.caps.default_model:
            return None  # 1.18 has no /api/model/default
        data = await self.get_data("/api/model/default", location_query(directory))
        return ModelInfo.model_validate(data) if isinstance(data, dict) else None

    async def agents(self, directory: str | None = None) -> list[AgentInfo]:
        items = await self.get_list("/api/agent", location_query(directory))
        return [AgentInfo.model_validate(i) for i in items if isinstance(i, dict)]

    async def commands(self, directory: str | None = None) -> list[CommandInfo]:
        items = await self.get_list("/api/command", location_query(directory))
        return [CommandInfo.model_validate(i) for i in items if isinstance(i, dict)]

    async def skills(self, directory: str | None = None) -> list[SkillInfo]:
        items = await self.get_list("/api/skill", location_query(directory))
        return [SkillInfo.model_validate(i) for i in items if isinstance(i, dict)]

    async def fs_find(
        self,
        query: str,
        limit: int = 20,
        directory: str | None = None,
        kind: Literal["file", "directory"] | None = None,
    ) -> list[dict[str, Any]]:
        """Ranked ``{path, type}`` entries, paths relative to the location."""
        params = {**location_query(directory), **qs(query=query, limit=limit, type=kind)}
        items = await self.get_list("/api/fs/find", params)
        return [i for i in items if isinstance(i, dict)]

    async def fs_read(self, path: str, directory: str | None = None, limit: int = 1 << 20) -> bytes:
        """A file's bytes (``path`` relative to the location, no ``..``), at most ``limit`` + 1 of
        them: more says the file is larger than ``limit``, and the rest is not fetched."""
        parts = path.split("/")
        if any(part in ("", ".", "..") for part in parts):  # (httpx resolves dot segments:
            raise ValueError(f"not a path relative to the location: {path!r}")  # another route)
        route = "/api/fs/read/" + "/".join(seg(part) for part in parts)
        try:
            async with self.http.stream("GET", route, params=location_query(directory)) as resp:
                if not resp.is_success:
                    content = await resp.aread()
                    raise self.error_for(resp.status_code, content[:4096], "GET", "/api/fs/read/…")
                kept = bytearray()
                async for chunk in resp.aiter_bytes():
                    kept += chunk
                    if len(kept) > limit:
                        break
                return bytes(kept[:limit + 1])
        except httpx.TransportError as exc:
            raise self.transport_error(exc, "GET", "/api/fs/read/…", self.timeout) from exc

    async def fs_list(self, path: str, directory: str | None = None) -> list[dict[str, Any]]:
        """A folder's ``{path, type}`` entries (paths relative to the location; folders end in /)."""
        items = await self.get_list("/api/fs/list", {**location_query(directory), **qs(path=path)})
        return [i for i in items if isinstance(i, dict)]


def last_page_cursor(items: list[Any], limit: int, cursor: str | None) -> str | None:
    """The next page's cursor, or None when this page is the last.

    Both servers send ``cursor.next`` even at the end (TRACES.md §10; 1.18.33 too), so the cursor
    alone does not say there is more: a page shorter than ``limit`` is the last one. (A full last
    page still gives a cursor; the next, empty page then ends the list.)
    """
    return cursor if cursor and len(items) >= limit else None


__all__ = ["Delivery", "OpenCodeClient", "last_page_cursor", "model_ref_body"]
