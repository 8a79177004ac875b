"""The stream's byte-level fast paths give the results of the simple implementations.

* ``SSEParser`` (one-line ``data:`` frames taken whole) emits, chunk by chunk, exactly what the
  previous line-by-line parser emitted (kept here as the reference), for random streams cut at
  random places: CRLF, comments, multi-line frames, other fields, oversize frames.
* ``decode_frame`` (pydantic-core's JSON parser, ``json.loads`` for whatever it refuses) returns
  what ``json.loads`` returns and fails where it fails.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.client.stream import SSEParser
from tui.protocol.frames import decode_frame

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class ReferenceParser:
    """The line-by-line parser ``SSEParser`` replaced (same contract)."""

    def __init__(self, max_frame_bytes: int) -> None:
        self.max_frame_bytes = max_frame_bytes
        self._buf = bytearray()
        self._data: list[bytes] = []
        self._size = 0
        self._skip_line = False
        self._skip_frame = False

    def feed(self, chunk: bytes) -> list[tuple[str, bytes]]:
        out: list[tuple[str, bytes]] = []
        buf = self._buf
        search = len(buf)
        buf += chunk
        start = 0
        while True:
            nl = buf.find(b"\n", search)
            if nl < 0:
                break
            line = bytes(buf[start:nl])
            start = search = nl + 1
            if self._skip_line:
                self._skip_line = False
                continue
            self._line(line[:-1] if line.endswith(b"\r") else line, out)
        if start:
            del buf[:start]
        if len(buf) > self.max_frame_bytes:
            buf.clear()
            self._skip_line = True
            self._drop_frame()
        return out

    def _drop_frame(self) -> None:
        self._skip_frame = True
        self._data.clear()
        self._size = 0

    def _line(self, line: bytes, out: list[tuple[str, bytes]]) -> None:
        if not line:
            if self._skip_frame:
                self._skip_frame = False
                out.append(("oversize", b""))
            elif self._data:
                out.append(("data", b"\n".join(self._data)))
            self._data = []
            self._size = 0
            return
        if line.startswith(b":"):
            out.append(("comment", b""))
            return
        name, _, value = line.partition(b":")
        if name != b"data" or self._skip_frame:
            return
        if value.startswith(b" "):
            value = value[1:]
        self._size += len(value) + 1
        if self._size > self.max_frame_bytes:
            self._drop_frame()
            return
        self._data.append(value)


LINES = st.one_of(
    st.sampled_from([b"data: {}", b"data:{}", b"data", b"data:", b"data: ", b"data:  x", b"data: \r",
                     b": heartbeat", b":", b"event: x", b"id: 7", b"retry: 1", b"", b"", b"", b"\r",
                     b"dat", b"data :x", b"data: a\rb"]),
    st.binary(max_size=12).map(lambda b: b"data: " + b.replace(b"\n", b"")),
    st.binary(max_size=90).map(lambda b: b"data:" + b.replace(b"\n", b"")),  # near the size limit
)


@st.composite
def streams(draw: st.DrawFn) -> tuple[bytes, list[int], int]:
    lines = draw(st.lists(LINES, max_size=30))
    endings = draw(st.lists(st.sampled_from([b"\n", b"\n", b"\r\n"]), min_size=len(lines),
                            max_size=len(lines)))
    body = b"".join(line + end for line, end in zip(lines, endings, strict=True))
    cuts = sorted(draw(st.lists(st.integers(0, max(0, len(body))), max_size=8)))
    return body, cuts, draw(st.sampled_from([8, 40, 64, 1 << 20]))


@SETTINGS
@given(streams())
def test_sse_parser_matches_reference(case: tuple[bytes, list[int], int]) -> None:
    body, cuts, limit = case
    fast, slow = SSEParser(max_frame_bytes=limit), ReferenceParser(limit)
    start = 0
    for cut in cuts + [len(body)]:
        chunk = body[start:cut]
        start = max(start, cut)
        got = fast.feed(chunk)
        assert got == slow.feed(chunk)
        assert all(type(payload) is bytes for _, payload in got)


def test_sse_fast_path_common_shapes() -> None:
    body = b'data: {"a":1}\n\ndata:{"b":2}\r\n\r\ndata: x\r\n\n: hb\n\ndata: y\ndata: z\n\n'
    items = SSEParser().feed(body)
    assert items == [("data", b'{"a":1}'), ("data", b'{"b":2}'), ("data", b"x"), ("comment", b""),
                     ("data", b"y\nz")]


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text()),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(), inner, max_size=4)),
    max_leaves=12,
)


def outcome(fn: object, payload: bytes) -> tuple[str, str]:
    try:
        return "ok", repr(fn(payload))  # type: ignore[operator]
    except RecursionError:
        return "error", "RecursionError"
    except ValueError:
        return "error", "ValueError"


@SETTINGS
@given(json_values, st.booleans())
def test_decode_frame_equals_json_loads_on_json(value: object, ascii_only: bool) -> None:
    payload = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    assert outcome(decode_frame, payload) == outcome(json.loads, payload)


@SETTINGS
@given(json_values, st.binary(max_size=4), st.integers(0, 200))
def test_decode_frame_equals_json_loads_on_damaged_json(value: object, junk: bytes, at: int) -> None:
    good = json.dumps(value).encode()
    payload = good[:at] + junk + good[at:]
    assert outcome(decode_frame, payload) == outcome(json.loads, payload)


def test_decode_frame_edge_cases() -> None:
    for payload in (b'{"a": "\\ud800"}', b'\xef\xbb\xbf{"a": 1}', b"[" * 500 + b"]" * 500,
                    b"[" * 5000 + b"]" * 5000, b'{"a": NaN, "b": -Infinity}', b'{"a": 1, "a": 2}',
                    b'{"a": "\xed\xa0\x80"}', b'{"a": 123456789012345678901234567890}', b"",
                    b'{"a": "x\ty"}', b'"\xff"', b"null", b'{"a": 1e999}'):
        assert outcome(decode_frame, payload) == outcome(json.loads, payload), payload


def test_decode_frame_keeps_no_value_in_the_string_cache() -> None:
    # pydantic-core's cache hands back the same object for a short string it has seen: a delta's
    # words decoded twice would be one object kept alive by the cache. Keys are cached (the same
    # dozen names in every frame), values are not.
    payload = b'{"type": "session.text.delta", "data": {"delta": "once"}}'
    first, second = decode_frame(payload), decode_frame(payload)
    assert first == second
    assert next(iter(first)) is next(iter(second))  # a key: cached
    assert first["data"]["delta"] is not second["data"]["delta"]
    assert first["type"] is not second["type"]
