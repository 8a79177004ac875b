"""Prompts admitted to the session but not yet delivered (steered or queued)."""

from __future__ import annotations

from textual.widgets import Static

from tui.sanitize import one_line
from tui.state.transcript import PendingInput


class PendingInputs(Static):
    """One line per pending prompt, hidden when there are none."""

    DEFAULT_CLASSES = "pending-inputs"

    def show_items(self, items: list[PendingInput]) -> None:
        self.display = bool(items)
        lines = [f"{'⇥ steer' if p.delivery == 'steer' else '⏸ queued'}  {one_line(p.text, 100)}"
                 for p in items]
        self.update("\n".join(lines))
