"""Slash commands, prompt delivery with mentions, and the live catalog (models, agents, commands).

No Textual here. ``send_input`` is what the composer's Enter ends in: a ``/command args`` draft
whose name the server knows runs the command (v2: ``POST /api/session/{id}/command``; 1.18 has no
such route, so the text goes as a prompt starting with ``/command``); anything else is a prompt
whose ``@path`` mentions become file attachments with mention spans (PROTOCOL.md §4.4).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Mapping
from typing import Any

from tui.client.core import seg
from tui.client.errors import OctuiError
from tui.client.http import Delivery, OpenCodeClient
from tui.mentions import parse_slash, prompt_files
from tui.protocol.models import AgentInfo, CommandInfo, ModelInfo

__all__ = ["CATALOG_WAIT_S", "Catalog", "run_command", "send_input", "switchable_agents"]

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
    data = client.data(await client.post(path, body), "POST", path)
    return data if isinstance(data, dict) else {}


async def send_input(
    client: OpenCodeClient,
    session_id: str,
    text: str,
    *,
    directory: str,
    delivery: Delivery = "steer",
    commands: Iterable[str] = (),
    mentioned: Iterable[str] | None = None,
) -> dict[str, Any]:
    """Send a composer draft: a known ``/command`` runs it, anything else is a prompt.

    ``mentioned`` are the ``@`` paths picked from completion (``None``: every ``@token``).
    """
    slash = parse_slash(text, set(commands))
    if slash is not None:
        files = prompt_files(slash.arguments, directory, mentioned)
        return await run_command(client, session_id, slash.name, slash.arguments, files=files,
                                 delivery=delivery)
    files = prompt_files(text, directory, mentioned)
    return await client.prompt(session_id, text, delivery=delivery, files=files or None)


def switchable_agents(agents: Iterable[AgentInfo], *, include_subagents: bool = False) -> list[AgentInfo]:
    """Agents a user may switch a session to: ``primary``/``all`` and not hidden (PROTOCOL §4.10)."""
    return [a for a in agents if not a.hidden and (include_subagents or a.mode in ("primary", "all"))]


class Catalog:
    """Cached ``/api/model``, ``/api/agent`` and ``/api/command`` answers for one directory.

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
        self._loaded: set[str] = set()
        self._nudge = asyncio.Event()

    def changed(self, event_type: str | None = None) -> set[str]:
        """Forget what ``event_type`` invalidates; returns the kinds to refetch."""
        kinds = {"agent.updated": {"agents"}, "command.updated": {"commands"},
                 "skill.updated": {"commands"}}.get(event_type or "", {"models", "agents", "commands"})
        self._loaded -= kinds
        self._nudge.set()
        return kinds

    async def load(self, kind: str) -> list[Any]:
        """Fetch one list now (``models``, ``agents`` or ``commands``); errors leave it as it was."""
        if kind not in ("models", "agents", "commands"):
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
