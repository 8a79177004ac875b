"""Where the reader is in a transcript, and which messages to mount to put them back there.

Pure data (no Textual): ``Transcript.position()`` takes a ``TranscriptPosition``,
``plan_window`` turns it into the range of message ids to mount and the scroll anchor, against
the session's messages *now* (new ones may have arrived, old ones may be gone).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Each mounted message costs ~8 widgets, and Textual lays out all of them on every change:
# the window is kept to what is near the viewport.
WINDOW = 12  # messages mounted when a session is shown: about two screens
FIRST = 6  # of those, mounted before the first paint; the rest right after it
PAGE = 12  # messages mounted per "show older" / "show newer"
MOUNTED_MAX = 48  # reading back: beyond this the far end of the window is unmounted


@dataclass(frozen=True)
class TranscriptPosition:
    """Where the reader was in one session's transcript (kept per session while the app runs)."""

    following: bool = True  # at the bottom, following new output
    first: str | None = None  # oldest mounted message
    last: str | None = None  # newest mounted message; None: the window reached the newest
    anchor: str | None = None  # message at the top of the viewport
    offset: int = 0  # viewport top minus the anchor's top (negative: the anchor is lower)
    newest: str | None = None  # the session's newest message then: later ones are "new below"


@dataclass(frozen=True)
class WindowPlan:
    """Mount ``ids[start:end]``; scroll so ``anchor`` is ``offset`` rows above the top (None: bottom)."""

    start: int
    end: int
    anchor: str | None = None
    offset: int = 0
    unseen: list[str] = field(default_factory=list)  # arrived since the position was taken


def newest_window(count: int, size: int) -> WindowPlan:
    return WindowPlan(max(0, count - size), count)


def plan_window(ids: list[str], position: TranscriptPosition | None, size: int, limit: int) -> WindowPlan:
    """The window that puts the reader back at ``position`` (the newest ``size`` when following).

    At most ``limit`` messages: a window that grew past that (many new messages after a window
    that reached the newest) is cut on its newer side, keeping the anchor in it.
    """
    if position is None or position.following:
        return newest_window(len(ids), size)
    index = {mid: i for i, mid in enumerate(ids)}
    anchor = next((m for m in (position.anchor, position.first, position.last) if m in index), None)
    if anchor is None:
        return newest_window(len(ids), size)  # everything it knew is gone: start at the bottom
    at = index[anchor]
    start = min(index.get(position.first or "", at), at)
    end = index[position.last] + 1 if position.last in index else len(ids)
    end = max(end, at + 1)
    if end - start > limit:
        if at - start >= limit:
            start = at
        end = start + limit
    offset = position.offset if anchor == position.anchor else 0
    unseen = ids[index[position.newest] + 1:] if position.newest in index else []
    return WindowPlan(start, end, anchor, offset, unseen)
