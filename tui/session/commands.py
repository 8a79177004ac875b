"""Slash commands, skills, prompt delivery with mentions, and the live catalog.

No Textual here. ``send_input`` is what the composer's Enter ends in: a ``/command args`` draft
whose name the server knows runs the command (v2: ``POST /api/session/{id}/command``; 1.18 has no
such route, so the text goes as a prompt starting with ``/command``); a ``/skill args`` draft
naming a skill activates it (``run_skill``); anything else is a prompt whose ``@path`` mentions
become file attachments with mention spans (PROTOCOL.md §4.4). Local files attached by path
(``tui.session.attachments``) ride along as extra ``files`` entries in every case.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Mapping
from typing import Any

from tui.client.core import seg
from tui.client.errors import OctuiError
from tui.client.http import Delivery, OpenCodeClient
from tui.protocol.models import AgentInfo, CommandInfo, ModelInfo, ModelRef, SkillInfo
from tui.session.mentions import is_media_path, parse_slash, prompt_files, utf16_offset

__all__ = ["CATALOG_WAIT_S", "Catalog", "find_agent", "find_model", "run_command", "run_skill",
           "send_input", "slash_skills", "switchable_agents"]

CATALOG_WAIT_S = 20.0
"""How long to wait for an empty catalog right after the server started."""
CATALOG_POLL_S = 1.0


async def run_command(
    client: OpenCodeClient,
    session_id: str,
    name: str,
    arguments: str = "",
    *,
    files: Iterable[Mapping[str, Any]] | None = None,
    delivery: Delivery = "steer",
) -> dict[str, Any]:
    """Run server command ``name`` with ``arguments`` in a session; returns the admitted item."""
    if not client.is_v2:
        text = f"/{name} {arguments}".rstrip()
        return await client.prompt(session_id, text, delivery=delivery, files=files)
    body: dict[str, Any] = {"command": name, "delivery": delivery}
    if arguments:
        body["arguments"] = arguments
    if files:
        body["files"] = [dict(f) for f in files]
    path = f"/api/session/{seg(session_id)}/command"
    data = client.data(await client.post(path, client.dialect.command_body(body)), "POST", path)
    return client.dialect.pending_item(data) if isinstance(data, dict) else {}


async def run_skill(
    client: OpenCodeClient,
    session_id: str,
    skill_id: str,
    name: str,
    arguments: str = "",
    *,
    files: Iterable[Mapping[str, Any]] | None = None,
    delivery: Delivery = "steer",
) -> dict[str, Any]:
    """Invoke skill ``skill_id`` (typed as ``/name arguments``) in a session.

    2.x: a bare ``/name`` activates it with ``POST /api/session/{id}/skill`` (the server appends a
    skill message and resumes); with arguments or files it is a prompt whose ``skills`` carry the
    skill with the ``/name`` span as its mention. A 2.x server whose prompts take no ``skills``
    (the 2.0 preview) gets the skill activated without a run (``resume: false``), then the text as
    typed. 1.18 has neither the route nor ``skills`` on a prompt: the text goes as typed and the
    model may load the skill with its ``skill`` tool.
    """
    text = f"/{name} {arguments}".rstrip()
    file_list = [dict(f) for f in files or ()]
    if not client.is_v2:
        return await client.prompt(session_id, text, delivery=delivery, files=file_list or None)
    skill_path = f"/api/session/{seg(session_id)}/skill"
    if not arguments and not file_list:
        await client.post(skill_path, {"skill": skill_id})
        return {}
    if not client.dialect.caps.prompt_skills:
        await client.post(skill_path, {"skill": skill_id, "resume": False})
        return await client.prompt(session_id, text, delivery=delivery, files=file_list or None)
    mention = {"start": 0, "end": utf16_offset(text, len(name) + 1), "text": f"/{name}"}
    return await client.prompt(session_id, text, delivery=delivery, files=file_list or None,
                               skills=[{"id": skill_id, "mention": mention}])


def slash_skills(skills: Iterable[SkillInfo]) -> list[SkillInfo]:
    """Skills a user may type as ``/name``: named, and not marked ``slash: false``."""
    return [s for s in skills if s.name and s.slash is not False]


async def send_input(
    client: OpenCodeClient,
    session_id: str,
    text: str,
    *,
    directory: str,
    delivery: Delivery = "steer",
    commands: Iterable[str] = (),
    skills: Mapping[str, str] | None = None,
    mentioned: Iterable[str] | None = None,
    attachments: Iterable[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """Send a composer draft: a known ``/command`` runs it, a ``/skill`` invokes it, else a prompt.

    ``skills`` maps a skill's name to its id (a server command of the same name wins);
    ``mentioned`` are the ``@`` paths picked from completion (``None``: every ``@token``);
    ``attachments`` are extra ``files`` entries (local files attached by path).
    """
    extra = [dict(a) for a in attachments]

    def mentions(in_text: str) -> list[dict[str, Any]]:
        files = prompt_files(in_text, directory, mentioned)
        if client.dialect.caps.text_files:
            return files
        # This server hands a text file to the provider as media, and the session is broken
        # from then on (QA, 1.18.33): a mention of one stays "@path" in the text, for the agent
        # to read with its tools. Images and PDFs still go.
        return [f for f in files if is_media_path(f["name"])]

    slash = parse_slash(text, set(commands))
    if slash is not None:
        files = mentions(slash.arguments) + extra
        return await run_command(client, session_id, slash.name, slash.arguments, files=files,
                                 delivery=delivery)
    skill = parse_slash(text, set(skills or {}))
    files = mentions(text) + extra
    if skill is not None and skills is not None:
        return await run_skill(client, session_id, skills[skill.name], skill.name, skill.arguments,
                               files=files, delivery=delivery)
    return await client.prompt(session_id, text, delivery=delivery, files=files or None)


def switchable_agents(agents: Iterable[AgentInfo], *, include_subagents: bool = False) -> list[AgentInfo]:
    """Agents a user may switch a session to: ``primary``/``all`` and not hidden (PROTOCOL §4.10)."""
    return [a for a in agents if not a.hidden and (include_subagents or a.mode in ("primary", "all"))]


def find_model(models: Iterable[ModelInfo], query: str) -> tuple[ModelRef | None, list[str]]:
    """The catalog model ``query`` names (``provider/id``, a unique ``id`` or name, ``#variant``
    optional), else ``None`` and the labels it could mean (empty: it names nothing)."""
    base, _, variant = query.strip().partition("#")
    wanted = base.strip().casefold()
    usable = [m for m in models if m.enabled]
    found = [m for m in usable if f"{m.providerID}/{m.id}".casefold() == wanted] or \
        [m for m in usable if m.id.casefold() == wanted] or \
        [m for m in usable if m.name and m.name.casefold() == wanted]
    if len(found) != 1:
        return None, [f"{m.providerID}/{m.id}" for m in found]
    model = found[0]
    if variant:
        names = [v.get("id") if isinstance(v, dict) else v for v in model.variants]
        if variant not in names:
            return None, []
    return ModelRef(id=model.id, providerID=model.providerID, variant=variant or None), []


def find_agent(agents: Iterable[AgentInfo], query: str) -> str | None:
    """The id of the switchable agent ``query`` names (its id or name, any case), else ``None``."""
    wanted = query.strip().casefold()
    for agent in switchable_agents(agents):
        if wanted in ((agent.id or agent.name).casefold(), agent.name.casefold()):
            return agent.id or agent.name
    return None


KINDS = ("models", "agents", "commands", "skills")
"""The catalog lists; each is fetched by the client method of the same name."""
REFETCH = {"agent.updated": {"agents"}, "command.updated": {"commands"}, "skill.updated": {"skills"}}
"""What each catalog event invalidates; any other (``catalog.updated`` …) invalidates everything."""


class Catalog:
    """Cached ``/api/model``, ``/api/agent``, ``/api/command`` and ``/api/skill`` answers.

    ``wait_models``/``wait_agents`` keep asking while the list is empty (a freshly started server
    may still be loading its catalog), up to ``CATALOG_WAIT_S``, and ask again at once when
    ``changed`` is called (a ``catalog.updated``/``agent.updated`` event arrived).
    """

    def __init__(self, client: OpenCodeClient, directory: str | None = None,
                 *, wait_s: float = CATALOG_WAIT_S, poll_s: float = CATALOG_POLL_S) -> None:
        self.client = client
        self.directory = directory
        self.wait_s = wait_s
        self.poll_s = poll_s
        self.models: list[ModelInfo] = []
        self.agents: list[AgentInfo] = []
        self.commands: list[CommandInfo] = []
        self.skills: list[SkillInfo] = []
        self._loaded: set[str] = set()
        self._nudge = asyncio.Event()

    def changed(self, event_type: str | None = None) -> set[str]:
        """Forget what ``event_type`` invalidates; returns the kinds to refetch."""
        kinds = set(REFETCH.get(event_type or "", KINDS))
        self._loaded -= kinds
        self._nudge.set()
        return kinds

    def has(self, kind: str) -> bool:
        """The list was fetched and is still valid (``get`` will not wait for the server)."""
        return kind in self._loaded and bool(getattr(self, kind))

    async def load(self, kind: str) -> list[Any]:
        """Fetch one list now (one of ``KINDS``); errors leave it as it was."""
        if kind not in KINDS:
            raise ValueError(f"unknown catalog list {kind!r}")
        fetch = getattr(self.client, kind)
        with contextlib.suppress(OctuiError):
            setattr(self, kind, await fetch(self.directory))
            self._loaded.add(kind)
        result: list[Any] = getattr(self, kind)
        return result

    async def get(self, kind: str) -> list[Any]:
        """The cached list, fetched first if it was never loaded or has been invalidated."""
        if kind in self._loaded:
            cached: list[Any] = getattr(self, kind)
            return cached
        return await self.load(kind)

    async def wait(self, kind: str) -> list[Any]:
        """Like ``get``, but keep trying while the answer is empty (bounded by ``wait_s``)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.wait_s
        items = await self.get(kind)
        while not items and loop.time() < deadline:
            self._nudge.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._nudge.wait(), min(self.poll_s, deadline - loop.time()))
            items = await self.load(kind)
        return items

    async def wait_models(self) -> list[ModelInfo]:
        return await self.wait("models")

    async def wait_agents(self) -> list[AgentInfo]:
        return await self.wait("agents")
