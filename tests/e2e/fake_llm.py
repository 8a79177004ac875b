"""A scripted, OpenAI-compatible Chat Completions server for end-to-end tests (stdlib only).

It listens on 127.0.0.1 only and serves:

* ``POST /v1/chat/completions``: Server-Sent Events when the body has ``"stream": true``,
  one JSON ``chat.completion`` object otherwise;
* ``GET /v1/models`` and ``GET /health``;
* ``POST /__reset``: forget the request log and the error counters.

**Choosing the reply.** The newest *user* message that contains a tag ``[[scenario:NAME]]``
selects scenario ``NAME``; the step index is the number of assistant messages after that user
message (each LLM call of an agent turn adds one). Past the last step, and for requests that
have no tag or no ``tools`` (title/summary helpers), the answer is a short plain text with
``finish_reason: "stop"``, so an agent loop can never spin on the fake.

**Scenario format.** ``{name: [step, ...]}`` (or ``{name: {"steps": [...]}}`` in JSON). A step is
a dict; every field is optional:

``reasoning``      str, streamed as several ``delta.reasoning_content`` chunks
``text``           str, split into several ``delta.content`` chunks
``chunks``         list[str], explicit ``delta.content`` chunks (after ``text``)
``repeat_text``    ``[chunk, n]`` or ``[chunk, n, delay]``: ``chunk`` sent ``n`` times
``chunk_delay``    seconds between content chunks (default 0; ``repeat_text``'s third item wins)
``tool_calls``     ``[{"name", "arguments": dict | str, "id"?, "chunks"?: [str]}]``, streamed as
                   tool_call deltas over several chunks; ``finish_reason`` becomes ``"tool_calls"``
``delay``          seconds to wait before the first chunk
``error``          ``{"status", "times"?, "body"?, "headers"?}``: answer that HTTP status for the
                   first ``times`` requests of this step (all of them when ``times`` is absent),
                   then serve the step normally. Counted per scenario, step and tagged message.
``usage``          ``{"prompt_tokens", "completion_tokens"}`` (default 100 / 20), sent last
``finish_reason``  overrides the computed one

**Tool names follow the server.** A script names tools the way either server generation does, and
each call is fitted to the tools the request offers: ``bash`` and ``shell`` stand for each other
(1.18.33 offers ``bash``, 2.x ``shell``), as do ``task`` and ``subagent``; an argument the offered
schema lacks is renamed to its counterpart when the schema has that one (``filePath``/``path``,
``subagent_type``/``agent``, skill ``name``/``id``), and one a strict schema has no place for is
dropped (2.x ``shell`` takes no ``description``). A name the server offers in neither spelling
is sent as written (the server then answers "Unknown tool"); ``"exact": true`` on a call keeps it
as written. Each log entry lists the tools offered (``offered_tools``) and the calls actually sent
(``sent_calls``: ``[{"name", "arguments"}]``).

Use it in-process::

    llm = FakeLLM()
    llm.start()
    llm.add_scenario("hello", [{"reasoning": "Hmm.", "text": "Hello there."}])
    ...  # point the client at llm.base_url
    llm.stop()

or as a program: ``python fake_llm.py --scenarios s.json [--port 0] [--port-file f] [--log req.jsonl]``.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import signal
import sys
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

__all__ = ["FakeLLM", "Step", "find_scenario", "fit_call", "load_scenarios", "offered_tools"]

Step = dict[str, Any]

TAG_RE = re.compile(r"\[\[scenario:([A-Za-z0-9_.\-]+)\]\]")
MODEL_ID = "fake-model"
DEFAULT_REPLY = "OK (fake LLM default reply)."
NO_TOOLS_REPLY = "Fake title"
DEFAULT_USAGE = {"prompt_tokens": 100, "completion_tokens": 20}
MAX_REPEAT = 100_000  # bound for repeat_text
MAX_BODY = 50 * 1024 * 1024

_ERROR_BODIES: dict[int, dict[str, Any]] = {
    429: {"error": {"message": "rate limited by fake", "type": "rate_limit_error"}},
    400: {"error": {"message": "bad request (fake)", "type": "invalid_request_error"}},
}


def _default_error_body(status: int) -> dict[str, Any]:
    return _ERROR_BODIES.get(
        status, {"error": {"message": f"fake error {status}", "type": "server_error", "code": None}}
    )


def message_text(message: Mapping[str, Any]) -> str:
    """Plain text of a chat message whose content is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", "")) for part in content if isinstance(part, dict) and "text" in part
        )
    return ""


def find_scenario(messages: Sequence[Mapping[str, Any]]) -> tuple[str, int, str] | None:
    """(scenario name, step index, tagged message text) for a request's messages, or None."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") != "user":
            continue
        text = message_text(message)
        tags = TAG_RE.findall(text)
        if tags:
            step = sum(1 for later in messages[index + 1 :] if later.get("role") == "assistant")
            return tags[-1], step, text
    return None


def load_scenarios(source: str | Path | Mapping[str, Any]) -> dict[str, list[Step]]:
    """Scenarios from a JSON file path or an already parsed mapping.

    Accepts ``{name: [steps]}``, ``{name: {"steps": [...]}}`` and either wrapped in
    ``{"scenarios": ...}``.
    """
    data: Any
    if isinstance(source, Mapping):
        data = source
    else:
        data = json.loads(Path(source).read_text(encoding="utf-8"))
    if isinstance(data, Mapping) and isinstance(data.get("scenarios"), Mapping):
        data = data["scenarios"]
    if not isinstance(data, Mapping):
        raise ValueError("scenario file must hold a JSON object")
    result: dict[str, list[Step]] = {}
    for name, value in data.items():
        steps = value.get("steps") if isinstance(value, Mapping) else value
        if not isinstance(steps, list) or not all(isinstance(step, dict) for step in steps):
            raise ValueError(f"scenario {name!r}: expected a list of step objects")
        result[str(name)] = [dict(step) for step in steps]
    return result


# Same tool under the other generation's name (1.18.33 -> 2.x and back).
TOOL_ALIASES: dict[str, tuple[str, ...]] = {
    "bash": ("shell",), "shell": ("bash",),
    "task": ("subagent",), "subagent": ("task",),
}
# Same argument under another name, tried only when the offered schema lacks the one written.
ARGUMENT_ALIASES: dict[str, tuple[str, ...]] = {
    "filePath": ("path",), "path": ("filePath",),
    "subagent_type": ("agent",), "agent": ("subagent_type",),
    "name": ("id",), "id": ("name",),
}


def offered_tools(body: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Tool name -> its JSON-schema ``parameters`` ({} when not given), as the request offers them."""
    offered: dict[str, dict[str, Any]] = {}
    for tool in body.get("tools") or []:
        if not isinstance(tool, Mapping):
            continue
        function = tool.get("function") if isinstance(tool.get("function"), Mapping) else tool
        name = function.get("name") if isinstance(function, Mapping) else None
        if isinstance(name, str):
            parameters = function.get("parameters") if isinstance(function, Mapping) else None
            offered[name] = dict(parameters) if isinstance(parameters, Mapping) else {}
    return offered


def fit_call(call: Mapping[str, Any], offered: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The call with its name and argument names fitted to the offered tools (see the docstring);
    an argument a strict schema (``additionalProperties: false``) has no place for is dropped."""
    fitted = dict(call)
    name = str(call.get("name", ""))
    if call.get("exact") or not offered:
        return fitted
    if name not in offered:
        name = next((alias for alias in TOOL_ALIASES.get(name, ()) if alias in offered), name)
    fitted["name"] = name
    schema = offered.get(name) or {}
    properties = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    arguments = call.get("arguments")
    if properties and isinstance(arguments, Mapping):
        renamed: dict[str, Any] = {}
        for key, value in arguments.items():
            if key not in properties:
                aliases = ARGUMENT_ALIASES.get(key, ())
                key = next((a for a in aliases if a in properties and a not in arguments), key)
            if key in properties or schema.get("additionalProperties") is not False:
                renamed[key] = value
        fitted["arguments"] = renamed
    return fitted


def split_text(text: str, parts: int) -> list[str]:
    """Split ``text`` into about ``parts`` non-empty pieces at word boundaries; joins back exactly."""
    if not text:
        return []
    words = re.findall(r"\S+\s*|\s+", text)
    if len(words) <= 1 or parts <= 1:
        return [text]
    size = max(1, -(-len(words) // parts))
    return ["".join(words[i : i + size]) for i in range(0, len(words), size)]


def split_even(text: str, parts: int) -> list[str]:
    """Split ``text`` into ``parts`` character slices (fewer for short text)."""
    if not text:
        return [""]
    size = max(1, -(-len(text) // parts))
    return [text[i : i + size] for i in range(0, len(text), size)]


class _ClientGone(Exception):
    """The HTTP client closed the connection (for example after an interrupt)."""


class FakeLLM:
    """The scripted server. Thread-safe; start() runs it in a daemon thread."""

    def __init__(self, scenarios: Mapping[str, list[Step]] | None = None, *, port: int = 0) -> None:
        self._lock = threading.Lock()
        self._scenarios: dict[str, list[Step]] = {}
        self._error_counts: dict[tuple[str, int, str], int] = {}
        self._requests: list[dict[str, Any]] = []
        self._stopping = threading.Event()
        self._port = port
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.log_path: Path | None = None
        for name, steps in (scenarios or {}).items():
            self.add_scenario(name, steps)

    # -- scenario registry -------------------------------------------------------------------

    def add_scenario(self, name: str, steps: list[Step]) -> str:
        """Register (or replace) a scenario; returns its tag ``[[scenario:name]]``."""
        if not TAG_RE.fullmatch(f"[[scenario:{name}]]"):
            raise ValueError(f"bad scenario name {name!r}")
        with self._lock:
            self._scenarios[name] = copy.deepcopy(list(steps))
            for key in [key for key in self._error_counts if key[0] == name]:
                del self._error_counts[key]
        return f"[[scenario:{name}]]"

    def load(self, source: str | Path | Mapping[str, Any]) -> None:
        for name, steps in load_scenarios(source).items():
            self.add_scenario(name, steps)

    def reset(self) -> None:
        """Forget logged requests and error counters (scenarios stay)."""
        with self._lock:
            self._requests.clear()
            self._error_counts.clear()

    @staticmethod
    def tag(name: str) -> str:
        return f"[[scenario:{name}]]"

    # -- request log -------------------------------------------------------------------------

    @property
    def requests(self) -> list[dict[str, Any]]:
        """A copy of every request so far (oldest first)."""
        with self._lock:
            return list(self._requests)

    def requests_for(self, scenario: str) -> list[dict[str, Any]]:
        return [entry for entry in self.requests if entry.get("scenario") == scenario]

    def sent_calls(self, scenario: str) -> list[dict[str, Any]]:
        """Every tool call sent for ``scenario`` so far, with the names the server was offered."""
        return [call for entry in self.requests_for(scenario) for call in entry.get("sent_calls", [])]

    def wait_for_requests(self, scenario: str, count: int, timeout: float = 10.0) -> list[dict[str, Any]]:
        """Wait (bounded) until ``count`` requests for ``scenario`` arrived; returns them."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.requests_for(scenario)
            if len(found) >= count:
                return found
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{len(found)}/{count} requests for scenario {scenario!r} in {timeout}s")
            time.sleep(0.02)

    def _record(self, entry: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self._requests.append(entry)
            log_path = self.log_path
        if log_path is not None:
            with log_path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(entry, default=str) + "\n")
        return entry

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("FakeLLM is not started")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The OpenAI base URL, ending in ``/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeLLM:
        if self._httpd is not None:
            return self
        self._stopping.clear()
        httpd = ThreadingHTTPServer(("127.0.0.1", self._port), _make_handler(self))
        httpd.daemon_threads = True
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.1}, name="fake-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving; running streams end at their next chunk."""
        httpd = self._httpd
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- planning a reply --------------------------------------------------------------------

    def plan(self, body: Mapping[str, Any]) -> tuple[dict[str, Any], Step | None, dict[str, Any] | None]:
        """Decide the answer: (log entry, step to serve or None, error to send or None)."""
        messages = body.get("messages")
        messages = messages if isinstance(messages, list) else []
        found = find_scenario(messages)
        entry: dict[str, Any] = {
            "time": time.time(),
            "stream": bool(body.get("stream")),
            "scenario": None,
            "step": None,
            "kind": "default",
            "status": 200,
            "disconnected": False,
            "body": body,
        }
        if not body.get("tools"):
            entry["kind"] = "no_tools"
            return entry, {"text": NO_TOOLS_REPLY}, None
        if found is None:
            return entry, {"text": DEFAULT_REPLY}, None
        name, index, tagged_text = found
        entry["scenario"], entry["step"] = name, index
        with self._lock:
            steps = self._scenarios.get(name)
            if steps is None:
                entry["kind"] = "unknown_scenario"
                return entry, {"text": f"{DEFAULT_REPLY} (unknown scenario {name})"}, None
            if index >= len(steps):
                entry["kind"] = "past_end"
                return entry, {"text": DEFAULT_REPLY}, None
            step = copy.deepcopy(steps[index])
            entry["kind"] = "scenario"
            offered = offered_tools(body)
            entry["offered_tools"] = sorted(offered)
            if step.get("tool_calls"):
                step["tool_calls"] = [fit_call(call, offered) for call in step["tool_calls"]]
                entry["sent_calls"] = [{"name": c["name"], "arguments": c.get("arguments", {})}
                                       for c in step["tool_calls"]]
            error = step.get("error")
            if isinstance(error, Mapping):
                key = (name, index, tagged_text)
                served = self._error_counts.get(key, 0)
                times = error.get("times")
                if times is None or served < int(times):
                    self._error_counts[key] = served + 1
                    entry["kind"] = "error"
                    entry["status"] = int(error.get("status", 500))
                    return entry, None, dict(error)
        return entry, step, None


def _completion_id() -> str:
    return "chatcmpl-" + uuid.uuid4().hex[:24]


def _tool_call_id() -> str:
    return "call_" + uuid.uuid4().hex[:10]


def _normalise_tool_calls(step: Step) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    for index, call in enumerate(step.get("tool_calls") or []):
        arguments = call.get("arguments", {})
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        pieces = call.get("chunks") or split_even(text, 3)
        calls.append(
            {
                "index": index,
                "id": str(call.get("id") or _tool_call_id()),
                "name": str(call["name"]),
                "arguments": text,
                "pieces": [str(piece) for piece in pieces],
            }
        )
    return calls


def _content_chunks(step: Step) -> Iterator[tuple[str, float]]:
    """(content delta, delay before it) for the step's visible text."""
    chunk_delay = float(step.get("chunk_delay", 0.0))
    for piece in split_text(str(step.get("text") or ""), 5):
        yield piece, chunk_delay
    for piece in step.get("chunks") or []:
        yield str(piece), chunk_delay
    repeat = step.get("repeat_text")
    if repeat:
        chunk, count = str(repeat[0]), min(int(repeat[1]), MAX_REPEAT)
        delay = float(repeat[2]) if len(repeat) > 2 else chunk_delay
        for _ in range(count):
            yield chunk, delay


def _usage(step: Step) -> dict[str, int]:
    usage = dict(DEFAULT_USAGE)
    usage.update({k: int(v) for k, v in (step.get("usage") or {}).items() if k in DEFAULT_USAGE})
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    return usage


def _make_handler(llm: FakeLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "FakeLLM/1.0"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            return  # keep test output quiet; requests are logged in llm.requests

        # -- helpers ---------------------------------------------------------------------------

        def _send_json(self, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(str(key), str(value))
            self.end_headers()
            self.wfile.write(data)

        def _read_body(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            if length <= 0 or length > MAX_BODY:
                return {}
            raw = self.rfile.read(length)
            try:
                return json.loads(raw)
            except ValueError:
                return {}

        def _write(self, data: bytes) -> None:
            if llm._stopping.is_set():
                raise _ClientGone("server stopping")
            try:
                self.wfile.write(data)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, OSError) as exc:
                raise _ClientGone(str(exc)) from exc

        def _sleep(self, seconds: float) -> None:
            if seconds > 0 and llm._stopping.wait(seconds):
                raise _ClientGone("server stopping")

        # -- routes ----------------------------------------------------------------------------

        def do_GET(self) -> None:  # noqa: N802 - stdlib name
            if self.path.rstrip("/") in ("/health", "/v1/health"):
                self._send_json(200, {"ok": True})
            elif self.path.rstrip("/") == "/v1/models":
                self._send_json(
                    200,
                    {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "owned_by": "fake"}]},
                )
            else:
                self._send_json(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            body = self._read_body()
            if self.path.rstrip("/") == "/__reset":
                llm.reset()
                self._send_json(200, {"ok": True})
                return
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send_json(404, {"error": {"message": f"no route {self.path}"}})
                return
            entry, step, error = llm.plan(body if isinstance(body, dict) else {})
            entry["path"] = self.path
            llm._record(entry)
            if error is not None:
                status = int(error.get("status", 500))
                payload = error.get("body", _default_error_body(status))
                self._send_json(status, payload, error.get("headers"))
                return
            assert step is not None
            try:
                if entry["stream"]:
                    self._stream(step)
                else:
                    self._sleep(float(step.get("delay", 0.0)))
                    self._send_json(200, self._completion(step))
            except _ClientGone:
                entry["disconnected"] = True
                self.close_connection = True

        # -- replies ---------------------------------------------------------------------------

        def _completion(self, step: Step) -> dict[str, Any]:
            calls = _normalise_tool_calls(step)
            message: dict[str, Any] = {
                "role": "assistant",
                "content": "".join(piece for piece, _ in _content_chunks(step)) or None,
            }
            if step.get("reasoning"):
                message["reasoning_content"] = str(step["reasoning"])
            if calls:
                message["tool_calls"] = [
                    {
                        "id": c["id"],
                        "type": "function",
                        "function": {"name": c["name"], "arguments": c["arguments"]},
                    }
                    for c in calls
                ]
            return {
                "id": _completion_id(),
                "object": "chat.completion",
                "created": int(time.time()),
                "model": MODEL_ID,
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": step.get("finish_reason") or ("tool_calls" if calls else "stop"),
                    }
                ],
                "usage": _usage(step),
            }

        def _stream(self, step: Step) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            completion_id, created = _completion_id(), int(time.time())

            def chunk(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> None:
                choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
                payload = {
                    "id": completion_id,
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": MODEL_ID,
                    "choices": choices,
                    **extra,
                }
                self._write(b"data: " + json.dumps(payload).encode() + b"\n\n")

            self._sleep(float(step.get("delay", 0.0)))
            chunk({"role": "assistant", "content": ""})
            for piece in split_text(str(step.get("reasoning") or ""), 3):
                chunk({"reasoning_content": piece})
            for piece, delay in _content_chunks(step):
                self._sleep(delay)
                chunk({"content": piece})
            calls = _normalise_tool_calls(step)
            for call in calls:
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": call["index"],
                                "id": call["id"],
                                "type": "function",
                                "function": {"name": call["name"], "arguments": ""},
                            }
                        ]
                    }
                )
                for piece in call["pieces"]:
                    chunk({"tool_calls": [{"index": call["index"], "function": {"arguments": piece}}]})
            chunk({}, step.get("finish_reason") or ("tool_calls" if calls else "stop"))
            chunk(None, usage=_usage(step))
            self._write(b"data: [DONE]\n\n")

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--scenarios", type=Path, help="JSON scenario file (re-read when it changes)")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", type=Path, help="write the chosen port here")
    parser.add_argument("--log", type=Path, help="append every request as JSONL")
    args = parser.parse_args(argv)

    llm = FakeLLM(port=args.port)
    llm.log_path = args.log
    mtime = 0.0
    if args.scenarios:
        llm.load(args.scenarios)
        mtime = args.scenarios.stat().st_mtime
    llm.start()
    if args.port_file:
        args.port_file.write_text(str(llm.port), encoding="utf-8")
    print(f"fake LLM listening on {llm.base_url}", flush=True)

    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    while not done.wait(0.5):
        if args.scenarios and args.scenarios.exists() and args.scenarios.stat().st_mtime != mtime:
            mtime = args.scenarios.stat().st_mtime
            try:
                llm.load(args.scenarios)
            except (ValueError, OSError) as exc:
                print(f"fake LLM: cannot reload scenarios: {exc}", file=sys.stderr, flush=True)
    llm.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
