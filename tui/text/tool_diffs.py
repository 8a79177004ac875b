"""Provides unified-patch parsing for diff rendering: hunks, lines, old/new line numbers.

Pure (no Textual). Re-exported by :mod:`tui.text.tools`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from tui.text.sanitize import one_line, reveal

__all__ = ["DiffFile", "DiffLine", "Hunk", "added_file", "diff_text", "parse_patch", "split_pairs"]

LineKind = Literal["context", "added", "removed", "note"]


@dataclass
class DiffLine:
    kind: LineKind
    text: str
    old_no: int | None = None
    new_no: int | None = None


@dataclass
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    section: str = ""
    lines: list[DiffLine] = field(default_factory=list)

    @property
    def header(self) -> str:
        if not (self.old_start or self.old_count or self.new_start or self.new_count):
            return self.section
        head = f"@@ -{self.old_start},{self.old_count} +{self.new_start},{self.new_count} @@"
        return f"{head} {self.section}" if self.section else head


@dataclass
class DiffFile:
    path: str
    status: str = "modified"
    additions: int = 0
    deletions: int = 0
    hunks: list[Hunk] = field(default_factory=list)
    deletions_known: bool = True
    """False for a write over a file with no diff: what it removed is not known (shown "−?")."""

    @property
    def counts(self) -> str:
        return f"+{self.additions} −{self.deletions if self.deletions_known else '?'}"


_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")


def diff_text(text: str) -> str:
    """One diff line made visible (strict: joiners, odd spaces, ``\r`` shown), tabs as 4 spaces."""
    return reveal(text.replace("\t", "    "), strict=True)


def parse_patch(patch: str) -> list[Hunk]:
    """Hunks of a unified patch with old/new line numbers; file headers are skipped."""
    hunks: list[Hunk] = []
    current: Hunk | None = None
    old_no = new_no = 0
    for raw in patch.replace("\r\n", "\n").split("\n"):
        match = _HUNK_RE.match(raw)
        if match:
            old_start, new_start = int(match.group(1)), int(match.group(3))
            current = Hunk(
                old_start, int(match.group(2) or 1), new_start, int(match.group(4) or 1),
                one_line(match.group(5), 80),
            )
            hunks.append(current)
            old_no, new_no = old_start, new_start
            continue
        if current is None:
            continue  # Index:, ===, ---, +++ headers
        if raw.startswith("+"):
            current.lines.append(DiffLine("added", diff_text(raw[1:]), None, new_no))
            new_no += 1
        elif raw.startswith("-"):
            current.lines.append(DiffLine("removed", diff_text(raw[1:]), old_no, None))
            old_no += 1
        elif raw.startswith(" "):
            current.lines.append(DiffLine("context", diff_text(raw[1:]), old_no, new_no))
            old_no += 1
            new_no += 1
        elif raw.startswith("\\"):
            current.lines.append(DiffLine("note", diff_text(raw[1:].strip())))
        elif raw == "":
            continue  # trailing newline of the patch
        else:
            current = None  # another file's header or garbage: wait for the next @@
    return hunks


def added_file(path: str, content: str) -> DiffFile:
    """A written file shown as an all-added diff (1.18 ``write`` has no diff)."""
    lines = content.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    hunk = Hunk(0, 0, 1, len(lines))
    hunk.lines = [DiffLine("added", diff_text(t), None, i) for i, t in enumerate(lines, 1)]
    return DiffFile(one_line(reveal(path, strict=True), 300), "added", len(lines), 0, [hunk] if lines else [])


def split_pairs(hunk: Hunk) -> list[tuple[DiffLine | None, DiffLine | None]]:
    """Side-by-side rows: context on both sides, a run of removals paired with the following
    run of additions, the shorter side padded with ``None``."""
    rows: list[tuple[DiffLine | None, DiffLine | None]] = []
    removed: list[DiffLine] = []
    added: list[DiffLine] = []

    def flush() -> None:
        for index in range(max(len(removed), len(added))):
            rows.append((
                removed[index] if index < len(removed) else None,
                added[index] if index < len(added) else None,
            ))
        removed.clear()
        added.clear()

    for line in hunk.lines:
        if line.kind == "removed":
            if added:
                flush()
            removed.append(line)
        elif line.kind == "added":
            added.append(line)
        else:
            flush()
            rows.append((line, line))
    flush()
    return rows
