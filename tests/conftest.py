"""Test policy for the whole suite: markers, skips, order, the real-server fixtures, the skip summary.

* ``@pytest.mark.e2e`` tests need the real OpenCode server; set ``OCTUI_SKIP_E2E=1`` to skip them
  in a quick local run (ignored under ``CI=true``, where everything runs).
* ``@pytest.mark.tmux`` tests need the ``tmux`` binary: skipped when it is missing, failed under CI.
* The real-server fixtures of :mod:`tests.e2e.fixtures` and the spec fixtures of :mod:`tests.specs`
  are registered here, for every directory. The real server:
  one server and one fake LLM per test process (per xdist worker), shared by the tests on it.
* ``scripts/test.sh`` runs the suite on several xdist workers with ``--dist loadgroup``
  (``tests/README.md``). The tests that use a real server are dealt into groups for half of the
  workers, so only that many servers start. Collection puts the directories that mostly wait
  (faults, e2e, security) first, so their long tests start early and the CPU-bound unit and
  snapshot tests fill the gaps instead of trailing at the end.
* The run ends with the skipped tests counted by reason, so a plain clone says what it did not run.
* SIGTERM (e.g. a CI timeout) is turned into KeyboardInterrupt, so fixtures still tear down and stop
  the servers they started.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

from tests.e2e.server import in_ci

pytest_plugins = ("tests.e2e.fixtures", "tests.specs")

TESTS = Path(__file__).resolve().parent
# Directories whose tests mostly wait on a real server or a paced fake LLM run first.
RUN_FIRST = ("faults", "e2e", "security")
# A test whose fixtures include one of these starts (or shares) a worker's real server.
REAL_SERVER_FIXTURES = frozenset({"real_server", "served_spec", "fault_server"})


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_configure(config: pytest.Config) -> None:
    if threading.current_thread() is threading.main_thread() and (
        signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    ):
        signal.signal(signal.SIGTERM, _terminate)
    workers = getattr(config.option, "numprocesses", None)
    if config.getoption("--snapshot-update", default=False) and workers:
        # Parallel workers each see only their share of the snapshots and race on the files.
        raise pytest.UsageError("--snapshot-update must run in one process: add -n 0")


def _run_rank(item: pytest.Item) -> int:
    try:
        top = item.path.resolve().relative_to(TESTS).parts[0]
    except ValueError:
        return len(RUN_FIRST)
    return RUN_FIRST.index(top) if top in RUN_FIRST else len(RUN_FIRST)


def real_server_groups() -> int:
    """How many workers run the real-server tests: half of them (each such worker starts a server
    that costs ~7 CPU-seconds and idles at ~1 % CPU; the others run the CPU-bound tests)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    return max(1, workers // 2)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups into the node ids
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    items.sort(key=_run_rank)  # stable: the order inside a directory stays as written
    # Under ``--dist loadgroup`` (scripts/test.sh) each group runs on one worker: the tests that
    # need a real server are dealt round-robin into a few groups, so only that many servers start.
    groups = real_server_groups()
    dealt = 0
    for item in items:
        if REAL_SERVER_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group(f"real-server-{dealt % groups}"))
            dealt += 1


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("e2e") and os.environ.get("OCTUI_SKIP_E2E") == "1" and not in_ci():
        pytest.skip("OCTUI_SKIP_E2E=1")
    if item.get_closest_marker("tmux") and shutil.which("tmux") is None:
        if in_ci():
            pytest.fail("tmux is not installed (CI=true); scripts/setup.sh installs it when run as root")
        pytest.skip("tmux is not installed")


def _skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        reason = str(longrepr[2])
    else:
        reason = str(longrepr)
    return reason.removeprefix("Skipped: ")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int,
                            config: pytest.Config) -> None:
    """Skipped tests counted by reason, just above pytest's closing line (also under xdist)."""
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if hasattr(r, "longrepr")]
    if not skipped:
        terminalreporter.write_line("skipped: none")
        return
    reasons = Counter(_skip_reason(report) for report in skipped)
    terminalreporter.write_line(f"skipped: {len(skipped)} test(s), by reason:")
    for reason, count in reasons.most_common():
        terminalreporter.write_line(f"  {count:4d}  {reason}")


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
