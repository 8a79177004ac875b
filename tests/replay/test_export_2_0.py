"""``octui export`` of a 2.0-preview session: the REST path (``fetch_session``) with the recorded
history, the generation detected from the served spec, gives the server's transcript."""

from __future__ import annotations

from typing import Any

import pytest

from tests.replay.harness import BASE, TRACES_20, ReplayServer, history_items, messages_answer, sample
from tui.client.http import OpenCodeClient
from tui.export import export_json, export_markdown, fetch_session
from tui.protocol.dialects import Dialect

SCENARIOS = sorted(p.name[: -len(".messages.json")] for p in (TRACES_20 / "samples").glob("*.messages.json"))


def info(session_id: str) -> dict[str, Any]:
    return {"id": session_id, "projectID": "global", "cost": 0, "time": {"created": 1, "updated": 1},
            "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
            "location": {"directory": "<WORK>/proj"}}


def wire_view(items: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    out = []
    for m in items:
        parts = tuple((p["type"], p.get("name") or p.get("text"), (p.get("state") or {}).get("status"))
                      for p in m.get("content") or [])
        text = m.get("text") if m["type"] in ("user", "synthetic") else None
        out.append((m["id"], m["type"], text, parts))
    return out


def export_view(exported: dict[str, Any]) -> list[tuple[Any, ...]]:
    out = []
    for m in exported["messages"]:
        parts = tuple((p["type"], p.get("name") or p.get("text"), p.get("status")) for p in m["parts"])
        text = m["text"] if m["role"] in ("user", "synthetic") else None
        out.append((m["id"], m["role"], text, parts))
    return out


@pytest.mark.parametrize("name", SCENARIOS)
async def test_export_gives_the_server_transcript(name: str) -> None:
    pages = sample(f"{name}.messages.json")
    for session_id, page in pages.items():
        items = history_items(page)
        server = ReplayServer([], rest={
            f"GET /api/session/{session_id}": (200, {"data": info(session_id)}),
            f"GET /api/session/{session_id}/message": (200, messages_answer(page)),
        })
        async with OpenCodeClient(BASE, password="pw", transport=server.transport) as client:
            await client.identify()
            assert client.dialect is Dialect.V2_0_PREVIEW
            state = await fetch_session(client, session_id)
        exported = export_json(state)
        assert export_view(exported) == wire_view(items)
        markdown = export_markdown(state)
        for m in items:
            if m["type"] == "user" and m["text"].strip():
                assert m["text"].splitlines()[0].strip() in markdown
