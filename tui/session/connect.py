"""Start-up pieces the app and the CLI need, through the session layer (only it imports the client).

Starting a private server, finding the user's registered one, the client for one-shot commands
(``--export``, the health check) and the stream's connection state the status line shows.
"""

from __future__ import annotations

from tui.client.http import OpenCodeClient
from tui.client.local import BinaryNotFound, LocalServer, find_binary
from tui.client.service import Discovery, discover
from tui.client.stream import StreamState

__all__ = ["BinaryNotFound", "Discovery", "LocalServer", "OpenCodeClient", "StreamState", "discover",
           "find_binary"]
