"""A scripted, in-process OpenCode **v2** server for ``octui --demo``, snapshot and unit tests.

No Textual here: the client talks to it through httpx, exactly as to a real server::

    server = DemoServer(speed=0)                       # 0 = no sleeping, deltas back to back
    client = httpx.AsyncClient(transport=server.transport, base_url=server.base_url)
    sid = (await client.post("/api/session", json={})).json()["data"]["id"]
    await client.post(f"/api/session/{sid}/prompt", json={"text": "hello"})   # runs "welcome"
    await server.idle()                                # waits for the permission ask
    ...
    await server.aclose()

Public API (kept stable):

* ``DemoServer(*, clock=None, speed=1.0, heartbeat=15.0, directory="/home/demo/project",
  ids=None)`` — ``clock() -> seconds`` (default ``tui.app.clock.now``); ``speed`` multiplies every
  script delay (deltas ~30 ms × speed); ``heartbeat`` seconds between ``: heartbeat`` frames
  (<= 0: none); ``ids(kind) -> str`` (default: counters, ``ses_demo0001``, ``msg_demo0001``,
  ``evt_demo000001``, ``per_demo0001``, ``que_demo0001``, ``frm_demo0001``, ``call_1``).
* ``.transport`` (``httpx.AsyncBaseTransport``), ``.base_url`` (``"http://demo.invalid"``).
* ``.emit(type, data) -> event`` publishes any event (envelope and ``durable`` added).
* ``.emitted`` — every event dict emitted, in order (``server.connected`` frames excluded).
* ``.run_script(session_id, name)`` — prompt a session with a named script.
* ``.prompt(session_id, text, *, script=None)`` — what ``POST …/prompt`` does.
* ``.create_session(...)``, ``.seed_session(title, messages, *, parent_id=None)`` — the latter
  adds a finished conversation without events; build messages with ``tui.demo.fixtures``.
* ``.reply_permission(sid, rid, reply)``, ``.reply_question(sid, qid, answers | None)``,
  ``.reply_form(sid, fid, answer | None)`` — what the reply/reject/cancel routes do.
* ``await .interrupt(sid)`` — what ``POST …/interrupt`` does.
* ``.compact(sid)`` — what ``POST …/compact`` does: a compaction item the runner turns into
  ``session.compaction.*`` events (``failed`` when there is nothing to summarise).
* ``.activate_skill(sid, skill)`` — what ``POST …/skill`` does (skills: ``catalog.SKILLS``).
* ``await .idle()`` / ``await .wait_until_settled()`` — every script finished or waiting for an
  answer. ``.drop_connections()`` ends all event streams. ``await .aclose()``.
* ``.state`` — the projection (sessions, messages, inbox, pending asks, active set).

Scripts (``SCRIPTS``; a prompt picks one by name as a word, default "welcome"): welcome,
question (form-based question tool), question-legacy (``question.asked``), error, long, subagents.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.demo.fixtures import assistant, history_fixture, reasoning, synthetic, text, tool, user
    from tui.demo.ids import DURABLE_VERSIONS, IdGenerator
    from tui.demo.scripts import SCRIPTS, Script, pick_script
    from tui.demo.server import DemoServer
    from tui.demo.transport import DemoTransport

# Imported on first use (PEP 562): the CLI reads ``tui.demo.generation`` for its options, and a
# session with a real server must not load the whole demo server (~45 ms and its memory) for it.
_LAZY = {
    "assistant": "fixtures", "history_fixture": "fixtures", "reasoning": "fixtures",
    "synthetic": "fixtures", "text": "fixtures", "tool": "fixtures", "user": "fixtures",
    "DURABLE_VERSIONS": "ids", "IdGenerator": "ids",
    "SCRIPTS": "scripts", "Script": "scripts", "pick_script": "scripts",
    "DemoServer": "server", "DemoTransport": "transport",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "DURABLE_VERSIONS",
    "DemoServer",
    "DemoTransport",
    "IdGenerator",
    "SCRIPTS",
    "Script",
    "assistant",
    "history_fixture",
    "pick_script",
    "reasoning",
    "synthetic",
    "text",
    "tool",
    "user",
]
