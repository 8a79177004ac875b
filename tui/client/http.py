"""``OpenCodeClient``: one async method per REST route a chat client needs (PROTOCOL.md §4).

Everything returned is in v2 shapes: 1.18 preview answers pass through ``tui.protocol.dialect``
first, and routes the connected dialect lacks either degrade (empty list) or raise
``NotSupported``. Call ``connect()`` first so ``dialect`` is known.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import httpx

from tui.client.core import ClientCore, location_query, seg
from tui.client.core import query as qs
from tui.client.errors import BadResponse, NotSupported, OctuiError
from tui.protocol import dialect as dia
from tui.protocol.dialect import Dialect
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
    """Async REST client. ``dialect`` defaults to V2 until ``connect()`` detects otherwise."""

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
        return self.dialect is Dialect.V2

    def _v2_only(self, operation: str) -> None:
        if not self.is_v2:
            raise NotSupported(operation, self.dialect.label)

    # Server ----------------------------------------------------------------------------------

    async def _health_raw(self) -> dict[str, Any]:
        body = await self.request("GET", "/api/health")
        if not isinstance(body, dict):
            raise BadResponse(self.display_url, "GET", "/api/health", "health is not an object")
        return body

    async def health(self) -> Health:
        return Health.model_validate(await self._health_raw())

    async def connect(self) -> Health:
        """Probe ``/api/health`` (typed errors on failure) and detect the server dialect."""
        raw = await self._health_raw()
        self.dialect = dia.detect_from_health(raw)
        return Health.model_validate(raw)

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
        return SessionInfo.model_validate(dia.session_info(raw))

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
        if title and self.is_v2:  # 1.18 rejects ``title`` (strict body)
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
        return [dia.message(m) for m in items if isinstance(m, dict)], last_page_cursor(items, limit, nxt)

    async def get_message(self, session_id: str, message_id: str) -> dict[str, Any]:
        path = f"/api/session/{seg(session_id)}/message/{seg(message_id)}"
        data = await self.get_data(path)
        if not isinstance(data, dict):
            raise BadResponse(self.display_url, "GET", path, "message is not an object")
        return dia.message(data)

    async def history(
        self, session_id: str, after: int | None = None, limit: int | None = None
    ) -> tuple[list[dict[str, Any]], bool]:
        """1.18 only: durable session events after ``seq`` ``after`` -> (events, has_more)."""
        if self.is_v2:
            raise NotSupported("session history", self.dialect.label)
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
        if skills:  # v2 only: the 1.18 prompt body has no skills (dialect.prompt_body drops them)
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
        """Admit a user prompt; returns the admitted inbox item (v2) or ``SessionInputAdmitted`` (1.18)."""
        v2_body = self.prompt_v2_body(text, delivery, files, agents, message_id, skills)
        path = f"/api/session/{seg(session_id)}/prompt"
        data = self.data(await self.post(path, dia.prompt_body(self.dialect, v2_body)), "POST", path)
        return data if isinstance(data, dict) else {}

    async def interrupt(self, session_id: str, resume_pending: bool | None = None) -> None:
        """Stop the running turn. ``resume_pending`` maps to v2 ``?continue=`` (1.18 has none)."""
        params = qs(**{"continue": resume_pending}) if self.is_v2 else None
        await self.post(f"/api/session/{seg(session_id)}/interrupt", params=params)

    async def compact(self, session_id: str) -> dict[str, Any] | None:
        """v2: returns the compaction inbox item. 1.18: no body, and it answers 503 (Unavailable)."""
        path = f"/api/session/{seg(session_id)}/compact"
        if not self.is_v2:
            await self.post(path)
            return None
        data = self.data(await self.post(path, {}), "POST", path)
        return data if isinstance(data, dict) else None

    async def inbox(self, session_id: str) -> list[dict[str, Any]]:
        if not self.is_v2:
            return []  # 1.18 has no inbox API (DIALECTS.md §7)
        items = await self.get_list(f"/api/session/{seg(session_id)}/inbox")
        return [i for i in items if isinstance(i, dict)]

    async def inbox_cancel(self, session_id: str, inbox_id: str) -> None:
        self._v2_only("cancelling a queued prompt")
        await self.request("DELETE", f"/api/session/{seg(session_id)}/inbox/{seg(inbox_id)}")

    async def inbox_delivery(self, session_id: str, inbox_id: str, delivery: Delivery) -> None:
        """v2: switch a pending prompt between steer and queue."""
        self._v2_only("changing how a queued prompt is delivered")
        await self.post(f"/api/session/{seg(session_id)}/inbox/{seg(inbox_id)}/{delivery}")

    async def shell_output(self, shell_id: str, cursor: int | None = None) -> dict[str, Any]:
        """v2: ``{output, cursor, size, truncated}`` of a shell from byte ``cursor``."""
        self._v2_only("live shell output")
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
        return data if isinstance(data, dict) else {}

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
        self._v2_only("form reply")
        await self.post(f"/api/session/{seg(session_id)}/form/{seg(form_id)}/reply", {"answer": dict(answer)})

    async def form_cancel(self, session_id: str, form_id: str) -> None:
        self._v2_only("form cancel")
        await self.post(f"/api/session/{seg(session_id)}/form/{seg(form_id)}/cancel")

    def _permissions(self, items: list[Any]) -> list[PermissionRequest]:
        valid = PermissionRequest.model_validate
        return [valid(dia.permission_request(i)) for i in items if isinstance(i, dict)]

    def _questions(self, items: list[Any]) -> list[QuestionRequest]:
        return [QuestionRequest.model_validate(dia.question_request(i)) for i in items if isinstance(i, dict)]

    async def pending_permissions(self, directory: str | None = None) -> list[PermissionRequest]:
        return self._permissions(await self.get_list("/api/permission/request", location_query(directory)))

    async def pending_questions(self, directory: str | None = None) -> list[QuestionRequest]:
        return self._questions(await self.get_list("/api/question/request", location_query(directory)))

    async def pending_forms(self, directory: str | None = None) -> list[FormInfo]:
        if not self.is_v2:
            return []
        items = await self.get_list("/api/form/request", location_query(directory))
        return [FormInfo.model_validate(i) for i in items if isinstance(i, dict)]

    async def session_permissions(self, session_id: str) -> list[PermissionRequest]:
        return self._permissions(await self.get_list(f"/api/session/{seg(session_id)}/permission"))

    async def session_questions(self, session_id: str) -> list[QuestionRequest]:
        return self._questions(await self.get_list(f"/api/session/{seg(session_id)}/question"))

    async def session_forms(self, session_id: str) -> list[FormInfo]:
        if not self.is_v2:
            return []
        items = await self.get_list(f"/api/session/{seg(session_id)}/form")
        return [FormInfo.model_validate(i) for i in items if isinstance(i, dict)]

    # Catalog and files -----------------------------------------------------------------------

    async def models(self, directory: str | None = None) -> list[ModelInfo]:
        items = await self.get_list("/api/model", location_query(directory))
        return [ModelInfo.model_validate(i) for i in items if isinstance(i, dict)]

    async def default_model(self, directory: str | None = None) -> ModelInfo | None:
        if not self.is_v2:
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


def last_page_cursor(items: list[Any], limit: int, cursor: str | None) -> str | None:
    """The next page's cursor, or None when this page is the last.

    Both servers send ``cursor.next`` even at the end (TRACES.md §10; 1.18.33 too), so the cursor
    alone does not say there is more: a page shorter than ``limit`` is the last one. (A full last
    page still gives a cursor; the next, empty page then ends the list.)
    """
    return cursor if cursor and len(items) >= limit else None


__all__ = ["Delivery", "OpenCodeClient", "last_page_cursor", "model_ref_body"]
