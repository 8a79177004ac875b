"""A banner that appears only while the event stream is down."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from widgets.plain import plain_line


class ConnectionBanner(Static):
    """Says plainly that the view may be stale and what octui is doing about it."""

    DEFAULT_CLASSES = "connection-banner"

    def show_state(self, phase: str, attempt: int = 0, error: str | None = None) -> None:
        if phase == "connected":
            self.display = False
            return
        self.display = True
        if phase == "unauthorized":
            self.update("✗ The server rejected the password: asking again every few seconds. If it changed, "
                        "restart octui with the new one (OPENCODE_SERVER_PASSWORD or --password-file).")
        elif phase == "stopped":
            self.update("✗ Disconnected.")
        elif phase == "starting":
            self.update("◌ Starting a local OpenCode server (opencode serve; 2.x may take a minute)…")
        elif phase == "connecting":
            self.update("◌ Connecting to the server…")
        else:
            reason = Content.assemble(" (", plain_line(error, 200), ")") if error else Content("")
            self.update(Content.assemble(
                "◌ Connection lost", reason, f" — reconnecting (attempt {attempt})… ",
                "Your draft is kept; nothing is lost."))
