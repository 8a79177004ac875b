"""octui vs OpenCode's own TUI on the real server + fake LLM, in tmux at 120x40.

One markdown answer of ~20 KB (headings, paragraphs, lists, code fences) in ``--deltas``
(4,000) chunks, in two variants: as fast as possible ("fast", the burst) and 30 ms apart
("30ms", paced). For each variant the clients run alternately, A B A B (``--rounds`` 2): octui
(``octui --url``) and ``opencode attach URL`` from the same npm package. Each run gets a fresh
session; the prompt is typed with ``tmux send-keys``. Figures per client:

* ``cpu_s``: CPU seconds of the client's process tree from Enter until 1 s after the end marker
  is on screen; ``peak_rss_mb``: sampled VmRSS of the tree;
* ``end_marker_lag_s``: the fake LLM wrote the last chunk → the end marker is in
  ``capture-pane`` (polled every 20 ms); ``checkpoint_lag_max_s``: the same for the checkpoint
  words spread through the answer (one per ~1 KB), the worst of those seen (a burst scrolls
  most of them past between two polls: ``checkpoints_seen`` says how many counted);
* ``bytes``, ``sync_frames``, ``write_bursts``: what the client wrote to its terminal over the
  same window as ``cpu_s``, recorded with ``tmux pipe-pane`` (``bench/pane_record.py``):
  bytes, synchronized-update begin markers (DEC mode 2026), and groups of writes less than
  4 ms apart; ``idle_bytes``: the same during the idle window;
* ``first_frame_s``: launch → three non-blank lines; ``idle_cpu_pct``: over ``--idle`` (10) s
  after the answer.

Then the octui / OpenCode ratio of each median, and the load average before and after.

    python -m bench.real_stream [--deltas 4000] [--rounds 2] [--variants fast,30ms] [--clients octui,opencode]

Needs tmux and the repo-local ``opencode`` (``.opencode/node_modules``; ``$OPENCODE_BIN``).
Everything listens on 127.0.0.1; the server, the fake LLM and every private tmux server are
stopped by PID / socket at the end; every wait is bounded.
"""

from __future__ import annotations

import argparse
import bisect
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import cpu_seconds, emit, ensure_repo_on_path, tree_pids
from bench.pane_record import frame_figures
from bench.startup import Tmux, _quote, octui_command

ensure_repo_on_path()

from tests.e2e.fake_llm import FakeLLM  # noqa: E402
from tests.e2e.server import RealServer, find_opencode_bin, make_workspace  # noqa: E402

END_MARKER = "ENDMARK-4242"
ANSWER_BYTES = 20 * 1024
CHECKPOINT_EVERY = 1024  # characters of answer between two checkpoint words
TIMEOUT_S = 300.0
SETTLE_S = 4.0
POLL_S = 0.02
SENT: dict[str, float] = {}  # checkpoint word / END_MARKER → when the fake LLM wrote it
CHECKPOINTS: dict[int, str] = {}  # chunk index → the checkpoint word that chunk completes


class TimedChunks(list[str]):
    """Chunks that note when the fake LLM wrote the ones completing a checkpoint word."""

    def __iter__(self) -> Any:
        for index, chunk in enumerate(super().__iter__()):
            yield chunk
            # Resumed once the fake LLM has written this chunk and asks for the next one.
            label = CHECKPOINTS.get(index)
            if label is not None:
                SENT[label] = time.monotonic()
        SENT[END_MARKER] = time.monotonic()


def markdown_answer(size: int) -> tuple[str, list[str]]:
    """About ``size`` characters of varied markdown with a checkpoint word every ~1 KB."""
    words = ("streaming benchmark text with **bold words**, `inline code` and plain ones that "
             "wrap across the width of the terminal like a real answer does. ")
    sections: list[str] = []
    labels: list[str] = []
    n = 0
    while sum(map(len, sections)) < size:
        n += 1
        label = f"CKPT{n:02d}"
        labels.append(label)
        kind = n % 4
        if kind == 1:
            body = f"## Section {n}\n\n{words * 3}checkpoint {label} here. {words * 2}\n\n"
        elif kind == 2:
            items = "".join(f"- item {i}: {words[:60]}\n" for i in range(6))
            body = f"{items}- checkpoint {label} in a list\n\n{words * 3}\n\n"
        elif kind == 3:
            code = "".join(f"    value_{i} = compute({i}, name='x{i}')  # a comment\n" for i in range(8))
            body = (f"```python\ndef step_{n}():\n{code}    return value_0\n```\n\n"
                    f"checkpoint {label} after code. {words * 3}\n\n")
        else:
            body = (f"> quoted {words * 2}\n\n"
                    f"1. first {words}\n2. checkpoint {label} numbered\n3. third {words}\n\n")
        sections.append(body)
    return "".join(sections), labels


def answer_chunks(deltas: int) -> list[str]:
    """The answer cut into ``deltas`` chunks; fills ``CHECKPOINTS`` with where each word ends."""
    text, labels = markdown_answer(ANSWER_BYTES - 40)
    count = max(1, deltas - 1)
    bounds = [len(text) * i // count for i in range(count + 1)]
    chunks = [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    CHECKPOINTS.clear()
    for label in labels:
        CHECKPOINTS[bisect.bisect_right(bounds, text.index(label) + len(label) - 1) - 1] = label
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
            opencode: Path, idle_s: float, scratch: Path) -> dict[str, Any]:
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
    recording = scratch / f"{tmux.socket}.out"
    out: dict[str, Any] = {"client": client}
    try:
        start = time.monotonic()
        tmux.start(["exec", *command], str(project), client_env)
        recorder = f"exec {_quote(sys.executable)} -m bench.pane_record {_quote(str(recording))}"
        tmux.run("pipe-pane", "-o", recorder)
        pid = 0
        while time.monotonic() - start < 60:  # bounded: first frame
            pid = pid or tmux.pane_pid()
            screen = tmux.capture()
            if sum(1 for line in screen.splitlines() if line.strip()) >= 3:
                break
            time.sleep(POLL_S)
        out["first_frame_s"] = time.monotonic() - start
        time.sleep(SETTLE_S)
        pid = pid or tmux.pane_pid()
        SENT.clear()
        peak = tree_rss_mb(pid)
        tmux.send("-l", f"Answer please [[scenario:{scenario}]]")
        time.sleep(0.3)
        cpu_before = tree_cpu(pid)
        turn_start = time.monotonic()
        tmux.send("Enter")
        shown: dict[str, float] = {}
        labels = [*CHECKPOINTS.values(), END_MARKER]
        while time.monotonic() - start < TIMEOUT_S:  # bounded: end marker on screen
            peak = max(peak, tree_rss_mb(pid))
            screen = tmux.capture()
            now = time.monotonic()
            for label in labels:
                if label not in shown and label in screen:
                    shown[label] = now
            if END_MARKER in shown:
                break
            time.sleep(POLL_S)
        lags = {label: shown[label] - SENT[label] for label in shown if label in SENT}
        out["end_marker_shown"] = END_MARKER in shown
        out["end_marker_lag_s"] = lags.get(END_MARKER)
        checkpoint_lags = [lag for label, lag in lags.items() if label != END_MARKER]
        out["checkpoints_seen"] = len(checkpoint_lags)
        out["checkpoint_lag_max_s"] = max(checkpoint_lags + [lags.get(END_MARKER, 0.0)]) if lags else None
        time.sleep(1.0)
        turn_end = time.monotonic()
        out["cpu_s"] = tree_cpu(pid) - cpu_before
        out["peak_rss_mb"] = max(peak, tree_rss_mb(pid))
        idle_before = tree_cpu(pid)
        idle_start = time.monotonic()
        for _ in range(int(idle_s * 10)):
            time.sleep(0.1)
            out["peak_rss_mb"] = max(out["peak_rss_mb"], tree_rss_mb(pid))
        out["idle_cpu_pct"] = (tree_cpu(pid) - idle_before) / idle_s * 100
        idle_end = time.monotonic()
        out["idle_rss_mb"] = tree_rss_mb(pid)
    finally:
        tmux.send("C-c")
        time.sleep(0.5)
        tmux.kill()
    time.sleep(0.3)  # the recorder drains what tmux handed it
    turn = frame_figures(recording, turn_start, turn_end)
    out.update(bytes=turn.bytes, sync_frames=turn.sync_frames, write_bursts=turn.bursts)
    out["idle_bytes"] = frame_figures(recording, idle_start, idle_end).bytes
    server.wait_idle(sid, timeout=30)
    return out


def median(runs: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in runs if isinstance(r.get(key), (int, float))]
    return statistics.median(values) if values else None


KEYS = ("cpu_s", "bytes", "sync_frames", "write_bursts", "checkpoint_lag_max_s", "end_marker_lag_s",
        "peak_rss_mb", "first_frame_s", "idle_cpu_pct", "idle_bytes", "idle_rss_mb")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--variants", default="fast,30ms")
    parser.add_argument("--clients", default="octui,opencode")
    parser.add_argument("--idle", type=float, default=10.0)
    parser.add_argument("--keep", type=Path, help="copy every terminal recording (and its .idx) here")
    args = parser.parse_args()
    opencode = find_opencode_bin()
    if opencode is None:
        emit({"benchmark": "real_stream", "error": "opencode binary not found (.opencode/node_modules)"})
        sys.exit(1)
    clients = args.clients.split(",")
    figures: dict[str, Any] = {"benchmark": "real_stream", "deltas": args.deltas, "rounds": args.rounds,
                               "load_average_before": list(os.getloadavg())}
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
                runs: dict[str, list[dict[str, Any]]] = {client: [] for client in clients}
                for _ in range(args.rounds):
                    for client in clients:
                        runs[client].append(one_run(client, server, project, env, scenario, opencode,
                                                    args.idle, Path(root)))
                if args.keep is not None:
                    args.keep.mkdir(parents=True, exist_ok=True)
                    for recording in Path(root).glob("octui-rs-*.out*"):
                        shutil.move(str(recording), args.keep / f"{variant}-{recording.name}")
                summary: dict[str, Any] = {"runs": runs}
                for key in KEYS:
                    values = {client: median(runs[client], key) for client in clients}
                    a, b = values.get("octui"), values.get("opencode")
                    summary[key] = {**values, "ratio": (a / b) if a is not None and b else None}
                figures[variant] = summary
    finally:
        if server is not None:
            server.stop()
        llm.stop()
    figures["load_average_after"] = list(os.getloadavg())
    emit(figures)


if __name__ == "__main__":
    main()
