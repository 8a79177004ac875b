"""octui vs OpenCode's own TUI on the real server + fake LLM, in tmux at 120x40.

One markdown answer of ~20 KB (``--kib``: headings, paragraphs, lists, code fences; ``--shape``
one block that grows all along instead: a table, a quote, a code fence, a paragraph) in
``--deltas`` (4,000) chunks, by default in two variants: as fast as possible ("fast", the burst)
and 30 ms apart ("30ms", paced; any "Nms" paces them N ms apart). For each variant the clients run
alternately, A B A B (``--rounds`` 2): octui (``octui --url``) and ``opencode attach URL`` from
the same npm package. Each run gets a fresh session; the prompt is typed with ``tmux
send-keys``. Figures per client:

* ``cpu_s``: CPU seconds of the client's process tree from Enter until 1 s after the end marker
  is on screen; ``peak_rss_mb``: sampled VmRSS of the tree (``rss_before_turn_mb``: before the
  prompt is typed);
* ``end_marker_lag_s``: the fake LLM wrote the last chunk → the end marker is in
  ``capture-pane`` (polled every 20 ms); ``checkpoint_lag_max_s``: the worst of that and of the
  checkpoint words spread through the answer (one per ~1 KB; a burst scrolls most of them past
  between two polls: ``checkpoints_seen`` says how many counted), and their median;
  ``catch_up_lag_max_s``: the same over every word, each counted until the screen showed it or a
  later one (``catch_up_lags``): a client that paints only the end of a burst is as late on each
  word as that end, where the checkpoint lag counts only the words it showed;
* ``…_behind_server``: the same lags from when the server sent the word on the event route the
  client reads (a reader of its own on ``/api/event`` for octui, on the legacy ``/event`` for
  OpenCode's TUI, which prompts on the v1 routes): the client's own share. The 1.18 server
  delivers the ``/api`` stream of a fast answer seconds later than ``/event``;
* ``bytes``, ``sync_frames``, ``write_bursts``: what the client wrote to its terminal over the
  same window as ``cpu_s``, recorded with ``tmux pipe-pane`` (``bench/pane_record.py``): bytes,
  synchronized-update begin markers (DEC mode 2026), and groups of writes less than 4 ms apart;
  ``idle_bytes``: the same during the idle window;
* ``server_send_span_s``: the session's first delta → its end marker, as the server sent them
  on the client's route (in a burst, the 1.18 server may spread it over seconds on ``/api``
  where ``/event`` sends it at once: this figure's ratio compares the two routes, not the
  clients; paced, it is mostly the fake LLM's pace);
* ``first_frame_s``: launch → three non-blank lines; ``idle_cpu_pct``: over ``--idle`` (10) s
  after the answer.

Then the octui / OpenCode ratio of each median, and the load average before and after.

    python -m bench.real_stream [--deltas 4000] [--kib 20] [--rounds 2] [--variants fast,30ms]
                                [--shape mixed|table|quote|code|prose|numbered|steps|quotes|longlines|
                                         nested|wide|headings|diff|links|cjk|fences]
                                [--clients octui,opencode] [--idle 10] [--keep DIR]

Needs tmux and the repo-local ``opencode`` (``.opencode/node_modules``; ``$OPENCODE_BIN``).
Everything listens on 127.0.0.1; the server, the fake LLM and every private tmux server are
stopped by PID / socket at the end, also when the bench is ended by SIGTERM (``timeout``);
every wait is bounded.
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from bench.common import cpu_seconds, emit, ensure_repo_on_path, exit_on_terminate, tree_pids
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


SHAPES = ("mixed", "table", "quote", "code", "prose", "numbered", "steps", "quotes", "longlines",
          "nested", "wide", "headings", "diff", "links", "cjk", "fences")
"""Answer shapes: ``mixed`` (headings, paragraphs, lists, code fences, quotes; the default) and
answers of one block that grows all along (a table, a block quote, a code fence, one paragraph,
a numbered list, a code fence of lines longer than a row, one ``diff`` fence), the costly case for
a client that re-lays out the block it is streaming; and ``nested`` (lists three levels deep),
``wide`` (CJK prose and emoji: two cells a character), ``cjk`` (the same prose as one long
paragraph, as CJK answers often are: no spaces between its words), ``headings`` (a heading and a short
paragraph, again and again), ``links`` (paragraphs dense with links) and ``fences`` (a sentence
and a short fence, each in another of eight languages)."""


def markdown_answer(size: int, shape: str = "mixed") -> tuple[str, list[str]]:
    """About ``size`` characters of markdown of ``shape`` with a checkpoint word every ~1 KB."""
    words = ("streaming benchmark text with **bold words**, `inline code` and plain ones that "
             "wrap across the width of the terminal like a real answer does. ")
    sections: list[str] = []
    labels: list[str] = []
    n = 0
    while sum(map(len, sections)) < size:
        n += 1
        label = f"CKPT{n:02d}"
        labels.append(label)
        if shape == "table":
            head = "| step | value | note |\n|---|---:|---|\n" if n == 1 else ""
            rows = "".join(f"| step {n}.{i} | `{n * 100 + i}` | a **bold** note and plain words |\n"
                           for i in range(18))
            body = f"{head}{rows}| checkpoint | {label} | in the table |\n"
        elif shape == "quote":
            lines = "".join(f"> quoted line {i}: {words[:90]}\n" for i in range(9))
            body = f"{lines}> checkpoint {label} quoted\n"
        elif shape == "code":
            head = "```python\n" if n == 1 else ""
            code = "".join(f"    value_{i} = compute({i}, name='x{i}')  # a comment\n" for i in range(18))
            body = f"{head}{code}    checkpoint = '{label}'\n"
        elif shape == "longlines":  # data and a comment, 280-321 characters: each line wraps over rows
            head = "```js\n" if n == 1 else ""
            values = ", ".join(str(n * 100 + k) for k in range(40))
            code = "".join(f"const row_{n}_{i} = [{values}]; // {words[:59]}\n" for i in range(3))
            body = f"{head}{code}const checkpoint = '{label}';\n"
        elif shape == "prose":
            body = f"{words * 6}checkpoint {label} here. "
        elif shape == "steps":  # a loose list: each item a title, a paragraph and a fence
            pad = " " * (len(str(n)) + 2)
            body = (f"{n}. **Step {n}**: checkpoint {label}\n\n{pad}{words}\n\n"
                    f"{pad}```sh\n{pad}run --step {n} --name 'x{n}'\n{pad}```\n\n")
        elif shape == "quotes":  # one block quote of paragraphs and lists
            items = "".join(f"> - point {i}: {words[:70]}\n" for i in range(4))
            body = f"> **Note {n}**: checkpoint {label} {words}\n>\n{items}>\n"
        elif shape == "nested":  # a list three levels deep
            items = "".join(f"{'  ' * (i % 3)}- level {i % 3} item {i}: {words[:80]}\n" for i in range(9))
            body = f"{items}- checkpoint {label} in the nested list\n"
        elif shape == "cjk":  # one long CJK paragraph: no spaces between words
            wide = "流式输出的基准文本，包含**粗体**与`代码`，😀 表情符号和全角字符会换行。"
            body = f"{wide * 8}检查点 {label} 在这里。"
        elif shape == "wide":  # CJK and emoji: two cells a character
            wide = "流式输出的基准文本，包含**粗体**与`代码`，😀 表情符号和全角字符会换行。"
            body = f"{wide * 8}checkpoint {label} 在这里。\n\n"
        elif shape == "headings":  # a heading and a short paragraph, again and again
            body = "".join(f"### Heading {n}.{i}\n\n{words[:100]}\n\n" for i in range(5)) + \
                f"checkpoint {label} after headings.\n\n"
        elif shape == "diff":  # one diff fence
            head = "```diff\n" if n == 1 else ""
            lines = "".join(f"-    old_{i} = compute({i})\n+    new_{i} = compute({i}, fast=True)\n"
                            f"     unchanged_{i} = {i}\n" for i in range(6))
            body = f"{head}@@ -{n * 20},18 +{n * 20},18 @@\n{lines}+    checkpoint = '{label}'\n"
        elif shape == "links":  # a paragraph dense with links
            links = "".join(f"[link {n}.{i}](https://example.com/docs/{n}/{i}) and " for i in range(12))
            body = f"{links}checkpoint {label} linked.\n\n"
        elif shape == "fences":  # a sentence and a short fence, the language changing each time
            languages = ("rust", "go", "typescript", "sql", "json", "bash", "c", "java")
            code = "".join(f"line_{i} = value({i}) + other({n});\n" for i in range(8))
            body = f"Here is {languages[n % 8]}: checkpoint {label}.\n\n```{languages[n % 8]}\n{code}```\n\n"
        elif shape == "numbered":
            items = "".join(f"{n * 10 + i - 9}. step {i}: {words[:100]}\n" for i in range(9))
            body = f"{items}{n * 10}. checkpoint {label} in the list\n"  # numbered from 1
        else:
            body = _mixed_section(n, label, words)
        sections.append(body)
    if shape in ("code", "longlines", "diff"):
        sections.append("```\n")
    return "".join(sections), labels


def _mixed_section(n: int, label: str, words: str) -> str:
    kind = n % 4
    if kind == 1:
        return f"## Section {n}\n\n{words * 3}checkpoint {label} here. {words * 2}\n\n"
    if kind == 2:
        items = "".join(f"- item {i}: {words[:60]}\n" for i in range(6))
        return f"{items}- checkpoint {label} in a list\n\n{words * 3}\n\n"
    if kind == 3:
        code = "".join(f"    value_{i} = compute({i}, name='x{i}')  # a comment\n" for i in range(8))
        return (f"```python\ndef step_{n}():\n{code}    return value_0\n```\n\n"
                f"checkpoint {label} after code. {words * 3}\n\n")
    return (f"> quoted {words * 2}\n\n"
            f"1. first {words}\n2. checkpoint {label} numbered\n3. third {words}\n\n")


def answer_chunks(deltas: int, size: int = ANSWER_BYTES, shape: str = "mixed") -> list[str]:
    """The answer cut into ``deltas`` chunks; fills ``CHECKPOINTS`` with where each word ends."""
    text, labels = markdown_answer(size - 40, shape)
    count = max(1, deltas - 1)
    bounds = [len(text) * i // count for i in range(count + 1)]
    chunks = [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    CHECKPOINTS.clear()
    for label in labels:
        CHECKPOINTS[bisect.bisect_right(bounds, text.index(label) + len(label) - 1) - 1] = label
    return chunks + [f"\n\nDone. {END_MARKER}\n"]


class ServerClock:
    """When the server sent each checkpoint word of one session on one event route.

    Reads ``route`` (``/api/event`` for octui, the legacy ``/event`` for OpenCode's TUI, which
    prompts on the v1 routes) in a thread, joins the session's text deltas and notes when each
    word is complete: the client's own lag is screen time minus that.
    """

    def __init__(self, server: RealServer, route: str, session_id: str, labels: list[str]) -> None:
        self.server, self.route, self.session_id = server, route, session_id
        self.labels = labels
        self.sent: dict[str, float] = {}
        self.first_delta: float | None = None  # when the session's first delta came
        self._text = ""
        self._stop = threading.Event()
        self._connected = threading.Event()
        self._response: httpx.Response | None = None
        self._thread = threading.Thread(target=self._run, name="server-clock", daemon=True)

    def start(self) -> ServerClock:
        self._thread.start()
        self._connected.wait(10)
        return self

    def _run(self) -> None:
        timeout = httpx.Timeout(10.0, read=60.0)
        try:
            with httpx.Client(base_url=self.server.url, auth=self.server.auth, timeout=timeout) as http:
                with http.stream("GET", self.route) as response:
                    self._response = response
                    self._connected.set()
                    for line in response.iter_lines():
                        if self._stop.is_set():
                            return
                        if line.startswith("data:"):
                            self._frame(line[5:])
        except (httpx.HTTPError, OSError, ValueError):
            return  # the figure is then missing, not wrong
        finally:
            self._connected.set()

    def _frame(self, raw: str) -> None:
        event = json.loads(raw)
        payload = event.get("data") or event.get("properties") or {}
        delta = payload.get("delta") if isinstance(payload, dict) else None
        if not isinstance(delta, str) or payload.get("sessionID") != self.session_id:
            return
        self._text += delta
        now = time.monotonic()
        if self.first_delta is None:
            self.first_delta = now
        recent = self._text[-(len(delta) + 16):]
        for label in self.labels:
            if label not in self.sent and label in recent:
                self.sent[label] = now

    def stop(self) -> None:
        self._stop.set()
        response = self._response
        stream = response.extensions.get("network_stream") if response is not None else None
        sock = stream.get_extra_info("socket") if stream is not None else None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(2)
        self._thread.join(5)


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
            opencode: Path, idle_s: float, scratch: Path, answer_s: float = 0.0) -> dict[str, Any]:
    """One client's turn; ``answer_s``: how long the fake LLM takes to send it (paced)."""
    session = server.create_session()
    sid = session.get("id") or session.get("data", {}).get("id")
    assert isinstance(sid, str), session
    if client == "octui":
        command = [*octui_command(), "--url", server.url, "--session", sid]
    else:
        command = [str(opencode), "attach", server.url, "--session", sid, "--dir", str(project)]
    client_env = {k: v for k, v in env.items() if k.startswith(("HOME", "XDG_", "OPENCODE_"))}
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
        labels = [*CHECKPOINTS.values(), END_MARKER]
        clock = ServerClock(server, "/api/event" if client == "octui" else "/event", sid, labels).start()
        peak = out["rss_before_turn_mb"] = tree_rss_mb(pid)
        tmux.send("-l", f"Answer please [[scenario:{scenario}]]")
        time.sleep(0.3)
        cpu_before = tree_cpu(pid)
        turn_start = time.monotonic()
        tmux.send("Enter")
        shown: dict[str, float] = {}
        while time.monotonic() - start < TIMEOUT_S + answer_s:  # bounded: end marker on screen
            peak = max(peak, tree_rss_mb(pid))
            screen = tmux.capture()
            now = time.monotonic()
            for label in labels:
                if label not in shown and label in screen:
                    shown[label] = now
            if END_MARKER in shown:
                break
            time.sleep(POLL_S)
        time.sleep(1.0)
        clock.stop()
        out["end_marker_shown"] = END_MARKER in shown
        for name, sent in (("", SENT), ("_behind_server", clock.sent)):
            lags = {label: shown[label] - sent[label] for label in shown if label in sent}
            out[f"end_marker_lag{name}_s"] = lags.get(END_MARKER)
            out[f"checkpoint_lag{name}_max_s"] = max(lags.values()) if lags else None
            out[f"checkpoint_lag{name}_median_s"] = statistics.median(lags.values()) if lags else None
            # (a run that never showed its end is left out: its last words would count as caught up)
            caught = catch_up_lags(labels, shown, sent) if END_MARKER in shown else {}
            out[f"catch_up_lag{name}_max_s"] = max(caught.values()) if caught else None
        # Each word's lag behind the server, in the answer's order: which words a client was late on
        out["lags_behind_server_s"] = {label: round(shown[label] - clock.sent[label], 3)
                                       for label in labels if label in shown and label in clock.sent}
        out["checkpoints_seen"] = sum(1 for label in shown if label != END_MARKER)
        # How long the server took to send the answer on this client's route: a burst the 1.18
        # server spreads over seconds on /api is painted as a flood for all that time.
        end_sent = clock.sent.get(END_MARKER)
        out["server_send_span_s"] = (end_sent - clock.first_delta
                                     if end_sent is not None and clock.first_delta is not None else None)
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


def catch_up_lags(labels: list[str], shown: dict[str, float], sent: dict[str, float]) -> dict[str, float]:
    """Each sent word's lag until the screen caught up with it: the first poll that showed it or
    any word after it (``labels`` in the answer's order). A word a client never showed (scrolled
    past between two polls, or skipped: a client that paints only the end of a burst) counts
    until the screen showed something newer, where ``checkpoint_lag…`` leaves it out."""
    lags: dict[str, float] = {}
    caught: float | None = None
    for label in reversed(labels):
        if label in shown:
            caught = shown[label] if caught is None else min(caught, shown[label])
        if caught is not None and label in sent:
            lags[label] = caught - sent[label]
    return lags


def median(runs: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in runs if isinstance(r.get(key), (int, float))]
    return statistics.median(values) if values else None


KEYS = ("cpu_s", "bytes", "sync_frames", "write_bursts", "checkpoint_lag_max_s", "end_marker_lag_s",
        "checkpoint_lag_behind_server_max_s", "checkpoint_lag_behind_server_median_s",
        "end_marker_lag_behind_server_s", "catch_up_lag_max_s", "catch_up_lag_behind_server_max_s",
        "server_send_span_s", "rss_before_turn_mb", "peak_rss_mb", "first_frame_s", "idle_cpu_pct",
        "idle_bytes", "idle_rss_mb")


def pace_s(variant: str) -> float:
    """The delay between chunks of a variant: "fast" none, "Nms" N ms."""
    if variant == "fast":
        return 0.0
    match = re.fullmatch(r"(\d+(?:\.\d+)?)ms", variant)
    if match is None:
        raise argparse.ArgumentTypeError(f"a variant is 'fast' or 'Nms' (N ms apart), not {variant!r}")
    return float(match.group(1)) / 1000


def run_variant(args: argparse.Namespace, variant: str, clients: list[str], llm: FakeLLM,
                server: RealServer, project: Path, env: dict[str, str], opencode: Path,
                scratch: Path) -> dict[str, Any]:
    """Every round of one variant, the clients alternating; their runs, medians and ratios."""
    delay = pace_s(variant)
    scenario = f"bench_{variant}"
    llm.add_scenario(scenario, [
        {"chunks": TimedChunks(answer_chunks(args.deltas, int(args.kib * 1024), args.shape)),
         "chunk_delay": delay}])
    runs: dict[str, list[dict[str, Any]]] = {client: [] for client in clients}
    for _ in range(args.rounds):
        for client in clients:
            runs[client].append(one_run(client, server, project, env, scenario, opencode,
                                        args.idle, scratch, answer_s=delay * args.deltas))
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        for recording in scratch.glob("octui-rs-*.out*"):
            shutil.move(str(recording), args.keep / f"{variant}-{recording.name}")
    summary: dict[str, Any] = {"runs": runs}
    for key in KEYS:
        values = {client: median(runs[client], key) for client in clients}
        a, b = values.get("octui"), values.get("opencode")
        summary[key] = {**values, "ratio": (a / b) if a is not None and b else None}
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=4000)
    parser.add_argument("--kib", type=float, default=ANSWER_BYTES / 1024, help="answer size (20)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--variants", default="fast,30ms",
                        help="fast (a burst) and/or paced ones: Nms, one chunk every N ms")
    parser.add_argument("--shape", choices=SHAPES, default="mixed", help="the answer's markdown (mixed)")
    parser.add_argument("--clients", default="octui,opencode")
    parser.add_argument("--idle", type=float, default=10.0)
    parser.add_argument("--keep", type=Path, help="copy every terminal recording (and its .idx) here")
    args = parser.parse_args()
    try:
        for variant in args.variants.split(","):
            pace_s(variant)
    except argparse.ArgumentTypeError as error:
        parser.error(str(error))
    opencode = find_opencode_bin()
    if opencode is None:
        emit({"benchmark": "real_stream", "error": "opencode binary not found (.opencode/node_modules)"})
        sys.exit(1)
    clients = args.clients.split(",")
    figures: dict[str, Any] = {"benchmark": "real_stream", "deltas": args.deltas, "kib": args.kib,
                               "shape": args.shape, "rounds": args.rounds,
                               "load_average_before": list(os.getloadavg())}
    exit_on_terminate()  # a killed bench still stops its server (the finally below)
    llm = FakeLLM()
    llm.start()
    try:
        with tempfile.TemporaryDirectory(prefix="octui-bench-real-", ignore_cleanup_errors=True) as root:
            project, env = make_workspace(Path(root), llm.base_url)
            server = RealServer(opencode, project, env, Path(root) / "server.log").start()
            # Stopped inside the scratch directory's block: the server writes there until it
            # exits, and removing the directory under it raised at the end of a run, whose
            # figures were then lost (a late writer of another kind is ignored there now).
            try:
                for variant in args.variants.split(","):
                    figures[variant] = run_variant(args, variant, clients, llm, server, project, env,
                                                   opencode, Path(root))
            finally:
                server.stop()
    finally:
        llm.stop()
    figures["load_average_after"] = list(os.getloadavg())
    emit(figures)


if __name__ == "__main__":
    main()
