"""Provides ``DialogApp``: a tiny harness that pushes one dialog screen and records its result."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

STYLES = Path(__file__).resolve().parents[2] / "styles"

_UNSET = object()


class DialogApp(App[None]):
    """Pushes ``make_screen()`` on mount; ``result`` holds what the screen dismissed with."""

    CSS_PATH = [STYLES / "dialogs.tcss", STYLES / "inbox.tcss"]

    def __init__(self, make_screen: Callable[[], Screen[Any]]) -> None:
        super().__init__()
        self.make_screen = make_screen
        self.result: Any = _UNSET
        self.animation_level = "none"

    @property
    def answered(self) -> bool:
        return self.result is not _UNSET

    def compose(self) -> ComposeResult:
        yield Static("octui · dialog harness", id="backdrop")

    def on_mount(self) -> None:
        self.push_screen(self.make_screen(), self._record)

    def _record(self, result: Any) -> None:
        self.result = result
