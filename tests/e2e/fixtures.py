"""Building blocks shared by the e2e and fault conftests, which differ only in fixture scope.

``tests/e2e`` keeps one fake LLM and one server for the whole run; ``tests/faults`` restarts and
kills its server, so it gets its own pair per module. Both build them here.
"""

from __future__ import annotations

import shutil
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import pytest

from tests.e2e.fake_llm import FakeLLM
from tests.e2e.server import READY_TIMEOUT, RealServer, find_opencode_bin, in_ci, make_workspace


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
    port: int = 0,
    timeout: float = READY_TIMEOUT,
) -> Iterator[RealServer]:
    """A real server in a fresh workspace under ``root``, wired to ``llm``; stopped on exit."""
    project, env = make_workspace(root, llm.base_url)
    server = RealServer(binary, project, env, root / "opencode.log")
    server.port = port
    server.start(ready_timeout=timeout, model_timeout=timeout)
    try:
        yield server
    finally:
        server.stop()
