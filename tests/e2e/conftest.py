"""Fixtures for end-to-end tests against the real ``opencode serve`` and the scripted fake LLM.

* ``opencode_bin``: path of the binary (``$OPENCODE_BIN`` or the repo's ``.opencode`` npm install);
  skips when missing, fails under ``CI=true``.
* ``fake_llm``: a session-wide :class:`~tests.e2e.fake_llm.FakeLLM`; register scenarios with
  ``fake_llm.add_scenario(name, steps)`` (use names unique to your test) and put
  ``fake_llm.tag(name)`` in the prompt text.
* ``real_server``: a session-wide :class:`~tests.e2e.server.RealServer` (``url``, ``username``,
  ``password``, ``auth``, ``project_dir``, ``env``, ``pid``, ``port``, ``log_path``; ``restart()``,
  ``stop()``, ``create_session()``, ``prompt()``, ``events()``, ``wait_idle()``).
* ``new_session``: a fresh session's ``SessionV2Info`` dict, created over raw httpx.
* ``events``: an :class:`~tests.e2e.server.EventRecorder` on ``/api/event``, already connected.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.fake_llm import FakeLLM
from tests.e2e.fixtures import require_opencode_bin, running_fake_llm, started_server
from tests.e2e.server import EventRecorder, RealServer


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
    """``real_server``, started again if an earlier test stopped it."""
    if not real_server.running:
        real_server.start()
    return real_server


@pytest.fixture
def new_session(live_server: RealServer) -> dict[str, Any]:
    return live_server.create_session()


@pytest.fixture
def events(live_server: RealServer) -> Iterator[EventRecorder]:
    with live_server.events() as recorder:
        yield recorder
