"""The transport half of the client: auth, timeouts, httpx errors -> typed errors, envelopes.

``OpenCodeClient`` (http.py) adds one method per route on top of this.
"""

from __future__ import annotations

import json
import ssl
import urllib.request
from functools import cache
from typing import Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

import httpx

from tui.client.errors import BadResponse, OctuiError, RequestTimeout, ServerUnreachable, api_error

_NO_BODY: Any = object()
_ERROR_BODY_MAX = 64 * 1024


def split_base_url(base_url: str) -> tuple[str, str | None, str | None]:
    """Return (url without userinfo, username, password) so credentials never reach a display string."""
    raw = base_url.strip()
    if "://" not in raw:
        raw = "http://" + raw
    parts = urlsplit(raw)
    user = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    clean = urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))
    return clean, user, password


def seg(value: str) -> str:
    """One path segment, escaped (ids are server-minted, but never trust them into a URL)."""
    return quote(str(value), safe="")


def query(**items: Any) -> dict[str, str]:
    """Query parameters as strings (the spec declares even numbers as strings); None is dropped."""
    out: dict[str, str] = {}
    for key, value in items.items():
        if value is None:
            continue
        if isinstance(value, bool):
            out[key] = "true" if value else "false"
        else:
            out[key] = str(value)
    return out


def location_query(directory: str | None, workspace: str | None = None) -> dict[str, str]:
    """deepObject style ``location[directory]=...`` (PROTOCOL.md §3)."""
    out: dict[str, str] = {}
    if directory:
        out["location[directory]"] = directory
    if workspace:
        out["location[workspace]"] = workspace
    return out


def _connect_reason(exc: Exception) -> str:
    text = str(exc).lower()
    if isinstance(exc, httpx.ConnectTimeout):
        return "timed out connecting"
    if "refused" in text:
        return "connection refused"
    dns = ("name or service", "nodename", "getaddrinfo", "name resolution", "no address")
    if any(s in text for s in dns):
        return "host not found"
    if "unreachable" in text:
        return "network unreachable"
    detail = str(exc).strip()
    return detail[:160] if detail else type(exc).__name__


@cache
def tls_context() -> ssl.SSLContext:
    """One TLS context for every ``ClientCore`` of the process (the start-up probe's and the
    app's): httpx builds (and loads the CA bundle for) a new one per client otherwise, ~20 ms
    each, paid again before the first frame."""
    return httpx.create_ssl_context()


@cache
def _trusting_nothing() -> ssl.SSLContext:
    # Verifies like any other (certificates required, host names checked) but trusts no
    # authority: a TLS connection through it fails, it never goes through unverified.
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def tls_context_for(base_url: str) -> ssl.SSLContext:
    """The context a client of ``base_url`` is built with: the CA bundle (~1.3 MB of memory, ~20 ms)
    only where TLS can be spoken. An ``http://`` server reached with no proxy never does (the
    client follows no redirects); a proxy may be ``https://`` itself."""
    if urlsplit(base_url).scheme == "http" and not urllib.request.getproxies():
        return _trusting_nothing()
    return tls_context()


class ClientCore:
    """Owns the ``httpx.AsyncClient``. The password lives only inside httpx's BasicAuth."""

    def __init__(
        self,
        base_url: str,
        *,
        username: str = "opencode",
        password: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 10.0,
    ) -> None:
        clean, url_user, url_password = split_base_url(base_url)
        if password is None and url_password:
            password = url_password
            username = url_user or username
        self._base_url = clean
        self._username = username
        self._has_password = bool(password)
        self.timeout = timeout
        auth = httpx.BasicAuth(username, password) if password else None
        self.uses_own_transport = transport is None  # real network (not a test's or the demo's)
        self.http = httpx.AsyncClient(
            base_url=clean,
            auth=auth,
            transport=transport,
            timeout=httpx.Timeout(timeout),
            follow_redirects=False,
            verify=tls_context_for(clean),
        )

    @property
    def display_url(self) -> str:
        return self._base_url

    @property
    def has_password(self) -> bool:
        return self._has_password

    def __repr__(self) -> str:
        auth = "password set" if self._has_password else "no password"
        return f"<{type(self).__name__} {self._base_url} user={self._username!r} {auth}>"

    async def aclose(self) -> None:
        await self.http.aclose()

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, str] | None = None,
        body: Any = _NO_BODY,
        timeout: float | None = None,
    ) -> Any:
        """One call: JSON (or None for an empty 2xx) back, or a typed error."""
        kwargs: dict[str, Any] = {}
        if params:
            kwargs["params"] = params
        if body is not _NO_BODY:
            kwargs["json"] = body
        seconds = timeout if timeout is not None else self.timeout
        try:
            resp = await self.http.request(method, path, timeout=httpx.Timeout(seconds), **kwargs)
        except httpx.TransportError as exc:
            raise self.transport_error(exc, method, path, seconds) from exc
        if resp.is_success:
            if resp.status_code == 204 or not resp.content:
                return None
            try:
                return resp.json()
            except ValueError as exc:
                raise BadResponse(self._base_url, method, path, "body is not JSON") from exc
        raise self.error_for(resp.status_code, resp.content[:_ERROR_BODY_MAX], method, path)

    def transport_error(self, exc: httpx.TransportError, method: str, path: str,
                        seconds: float) -> OctuiError:
        """The typed error for a call that got no answer: unreachable, timed out, or cut."""
        if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)):
            return ServerUnreachable(self._base_url, _connect_reason(exc))
        if isinstance(exc, httpx.TimeoutException):
            return RequestTimeout(self._base_url, method, path, seconds)
        return ServerUnreachable(self._base_url, f"connection lost ({type(exc).__name__})")

    def error_for(self, status: int, content: bytes, method: str, path: str) -> Exception:
        body: Any = None
        if content:
            text = content.decode("utf-8", "replace")
            try:
                body = json.loads(text)
            except ValueError:
                body = text
        return api_error(
            status, body, url=self._base_url, method=method, path=path, password_sent=self._has_password,
            username=self._username,
        )

    # Envelope helpers ----------------------------------------------------------------------

    def data(self, body: Any, method: str, path: str) -> Any:
        """``{data: ...}`` (session-scoped) and ``{location, data}`` (location-scoped) reads."""
        if isinstance(body, dict) and "data" in body:
            return body["data"]
        raise BadResponse(self._base_url, method, path, "no 'data' field")

    def data_list(self, body: Any, method: str, path: str) -> list[Any]:
        value = self.data(body, method, path)
        if not isinstance(value, list):
            raise BadResponse(self._base_url, method, path, "'data' is not a list")
        return value

    def page(self, body: Any, method: str, path: str) -> tuple[list[Any], str | None]:
        """``{data: [...], cursor: {next, previous}}``; a missing cursor means no more pages."""
        items = self.data_list(body, method, path)
        cursor = body.get("cursor") if isinstance(body, dict) else None
        nxt = cursor.get("next") if isinstance(cursor, dict) else None
        return items, nxt if isinstance(nxt, str) and nxt else None

    async def get_data(self, path: str, params: dict[str, str] | None = None) -> Any:
        return self.data(await self.request("GET", path, params=params), "GET", path)

    async def get_list(self, path: str, params: dict[str, str] | None = None) -> list[Any]:
        return self.data_list(await self.request("GET", path, params=params), "GET", path)

    async def post(self, path: str, body: Any = _NO_BODY, params: dict[str, str] | None = None) -> Any:
        return await self.request("POST", path, body=body, params=params)
