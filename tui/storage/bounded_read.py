"""Reading a local file that may be anything: only regular files, never more than a limit.

A path a user types (``/attach``, ``--password-file``) or a config/state file can name a FIFO
(``open()`` blocks until a writer comes, forever), a device (``/dev/zero`` never ends, some
devices act on open), a socket or a file of many gigabytes. So the path is checked with
``os.stat`` before it is opened, opened with ``O_NONBLOCK`` (a FIFO swapped in after the check
opens at once instead of blocking) and checked again on the open descriptor, and at most
``limit + 1`` bytes are read. No Textual here.
"""

from __future__ import annotations

import errno
import os
import select
import stat
import time

__all__ = ["FileRefused", "human_bytes", "read_bounded"]

_CHUNK = 1 << 20
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


class FileRefused(OSError):
    """Not read: not a regular file, or larger than the limit. ``str()`` is the reason."""

    def __init__(self, reason: str, *, size: int | None = None) -> None:
        super().__init__(errno.EINVAL, reason)
        self.reason = reason
        self.size = size  # bytes, when the refusal is about size

    def __str__(self) -> str:
        return self.reason


def human_bytes(size: int) -> str:
    """``512 B``, ``1.5 KB``, ``10 MB`` (1024-based, one decimal under 10)."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            if unit == "B":
                return f"{int(value)} B"
            return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"
        value /= 1024
    return f"{size} B"  # unreachable


def _kind(mode: int) -> str | None:
    """Why a file of this mode is not read (None: a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a directory"
    if stat.S_ISFIFO(mode):
        return "is a named pipe (FIFO), not a regular file"
    if stat.S_ISCHR(mode):
        return "is a character device, not a regular file"
    if stat.S_ISBLK(mode):
        return "is a block device, not a regular file"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a regular file"
    return "is not a regular file"


def _too_large(size: int, limit: int) -> FileRefused:
    return FileRefused(f"is {human_bytes(size)}; the limit is {human_bytes(limit)}", size=size)


def read_bounded(path: str | os.PathLike[str], limit: int, *, pipe_wait: float | None = None) -> bytes:
    """The bytes of the regular file at ``path`` (symlinks followed), at most ``limit`` of them.

    ``pipe_wait``: a pipe is read too (``--password-file <(pass show x)`` is one), to its end,
    for at most this many seconds; one with no writer is refused at once.

    Raises:
        FileRefused: not a regular file (directory, FIFO, device, socket) or over ``limit``
            bytes (by its size, or by what was read: a file that grew, a /proc file).
        OSError: missing, no permission, and the other errors of ``stat``/``open``/``read``.
    """
    info = os.stat(path)
    if pipe_wait is not None and stat.S_ISFIFO(info.st_mode):
        return _read_pipe(path, limit, pipe_wait)
    reason = _kind(info.st_mode)
    if reason is not None:
        raise FileRefused(reason)
    if info.st_size > limit:
        raise _too_large(info.st_size, limit)
    fd = os.open(path, _FLAGS)
    try:
        opened = os.fstat(fd)
        reason = _kind(opened.st_mode)  # swapped between the stat and the open
        if reason is not None:
            raise FileRefused(reason)
        if opened.st_size > limit:
            raise _too_large(opened.st_size, limit)
        chunks: list[bytes] = []
        remaining = limit + 1
        while remaining > 0:
            chunk = os.read(fd, min(_CHUNK, remaining))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise FileRefused(f"is larger than the limit of {human_bytes(limit)}", size=len(data))
    return data


def _read_pipe(path: str | os.PathLike[str], limit: int, wait: float) -> bytes:
    """A pipe read to its end within ``wait`` seconds (opened non-blocking: no writer, no wait)."""
    fd = os.open(path, _FLAGS)
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            raise FileRefused("changed while it was opened")
        deadline = time.monotonic() + wait
        chunks: list[bytes] = []
        size = 0
        first = True
        while True:
            try:
                chunk = os.read(fd, min(_CHUNK, limit + 1 - size))
            except BlockingIOError:  # a writer is there, nothing written yet
                first = False
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    raise FileRefused(f"is a named pipe and its writer did not finish within {wait:g} s"
                                      ) from None
                continue
            if not chunk:
                if first:  # end of file at once: nothing has the pipe open for writing
                    raise FileRefused("is a named pipe (FIFO) with nothing writing to it")
                break
            first = False
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise FileRefused(f"is larger than the limit of {human_bytes(limit)}", size=size)
    finally:
        os.close(fd)
    return b"".join(chunks)
