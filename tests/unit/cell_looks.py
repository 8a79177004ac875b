"""What a terminal cell shows, for comparing screens replayed in pyte."""

from __future__ import annotations

from typing import Any


def look(cell: Any) -> Any:
    """A blank with no reverse, underline, strike or blink shows only its background: its
    foreground, bold and italics are not seen (the frame writer leaves those as they were)."""
    if cell.data == " " and not (cell.reverse or cell.underscore or cell.strikethrough or cell.blink):
        return cell._replace(fg="default", bold=False, italics=False)
    return cell
