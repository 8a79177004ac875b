"""octui vs OpenCode's own TUI on the real server + fake LLM, in tmux at 120x40.

One answer of ~20 KB in ``--deltas`` (4,000) chunks, in two variants: as fast as possible and
30 ms apart. For each variant the clients run alternately, A B A B (``--rounds`` 2): octui
(``octui --url``) and ``opencode attach URL`` from the same npm package. Each run gets a fresh
session; the prompt is typed with ``tmux send-keys``. Figures per client: CPU seconds of the
client's process tree during the answer, peak RSS, seconds from the last delta written by the
fake LLM until the end marker is on screen, seconds to the first frame, idle CPU % over
``--idle`` (10) seconds afterwards; then the octui / OpenCode ratio of each median.

    python -m bench.real_stream [--deltas 4000] [--rounds 2] [--variants fast,30ms]

Needs tmux and the repo-local ``opencode`` (``.opencode/node_modules``; ``$OPENCODE_BIN``).
Everything listens on 127.0.0.1; the server, the fake LLM and every private tmux server are
stopped by PID / socket at the end; every wait is bounded.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import cpu_seconds, emit, ensure_repo_on_path, tree_pids
from bench.startup import Tmux, octui_command

ensure_repo_on_path()

from tests.e2e.fake_llm import FakeLLM  # noqa: E402
from tests.e2e.server import RealServer, find_opencode_bin, make_workspace  # noqa: E402

END_MARKER = "ENDMARK-4242"
ANSWER_BYTES = 20 * 1024
TIMEOUT_S = 300.0
SETTLE_S = 4.0
LAST_SENT: dict[str, float] = {}


class TimedChunks(list[str]):
    """Chunks that remember when the fake LLM asked past the last one (= last delta written)."""

    def __iter__(self) -> Any:
        yield from super().__iter__()
        LAST_SENT["t"] = time.monotonic()


def answer_chunks(deltas: int) -> list[str]:
    size = max(1, (ANSWER_BYTES - 40) // deltas)
    words = "streaming benchmark text with some words. "
    body = (words * (ANSWER_BYTES // len(words) + 1))[: size * (deltas - 1)]
    chunks = [body[i:i + size] for i in range(0, len(body), size)][: deltas - 1]
    return chunks + [f"\n\nDone. {END_MARKER}\n"]


def tree_rss_mb(pid: int) -> float:
    total = 0.0
    for member in tree_pids(pid):
        try:
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            continue
    return total


def tree_cpu(pid: int) -> float:
    total = 0.0
    for member in tree_pids(pid):
        try:
            total += cpu_seconds(member)
        except OSError:
            continue
    return total


def one_run(client: str, server: RealServer, project: Path, env: dict[str, str], scenario: str,
            opencode: Path, idle_s: float) -> dict[str, Any]:
    session = server.create_session()
    sid = session.get("id") or session.get("data", {}).get("id")
    assert isinstance(sid, str), session
    if client == "octui":
        command = [*octui_command(), "--url", server.url, "--session", sid]
    else:
        command = [str(opencode), "attach", server.url, "--session", sid, "--dir", str(project)]
    client_env = {k: v for k, v in env.items() if k.startswith(("HOME", "XDG_", "OPENCODE_"))}
    client_env["TERM"] = "xterm-256color"
    tmux = Tmux(f"octui-rs-{client}-{int(time.time() * 1000) % 10**8}")
    out: dict[str, Any] = {"client": client}
    try:
        start = time.monotonic()
        tmux.start(["exec", *command], str(project), client_env)
        pid = 0
        while time.monotonic() - start < 60:  # bounded: first frame
            pid = pid or tmux.pane_pid()
            screen = tmux.capture()
            if sum(1 for line in screen.splitlines() if line.strip()) >= 3:
                break
            time.sleep(0.02)
        out["first_frame_s"] = time.monotonic() - start
        time.sleep(SETTLE_S)
        pid = pid or tmux.pane_pid()
        cpu_before = tree_cpu(pid)
        LAST_SENT.pop("t", None)
        peak = tree_rss_mb(pid)
        tmux.send("-l", f"Answer please [[scenario:{scenario}]]")
        time.sleep(0.3)
        tmux.send("Enter")
        shown = None
        while time.monotonic() - start < TIMEOUT_S:  # bounded: end marker on screen
            peak = max(peak, tree_rss_mb(pid))
            if END_MARKER in tmux.capture():
                shown = time.monotonic()
                break
            time.sleep(0.02)
        sent = LAST_SENT.get("t")
        out["end_marker_shown"] = shown is not None
        out["end_marker_lag_s"] = (shown - sent) if shown is not None and sent is not None else None
        time.sleep(1.0)
        out["cpu_s"] = tree_cpu(pid) - cpu_before
        out["peak_rss_mb"] = max(peak, tree_rss_mb(pid))
        idle_before = tree_cpu(pid)
        for _ in range(int(idle_s * 10)):
            time.sleep(0.1)
            out["peak_rss_mb"] = max(out["peak_rss_mb"], tree_rss_mb(pid))
        out["idle_cpu_pct"] = (tree_cpu(pid) - idle_before) / idle_s * 100
        out["idle_rss_mb"] = tree_rss_mb(pid)
    finally:
        tmux.send("C-c")
        time.sleep(0.5)
        tmux.kill()
    server.wait_idle(sid, timeout=30)
    return out


def median(runs: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in runs if isinstance(r.get(key), (int, float))]
    return statistics.median(values) if values else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--variants", default="fast,30ms")
    parser.add_argument("--idle", type=float, default=10.0)
    args = parser.parse_args()
    opencode = find_opencode_bin()
    if opencode is None:
        emit({"benchmark": "real_stream", "error": "opencode binary not found (.opencode/node_modules)"})
        sys.exit(1)
    figures: dict[str, Any] = {"benchmark": "real_stream", "deltas": args.deltas, "rounds": args.rounds}
    llm = FakeLLM()
    llm.start()
    server: RealServer | None = None
    try:
        with tempfile.TemporaryDirectory(prefix="octui-bench-real-") as root:
            project, env = make_workspace(Path(root), llm.base_url)
            server = RealServer(opencode, project, env, Path(root) / "server.log").start()
            for variant in args.variants.split(","):
                delay = 0.03 if variant == "30ms" else 0.0
                scenario = f"bench_{variant}"
                llm.add_scenario(scenario, [
                    {"chunks": TimedChunks(answer_chunks(args.deltas)), "chunk_delay": delay}])
                runs: dict[str, list[dict[str, Any]]] = {"octui": [], "opencode": []}
                for _ in range(args.rounds):
                    for client in ("octui", "opencode"):
                        runs[client].append(one_run(client, server, project, env, scenario, opencode,
                                                    args.idle))
                summary: dict[str, Any] = {"runs": runs}
                for key in ("cpu_s", "peak_rss_mb", "end_marker_lag_s", "first_frame_s", "idle_cpu_pct",
                            "idle_rss_mb"):
                    a, b = median(runs["octui"], key), median(runs["opencode"], key)
                    summary[key] = {"octui": a, "opencode": b,
                                    "ratio": (a / b) if a is not None and b else None}
                figures[variant] = summary
    finally:
        if server is not None:
            server.stop()
        llm.stop()
    emit(figures)


if __name__ == "__main__":
    main()
