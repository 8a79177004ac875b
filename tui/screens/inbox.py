"""Provides ``InboxScreen``: every pending ask of every session, with open and jump-to."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.state.asks import AskSummary, describe_ask
from tui.state.transcript import Ask, ToolCall
from tui.text.sanitize import one_line
from widgets.plain import plain, plain_line

STYLES = Path(__file__).resolve().parent.parent.parent / "styles"

InboxEntry = tuple[Ask, str, ToolCall | None]
"""An ask, the title of the session it belongs to, and the tool call it concerns (if known)."""


@dataclass(frozen=True)
class InboxChoice:
    """What the user chose: ``open`` the ask's dialog, or ``jump`` to its session."""

    action: Literal["open", "jump"]
    ask_id: str
    session_id: str


HISTORY_SHOWN = 8

_KIND_MARK = {"permission": ("⚑", "$text-warning"), "question": ("?", "$text-accent"),
              "form": ("≡", "$text-accent")}


class InboxScreen(ModalScreen[InboxChoice | None]):
    """Asks grouped by session (in the order given). Enter opens, ``g`` jumps, Esc closes."""

    CSS_PATH = str(STYLES / "inbox.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "choose('open')", "Open", show=False),
        Binding("g", "choose('jump')", "Go to session"),
        Binding("escape", "close", "Close"),
    ]

    def __init__(self, asks: list[InboxEntry], history: list[str] | None = None) -> None:
        super().__init__()
        self.history = list(history or [])[:HISTORY_SHOWN]  # auto-answered asks, newest first
        self.summaries: list[tuple[AskSummary, str]] = [
            (describe_ask(ask, tool), title) for ask, title, tool in asks
        ]

    def compose(self) -> ComposeResult:
        count = len(self.summaries)
        sessions = len({s.session_id for s, _ in self.summaries})
        with Vertical(id="inbox"):
            heading = Content.assemble(
                ("Inbox", "bold"),
                (f" · {count} pending" + (f" in {sessions} sessions" if sessions > 1 else ""),
                 "dim"),
            )
            yield Static(heading, id="inbox-title")
            if count:
                yield OptionList(*self._options(), id="inbox-list")
            else:
                yield Static("Nothing is waiting for you.", id="inbox-empty")
            if self.history:
                yield Static(Content.assemble(("Auto-answered by the permission mode", "bold"),
                                              (f" · {len(self.history)} recent", "dim")),
                             id="inbox-history-title")
                yield Static(Content("\n".join(one_line(line, 94) for line in self.history)).stylize("dim"),
                             id="inbox-history")
            yield Static("enter open · g go to session · ↑↓ move · esc close", classes="dialog-hint")

    def _options(self) -> list[Option]:
        groups: dict[str, list[tuple[AskSummary, str]]] = {}
        for summary, title in self.summaries:
            groups.setdefault(summary.session_id, []).append((summary, title))
        options: list[Option] = []
        for session_id, rows in groups.items():
            heading = plain_line(rows[0][1] or session_id, 70, "bold $text-primary")
            options.append(Option(Content.assemble(heading, (f"  ({len(rows)})", "dim")),
                                  id=f"session:{session_id}", disabled=True))
            for summary, _ in rows:
                mark, style = _KIND_MARK[summary.kind]
                prompt = Content.assemble("  ", plain(mark, style), " ", plain(summary.title))
                options.append(Option(prompt, id=f"ask:{summary.ask_id}"))
        return options

    def on_mount(self) -> None:
        for box in self.query("#inbox-list").results(OptionList):
            box.focus()
            box.action_first()

    def _highlighted(self) -> AskSummary | None:
        for box in self.query("#inbox-list").results(OptionList):
            if box.highlighted is None:
                return None
            option_id = box.get_option_at_index(box.highlighted).id or ""
            ask_id = option_id.removeprefix("ask:")
            return next((s for s, _ in self.summaries if s.ask_id == ask_id), None)
        return None

    def action_choose(self, action: Literal["open", "jump"]) -> None:
        summary = self._highlighted()
        if summary is not None:
            self.dismiss(InboxChoice(action, summary.ask_id, summary.session_id))

    def action_close(self) -> None:
        self.dismiss(None)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_choose("open")
