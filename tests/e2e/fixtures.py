"""The real-server fixtures every test directory can use (registered by ``tests/conftest.py``).

One fake LLM and one real ``opencode serve`` per test process: with pytest-xdist that is one pair
per worker, started the first time a test on that worker asks for it and stopped when the worker
ends. Tests share the server and isolate themselves by what they create: a fresh session each
(``new_session`` or ``server.create_session()``), scenario names unique to the test, event
recorders filtered on their session. A test may stop, kill or restart the server; the next test
that asks for ``live_server`` gets it started again (same port, same data).

* ``opencode_bin``: path of the binary (``$OPENCODE_BIN`` or the repo's ``.opencode`` npm install);
  skips when missing, fails under ``CI=true``.
* ``fake_llm``: a :class:`~tests.e2e.fake_llm.FakeLLM`; register scenarios with
  ``fake_llm.add_scenario(name, steps)`` (use names unique to your test) and put the returned tag
  in the prompt text.
* ``real_server``: the :class:`~tests.e2e.server.RealServer` (``url``, ``username``, ``password``,
  ``auth``, ``project_dir``, ``env``, ``pid``, ``port``, ``log_path``; ``restart()``, ``stop()``,
  ``create_session()``, ``prompt()``, ``events()``, ``wait_idle()``); prefer ``live_server``.
* ``live_server``: ``real_server``, started again if an earlier test stopped it.
* ``new_session``: a fresh session's ``SessionV2Info`` dict, created over raw httpx.
* ``events``: an :class:`~tests.e2e.server.EventRecorder` on ``/api/event``, already connected.

``running_fake_llm`` and ``started_server`` build further pairs for a test that needs a server no
other test touched (``tests/faults`` has ``fault_server`` for that).
"""

from __future__ import annotations

import shutil
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import pytest

from tests.e2e.fake_llm import FakeLLM
from tests.e2e.server import (
    READY_TIMEOUT,
    EventRecorder,
    RealServer,
    find_opencode_bin,
    in_ci,
    make_workspace,
)

SERVER_START_TIMEOUT_S = READY_TIMEOUT  # 2.x can need a minute to listen; a loaded machine more


def missing(reason: str) -> NoReturn:
    """Skip locally, fail under CI=true: CI must have installed every e2e prerequisite."""
    if in_ci():
        pytest.fail(f"{reason} (CI=true: e2e prerequisites must be installed; run scripts/setup.sh)")
    pytest.skip(reason)


def require_opencode_bin() -> Path:
    """The opencode binary, or a skip/fail saying how to install it (git is needed too)."""
    binary = find_opencode_bin()
    if binary is None:
        missing("opencode binary not found: set OPENCODE_BIN or run scripts/setup.sh")
    if shutil.which("git") is None:
        missing("git is needed for the e2e project directory")
    return binary


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def running_fake_llm(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[FakeLLM]:
    """A started fake LLM logging its requests under a fresh temp dir called ``name``."""
    llm = FakeLLM()
    llm.log_path = tmp_path_factory.mktemp(name) / "requests.jsonl"
    llm.start()
    try:
        yield llm
    finally:
        llm.stop()


@contextmanager
def started_server(
    binary: Path,
    llm: FakeLLM,
    root: Path,
    *,
    port: int | None = None,
    timeout: float = SERVER_START_TIMEOUT_S,
) -> Iterator[RealServer]:
    """A real server in a fresh workspace under ``root``, wired to ``llm``; stopped on exit.

    ``port`` None picks a free one. Never 0: ``opencode serve --port 0`` prefers 4096, which the
    server of another worker may hold, and a restart must come back on the same port.
    """
    project, env = make_workspace(root, llm.base_url)
    server = RealServer(binary, project, env, root / "opencode.log")
    server.port = free_port() if port is None else port
    server.start(ready_timeout=timeout, model_timeout=timeout)
    try:
        yield server
    finally:
        server.stop()


# -- the per-process fixtures ---------------------------------------------------------------------


@pytest.fixture(scope="session")
def opencode_bin() -> Path:
    return require_opencode_bin()


@pytest.fixture(scope="session")
def fake_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeLLM]:
    with running_fake_llm(tmp_path_factory, "fake-llm") as llm:
        yield llm


@pytest.fixture(scope="session")
def real_server(
    opencode_bin: Path, fake_llm: FakeLLM, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RealServer]:
    with started_server(opencode_bin, fake_llm, tmp_path_factory.mktemp("opencode-e2e")) as server:
        yield server


@pytest.fixture
def live_server(real_server: RealServer) -> RealServer:
    """``real_server``, started again (same port and data) if an earlier test stopped it."""
    if not real_server.running:
        real_server.start(ready_timeout=SERVER_START_TIMEOUT_S, model_timeout=SERVER_START_TIMEOUT_S)
    return real_server


@pytest.fixture
def new_session(live_server: RealServer) -> dict[str, Any]:
    return live_server.create_session()


@pytest.fixture
def events(live_server: RealServer) -> Iterator[EventRecorder]:
    with live_server.events() as recorder:
        yield recorder
