"""Typed errors of the client layer, each with one clear human line as ``str(err)``.

Nothing here ever holds the password: URLs are the display form (no userinfo) and server
bodies are kept as the server sent them (the server never echoes credentials).
"""

from __future__ import annotations

from typing import Any


class OctuiError(Exception):
    """Base of every error the client layer raises on purpose."""


class ServerUnreachable(OctuiError):
    """No HTTP exchange happened: refused, DNS failure, connect timeout, connection lost."""

    def __init__(self, url: str, reason: str) -> None:
        self.url = url
        self.reason = reason
        super().__init__(f"cannot reach {url}: {reason}")


class RequestTimeout(OctuiError):
    """Connected, but the server did not answer in time."""

    def __init__(self, url: str, method: str, path: str, seconds: float | None) -> None:
        self.url = url
        self.method = method
        self.path = path
        self.seconds = seconds
        after = f" after {seconds:g} s" if seconds else ""
        super().__init__(f"{url} did not answer {method} {path}{after}")


class BadResponse(OctuiError):
    """The server answered 2xx with something that is not the documented shape."""

    def __init__(self, url: str, method: str, path: str, problem: str) -> None:
        self.url = url
        self.method = method
        self.path = path
        self.problem = problem
        super().__init__(f"unexpected answer from {url} to {method} {path}: {problem}")


class NotSupported(OctuiError):
    """The connected server's dialect has no such operation."""

    def __init__(self, operation: str, dialect_label: str) -> None:
        self.operation = operation
        self.dialect_label = dialect_label
        super().__init__(f"{operation} is not available on this server ({dialect_label})")


class ApiError(OctuiError):
    """A non-2xx answer. ``tag`` is the server's ``_tag`` (PROTOCOL.md §9) or ``HTTP<status>``."""

    def __init__(
        self,
        status: int,
        tag: str,
        message: str,
        body: Any = None,
        *,
        url: str = "",
        method: str = "",
        path: str = "",
    ) -> None:
        self.status = status
        self.tag = tag
        self.message = message
        self.body = body
        self.url = url
        self.method = method
        self.path = path
        super().__init__(self._line())

    def _line(self) -> str:
        where = f"{self.method} {self.path}".strip()
        what = self.message or self.tag
        prefix = f"{where} failed: " if where else ""
        return f"{prefix}{what} ({self.status} {self.tag})"

    def is_tag(self, *tags: str) -> bool:
        return self.tag in tags

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status}, tag={self.tag!r}, message={self.message!r})"


class BadRequest(ApiError):
    """400: validation failed (``InvalidRequestError``, ``InvalidCursorError`` ...)."""


class Unauthorized(ApiError):
    """401: missing or wrong credentials."""

    def __init__(self, *args: Any, password_sent: bool = False, username: str | None = None,
                 **kwargs: Any) -> None:
        self.password_sent = password_sent
        self.username = username
        super().__init__(*args, **kwargs)

    def _line(self) -> str:
        who = f" as user {self.username!r}" if self.username else ""
        hint = ("set OPENCODE_SERVER_PASSWORD (or --password-file; the user is "
                "OPENCODE_SERVER_USERNAME, default 'opencode')")
        if self.password_sent:
            return f"wrong password for {self.url}{who} ({self.status} Unauthorized): {hint}"
        return f"{self.url} needs a password ({self.status} Unauthorized): {hint}"


class NotFound(ApiError):
    """404: ``SessionNotFoundError``, ``MessageNotFoundError`` ..."""


class RouteMissing(ApiError):
    """404 with an empty body: the server has no such route (a capability miss of this server's
    generation), unlike a missing entity, which answers 404 with ``{_tag, message}``."""

    def _line(self) -> str:
        where = f"{self.method} {self.path}".strip() or "this request"
        return f"the server has no route {where} (404, empty body): its generation does not offer it"


class Conflict(ApiError):
    """409: ``ConflictError``, ``SessionBusyError``, ``FormAlreadySettledError``."""


class Unavailable(ApiError):
    """503: ``ServiceUnavailableError`` (catalog not ready, route not available yet)."""


_BY_STATUS: dict[int, type[ApiError]] = {
    400: BadRequest,
    404: NotFound,
    409: Conflict,
    503: Unavailable,
}


def api_error(
    status: int,
    body: Any,
    *,
    url: str,
    method: str,
    path: str,
    password_sent: bool = False,
    username: str | None = None,
) -> ApiError:
    """Build the typed error for a non-2xx answer from its (maybe JSON) body."""
    tag = f"HTTP{status}"
    message = ""
    if isinstance(body, dict):
        if isinstance(body.get("_tag"), str):
            tag = body["_tag"]
        if isinstance(body.get("message"), str):
            message = body["message"]
        elif isinstance(body.get("data"), dict) and isinstance(body["data"].get("message"), str):
            message = body["data"]["message"]  # WorktreeError {name, data:{message}}
    elif isinstance(body, str):
        message = body.strip().splitlines()[0][:200] if body.strip() else ""
    if status == 401:
        return Unauthorized(
            status, tag, message, body, url=url, method=method, path=path, password_sent=password_sent,
            username=username,
        )
    if status == 404 and (body is None or (isinstance(body, str) and not body.strip())):
        return RouteMissing(status, "HTTP404", "", body, url=url, method=method, path=path)
    cls = _BY_STATUS.get(status, ApiError)
    return cls(status, tag, message, body, url=url, method=method, path=path)
