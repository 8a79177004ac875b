"""Builders of v2 message dicts, for ``DemoServer.seed_session`` and benchmarks.

``id`` and ``time`` are left out; ``seed_session`` fills them in deterministically.
"""

from __future__ import annotations

import json
from typing import Any

from tui.demo.scripts import GREET_DIFF, LS_OUTPUT

Json = dict[str, Any]

TOKENS: Json = {"input": 1200, "output": 180, "reasoning": 40, "cache": {"read": 800, "write": 0}}


def user(text: str) -> Json:
    return {"type": "user", "text": text}


def synthetic(text: str, description: str | None = None, metadata: Json | None = None) -> Json:
    msg: Json = {"type": "synthetic", "text": text}
    if description is not None:
        msg["description"] = description
    if metadata is not None:
        msg["metadata"] = metadata
    return msg


def text(body: str) -> Json:
    return {"type": "text", "text": body}


def reasoning(body: str) -> Json:
    return {"type": "reasoning", "text": body, "time": {"created": 0, "completed": 0}}


def tool(name: str, input: Json, output: str | list[str] = "ok", *, call_id: str = "call_1",
         metadata: Json | None = None, error: str | None = None) -> Json:
    """A finished tool part: completed with ``output``, or failed with ``error``."""
    outputs = [output] if isinstance(output, str) else output
    state: Json = {"status": "completed", "input": input,
                   "content": [{"type": "text", "text": o} for o in outputs]}
    if error is not None:
        state = {"status": "error", "input": input, "error": {"type": "tool", "message": error}}
    if metadata is not None:
        state["metadata"] = metadata
    return {"type": "tool", "id": call_id, "name": name, "executed": True,
            "time": {"created": 0, "ran": 0, "completed": 0}, "state": state}


def assistant(*parts: Json, agent: str = "build", finish: str = "stop", cost: float = 0.0012,
              tokens: Json | None = None, error: Json | None = None) -> Json:
    msg: Json = {"type": "assistant", "agent": agent,
                 "model": {"id": "scripted", "providerID": "demo"}, "content": list(parts),
                 "finish": "error" if error else finish, "cost": cost,
                 "tokens": json.loads(json.dumps(tokens or TOKENS))}
    if error is not None:
        msg["error"] = error
    return msg


def _exchange(n: int) -> list[Json]:
    """One realistic user → assistant exchange; ``n`` varies the shape."""
    kind = n % 4
    ask = user(f"Step {n}: " + ("explain the module layout", "list the sources", "fix the greeting",
                                "why did the build fail?")[kind])
    if kind == 0:
        body = (f"### Layout ({n})\n\n- `src/` holds the application\n- `tests/` mirrors it\n\n"
                "```python\nfrom src.greet import greet\nprint(greet('world'))\n```\n")
        return [ask, assistant(reasoning("Summarise the tree briefly."), text(body))]
    if kind == 1:
        shell = tool("shell", {"command": "ls -la src"}, [LS_OUTPUT, "Command exited with code 0."],
                     call_id=f"call_{n}", metadata={"status": "completed", "exit": 0, "truncated": False})
        return [ask, assistant(text("Listing the files."), shell, finish="tool-calls"),
                assistant(text("There are four files and a `tests/` folder."))]
    if kind == 2:
        edit = tool("edit", {"path": "src/greet.py", "oldString": 'return "Hello " + name',
                             "newString": 'return f"Hello, {name}!"'},
                    "Edited src/greet.py (1 replacement).", call_id=f"call_{n}",
                    metadata={"files": [GREET_DIFF]})
        return [ask, assistant(text("Fixing it."), edit, finish="tool-calls"),
                assistant(text("Done: `greet()` now uses an f-string."))]
    failed = tool("shell", {"command": "make build"}, call_id=f"call_{n}",
                  error="Command exited with code 2.")
    return [ask, assistant(reasoning("Reproduce first."), text("Running the build."), failed,
                           finish="tool-calls"),
            assistant(text("The build fails because `build/` is stale; remove it and retry."))]


def history_fixture(n_messages: int) -> list[Json]:
    """A long, deterministic conversation of exactly ``n_messages`` messages (for benchmarks)."""
    out: list[Json] = []
    n = 0
    while len(out) < n_messages:
        out.extend(_exchange(n))
        n += 1
    return out[:n_messages]
