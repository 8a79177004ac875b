"""Soak: SIGKILL the real server during streaming turns, many times, with the headless app attached.

The scenario of ``tests/faults/test_server_restarts.py`` (the suite runs 1 round and the ask round)
for ``--rounds`` rounds (20) plus the round with a pending ask: each round streams a turn, kills the
server's process group, starts it again on the same port with the same data and waits for the app
to reconnect. At the end the app's transcript must equal a fresh export of the session (every prompt
once, in order, no duplicate message) and the dead ask must be gone. Prints one JSON object: the
per-kill times (kill -> "reconnecting" shown, server start, server ready -> reconnected), their
median and max, and ``ok`` with the checks; exits 1 when a check fails.

    python -m bench.soak_restarts [--rounds 20] [--budget 2.0]

Needs the repo-local ``opencode`` (``.opencode/node_modules``; ``$OPENCODE_BIN``) and git. The
server and the fake LLM listen on 127.0.0.1 and are stopped by PID at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import emit, ensure_repo_on_path

ensure_repo_on_path()

from tests.e2e.fake_llm import FakeLLM  # noqa: E402
from tests.e2e.fixtures import free_port  # noqa: E402
from tests.e2e.server import RealServer, find_opencode_bin, make_workspace  # noqa: E402
from tests.faults.restarts import SERVER_START_TIMEOUT_S, RestartRun, run_restarts  # noqa: E402


def _spread(values: list[float]) -> dict[str, float]:
    if not values:
        return {"median": 0.0, "max": 0.0}
    return {"median": statistics.median(values), "max": max(values)}


async def soak(binary: Path, rounds: int, budget: float) -> dict[str, Any]:
    llm = FakeLLM()
    llm.start()
    run = RestartRun()
    error = ""
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="octui-soak-") as scratch:
            root = Path(scratch)
            project, env = make_workspace(root, llm.base_url)
            server = RealServer(binary, project, env, root / "opencode.log")
            server.port = free_port()
            await asyncio.to_thread(server.start, ready_timeout=SERVER_START_TIMEOUT_S,
                                    model_timeout=SERVER_START_TIMEOUT_S)
            try:
                await run_restarts(server, llm, rounds, run)
            except (AssertionError, TimeoutError) as exc:  # a wait ran out: report it with the figures
                error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            finally:
                await asyncio.to_thread(server.stop)
    finally:
        llm.stop()
    messages = run.transcript.get("messages", [])
    users = [m["text"] for m in messages if m["role"] == "user"]
    ids = [m["id"] for m in messages]
    reconnects = [kill.reconnect_s for kill in run.kills]
    checks = {
        "completed": not error and len(run.kills) == rounds + 1,
        "every_prompt_once_in_order": bool(messages) and users == run.prompts,
        "no_duplicate_message": len(ids) == len(set(ids)),
        "dead_ask_dropped": run.dead_ask_dropped,
        "reconnect_within_budget": bool(reconnects) and max(reconnects) <= budget,
    }
    return {
        "bench": "soak_restarts",
        "rounds": rounds,
        "kills": len(run.kills),
        "messages": len(ids),
        "reconnect_budget_s": budget,
        "reconnect_s": _spread(reconnects),
        "noticed_s": _spread([kill.noticed_s for kill in run.kills]),
        "server_start_s": _spread([kill.start_s for kill in run.kills]),
        "per_kill": [
            {"noticed_s": round(k.noticed_s, 3), "start_s": round(k.start_s, 3),
             "reconnect_s": round(k.reconnect_s, 3)} for k in run.kills
        ],
        "wall_s": time.monotonic() - started,
        "checks": checks,
        "error": error,
        "ok": all(checks.values()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="streaming kills before the ask round")
    parser.add_argument("--budget", type=float, default=2.0, help="seconds from server ready to reconnected")
    args = parser.parse_args()
    binary = find_opencode_bin()
    if binary is None:
        sys.exit("no opencode binary: run scripts/setup.sh or set OPENCODE_BIN")
    figures = asyncio.run(soak(binary, max(1, args.rounds), args.budget))
    emit(figures)
    sys.exit(0 if figures["ok"] else 1)


if __name__ == "__main__":
    main()
