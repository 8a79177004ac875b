"""Pure async I/O for the OpenCode server: REST client, event stream, local server. No Textual."""

from tui.client.errors import (
    ApiError,
    BadRequest,
    BadResponse,
    Conflict,
    NotFound,
    NotSupported,
    OctuiError,
    RequestTimeout,
    RouteMissing,
    ServerUnreachable,
    Unauthorized,
    Unavailable,
)
from tui.client.http import OpenCodeClient
from tui.client.local import BinaryNotFound, LocalServer, LocalServerError, LocalServerInfo, ServerStartFailed
from tui.client.stream import EventStream, StreamState

__all__ = [
    "ApiError",
    "BadRequest",
    "BadResponse",
    "BinaryNotFound",
    "Conflict",
    "EventStream",
    "LocalServer",
    "LocalServerError",
    "LocalServerInfo",
    "NotFound",
    "NotSupported",
    "OctuiError",
    "OpenCodeClient",
    "RequestTimeout",
    "RouteMissing",
    "ServerStartFailed",
    "ServerUnreachable",
    "StreamState",
    "Unauthorized",
    "Unavailable",
]
