"""The event stream's direct route (``tui/client/sse_socket.py``) against a local socket server:
what it sends, HTTP/1.1 framing however the bytes are split, and broken answers."""

from __future__ import annotations

import asyncio
import base64
import shutil
import ssl
import subprocess
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest

from tui.client.core import tls_context, tls_context_for
from tui.client.http import OpenCodeClient
from tui.client.sse_socket import StreamBroke, _Chunked, direct_route, open_event_stream
from tui.client.stream import EventStream, StreamState

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@asynccontextmanager
async def serving(handler: Handler) -> AsyncIterator[str]:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.close()
        await server.wait_closed()


def answer(head: bytes, parts: list[bytes], seen: list[bytes] | None = None) -> Handler:
    """A server that reads the request, then writes ``head`` and ``parts`` one write each."""
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request = await reader.readuntil(b"\r\n\r\n")
        if seen is not None:
            seen.append(request)
        writer.write(head)
        for part in parts:
            writer.write(part)
            await writer.drain()
            await asyncio.sleep(0)
        writer.close()
    return handle


def chunked(body: bytes, size: int) -> bytes:
    out = b""
    for start in range(0, len(body), size):
        piece = body[start:start + size]
        out += f"{len(piece):x};ext=1\r\n".encode() + piece + b"\r\n"
    return out + b"0\r\nX-Trailer: 1\r\n\r\n"


SSE_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
BODY = b"".join(f'data: {{"type":"x","n":{n}}}\n\n'.encode() for n in range(50))


@pytest.mark.parametrize("split", [1, 2, 3, 7, 64, 10_000])
async def test_a_chunked_body_comes_out_whole_however_it_is_split(split: int) -> None:
    wire = chunked(BODY, 37)
    parts = [wire[i:i + split] for i in range(0, len(wire), split)]
    seen: list[bytes] = []
    async with serving(answer(SSE_HEAD, parts, seen)) as url:
        client = httpx.AsyncClient(base_url=url + "/prefix", auth=httpx.BasicAuth("opencode", "pw"))
        response = await open_event_stream(client, "/api/event", tls_context())
        assert response.status == 200 and response.headers["content-type"] == "text/event-stream"
        body = b"".join([chunk async for chunk in response.chunks()])
        await response.close()
        await client.aclose()
    assert body == BODY
    request = seen[0].decode()
    assert request.startswith("GET /prefix/api/event HTTP/1.1\r\n")
    lowered = request.lower()
    assert "authorization: basic " + base64.b64encode(b"opencode:pw").decode().lower() in lowered
    assert "accept: text/event-stream" in lowered and "accept-encoding: identity" in lowered


async def test_a_body_without_chunking_runs_to_the_connection_end() -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
    async with serving(answer(head, [BODY[:10], BODY[10:]])) as url:
        client = httpx.AsyncClient(base_url=url)
        response = await open_event_stream(client, "/api/event", tls_context())
        assert b"".join([chunk async for chunk in response.chunks()]) == BODY
        await response.close()
        await client.aclose()


async def test_broken_answers_are_stream_broke() -> None:
    async with serving(answer(b"SSH-2.0-nope\r\n\r\n", [])) as url:
        async with httpx.AsyncClient(base_url=url) as client:
            with pytest.raises(StreamBroke):
                await open_event_stream(client, "/api/event", tls_context())
    cut = chunked(BODY, 37)[:100]  # the connection ends inside a chunk
    async with serving(answer(SSE_HEAD, [cut])) as url:
        async with httpx.AsyncClient(base_url=url) as client:
            response = await open_event_stream(client, "/api/event", tls_context())
            with pytest.raises(StreamBroke):
                async for _chunk in response.chunks():
                    pass
            await response.close()
    for bad in (b"zz\r\n", b"5\r\nhelloXX", b"1" * 2000):
        with pytest.raises(StreamBroke):
            _Chunked().feed(bad)


def test_the_direct_route_is_taken_only_with_nothing_in_between(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    own = OpenCodeClient("http://127.0.0.1:9")
    mock = httpx.MockTransport(lambda request: httpx.Response(200))
    mocked = OpenCodeClient("http://127.0.0.1:9", transport=mock)
    assert direct_route(own.http, own.uses_own_transport)
    assert not direct_route(mocked.http, mocked.uses_own_transport)  # tests', the demo's
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    assert not direct_route(own.http, own.uses_own_transport)  # a proxy: httpx knows the way


async def test_event_stream_over_the_direct_route(monkeypatch: pytest.MonkeyPatch) -> None:
    """Frames, then the server's close; a 401 is fatal, with the server's reason."""
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    frames = [b'data: {"type":"server.connected","data":{}}\n\n', b'data: {"type":"x","data":{"n":1}}\n\n']
    async with serving(answer(SSE_HEAD, [chunked(b"".join(frames), 9)])) as url:
        got: list[dict[str, object]] = []
        states: list[StreamState] = []
        streams: list[EventStream] = []

        def frame(obj: dict[str, object]) -> None:
            got.append(obj)
            if len(got) == 2:
                streams[0].stop()
        client = OpenCodeClient(url, password="pw")
        streams.append(EventStream(client, frame, states.append, backoff_initial=5.0))
        await asyncio.wait_for(streams[0].run(), 10)
        await client.aclose()
    assert [obj["type"] for obj in got] == ["server.connected", "x"]
    unauthorized = b"HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\nContent-Length: 12\r\n\r\n"
    async with serving(answer(unauthorized, [b"bad password"])) as url:
        states = []
        client = OpenCodeClient(url, password="wrong")

        def state(new: StreamState) -> None:
            states.append(new)
            if new.phase == "unauthorized":
                stream.stop()  # (retried every few seconds, else)
        stream = EventStream(client, lambda obj: None, state)
        await asyncio.wait_for(stream.run(), 10)
        await client.aclose()
    assert [s.phase for s in states][-2:] == ["unauthorized", "stopped"], states


async def test_tls_is_verified_against_the_context(tmp_path: Path) -> None:
    """Over https the stream is read through TLS with the given context: a server whose
    certificate the context trusts is read; the same server under the default context is refused."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is needed to make a certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
                    "-out", str(cert), "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True, timeout=60)
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(cert, key)
    handler = answer(SSE_HEAD, [chunked(BODY, 100)])
    server = await asyncio.start_server(handler, "127.0.0.1", 0, ssl=server_tls)
    port = server.sockets[0].getsockname()[1]
    try:
        async with httpx.AsyncClient(base_url=f"https://127.0.0.1:{port}") as client:
            trusting = ssl.create_default_context(cafile=str(cert))
            response = await open_event_stream(client, "/api/event", trusting)
            assert b"".join([chunk async for chunk in response.chunks()]) == BODY
            await response.close()
            with pytest.raises(ssl.SSLError):
                await open_event_stream(client, "/api/event", tls_context())
            # The context of a plain-http client trusts nothing: it could never speak TLS unverified.
            with pytest.raises(ssl.SSLError):
                await open_event_stream(client, "/api/event", tls_context_for("http://127.0.0.1:4096"))
    finally:
        server.close()
        await server.wait_closed()


def test_only_a_client_that_can_speak_tls_loads_the_ca_bundle(monkeypatch: pytest.MonkeyPatch) -> None:
    proxies: dict[str, str] = {}  # what the environment (and the system's settings) name
    monkeypatch.setattr(urllib.request, "getproxies", lambda: proxies)
    plain = tls_context_for("http://127.0.0.1:4096")
    assert plain.cert_store_stats()["x509_ca"] == 0  # no bundle loaded for a server spoken to in clear
    assert plain.verify_mode == ssl.CERT_REQUIRED and plain.check_hostname  # (and nothing unverified)
    secure = tls_context_for("https://opencode.example")
    assert secure is tls_context() and secure.cert_store_stats()["x509_ca"] > 0
    proxies["https"] = "https://proxy.example:3128"  # a proxy may speak TLS itself
    assert tls_context_for("http://127.0.0.1:4096") is tls_context()
