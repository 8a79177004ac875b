"""Bounded file reads: only regular files, never past the limit, never blocked by a FIFO."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tui.storage import bounded_read
from tui.storage.bounded_read import FileRefused, human_bytes, read_bounded

BLOCK_LIMIT_S = 5.0  # a FIFO open that blocks would hang for ever; fail the test instead


def within(seconds: float, call: Callable[[], Any]) -> Any:
    """``call()`` in a daemon thread; fails the test if it does not return in time."""
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["value"] = call()
        except BaseException as exc:  # handed back to the test
            result["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still blocked after {seconds} s"
    if "error" in result:
        raise result["error"]
    return result["value"]


def test_regular_file_up_to_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 100)
    assert read_bounded(path, 100) == b"x" * 100
    with pytest.raises(FileRefused, match=r"is 100 B; the limit is 99 B") as info:
        read_bounded(path, 99)
    assert info.value.size == 100
    (tmp_path / "empty").write_bytes(b"")
    assert read_bounded(tmp_path / "empty", 10) == b""


def test_missing_file_is_a_plain_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_bounded(tmp_path / "nope", 10)


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(FileRefused, match="is a directory"):
        read_bounded(tmp_path, 10)


def test_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(FileRefused, match="named pipe"):
        within(BLOCK_LIMIT_S, lambda: read_bounded(fifo, 10))
    link = tmp_path / "link"
    link.symlink_to(fifo)  # a symlink is followed, and still refused
    with pytest.raises(FileRefused, match="named pipe"):
        within(BLOCK_LIMIT_S, lambda: read_bounded(link, 10))


def test_fifo_swapped_in_after_the_check_does_not_block(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    regular = tmp_path / "regular"
    regular.write_bytes(b"ok")
    real_stat = os.stat

    def stale_stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        # What the first check saw: a regular file (then the path became a FIFO).
        return real_stat(regular) if Path(path) == fifo else real_stat(path, *args, **kwargs)

    monkeypatch.setattr(bounded_read.os, "stat", stale_stat)
    with pytest.raises(FileRefused, match="named pipe"):
        within(BLOCK_LIMIT_S, lambda: read_bounded(fifo, 10))


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_devices_are_refused() -> None:
    with pytest.raises(FileRefused, match="character device"):
        within(BLOCK_LIMIT_S, lambda: read_bounded("/dev/zero", 10))


def test_socket(tmp_path: Path) -> None:
    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        with pytest.raises(FileRefused, match="socket"):
            read_bounded(path, 10)
    finally:
        server.close()


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="no /proc")
def test_a_file_that_reports_no_size_is_still_bounded() -> None:
    # /proc files say st_size 0 and hold more: the read itself stops at limit + 1.
    with pytest.raises(FileRefused, match="larger than the limit of 16 B"):
        read_bounded("/proc/self/maps", 16)


def test_human_bytes() -> None:
    assert [human_bytes(n) for n in (0, 1023, 1024, 1536, 10 * 1024, 5 * 1024 * 1024, 10 * 1024 * 1024,
                                     3 * 1024**3)] == \
        ["0 B", "1023 B", "1.0 KB", "1.5 KB", "10 KB", "5.0 MB", "10 MB", "3.0 GB"]
