"""Run a real ``opencode serve`` offline for end-to-end tests: npm ``opencode-ai@1.18.33`` by default,
or any 2.x ``opencode`` given by ``$OPENCODE_BIN``.

See ``REAL-SERVER.md`` and ``opencode-v2/traces-2.0/README.md`` in the shared specs. The server gets
an isolated HOME and XDG tree, a project directory that is a git repository with one commit, a
global config whose only usable provider is the scripted fake LLM (:mod:`tests.e2e.fake_llm`), and
a random Basic-auth password. It runs in its own process group and is stopped by that group's id,
never by name. Every wait here is bounded.

Both server generations are handled by behaviour, never by a version string:

* the start-up line: ``opencode server listening on <url>`` (1.18), ``server listening on <url>``
  (2.x): any line with a URL after "listening on";
* the config shape: the 1.18 shape (``provider``, ``permission``, ``small_model``) or the 2.x shape
  (``providers``, ``permissions`` rules, ``agents.title``). 2.x also migrates the 1.18 shape, but
  its permission rules name the tool ``shell``, so a 1.18 ``bash: ask`` would not make it ask. The
  shape is guessed from ``opencode serve --help`` (a 2.x server can register as a background
  ``--service``), then checked on the running server: the spec document it serves (2.x: its own
  ``/openapi.json``; 1.18: ``/doc``) tells the generation, and a wrong guess is rewritten and the
  server started again, once per binary per test run.
"""

from __future__ import annotations

import base64
import json
import os
import queue
import re
import secrets
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import IO, Any

import httpx

from tests.e2e.wire import Generation, Wire

__all__ = [
    "READY_TIMEOUT",
    "ConfigShape",
    "EventRecorder",
    "RealServer",
    "ServerStartError",
    "find_opencode_bin",
    "generation_of",
    "in_ci",
    "make_workspace",
    "needed_config_shape",
    "opencode_config",
    "served_generation",
]

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_BIN = REPO_ROOT / ".opencode" / "node_modules" / "opencode-linux-x64" / "bin" / "opencode"
# 1.18 "opencode server listening on <url>", 2.x "server listening on <url>".
LISTEN_RE = re.compile(r"listening on:?\s+(https?://[^\s'\"<>]+)", re.IGNORECASE)
# 2.x listens after 6-12 s, up to a minute on a loaded machine or while a source build compiles
# (traces-2.0/README.md); 1.18.33 after 1.5 s. The catalog fills 1-2 s later on both.
READY_TIMEOUT = 120.0
MODEL_PROVIDER = "mock"
MODEL_ID = "fake-model"
USERNAME = "opencode"


class ServerStartError(RuntimeError):
    """The server did not become ready in time (the message ends with its log tail)."""


def in_ci() -> bool:
    """True when running under CI (``CI=true``): missing tools then fail instead of skipping."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def find_opencode_bin() -> Path | None:
    """``$OPENCODE_BIN`` if set, else the repo-local npm install; None when not executable.

    The repo-local default is the linux-x64 package; other platforms' packages
    (``opencode-<os>-<arch>``) under the same ``node_modules`` are found too.
    """
    configured = os.environ.get("OPENCODE_BIN")
    if configured:
        candidates = [Path(configured)]
    else:
        candidates = [DEFAULT_BIN, *sorted(DEFAULT_BIN.parents[2].glob("opencode-*/bin/opencode"))]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


class ConfigShape(str, Enum):  # noqa: UP042 (str() gives the value)
    PREVIEW_118 = "1.18"  # REAL-SERVER.md: provider / permission / small_model
    V2 = "2.x"  # traces-2.0/README.md: providers / permissions rules / agents.title


SHAPE_FOR: dict[Generation, ConfigShape] = {
    Generation.PREVIEW_118: ConfigShape.PREVIEW_118,
    Generation.V2: ConfigShape.V2,
}
# The spec document each generation serves: only 2.x serves its own /openapi.json (1.18.33 answers
# that path with its web app's HTML page), 1.18 serves /doc.
SPEC_DOCUMENTS = (("/openapi.json", Generation.V2), ("/doc", Generation.PREVIEW_118))
# A binary file -> (generation, route table) its server's spec showed (and so the config shape
# it needs, SHAPE_FOR). 1.18.33's spec (/doc, ~480 KB) costs its server ~2.8 CPU-s and ~2 s to
# serve: read once per binary and test process, not at every restart of a server of the same file.
_KNOWN_SPECS: dict[tuple[str, int, int], tuple[Generation, dict[str, set[str]]]] = {}
# How long a fetch of a spec document may take: ~2 s alone, but more than 10 s on a 2-core machine
# with the whole suite running (a CI run timed out on /doc at 10 s).
SPEC_FETCH_TIMEOUT = 60.0


def _binary_key(binary: Path) -> tuple[str, int, int] | None:
    """The binary file as it is now (path, size, mtime): another file or a rebuild is another key."""
    try:
        resolved = binary.resolve()
        stat = resolved.stat()
    except OSError:
        return None
    return str(resolved), stat.st_size, stat.st_mtime_ns


def opencode_config(llm_base_url: str, shape: ConfigShape = ConfigShape.PREVIEW_118,
                    effect: str = "ask") -> dict[str, Any]:
    """The global ``opencode.json`` of that shape, pointing the ``mock`` provider at the fake.

    Both ask before a shell command or an edit runs (the 1.18 default allows both; 2.x names the
    shell tool ``shell``); ``effect="allow"`` lets both run without asking (a test with nobody to
    answer)."""
    if shape is ConfigShape.V2:
        return {
            "model": f"{MODEL_PROVIDER}/{MODEL_ID}",
            "autoupdate": False,
            "share": "disabled",
            "providers": {
                MODEL_PROVIDER: {
                    "name": "Mock LLM",
                    "package": "aisdk:@ai-sdk/openai-compatible",
                    "settings": {"baseURL": llm_base_url, "apiKey": "sk-fake"},
                    "models": {
                        MODEL_ID: {
                            "name": "Fake Model",
                            "capabilities": {"tools": True, "input": ["text"], "output": ["text"]},
                            "limit": {"context": 128000, "output": 8192},
                            "cost": {"input": 0, "output": 0},
                        }
                    },
                }
            },
            "agents": {"title": {"model": f"{MODEL_PROVIDER}/{MODEL_ID}"}},
            "permissions": [
                {"action": "shell", "resource": "*", "effect": effect},
                {"action": "edit", "resource": "*", "effect": effect},
            ],
        }
    return {
        "$schema": "https://opencode.ai/config.json",
        "model": f"{MODEL_PROVIDER}/{MODEL_ID}",
        "small_model": f"{MODEL_PROVIDER}/{MODEL_ID}",
        "autoupdate": False,
        "share": "disabled",
        "permission": {"bash": effect, "edit": effect},
        "provider": {
            MODEL_PROVIDER: {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Mock LLM",
                "options": {"baseURL": llm_base_url, "apiKey": "sk-fake"},
                "models": {
                    MODEL_ID: {
                        "name": "Fake Model",
                        "reasoning": True,
                        "tool_call": True,
                        "attachment": False,
                        "temperature": True,
                        "limit": {"context": 128000, "output": 8192},
                        "cost": {"input": 0, "output": 0},
                    }
                },
            }
        },
    }


def _git(project: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(
        ["git", *args],
        cwd=project,
        env=env,
        check=True,
        capture_output=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )


def config_path(env: dict[str, str]) -> Path:
    return Path(env["XDG_CONFIG_HOME"]) / "opencode" / "opencode.json"


def write_config(env: dict[str, str], llm_base_url: str, shape: ConfigShape, effect: str = "ask") -> None:
    config_path(env).write_text(json.dumps(opencode_config(llm_base_url, shape, effect), indent=2) + "\n")


def read_config(env: dict[str, str]) -> tuple[ConfigShape, str]:
    """(shape, fake LLM base URL) of the config a workspace holds."""
    config = json.loads(config_path(env).read_text())
    if "providers" in config:
        return ConfigShape.V2, str(config["providers"][MODEL_PROVIDER]["settings"]["baseURL"])
    return ConfigShape.PREVIEW_118, str(config["provider"][MODEL_PROVIDER]["options"]["baseURL"])


def config_effect(env: dict[str, str]) -> str:
    """What the workspace's config does before a shell command runs: ``ask`` or ``allow``."""
    config = json.loads(config_path(env).read_text())
    if "permissions" in config:
        rules = [r for r in config["permissions"] if isinstance(r, dict) and r.get("action") == "shell"]
        return str(rules[0]["effect"]) if rules else "ask"
    return str((config.get("permission") or {}).get("bash", "ask"))


def guess_config_shape(binary: Path, env: dict[str, str], timeout: float = 60.0) -> ConfigShape:
    """The config shape a binary probably needs, from what ``opencode serve --help`` offers: only a
    2.x server can register as the user's background service (``--service``). Only a guess: the
    running server's served spec decides (``RealServer.start``)."""
    try:
        done = subprocess.run([str(binary), "serve", "--help"], env=env, capture_output=True,
                              timeout=timeout, stdin=subprocess.DEVNULL, start_new_session=True)
    except (OSError, subprocess.TimeoutExpired):
        return ConfigShape.PREVIEW_118
    text = (done.stdout + done.stderr).decode("utf-8", "replace")
    return ConfigShape.V2 if re.search(r"--service\b", text) else ConfigShape.PREVIEW_118


def needed_config_shape(binary: Path, env: dict[str, str]) -> ConfigShape:
    """The config shape ``binary`` needs: what its running server showed earlier in this test run,
    else the guess from its ``serve --help``. For a server the harness does not start itself (octui
    starts it), so the config must be right before the start."""
    key = _binary_key(binary)
    known = _KNOWN_SPECS.get(key) if key is not None else None
    return SHAPE_FOR[known[0]] if known is not None else guess_config_shape(binary, env)


def make_workspace(root: Path, llm_base_url: str,
                   shape: ConfigShape = ConfigShape.PREVIEW_118) -> tuple[Path, dict[str, str]]:
    """Create HOME/XDG dirs, the config and a one-commit git project under ``root``.

    Returns (project dir, environment for the server). ``RealServer.start`` rewrites the config
    in the other shape when its server turns out to need it.
    """
    home = root / "home"
    xdg = {
        "XDG_CONFIG_HOME": root / "xdg" / "config",
        "XDG_DATA_HOME": root / "xdg" / "data",
        "XDG_CACHE_HOME": root / "xdg" / "cache",
        "XDG_STATE_HOME": root / "xdg" / "state",
    }
    for path in (home, *xdg.values()):
        path.mkdir(parents=True, exist_ok=True)
    config_dir = xdg["XDG_CONFIG_HOME"] / "opencode"
    config_dir.mkdir(parents=True, exist_ok=True)
    write_config({"XDG_CONFIG_HOME": str(xdg["XDG_CONFIG_HOME"])}, llm_base_url, shape)

    env = {key: value for key, value in os.environ.items() if not key.startswith(("OPENCODE_", "XDG_"))}
    env.update({key: str(value) for key, value in xdg.items()})
    env.update(
        {
            "HOME": str(home),
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_SERVER_PASSWORD": secrets.token_urlsafe(18),
            "GIT_AUTHOR_NAME": "octui tests",
            "GIT_AUTHOR_EMAIL": "tests@octui.invalid",
            "GIT_COMMITTER_NAME": "octui tests",
            "GIT_COMMITTER_EMAIL": "tests@octui.invalid",
            "GIT_CONFIG_NOSYSTEM": "1",
            "NO_COLOR": "1",
        }
    )

    project = root / "project"
    project.mkdir(parents=True, exist_ok=True)
    if not (project / ".git").exists():
        (project / "README.md").write_text("# e2e project\n\nA scratch repository for octui tests.\n")
        _git(project, env, "init", "-q", "-b", "main")
        _git(project, env, "add", "README.md")
        _git(project, env, "commit", "-q", "-m", "initial commit")
    return project, env


class RealServer:
    """One ``opencode serve`` process; ``start()``, ``restart()`` and ``stop()`` are bounded."""

    def __init__(self, binary: Path, project_dir: Path, env: dict[str, str], log_path: Path) -> None:
        self.binary = binary
        self.project_dir = project_dir
        self.env = env
        self.log_path = log_path
        self.username = USERNAME
        self.password = env["OPENCODE_SERVER_PASSWORD"]
        self.url = ""
        self.port = 0
        self.startup_line = ""
        # Known once the server answered: from the spec document it serves (see the module doc).
        self.generation: Generation | None = None
        self.spec_paths: dict[str, set[str]] = {}  # path (parameter names blanked) -> methods
        self._proc: subprocess.Popen[bytes] | None = None
        self._drain: threading.Thread | None = None

    # -- auth / http -------------------------------------------------------------------------

    @property
    def pid(self) -> int:
        if self._proc is None:
            raise RuntimeError("server is not running")
        return self._proc.pid

    @property
    def auth(self) -> tuple[str, str]:
        return (self.username, self.password)

    @property
    def auth_header(self) -> dict[str, str]:
        token = base64.b64encode(f"{self.username}:{self.password}".encode()).decode()
        return {"Authorization": f"Basic {token}"}

    def client(self, timeout: float = 10.0) -> httpx.Client:
        """A sync httpx client with base URL and Basic auth (the caller closes it)."""
        return httpx.Client(base_url=self.url, auth=self.auth, timeout=timeout)

    def async_client(self, timeout: float = 10.0) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.url, auth=self.auth, timeout=timeout)

    @property
    def wire(self) -> Wire:
        """Event names, fields and bodies of this server's generation (tests/e2e/wire.py)."""
        if self.generation is None:
            raise RuntimeError("the server's generation is known once it has started")
        return Wire(self.generation)

    def serves(self, method: str, path: str) -> bool:
        """True when the server's own spec document lists this route (parameter names ignored)."""
        return method.lower() in self.spec_paths.get(_route_key(path), set())

    def create_session(self, **body: Any) -> dict[str, Any]:
        """``POST /api/session`` and return its ``data`` (SessionV2Info)."""
        with self.client() as http:
            response = http.post("/api/session", json=body)
            response.raise_for_status()
            data: dict[str, Any] = response.json()["data"]
            return data

    def prompt(self, session_id: str, text: str, **extra: Any) -> dict[str, Any]:
        """``POST /api/session/{id}/prompt`` (returns at once; the turn runs asynchronously)."""
        with self.client() as http:
            body = self.wire.prompt_body(text, **extra)
            response = http.post(f"/api/session/{session_id}/prompt", json=body)
            response.raise_for_status()
            data: dict[str, Any] = response.json()["data"]
            return data

    def active_sessions(self) -> dict[str, Any]:
        with self.client() as http:
            response = http.get("/api/session/active")
            response.raise_for_status()
            data: dict[str, Any] = response.json()["data"]
            return data

    def wait_idle(self, session_id: str, timeout: float = 10.0) -> None:
        """Wait (bounded) until ``/api/session/active`` no longer lists the session."""
        deadline = time.monotonic() + timeout
        while session_id in self.active_sessions():
            if time.monotonic() >= deadline:
                raise TimeoutError(f"session {session_id} still active after {timeout}s")
            time.sleep(0.05)

    def events(self, session_id: str | None = None) -> EventRecorder:
        """An :class:`EventRecorder` on ``/api/event``, connected (use as a context manager)."""
        return EventRecorder(self, session_id).start()

    # -- process lifecycle -------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def start(self, *, ready_timeout: float = READY_TIMEOUT,
              model_timeout: float = READY_TIMEOUT) -> RealServer:
        """Spawn the server (on ``self.port``, 0 = any), wait for its start-up line, learn its
        generation, then wait for the fake model in its catalog.

        The config shape is checked against the generation: on a mismatch it is rewritten and the
        server started again (once; later servers of the same binary start right away)."""
        if self.running:
            raise RuntimeError("server already running")
        self._fit_config_before_start()
        port = self.port
        self._spawn(ready_timeout)
        try:
            self._learn_generation()
            assert self.generation is not None
            needed = SHAPE_FOR[self.generation]
            shape, llm_url = read_config(self.env)
            if shape is not needed:
                self._log_note(f"config shape {shape.value} does not fit this {self.generation.value} "
                               f"server: rewriting it as {needed.value} and starting again")
                self._signal_group(signal.SIGTERM, 5.0)
                write_config(self.env, llm_url, needed, config_effect(self.env))
                self.port = port
                self._spawn(ready_timeout)
                self._learn_generation()
            self._wait_for_model(model_timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _fit_config_before_start(self) -> None:
        """Write the config in the shape this binary is known (or guessed) to need."""
        shape, llm_url = read_config(self.env)
        needed = needed_config_shape(self.binary, self.env)
        if needed is not shape:
            write_config(self.env, llm_url, needed, config_effect(self.env))

    def _log_note(self, text: str) -> None:
        with self.log_path.open("a", encoding="utf-8") as log:
            log.write(f"=== harness: {text}\n")

    def _spawn(self, ready_timeout: float) -> None:
        command = [str(self.binary), "serve", "--hostname", "127.0.0.1", "--port", str(self.port)]
        log = self.log_path.open("ab")
        log.write(f"\n=== {time.strftime('%H:%M:%S')} start: {' '.join(command)}\n".encode())
        log.flush()
        proc = subprocess.Popen(
            command,
            cwd=self.project_dir,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # own process group: stop() kills the group by this pid
        )
        self._proc = proc
        found: queue.Queue[tuple[str, str]] = queue.Queue()
        assert proc.stdout is not None
        self._drain = threading.Thread(
            target=_drain, args=(proc.stdout, log, found), name=f"opencode-log-{proc.pid}", daemon=True
        )
        self._drain.start()
        started = time.monotonic()
        try:
            url, line = found.get(timeout=ready_timeout)
        except queue.Empty:
            raise ServerStartError(
                f"no 'listening on <url>' line within {ready_timeout:g} s although the server is still "
                f"running (pid {proc.pid})\n{self.log_tail()}"
            ) from None
        if not url:
            code = _exit_code_soon(proc)
            state = f"exited with code {code}" if code is not None else "closed its output"
            raise ServerStartError(
                f"server {state} after {time.monotonic() - started:.1f} s without a 'listening on' "
                f"line\n{self.log_tail()}"
            )
        self.url = url.rstrip("/")
        self.startup_line = line
        self.port = httpx.URL(self.url).port or 0

    def _learn_generation(self) -> None:
        """The generation, from the spec document the server serves (:func:`generation_of`), or
        from what a server of the same binary file served earlier in this process."""
        key = _binary_key(self.binary)
        known = _KNOWN_SPECS.get(key) if key is not None else None
        if known is not None:
            self.generation, self.spec_paths = known
            return
        for attempt in range(50):  # bounded: the first requests after start may be slow
            try:
                with httpx.Client(base_url=self.url, auth=self.auth, timeout=SPEC_FETCH_TIMEOUT) as http:
                    found = generation_of(http)
                if found is not None:
                    self.generation, self.spec_paths = found
                    if key is not None:
                        _KNOWN_SPECS[key] = found
                    return
                break
            except httpx.TransportError as exc:  # not listening yet, or reset: retried
                # (not a timeout: each one has waited SPEC_FETCH_TIMEOUT already)
                if isinstance(exc, httpx.TimeoutException) or attempt == 49 or not self.running:
                    raise
                time.sleep(0.2)
        raise ServerStartError(f"the server serves neither /openapi.json nor /doc as JSON\n{self.log_tail()}")

    def _wait_for_model(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        last = ""
        with httpx.Client(base_url=self.url, auth=self.auth, timeout=2.0) as http:
            while time.monotonic() < deadline:
                if not self.running:
                    raise ServerStartError(f"server exited (exit={self.exit_code})\n{self.log_tail()}")
                try:
                    response = http.get("/api/model")
                    if response.status_code == 200:
                        models = response.json().get("data") or []
                        if any(
                            m.get("providerID") == MODEL_PROVIDER and m.get("id") == MODEL_ID for m in models
                        ):
                            return
                        last = f"{len(models)} models, no {MODEL_PROVIDER}/{MODEL_ID}"
                    else:
                        last = f"HTTP {response.status_code}"
                except httpx.HTTPError as exc:  # includes the hang-then-timeout of gotcha 1
                    last = repr(exc)
                time.sleep(0.2)
        raise ServerStartError(
            f"{MODEL_PROVIDER}/{MODEL_ID} not in /api/model after {timeout}s ({last})\n{self.log_tail()}"
        )

    @property
    def exit_code(self) -> int | None:
        return None if self._proc is None else self._proc.poll()

    def stop(self, timeout: float = 5.0) -> None:
        """SIGTERM the process group, then SIGKILL after ``timeout``; idempotent."""
        self._signal_group(signal.SIGTERM, timeout)

    def kill(self) -> None:
        """SIGKILL the process group at once (a crash, as seen by clients)."""
        self._signal_group(signal.SIGKILL, 5.0)

    def restart(self, **start_kwargs: Any) -> RealServer:
        """SIGKILL the server, then start it again on the same port with the same data dirs."""
        port = self.port
        self.kill()
        self.port = port
        # The old listening socket is gone once the process is reaped; retry briefly if the port is
        # still held (bounded).
        deadline = time.monotonic() + 10.0
        while True:
            try:
                return self.start(**start_kwargs)
            except ServerStartError:
                if time.monotonic() >= deadline:
                    raise
                self.port = port
                time.sleep(0.5)

    def _signal_group(self, sig: signal.Signals, timeout: float) -> None:
        proc = self._proc
        if proc is None:
            return
        pgid = proc.pid  # start_new_session=True made the child its group leader
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=5.0)
        # Children (e.g. the background npm install) share the group; make sure none is left.
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if self._drain is not None:
            self._drain.join(timeout=5.0)
        self._proc = None
        self._drain = None


def _drain(stream: IO[bytes], log: IO[bytes], found: queue.Queue[tuple[str, str]]) -> None:
    """Copy the server's output to the log; report (URL, start-up line) once, ("", "") at EOF."""
    reported = False
    try:
        for raw in iter(stream.readline, b""):
            log.write(raw)
            log.flush()
            if not reported:
                line = raw.decode("utf-8", errors="replace").strip()
                match = LISTEN_RE.search(line)
                if match:
                    found.put((match.group(1), line))
                    reported = True
    except (OSError, ValueError):
        pass
    finally:
        if not reported:
            found.put(("", ""))
        log.close()
        stream.close()


def _exit_code_soon(proc: subprocess.Popen[bytes], wait: float = 2.0) -> int | None:
    try:
        return proc.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        return None


def generation_of(http: httpx.Client) -> tuple[Generation, dict[str, set[str]]] | None:
    """(generation, route table) of the server behind ``http``, from the spec document it serves:
    2.x its own ``/openapi.json``; 1.18.33 ``/doc`` (its ``/openapi.json`` is the web app's HTML
    page). None when it serves neither as JSON."""
    for path, generation in SPEC_DOCUMENTS:
        spec = _json_or_none(http.get(path))
        if isinstance(spec, dict) and isinstance(spec.get("paths"), dict):
            return generation, _route_table(spec["paths"])
    return None


def served_generation(url: str, auth: tuple[str, str], timeout: float = 30.0) -> Generation:
    """The generation of a running server the harness did not start (e.g. the one octui starts),
    by the same behaviour as :meth:`RealServer.start`; bounded retries while it warms up."""
    deadline = time.monotonic() + timeout
    while True:
        left = max(1.0, deadline - time.monotonic())  # (the caller's bound holds)
        try:
            with httpx.Client(base_url=url, auth=auth, timeout=min(SPEC_FETCH_TIMEOUT, left)) as http:
                found = generation_of(http)
            if found is not None:
                return found[0]
            last = "neither /openapi.json nor /doc is a JSON spec"
        except httpx.HTTPError as exc:
            last = repr(exc)
        if time.monotonic() >= deadline:
            raise ServerStartError(f"{url}: generation unknown after {timeout:g} s ({last})")
        time.sleep(0.2)


def _json_or_none(response: httpx.Response) -> Any:
    if response.status_code != 200 or "json" not in response.headers.get("content-type", ""):
        return None
    try:
        return response.json()
    except ValueError:
        return None


_PARAM_RE = re.compile(r"\{[^}]*\}|:[A-Za-z_][A-Za-z0-9_]*")


def _route_key(path: str) -> str:
    return _PARAM_RE.sub("{}", path.split("?", 1)[0])


def _route_table(paths: dict[str, Any]) -> dict[str, set[str]]:
    table: dict[str, set[str]] = {}
    for path, item in paths.items():
        if isinstance(item, dict):
            table.setdefault(_route_key(str(path)), set()).update(str(m).lower() for m in item)
    return table


class EventRecorder:
    """Reads ``GET /api/event`` in a background thread and keeps every frame's JSON.

    ``wait_for`` blocks (sync tests); ``await_for`` polls with ``asyncio.sleep`` (async tests), so
    either works while the app under test owns the event loop. Filter on a session with
    ``session_id`` (frames without ``data.sessionID``, like ``server.connected``, are kept).
    """

    def __init__(self, server: RealServer, session_id: str | None = None) -> None:
        self.server = server
        self.session_id = session_id
        self.events: list[dict[str, Any]] = []
        self.error: BaseException | None = None
        self.ended = threading.Event()
        self._connected = threading.Event()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._response: httpx.Response | None = None
        self._thread = threading.Thread(target=self._run, name="event-recorder", daemon=True)

    def start(self, timeout: float = 10.0) -> EventRecorder:
        self._thread.start()
        if not self._connected.wait(timeout):
            self.close()
            raise TimeoutError(f"no server.connected on /api/event within {timeout}s: {self.error!r}")
        return self

    def __enter__(self) -> EventRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self) -> None:
        timeout = httpx.Timeout(10.0, read=60.0)  # heartbeats come every 15 s
        try:
            with httpx.Client(base_url=self.server.url, auth=self.server.auth, timeout=timeout) as http:
                with http.stream("GET", "/api/event") as response:
                    self._response = response
                    response.raise_for_status()
                    for line in response.iter_lines():
                        if self._stop.is_set():
                            break
                        if not line.startswith("data:"):
                            continue
                        event = json.loads(line[5:].strip())
                        if event.get("type") == "server.connected":
                            self._connected.set()
                        sid = (event.get("data") or {}).get("sessionID")
                        if self.session_id is None or sid is None or sid == self.session_id:
                            with self._lock:
                                self.events.append(event)
        except BaseException as exc:  # recorded for the test to see; the thread must not die noisily
            if not self._stop.is_set():
                self.error = exc
        finally:
            self.ended.set()

    def close(self, timeout: float = 5.0) -> None:
        """Stop reading: shut the socket down so the blocked read returns; bounded join."""
        self._stop.set()
        response = self._response
        if response is not None:
            stream = response.extensions.get("network_stream")
            sock = stream.get_extra_info("socket") if stream is not None else None
            if sock is not None:
                try:
                    sock.shutdown(2)  # socket.SHUT_RDWR
                except OSError:
                    pass
        if self._thread.is_alive():
            self._thread.join(timeout)

    # -- queries -------------------------------------------------------------------------------

    def snapshot(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self.events)

    def types(self) -> list[str]:
        return [str(event.get("type")) for event in self.snapshot()]

    def of_type(
        self, event_type: str | tuple[str, ...], where: Callable[[dict[str, Any]], bool] | None = None
    ) -> list[dict[str, Any]]:
        """Every event so far of that type whose ``data`` passes ``where``."""
        match = self._matcher(event_type, where)
        return [event for event in self.snapshot() if match(event)]

    def _find(self, match: Callable[[dict[str, Any]], bool], start: int) -> dict[str, Any] | None:
        for event in self.snapshot()[start:]:
            if match(event):
                return event
        return None

    @staticmethod
    def _matcher(
        event_type: str | tuple[str, ...], where: Callable[[dict[str, Any]], bool] | None
    ) -> Callable[[dict[str, Any]], bool]:
        types = (event_type,) if isinstance(event_type, str) else event_type

        def match(event: dict[str, Any]) -> bool:
            return event.get("type") in types and (where is None or where(event.get("data") or {}))

        return match

    def wait_for(
        self,
        event_type: str | tuple[str, ...],
        where: Callable[[dict[str, Any]], bool] | None = None,
        *,
        timeout: float = 10.0,
        start: int = 0,
    ) -> dict[str, Any]:
        """The first event (from index ``start``) of that type whose ``data`` passes ``where``."""
        match = self._matcher(event_type, where)
        deadline = time.monotonic() + timeout
        while True:
            event = self._find(match, start)
            if event is not None:
                return event
            if time.monotonic() >= deadline or self.ended.is_set():
                raise TimeoutError(self._timeout_message(event_type, timeout))
            time.sleep(0.02)

    def wait_for_count(
        self,
        event_type: str | tuple[str, ...],
        count: int,
        where: Callable[[dict[str, Any]], bool] | None = None,
        *,
        timeout: float = 10.0,
    ) -> list[dict[str, Any]]:
        """Wait until ``count`` matching events arrived; returns all matches so far."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.of_type(event_type, where)
            if len(found) >= count:
                return found
            if time.monotonic() >= deadline or self.ended.is_set():
                raise TimeoutError(self._timeout_message(f"{count}x {event_type}", timeout))
            time.sleep(0.02)

    async def await_for(
        self,
        event_type: str | tuple[str, ...],
        where: Callable[[dict[str, Any]], bool] | None = None,
        *,
        timeout: float = 10.0,
        start: int = 0,
    ) -> dict[str, Any]:
        """Async twin of :meth:`wait_for` (never blocks the event loop)."""
        import asyncio

        match = self._matcher(event_type, where)
        deadline = time.monotonic() + timeout
        while True:
            event = self._find(match, start)
            if event is not None:
                return event
            if time.monotonic() >= deadline or self.ended.is_set():
                raise TimeoutError(self._timeout_message(event_type, timeout))
            await asyncio.sleep(0.02)

    def _timeout_message(self, event_type: object, timeout: float) -> str:
        tail = ", ".join(self.types()[-15:])
        state = f"stream ended ({self.error!r})" if self.ended.is_set() else f"{timeout}s passed"
        return f"no {event_type} event: {state}; last types: [{tail}]\n{self.server.log_tail(15)}"
