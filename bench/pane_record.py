"""Record what a program writes to its terminal: the target of ``tmux pipe-pane -o``.

    tmux pipe-pane -o -t PANE 'exec python -m bench.pane_record OUT'

Everything read from stdin is appended to ``OUT``; for every read, one line ``<monotonic ns>
<end offset>`` goes to ``OUT.idx``, so a benchmark can cut the recording by time afterwards (the
clock is ``CLOCK_MONOTONIC``, the same as ``time.monotonic()`` in the benchmark process). Ends at
end of input (the pane closed or the pipe was turned off).

``frame_figures`` reads a recording back: bytes, synchronized-update begin markers (DEC mode
2026) and write bursts between two instants.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

SYNC_BEGIN = b"\x1b[?2026h"
BURST_GAP_S = 0.004  # reads closer together than this are one write burst (one frame)


def record(out: Path) -> None:
    offset = 0
    with out.open("ab") as data, (out.parent / (out.name + ".idx")).open("a") as index:
        while True:
            chunk = os.read(0, 1 << 16)
            if not chunk:
                return
            data.write(chunk)
            data.flush()
            offset += len(chunk)
            index.write(f"{time.monotonic_ns()} {offset}\n")
            index.flush()


@dataclass(frozen=True)
class Frames:
    bytes: int
    sync_frames: int  # synchronized-update begin markers
    bursts: int  # groups of reads with gaps below BURST_GAP_S


def read_index(out: Path) -> list[tuple[float, int]]:
    """(seconds, end offset) of every read in a recording."""
    reads: list[tuple[float, int]] = []
    try:
        lines = (out.parent / (out.name + ".idx")).read_text().splitlines()
    except OSError:
        return reads
    for line in lines:
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
            reads.append((int(parts[0]) / 1e9, int(parts[1])))
    return reads


def frame_figures(out: Path, start: float, end: float) -> Frames:
    """What the recording holds between ``start`` and ``end`` (``time.monotonic()`` seconds)."""
    reads = read_index(out)
    try:
        data = out.read_bytes()
    except OSError:
        data = b""
    first = last = 0
    bursts = 0
    previous: float | None = None
    for when, offset in reads:
        if when < start:
            first = last = offset
            continue
        if when > end:
            break
        if previous is None or when - previous >= BURST_GAP_S:
            bursts += 1
        previous = when
        last = offset
    # A marker cut by a read boundary is still counted once: search the whole slice.
    chunk = data[first:last]
    return Frames(bytes=last - first, sync_frames=chunk.count(SYNC_BEGIN), bursts=bursts)


if __name__ == "__main__":
    record(Path(sys.argv[1]))
