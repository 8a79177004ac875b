"""Bad-input corpus (tests/fixtures/bad/) through a small pure SSE -> JSON -> Normaliser -> parse_event
pipeline.

The pipeline lives here on purpose: it is the reference for what the stream client must do with
hostile bytes. Nothing may escape it; every good frame comes out; every bad frame yields exactly one
concise warning or an ``Unknown`` payload, as ``cases.json`` says.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tui.protocol.dialect import Normaliser
from tui.protocol.events import Event, ProtocolError, Unknown, parse_event
from tui.text.sanitize import clean_text

BAD = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "bad"
MANIFEST: dict[str, Any] = json.loads((BAD / "cases.json").read_text(encoding="utf-8"))
CASES: list[dict[str, Any]] = MANIFEST["cases"]
KNOWN_SESSIONS: list[str] = MANIFEST["known_sessions"]
WARNING_LIMIT = 200
FORBIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\x1b]")


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class Result:
    events: list[Event] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    ignored: int = 0

    def summary(self) -> tuple[list[str], list[str], list[str], int]:
        problems = [e.payload.problem for e in self.events if isinstance(e.payload, Unknown)]
        return [e.type for e in self.events], self.warnings, problems, self.ignored


class Pipeline:
    """Frames -> events. Pure: no I/O, no clock; state is one Normaliser plus two small tables."""

    def __init__(self, known_sessions: list[str]) -> None:
        self.normaliser = Normaliser()
        self.known = set(known_sessions)
        self.last_seq: dict[str, int] = {}
        self.result = Result()
        self.frames = 0

    def _warn(self, message: str) -> None:
        self.result.warnings.append(_short(message, WARNING_LIMIT))

    def frame(self, payload: bytes) -> None:
        """One SSE data payload (the joined ``data:`` lines)."""
        self.frames += 1
        where = f"frame {self.frames}"
        try:
            text = payload.decode("utf-8")
            if not text.strip():
                self._warn(f"{where}: empty data")
                return
            obj = json.loads(text)
            out = self.normaliser.event(obj)
            if out is None:
                self.result.ignored += 1
                return
            event = parse_event(out)
        except UnicodeDecodeError as exc:
            self._warn(f"{where}: invalid UTF-8 at byte {exc.start}: {exc.reason}")
            return
        except ProtocolError as exc:
            self._warn(f"{where}: not an event: {_short(str(exc))}")
            return
        except RecursionError:
            self._warn(f"{where}: too deeply nested")
            return
        except ValueError as exc:  # json.JSONDecodeError
            self._warn(f"{where}: invalid JSON: {_short(str(exc))}")
            return
        if not event.is_unknown:
            session = event.session_id
            if session is not None and session not in self.known:
                if event.type != "session.created":
                    who = f"{_short(session, 40)!r} ({_short(event.type, 40)})"
                    self._warn(f"{where}: event for unknown session {who}")
                    return
                self.known.add(session)
            if event.durable is not None:
                aggregate = event.durable.aggregateID
                last = self.last_seq.get(aggregate)
                if last is not None and event.durable.seq <= last:
                    seq = event.durable.seq
                    self._warn(f"{where}: stale durable event seq {seq} <= {last} ({event.type})")
                    return
                self.last_seq[aggregate] = event.durable.seq
        self.result.events.append(event)


class SSEDecoder:
    """Incremental text/event-stream decoder (WHATWG rules): bytes in, data payloads out."""

    def __init__(self, pipeline: Pipeline) -> None:
        self.pipeline = pipeline
        self.buffer = b""
        self.data: list[bytes] | None = None
        self.started = False

    def feed(self, chunk: bytes) -> None:
        self.buffer += chunk
        if not self.started:
            if len(self.buffer) < 3 and b"\xef\xbb\xbf".startswith(self.buffer):
                return  # could still be a BOM
            self.started = True
            if self.buffer.startswith(b"\xef\xbb\xbf"):
                self.buffer = self.buffer[3:]
        while True:
            cut = min((i for i in (self.buffer.find(b"\r"), self.buffer.find(b"\n")) if i >= 0), default=-1)
            if cut < 0:
                return
            if self.buffer[cut:cut + 1] == b"\r":
                if cut + 1 == len(self.buffer):
                    return  # a \n may follow in the next chunk
                skip = 2 if self.buffer[cut + 1:cut + 2] == b"\n" else 1
            else:
                skip = 1
            line, self.buffer = self.buffer[:cut], self.buffer[cut + skip:]
            self._line(line)

    def _line(self, line: bytes) -> None:
        if not line:
            if self.data is not None:
                payload, self.data = b"\n".join(self.data), None
                self.pipeline.frame(payload)
            return
        if line.startswith(b":"):
            return
        name, _, value = line.partition(b":")
        if value.startswith(b" "):
            value = value[1:]
        if name == b"data":
            self.data = (self.data or []) + [value]

    def close(self) -> None:
        if self.buffer.endswith(b"\r"):
            self._line(self.buffer[:-1])
            self.buffer = b""
        if self.buffer or self.data is not None:
            pending = len(self.buffer) + sum(len(d) for d in self.data or [])
            self.pipeline._warn(f"stream ended inside a frame ({pending} bytes dropped)")
            self.buffer, self.data = b"", None


def run_stream(raw: bytes, chunks: list[int] | None = None) -> Result:
    pipeline = Pipeline(KNOWN_SESSIONS)
    decoder = SSEDecoder(pipeline)
    cuts = [0, *(chunks or []), len(raw)]
    for start, end in zip(cuts, cuts[1:], strict=False):
        decoder.feed(raw[start:end])
    decoder.close()
    return pipeline.result


def run_bytewise(raw: bytes) -> Result:
    return run_stream(raw, list(range(1, len(raw))))


def run_frame(raw: bytes) -> Result:
    pipeline = Pipeline(KNOWN_SESSIONS)
    pipeline.frame(raw)
    return pipeline.result


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(k) + _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _check(case: dict[str, Any], result: Result) -> None:
    expect = case["expect"]
    types, warnings, problems, ignored = result.summary()
    assert types == expect["kept"], "kept events"
    assert ignored == expect["ignored"], "ignored frames"
    assert len(warnings) == len(expect["warnings"]), warnings
    for pattern, warning in zip(expect["warnings"], warnings, strict=True):
        assert re.search(pattern, warning), (pattern, warning)
    for warning in warnings:
        assert len(warning) <= WARNING_LIMIT and "\n" not in warning
    assert len(problems) == len(expect["unknown"]), problems
    for pattern, problem in zip(expect["unknown"], problems, strict=True):
        assert re.search(pattern, problem), (pattern, problem)
        assert len(problem) <= WARNING_LIMIT


# --- the manifest itself -----------------------------------------------------------------------


def test_manifest_is_complete() -> None:
    assert len(CASES) >= 60
    names = [c["file"] for c in CASES]
    assert len(set(names)) == len(names)
    on_disk = {p.name for p in BAD.iterdir() if p.name != "cases.json"}
    assert on_disk == set(names), "every corpus file is described, and every description has a file"
    for case in CASES:
        assert case["kind"] in ("frame", "stream") and case["description"]
        assert set(case["expect"]) == {"kept", "warnings", "unknown", "ignored"}


def test_corpus_covers_the_required_categories() -> None:
    slugs = " ".join(c["file"] for c in CASES)
    for needle in ("json_", "truncated", "unknown_type", "missing_", "extra_", "ordinal_", "wrong_prefix",
                   "unknown_session", "durable_duplicate", "durable_out_of_order", "invalid_utf8",
                   "comment_only", "split_across_chunks", "escapes_"):
        assert needle in slugs, needle


# --- running the corpus ------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_bad_input_case(case: dict[str, Any]) -> None:
    raw = (BAD / case["file"]).read_bytes()
    if case["kind"] == "frame":
        result = run_frame(raw)
        _check(case, result)
        if b"\n" not in raw and b"\r" not in raw:  # the same payload inside an SSE stream: same outcome
            assert run_stream(b"data: " + raw + b"\n\n").summary() == result.summary()
    else:
        result = run_stream(raw)
        _check(case, result)
        assert run_bytewise(raw).summary() == result.summary(), "outcome must not depend on chunking"
        if "split_at" in case:
            assert run_stream(raw, case["split_at"]).summary() == result.summary()
    for name, value in case.get("text", {}).items():
        assert [e.data[name] for e in result.events] == [value]
    if case.get("inert"):
        strings = [s for e in result.events for s in _strings(e.data)]
        assert any("\x1b" in s for s in strings), "the case must actually carry escapes"
        for text in strings:
            cleaned = clean_text(text)
            assert not FORBIDDEN.search(cleaned), repr(cleaned)
            assert "\u202e" not in cleaned
        assert any("done" in clean_text(s) for s in strings), "visible text around the escapes survives"


def test_valid_frames_survive_a_hostile_stream() -> None:
    """All corpus frames concatenated into one stream, with good frames in between: none is lost."""
    good = b"data: " + json.dumps({"id": "evt_1", "type": "server.connected", "data": {}}).encode() + b"\n\n"
    parts = [good]
    for case in CASES:
        raw = (BAD / case["file"]).read_bytes()
        if case["kind"] == "frame" and b"\n" not in raw and b"\r" not in raw:
            parts += [b"data: " + raw + b"\n\n", good]
    result = run_stream(b"".join(parts))
    connected = [e for e in result.events if e.type == "server.connected"]
    assert len(connected) == len(parts) // 2 + 1


# --- huge inputs, generated here (not stored) --------------------------------------------------

TEN_MB = 10 * 1024 * 1024


def _delta(text: str) -> bytes:
    frame = {"id": "evt_1", "created": 1, "type": "session.text.delta",
             "data": {"sessionID": KNOWN_SESSIONS[0], "assistantMessageID": "msg_1", "ordinal": 0,
                      "delta": text}}
    return json.dumps(frame).encode()


def test_huge_10mb_delta_is_kept_intact() -> None:
    text = "0123456789abcdef" * (TEN_MB // 16)
    result = run_stream(b"data: " + _delta(text) + b"\n\n", [1 << 16, 5 << 20])
    assert not result.warnings
    assert [e.type for e in result.events] == ["session.text.delta"]
    assert result.events[0].data["delta"] == text


def test_huge_10mb_malformed_frame_gives_one_concise_warning() -> None:
    raw = _delta("x" * TEN_MB)[:-3]  # cut inside the closing: unterminated object
    result = run_stream(b"data: " + raw + b"\n\n" + b"data: " + _delta("ok") + b"\n\n")
    assert [e.type for e in result.events] == ["session.text.delta"]
    assert len(result.warnings) == 1
    assert result.warnings[0].startswith("frame 1: invalid JSON") and len(result.warnings[0]) <= WARNING_LIMIT


def test_huge_10mb_type_name_gives_concise_unknown() -> None:
    raw = json.dumps({"id": "evt_1", "type": "t" * TEN_MB, "data": {}}).encode()
    result = run_frame(raw)
    assert not result.warnings and len(result.events) == 1
    payload = result.events[0].payload
    assert isinstance(payload, Unknown) and len(payload.problem) <= WARNING_LIMIT


# --- the pipeline's own decoder ----------------------------------------------------------------


def test_decoder_handles_cr_split_from_lf() -> None:
    raw = b"data: " + _delta("a") + b"\r\n\r\n"
    at = raw.index(b"\r\n")
    assert run_stream(raw, [at + 1]).summary() == run_stream(raw).summary()
    assert [e.type for e in run_stream(raw, [at + 1]).events] == ["session.text.delta"]
