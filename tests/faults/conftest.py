"""Fixtures for fault tests: the shared per-worker real server, a dedicated one, a fault proxy.

* ``running_server`` / ``fault_llm``: the worker's shared server and fake LLM (see
  :mod:`tests.e2e.fixtures`). A fault test may SIGKILL or restart it: the next test gets it
  started again on the same port with the same data. Isolate by session, not by server.
* ``fault_server``: a server of this module's own (module scope, own fake LLM data dir, own port)
  for a test that must see a server no other test has touched. It costs a server start; use it only
  when sharing would change what the test proves.
* ``proxy``: a :class:`~tests.faults.proxy.FaultProxy` in front of ``running_server``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.fake_llm import FakeLLM
from tests.e2e.fixtures import require_opencode_bin, started_server
from tests.e2e.server import RealServer
from tests.faults.helpers import (  # re-exported: the fault tests import them from here
    app_export,
    attach,
    banner_visible,
    server_export,
    wait_reconnected,
    wait_same_transcript,
    wait_streamed,
)
from tests.faults.proxy import FaultProxy

__all__ = [
    "app_export",
    "attach",
    "banner_visible",
    "server_export",
    "wait_reconnected",
    "wait_same_transcript",
    "wait_streamed",
]


@pytest.fixture
def fault_llm(fake_llm: FakeLLM) -> FakeLLM:
    """The worker's fake LLM (scenario names are unique per test, so it is shared too)."""
    return fake_llm


@pytest.fixture
def running_server(live_server: RealServer) -> RealServer:
    """The worker's shared server, started again (same port and data) if a test left it down."""
    return live_server


@pytest.fixture(scope="module")
def fault_server(fake_llm: FakeLLM, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealServer]:
    """A server of this module's own, for tests that must not share one (see the module doc)."""
    binary = require_opencode_bin()
    with started_server(binary, fake_llm, tmp_path_factory.mktemp("opencode-faults")) as server:
        yield server


@pytest.fixture
def proxy(running_server: RealServer) -> Iterator[FaultProxy]:
    fault = FaultProxy(running_server.port).start()
    try:
        yield fault
    finally:
        fault.stop()
