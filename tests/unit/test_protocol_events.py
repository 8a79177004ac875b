"""Every recorded 1.18 frame normalises to a v2 event, and every v2 example parses to its model."""

from __future__ import annotations

import copy
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from tests.specs import PROTOCOL_MD, V2_OPENAPI, load_json, read_text
from tui.protocol.dialect import Normaliser
from tui.protocol.events import (
    EVENT_MODELS,
    BlockDelta,
    BlockEnded,
    BlockStarted,
    Event,
    ToolPayload,
    Unknown,
    parse_event,
)

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
TRACES = FIXTURES / "traces"
V2_EVENTS = FIXTURES / "v2_events.json"

TRACE_FILES = sorted(TRACES.glob("*.jsonl"))
# The legacy V1 stream (GET /event, frames {id, type, properties}); octui never reads it.
LEGACY_STREAMS = [p for p in TRACE_FILES if p.name.endswith(".v1_event.jsonl")]
API_STREAMS = [p for p in TRACE_FILES if p not in LEGACY_STREAMS]

# Types that exist only in the 1.18 preview (DIALECTS.md §4) and have no v2 model on purpose.
PREVIEW_ONLY_TYPES = frozenset({
    "message.updated", "message.removed", "message.part.updated", "message.part.delta",
    "message.part.removed", "session.compacted", "session.diff", "session.error", "todo.updated",
    "command.executed", "file.edited", "file.watcher.updated", "lsp.updated", "mcp.tools.changed",
    "mcp.browser.open.failed", "project.updated", "project.directories.updated", "workspace.failed",
    "workspace.ready", "workspace.status", "worktree.ready", "worktree.failed", "global.disposed",
})
# Models in EVENT_MODELS that are 1.18-only (no v2 schema, so no v2 example).
PREVIEW_ONLY_MODELS = frozenset({"session.updated"})

BLOCK_TYPES = frozenset({
    "session.text.started", "session.text.delta", "session.text.ended",
    "session.reasoning.started", "session.reasoning.delta", "session.reasoning.ended",
})


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _normalise_file(path: Path) -> tuple[list[dict[str, Any]], list[Event]]:
    """Fresh Normaliser per file, like a fresh connection. Returns (dropped raw frames, events)."""
    normaliser = Normaliser()
    dropped: list[dict[str, Any]] = []
    events: list[Event] = []
    for record in _records(path):
        if "data" not in record:
            continue
        frame = record["data"]
        out = normaliser.event(copy.deepcopy(frame))
        if out is None:
            dropped.append(frame)
            continue
        events.append(parse_event(out))
    return dropped, events


def _v2_examples() -> dict[str, dict[str, Any]]:
    data: dict[str, dict[str, Any]] = json.loads(V2_EVENTS.read_text(encoding="utf-8"))
    return data


def test_trace_fixtures_present() -> None:
    assert len(API_STREAMS) >= 10, "tests/fixtures/traces must hold the recorded 1.18 traces"
    assert LEGACY_STREAMS, "the legacy /event trace is part of the fixtures"


@pytest.mark.parametrize("path", TRACE_FILES, ids=lambda p: p.name)
def test_trace_records_are_well_formed(path: Path) -> None:
    """The fixture itself: each raw SSE ``data:`` line decodes to the recorded ``data`` object."""
    records = _records(path)
    assert records
    for record in records:
        raw = record["raw"]
        if "data" not in record:
            assert all(line.startswith(":") for line in raw), record
            continue
        payload = "\n".join(line[len("data:"):].lstrip(" ") for line in raw if line.startswith("data:"))
        assert json.loads(payload) == record["data"]


@pytest.mark.parametrize("path", API_STREAMS, ids=lambda p: p.name)
def test_trace_frames_normalise_to_v2(path: Path) -> None:
    dropped, events = _normalise_file(path)
    assert events, "trace has frames"
    for frame in dropped:  # the only legitimate drop: the legacy V1 permission shape
        assert frame["type"] in ("permission.asked", "permission.replied"), frame["type"]
    for event in events:
        assert "session.next." not in event.type and ".v2." not in event.type, event.type
        if event.is_unknown:
            assert event.type in PREVIEW_ONLY_TYPES, (event.type, event.payload)
            continue
        assert type(event.payload) is EVENT_MODELS[event.type], event.type
        assert "timestamp" not in event.data, event.type
        if event.type.startswith("session.") and event.type not in ("session.created", "session.updated"):
            assert isinstance(event.created, (int, float)), f"{event.type}: data.timestamp -> created"
        if event.durable is not None:
            assert type(event.durable.seq) is int and event.durable.seq >= 0
        if event.type in BLOCK_TYPES:
            assert isinstance(event.payload, (BlockStarted, BlockDelta, BlockEnded))
            assert type(event.payload.ordinal) is int and type(event.data["ordinal"]) is int
            assert "textID" not in event.data and "reasoningID" not in event.data
        if event.type.startswith("session.tool."):
            assert isinstance(event.payload, ToolPayload)
            assert isinstance(event.payload.id, str) and event.payload.id, event.type
            assert "callID" not in event.data and "structured" not in event.data


@pytest.mark.parametrize("path", API_STREAMS, ids=lambda p: p.name)
def test_trace_deltas_rebuild_ended_text(path: Path) -> None:
    """Ordinals are consistent across started/delta/ended: accumulated deltas equal the final text."""
    _, events = _normalise_file(path)
    started: set[tuple[str, str, int]] = set()
    acc: dict[tuple[str, str, int], str] = defaultdict(str)
    ended: dict[tuple[str, str, int], str] = {}
    for event in events:
        if event.type not in BLOCK_TYPES or event.is_unknown:
            continue
        kind = event.type.split(".")[1]
        key = (kind, str(event.data["assistantMessageID"]), int(event.data["ordinal"]))
        if event.type.endswith(".started"):
            started.add(key)
        elif event.type.endswith(".delta"):
            assert key in started, f"delta before started: {key}"
            acc[key] += str(event.data["delta"])
        else:
            ended[key] = str(event.data["text"])
    assert set(ended) == started
    for key, text in acc.items():  # the /api/event stream has deltas; the session stream has none
        assert text == ended[key], key


@pytest.mark.parametrize("path", API_STREAMS, ids=lambda p: p.name)
def test_trace_tool_ids_tie_the_tool_lifecycle_together(path: Path) -> None:
    _, events = _normalise_file(path)
    opened: dict[tuple[str, str], str] = {}
    for event in events:
        if not event.type.startswith("session.tool.") or event.is_unknown:
            continue
        key = (str(event.data["assistantMessageID"]), str(event.data["id"]))
        if event.type == "session.tool.input.started":
            opened[key] = str(event.data["name"])
        else:
            assert key in opened, f"{event.type} for a tool that never started: {key}"
        if event.type == "session.tool.called":
            assert event.data.get("name") == opened[key], "tool.called tool -> name"
            assert isinstance(event.data.get("executed"), bool)


@pytest.mark.parametrize("path", API_STREAMS, ids=lambda p: p.name)
def test_trace_dialog_sources_point_at_tool_calls(path: Path) -> None:
    _, events = _normalise_file(path)
    calls = {str(e.data["id"]) for e in events if e.type == "session.tool.called"}
    for event in events:
        if event.type == "permission.asked":
            source = event.data["source"]
            assert "callID" not in source and source["id"] in calls
        if event.type == "question.asked":
            tool = event.data["tool"]
            assert "callID" not in tool and tool["id"] in calls


@pytest.mark.parametrize("path", LEGACY_STREAMS, ids=lambda p: p.name)
def test_legacy_v1_stream_never_passes_for_v2(path: Path) -> None:
    """``{id, type, properties}`` frames have no ``data``: session events must not parse as valid."""
    _, events = _normalise_file(path)
    assert events
    for event in events:
        assert event.data == {}
        if event.type.startswith("session.") or event.type in PREVIEW_ONLY_TYPES:
            assert isinstance(event.payload, Unknown), event.type


# --- v2 examples -------------------------------------------------------------------------------


def test_v2_examples_cover_every_model() -> None:
    examples = _v2_examples()
    assert set(examples) == set(EVENT_MODELS) - PREVIEW_ONLY_MODELS
    for kind, frame in examples.items():
        assert frame["type"] == kind


def test_v2_examples_cover_protocol_catalogue() -> None:
    text = read_text(PROTOCOL_MD)
    section = text[text.index("### 5.4"):text.index("### 5.5")]
    types: set[str] = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            types.update(re.findall(r"`([a-z][\w.-]*)`", line.split("|")[1]))
    assert len(types) > 60
    assert types == set(_v2_examples())


@pytest.mark.parametrize("kind", sorted(_v2_examples()))
def test_v2_example_parses_to_exact_model(kind: str) -> None:
    frame = _v2_examples()[kind]
    event = parse_event(copy.deepcopy(frame))
    assert type(event.payload) is EVENT_MODELS[kind], getattr(event.payload, "problem", "")
    assert event.id == frame["id"]
    assert event.created == frame.get("created")
    # Nothing is lost: the payload dumps back to exactly the data it was built from.
    assert event.payload.model_dump(exclude_unset=True) == frame["data"]
    if "durable" in frame:
        assert event.durable is not None and event.durable.seq == frame["durable"]["seq"]


@pytest.mark.parametrize("kind", sorted(_v2_examples()))
def test_v2_example_passes_through_normaliser_unchanged(kind: str) -> None:
    frame = _v2_examples()[kind]
    assert Normaliser().event(copy.deepcopy(frame)) == frame


def test_v2_examples_validate_against_openapi() -> None:
    from jsonschema import Draft202012Validator

    doc = load_json(V2_OPENAPI)
    schemas = doc["components"]["schemas"]
    failures: dict[str, list[str]] = {}
    for kind, frame in _v2_examples().items():
        key = kind if kind in schemas else f"V2Event.{kind}"  # server.connected is namespaced
        assert key in schemas, f"no schema for {kind}"
        schema = {"$ref": f"#/components/schemas/{key}", "components": doc["components"]}
        validator = Draft202012Validator(schema)
        errors = [e.message[:160] for e in validator.iter_errors(frame)]
        if errors:
            failures[kind] = errors
        # Control: the validator is not vacuous for this schema.
        broken = {k: v for k, v in frame.items() if k != "data"}
        assert not validator.is_valid(broken), f"{kind}: schema accepts a frame without data"
    assert not failures, failures
