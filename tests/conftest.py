"""Generic test policy for the whole suite (markers and skips only).

* ``@pytest.mark.e2e`` tests need the real OpenCode server; set ``OCTUI_SKIP_E2E=1`` to skip them
  in a quick local run (ignored under ``CI=true``, where everything runs).
* ``@pytest.mark.tmux`` tests need the ``tmux`` binary: skipped when it is missing, failed under CI.
* SIGTERM (e.g. a CI timeout) is turned into KeyboardInterrupt, so fixtures still tear down and stop
  the servers they started.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import threading
from collections.abc import Iterator
from types import FrameType

import pytest

from tests.e2e.server import in_ci


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_configure(config: pytest.Config) -> None:
    if threading.current_thread() is threading.main_thread() and (
        signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    ):
        signal.signal(signal.SIGTERM, _terminate)


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("e2e") and os.environ.get("OCTUI_SKIP_E2E") == "1" and not in_ci():
        pytest.skip("OCTUI_SKIP_E2E=1")
    if item.get_closest_marker("tmux") and shutil.which("tmux") is None:
        if in_ci():
            pytest.fail("tmux is not installed (CI=true); scripts/setup.sh installs it when run as root")
        pytest.skip("tmux is not installed")


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory,
                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own config, drafts and log never leak into (or out of) a test."""
    home = tmp_path_factory.mktemp("octui-user")
    monkeypatch.setenv("OCTUI_CONFIG", str(home / "config.toml"))
    monkeypatch.setenv("OCTUI_STATE_DIR", str(home / "state"))


@pytest.fixture(autouse=True)
def _octui_logger_restored() -> Iterator[None]:
    """A test that runs the CLI in-process gives the ``octui`` logger a file handler and stops it
    propagating; put it back, so a later test's ``caplog`` still sees octui's records."""
    logger = logging.getLogger("octui")
    saved = (list(logger.handlers), logger.level, logger.propagate)
    yield
    for handler in logger.handlers:
        if handler not in saved[0]:
            handler.close()
    logger.handlers[:], logger.level, logger.propagate = saved
