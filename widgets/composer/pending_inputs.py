"""Prompts admitted to the session but not yet delivered (steered or queued).

Focus the list (Tab) to manage them: ``x`` cancels one, ``s`` switches it between steer (joins
the running turn) and queue (runs after it), where the server's generation can do that. Where it
cannot (the 1.18 and 2.0 previews), the keys say so (QA: they did nothing, silently). The screen
sends the change; the server's events update the list.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.state.transcript import PendingInput
from widgets.plain import plain_line, toast

CANNOT_CANCEL = "This server cannot cancel a prompt once it is sent."
CANNOT_REDELIVER = "This server cannot move a sent prompt between steer and queue."


class PendingInputs(OptionList):
    """One row per pending prompt, hidden when there are none."""

    DEFAULT_CLASSES = "pending-inputs"
    BINDINGS = [
        Binding("x,delete", "cancel_item", "Cancel prompt"),
        Binding("s", "toggle_delivery", "Steer/queue"),
    ]

    @dataclass
    class Cancel(Message):
        inbox_id: str

    @dataclass
    class ChangeDelivery(Message):
        inbox_id: str
        delivery: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, compact=True)
        self._items: list[PendingInput] = []
        self.can_cancel = True
        self.can_redeliver = True

    def show_items(self, items: list[PendingInput], *, can_cancel: bool = True,
                   can_redeliver: bool = True) -> None:
        """Show ``items``; ``can_cancel``/``can_redeliver``: what the server lets a client do."""
        if (can_cancel, can_redeliver) != (self.can_cancel, self.can_redeliver):
            self.can_cancel, self.can_redeliver = can_cancel, can_redeliver
        self.display = bool(items)
        if [(p.id, p.delivery, p.text) for p in items] == \
                [(p.id, p.delivery, p.text) for p in self._items]:
            return
        highlighted = self.highlighted
        self._items = list(items)
        self.clear_options()
        self.add_options([Option(self._label(p), id=p.id) for p in items])
        if items:
            self.highlighted = min(highlighted or 0, len(items) - 1)

    @staticmethod
    def _label(item: PendingInput) -> Content:
        mark = "⇥ steer " if item.delivery == "steer" else "⏸ queued"
        text = item.text or ("⇣ compaction (summarise the session)" if item.kind == "compaction" else "")
        if item.kind == "synthetic" and item.metadata.get("source") == "subagent":
            # A background subagent's report, waiting to wake this session: name it, not its XML.
            child = item.description or item.metadata.get("childID") or ""
            return Content.assemble(mark, "  ⚙ subagent finished: ", plain_line(str(child), 80))
        return Content.assemble(mark, "  ", plain_line(text, 100))

    def _current(self) -> PendingInput | None:
        index = self.highlighted
        return self._items[index] if index is not None and 0 <= index < len(self._items) else None

    def action_cancel_item(self) -> None:
        item = self._current()
        if item is not None and not self.can_cancel:
            toast(self, CANNOT_CANCEL, severity="warning", timeout=5)
        elif item is not None:
            self.post_message(self.Cancel(item.id))

    def action_toggle_delivery(self) -> None:
        item = self._current()
        if item is not None and not self.can_redeliver:
            toast(self, CANNOT_REDELIVER, severity="warning", timeout=5)
        elif item is not None:
            self.post_message(self.ChangeDelivery(item.id, "queue" if item.delivery == "steer" else "steer"))
