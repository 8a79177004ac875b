"""octui.log: every file user-only, the rotated ones too; repeated lines counted, not written."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui.storage.log_file import MAX_LINES_PER_WINDOW, WINDOW_S, PrivateRotatingLog, gist

Logged = tuple[logging.Logger, PrivateRotatingLog]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def logger(tmp_path: Path, clock: Clock) -> Iterator[Logged]:
    handler = PrivateRotatingLog(tmp_path / "octui.log", max_bytes=2000, backups=2, clock=clock)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    log = logging.getLogger(f"octui-test-{id(handler)}")
    log.propagate = False
    log.setLevel(logging.INFO)
    log.addHandler(handler)
    yield log, handler
    log.removeHandler(handler)
    handler.close()


def lines(tmp_path: Path) -> list[str]:
    return (tmp_path / "octui.log").read_text("utf-8").splitlines()


def test_every_file_is_user_only_after_rotations(tmp_path: Path, clock: Clock,
                                                 logger: Logged) -> None:
    old = os.umask(0o022)  # what most users have: new files would be 0644
    try:
        log, _handler = logger
        for i in range(400):
            log.warning("distinct %d: %s", i, "x" * 100)  # one gist each: nothing is counted
            clock.now += WINDOW_S  # a new window each time: nothing is held back either
    finally:
        os.umask(old)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["octui.log", "octui.log.1", "octui.log.2"], "rotated twice or more"
    for name in names:
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600, name


def test_a_file_an_older_version_left_world_readable_is_made_private(tmp_path: Path) -> None:
    path = tmp_path / "octui.log"
    path.write_text("old line\n")
    path.chmod(0o644)
    handler = PrivateRotatingLog(path, max_bytes=1000, backups=1)
    handler.close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_flood_of_one_line_is_one_line_and_a_count(tmp_path: Path, clock: Clock,
                                                     logger: Logged) -> None:
    log, _handler = logger
    for _ in range(1234 + 1):
        log.warning("%s", "ignored event session.next.weird.x")
        clock.now += 0.01
    log.info("something else")
    clock.now += WINDOW_S
    log.info("later")
    written = lines(tmp_path)
    assert written[0] == "WARNING ignored event session.next.weird.x"
    assert "something else" in written[1]
    assert written[2] == ("WARNING ignored event session.next.weird.x… "
                          "(repeated 1,234 times in the last 60 s)"), written
    assert written[3] == "INFO later"
    assert len(written) == 4


def test_details_after_a_colon_are_the_same_line(tmp_path: Path, clock: Clock,
                                                 logger: Logged) -> None:
    log, handler = logger
    for i in range(50):
        log.warning("bad event frame: unexpected token at %d", i)
    handler.close()  # at exit: what was counted is said
    written = lines(tmp_path)
    assert written[0] == "WARNING bad event frame: unexpected token at 0"
    assert written[1] == "WARNING bad event frame… (repeated 49 times in the last 1 s)"
    assert gist("bad event frame: x") == "bad event frame"
    assert gist("no colon here " * 10) == ("no colon here " * 10)[:60]


def test_many_different_lines_are_capped_per_window(tmp_path: Path, clock: Clock,
                                                    logger: Logged) -> None:
    log, _handler = logger
    for i in range(MAX_LINES_PER_WINDOW + 500):
        log.warning("unique line number %d", i)
    clock.now += WINDOW_S
    log.warning("after the window")
    written = (tmp_path / "octui.log").read_text("utf-8")
    for path in tmp_path.glob("octui.log.*"):
        written = path.read_text("utf-8") + written
    assert written.count("unique line number") == MAX_LINES_PER_WINDOW
    assert "… (500 more log lines not written in the last 60 s)" in written
    assert written.rstrip().endswith("after the window")


def test_errors_are_always_written(tmp_path: Path, logger: Logged) -> None:
    log, _handler = logger
    for _ in range(5):
        log.error("worker failed: boom")
    assert lines(tmp_path).count("ERROR worker failed: boom") == 5
