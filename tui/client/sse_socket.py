"""``GET /api/event`` over a bare asyncio connection: the event stream's bytes for a fraction of
the CPU of httpx.

An answer arrives as thousands of small frames, each its own HTTP chunk. Through httpx, httpcore,
anyio and h11, every chunk costs ~0.25 ms of CPU more than it needs (measured against the real
server, stream to frame callback: 0.56 ms per delta through httpx, 0.30 ms this way): a sixth of a
paced answer's whole cost. The request
is still built by the client's own ``httpx.AsyncClient`` (base URL, headers, auth), and only
sent and read here: HTTP/1.1, chunked or close-delimited, plain or TLS (the client's TLS
context). ``EventStream`` uses this only when nothing stands between the client and the server:
the client's own network transport (not a test's or the demo's) and no proxy in the
environment; otherwise it reads through httpx as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import httpx

HEAD_MAX = 64 * 1024  # status line and headers
SIZE_LINE_MAX = 1024  # one chunk-size line (hex size and extensions)
CLOSE_WAIT_S = 1.0


class StreamBroke(Exception):
    """The connection ended or broke the HTTP framing mid-stream."""


def direct_route(client: httpx.AsyncClient, uses_own_transport: bool) -> bool:
    """Whether requests of ``client`` go straight to the server (no proxy, no test transport)."""
    scheme = client.base_url.scheme
    return uses_own_transport and scheme in ("http", "https") and not urllib.request.getproxies()


@dataclass
class EventResponse:
    """The answer to the request: status, headers, and its body as chunks of bytes."""

    status: int
    headers: dict[str, str]
    _reader: asyncio.StreamReader
    _writer: asyncio.StreamWriter
    _closed: bool = field(default=False)

    async def chunks(self) -> AsyncIterator[bytes]:
        """The body, as it arrives (de-chunked); ends at the body's end or the connection's."""
        reader = self._reader
        if "chunked" not in self.headers.get("transfer-encoding", "").lower():
            while data := await reader.read(65536):
                yield data
            return
        decoder = _Chunked()
        while data := await reader.read(65536):
            pieces, done = decoder.feed(data)
            for piece in pieces:
                yield piece
            if done:
                return
        raise StreamBroke("the connection closed inside a chunked body")

    async def body(self, limit: int) -> bytes:
        """Up to ``limit`` bytes of the body (an error's explanation)."""
        out = bytearray()
        with contextlib.suppress(StreamBroke, OSError):
            async for chunk in self.chunks():
                out += chunk
                if len(out) >= limit:
                    break
        return bytes(out[:limit])

    async def close(self) -> None:
        """Closes the connection; waits for it at most a second (a TLS peer that never answers
        the close must not hold up a reconnect)."""
        if not self._closed:
            self._closed = True
            self._writer.close()
            with contextlib.suppress(OSError, ssl.SSLError, TimeoutError):
                await asyncio.wait_for(self._writer.wait_closed(), CLOSE_WAIT_S)


class _Chunked:
    """HTTP/1.1 chunked transfer decoding, fed as bytes arrive."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._left = -1  # bytes of the current chunk still to come; -1: a size line is next
        self._crlf = False  # the CRLF after a chunk's data is next

    def feed(self, data: bytes) -> tuple[list[bytes], bool]:
        """The data in ``data`` (with what was left over), and whether the last chunk came."""
        out: list[bytes] = []
        buf = self._buf
        buf += data
        while buf:
            if self._crlf:
                if len(buf) < 2:
                    break
                if buf[:2] != b"\r\n":
                    raise StreamBroke("a chunk did not end with CRLF")
                del buf[:2]
                self._crlf = False
                continue
            if self._left < 0:
                end = buf.find(b"\r\n")
                if end < 0:
                    if len(buf) > SIZE_LINE_MAX:
                        raise StreamBroke("a chunk-size line is too long")
                    break
                size = bytes(buf[:end]).split(b";", 1)[0].strip()
                del buf[:end + 2]
                try:
                    self._left = int(size, 16)
                except ValueError:
                    raise StreamBroke("a chunk size is not hexadecimal") from None
                if self._left == 0:
                    return out, True  # trailers, if any, are not read
                continue
            take = min(self._left, len(buf))
            out.append(bytes(buf[:take]))
            del buf[:take]
            self._left -= take
            if self._left == 0:
                self._left = -1
                self._crlf = True
        return out, False


async def open_event_stream(client: httpx.AsyncClient, path: str, tls: ssl.SSLContext) -> EventResponse:
    """Send ``GET path`` as ``client`` would (its URL, headers and auth) and read the answer's head
    (``tls``: the context for an ``https`` URL).

    Raises ``OSError`` (refused, reset, TLS) and ``StreamBroke`` (not an HTTP answer)."""
    request = client.build_request(
        "GET", path, headers={"Accept": "text/event-stream", "Cache-Control": "no-store",
                              "Accept-Encoding": "identity", "Connection": "close"})
    auth = client.auth
    if auth is not None:
        request = next(auth.auth_flow(request))  # Basic auth: one step, which adds the header
    url = request.url
    secure = url.scheme == "https"
    host = url.host
    port = url.port or (443 if secure else 80)
    reader, writer = await asyncio.open_connection(
        host, port, ssl=tls if secure else None, server_hostname=host if secure else None, limit=HEAD_MAX)
    try:
        target = url.raw_path.decode("ascii")
        head = [f"GET {target} HTTP/1.1".encode("ascii")]
        head.extend(name + b": " + value for name, value in request.headers.raw)
        writer.write(b"\r\n".join(head) + b"\r\n\r\n")
        await writer.drain()
        try:
            raw = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as exc:
            raise StreamBroke("the server closed the connection without an answer") from exc
        except asyncio.LimitOverrunError as exc:
            raise StreamBroke("the answer's headers are too long") from exc
        lines = raw.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
            raise StreamBroke("the answer is not HTTP/1.x")
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, colon, value = line.partition(":")
            if colon:
                key = name.strip().lower()
                headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
        return EventResponse(int(parts[1]), headers, reader, writer)
    except BaseException:
        writer.close()
        raise
