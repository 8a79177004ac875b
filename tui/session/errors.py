"""The errors a command of the session service can raise, for the UI to catch and word."""

from __future__ import annotations

from tui.client.errors import Conflict, NotFound, NotSupported, OctuiError, Unauthorized, Unavailable

__all__ = ["Conflict", "NotFound", "NotSupported", "OctuiError", "Unauthorized", "Unavailable"]
