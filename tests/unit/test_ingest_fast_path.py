"""The ingest hot path (issue #8) changes speed, never results.

* ``parse_event`` (one validation, a plain ``Event``, lazy envelope fields) builds exactly what
  the previous implementation (a pydantic ``Event``, three validations) built: checked against a
  copy of that implementation on every recorded frame, every v2 example and random frames.
* The delta fast path (``plain_delta`` / ``Normaliser.plain_delta`` → ``Store.apply_delta``)
  leaves the same store state and returns the same changes as ``parse_event`` + ``Store.apply``,
  and steps aside (None) for anything it does not cover.
"""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, ValidationError

from tui.protocol.dialect import Dialect, Normaliser
from tui.protocol.events import (
    EVENT_MODELS,
    Durable,
    Event,
    Payload,
    ProtocolError,
    Unknown,
    parse_event,
)
from tui.protocol.frames import plain_delta
from tui.protocol.models import LocationRef, Wire
from tui.session.service import SessionService
from tui.state.changes import AsksChanged, Change, PartChanged, message_changed, part_changed
from tui.state.store import Store

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EXAMPLES: dict[str, dict[str, Any]] = json.loads((FIXTURES / "v2_events.json").read_text("utf-8"))
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- the previous implementation, kept here as the reference --------------------------------------
class RefEvent(BaseModel):
    id: str = ""
    type: str
    created: float | None = None
    location: LocationRef | None = None
    durable: Durable | None = None
    data: dict[str, Any] = Field(default_factory=dict)
    payload: Payload = Field(default_factory=Unknown)


def _ref_optional(model: type[Wire], value: Any) -> Any:
    if not isinstance(value, dict):
        return None
    try:
        return model.model_validate(value)
    except ValidationError:
        return None


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def reference_parse(obj: Any) -> RefEvent:
    if not isinstance(obj, dict):
        raise ProtocolError("not an object")
    kind = obj.get("type")
    if not isinstance(kind, str) or not kind:
        raise ProtocolError("no type")
    data = obj.get("data")
    if not isinstance(data, dict):
        data = {}
    durable = _ref_optional(Durable, obj.get("durable"))
    location = _ref_optional(LocationRef, obj.get("location"))
    created = obj.get("created")
    model = EVENT_MODELS.get(kind)
    payload: Payload
    if model is None:
        payload = Unknown(problem=f"unknown event type {_short(kind)!r}")
    else:
        try:
            payload = model.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            problem = f"{_short(kind)}: {where or 'data'}: {first.get('msg', 'invalid')}"
            payload = Unknown(problem=_short(problem, 200))
    return RefEvent(id=obj["id"] if isinstance(obj.get("id"), str) else "", type=kind,
                    created=created if isinstance(created, (int, float)) else None,
                    location=location, durable=durable, data=data, payload=payload)


def assert_same(new: Event, old: RefEvent) -> None:
    assert (new.id, new.type, new.data) == (old.id, old.type, old.data)
    assert new.created == old.created and type(new.created) is type(old.created)
    assert type(new.payload) is type(old.payload)
    assert new.payload == old.payload
    assert new.payload.model_fields_set == old.payload.model_fields_set
    assert new.is_unknown == isinstance(old.payload, Unknown)
    assert new.durable == old.durable and new.location == old.location
    durable = old.durable
    assert new.durable_seq == (None if durable is None else (durable.aggregateID, durable.seq))


def _recorded_frames() -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = []
    for path in sorted((FIXTURES / "traces").glob("*.jsonl")):
        normaliser = Normaliser()
        for line in path.read_text("utf-8").splitlines():
            record = json.loads(line) if line.strip() else {}
            if isinstance(record.get("data"), dict):
                out = normaliser.event(copy.deepcopy(record["data"]))
                if out is not None:
                    frames.append(out)
    return frames + [copy.deepcopy(frame) for frame in EXAMPLES.values()]


RECORDED = _recorded_frames()


def test_parse_matches_reference_on_recorded_frames() -> None:
    assert len(RECORDED) > 300
    for frame in RECORDED:
        assert_same(parse_event(copy.deepcopy(frame)), reference_parse(copy.deepcopy(frame)))


json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**53), 2**53),
                         st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)), max_leaves=6)


@st.composite
def mangled_frames(draw: st.DrawFn) -> dict[str, Any]:
    """A recorded frame with random envelope fields and some data values replaced."""
    frame = copy.deepcopy(draw(st.sampled_from(RECORDED)))
    data = frame.get("data")
    if isinstance(data, dict) and data and draw(st.booleans()):
        for key in draw(st.lists(st.sampled_from(sorted(data)), max_size=3)):
            data[key] = draw(json_values)
    for key, values in (
        ("durable", st.one_of(st.none(), json_values, st.fixed_dictionaries(
            {"aggregateID": st.one_of(st.text(max_size=4), st.integers(0, 3)),
             "seq": st.one_of(st.integers(-2, 50), st.booleans(), st.text(max_size=3), st.floats(0, 9)),
             "version": st.one_of(st.integers(0, 2), st.floats(0, 2), st.text(max_size=2),
                                  st.just(10**400))}))),
        ("location", st.one_of(json_values, st.fixed_dictionaries({"directory": json_values}))),
        ("created", st.one_of(st.none(), st.booleans(), st.integers(-(2**60), 2**60),
                              st.floats(allow_nan=False), st.text(max_size=3))),
        ("id", json_values),
        ("type", st.one_of(st.sampled_from(sorted(EVENT_MODELS)), st.text(max_size=12))),
    ):
        if draw(st.integers(0, 3)) == 0:
            frame[key] = draw(values)
    return frame


@SETTINGS
@given(mangled_frames())
def test_parse_matches_reference_on_random_frames(frame: dict[str, Any]) -> None:
    try:
        old = reference_parse(copy.deepcopy(frame))
    except ProtocolError:
        with pytest.raises(ProtocolError):
            parse_event(copy.deepcopy(frame))
        return
    assert_same(parse_event(copy.deepcopy(frame)), old)


def test_event_envelope_is_validated_lazily_and_tolerantly() -> None:
    base = {"type": "session.idle", "data": {"sessionID": "ses_1"}}
    event = parse_event({**base, "durable": {"aggregateID": "ses_1", "seq": "7"}, "location": {"x": 1}})
    assert event.durable_seq == ("ses_1", 7)  # coerced like the model coerces it
    assert event.durable == Durable(aggregateID="ses_1", seq=7)
    assert event.location == LocationRef.model_validate({"x": 1})
    broken = parse_event({**base, "durable": {"seq": "many"}, "location": {"directory": 3}})
    assert broken.durable is None and broken.durable_seq is None and broken.location is None
    huge = parse_event({**base, "durable": {"aggregateID": "ses_1", "seq": 1, "version": 10**400}})
    assert huge.durable is None and huge.durable_seq is None  # no float: no durable envelope
    built = Event("session.idle", id="e", created=5, durable={"aggregateID": "a", "seq": 2})
    assert built.created == 5.0 and built.durable_seq == ("a", 2) and built.is_unknown


def test_change_objects_are_shared_and_equal() -> None:
    assert part_changed("s", "m", "text:0") is part_changed("s", "m", "text:0")
    assert message_changed("s", "m") is message_changed("s", "m")
    assert AsksChanged("s", "p", "asked") == AsksChanged("s", "p", "asked")


# --- the delta fast path ----------------------------------------------------------------------------
SID, MID = "ses_fast", "msg_fast"


def _at(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "data": {"sessionID": SID, "assistantMessageID": MID, **fields}}


SETUP = [
    _at("session.step.started"),
    _at("session.text.started", ordinal=0),
    _at("session.reasoning.started", ordinal=1),
    _at("session.text.started", ordinal=2),
    _at("session.text.ended", ordinal=2, text="done"),
    _at("session.tool.input.started", id="call_1"),
    _at("session.tool.input.started", id="call_2"),
    _at("session.tool.called", id="call_2"),
]
DELTA_KINDS = ["session.text.delta", "session.reasoning.delta", "session.tool.input.delta"]


def prepared() -> Store:
    store = Store()
    for frame in SETUP:
        store.apply(parse_event(copy.deepcopy(frame)))
    return store


def snapshot(store: Store) -> str:
    return repr(({sid: repr(store.sessions[sid]) for sid in sorted(store.sessions)}, sorted(store.deleted)))


def apply_fast(store: Store, frame: dict[str, Any]) -> tuple[list[Change], bool]:
    """What ``StreamIntake.ingest`` does for a v2 frame; also says whether the fast path served it."""
    fast = plain_delta(frame)
    changes = None if fast is None else store.apply_delta(*fast)
    if changes is not None:
        return changes, True
    return store.apply(parse_event(frame)), False


@st.composite
def delta_frames(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(DELTA_KINDS))
    data: dict[str, Any] = {}
    for key, values in (
        ("sessionID", st.sampled_from([SID, SID, SID, "ses_other", "", 5, None])),
        ("assistantMessageID", st.sampled_from([MID, MID, MID, "msg_other", 7, None])),
        ("ordinal", st.sampled_from([0, 0, 1, 2, 3, -1, True, "0", 1.0, None])),
        ("id", st.sampled_from(["call_1", "call_1", "call_2", "call_3", "", 4, None])),
        ("delta", st.one_of(st.text(max_size=5), st.sampled_from(["", 9, None, ["x"]]))),
        ("extra", json_values),
    ):
        if draw(st.integers(0, 6)):
            data[key] = draw(values)
    frame: dict[str, Any] = {"type": kind, "data": data}
    if draw(st.integers(0, 5)) == 0:
        frame["durable"] = {"aggregateID": SID, "seq": draw(st.integers(0, 20)), "version": 1}
    if draw(st.booleans()):
        frame["created"] = draw(st.one_of(st.integers(0, 2**40), st.none()))
    if draw(st.integers(0, 9)) == 0:
        frame["data"] = draw(json_values)
    return frame


@SETTINGS
@given(st.lists(delta_frames(), min_size=1, max_size=25))
def test_fast_path_equals_full_path(frames: list[dict[str, Any]]) -> None:
    fast_store, slow_store = prepared(), prepared()
    for frame in frames:
        got, _ = apply_fast(fast_store, copy.deepcopy(frame))
        want = slow_store.apply(parse_event(copy.deepcopy(frame)))
        assert got == want
        assert snapshot(fast_store) == snapshot(slow_store)


@pytest.mark.parametrize("kind, ref", [("session.text.delta", ("ordinal", 0)),
                                       ("session.reasoning.delta", ("ordinal", 1)),
                                       ("session.tool.input.delta", ("id", "call_1"))])
def test_plain_deltas_take_the_fast_path(kind: str, ref: tuple[str, Any]) -> None:
    store = prepared()
    frame = {"type": kind, "id": "evt_1", "created": 12, "location": {"directory": "/x"},
             "data": {"sessionID": SID, "assistantMessageID": MID, ref[0]: ref[1], "delta": "ab"}}
    changes, served = apply_fast(store, frame)
    assert served
    assert changes and isinstance(changes[0], PartChanged) and changes[0].message_id == MID


@pytest.mark.parametrize("patch", [
    {"durable": {"aggregateID": SID, "seq": 3, "version": 1}},  # seq bookkeeping: full path
    {"data": {"sessionID": SID, "assistantMessageID": MID, "ordinal": True, "delta": "x"}},
    {"data": {"sessionID": SID, "assistantMessageID": MID, "ordinal": 9, "delta": "x"}},  # new block
    {"data": {"sessionID": SID, "assistantMessageID": "msg_new", "ordinal": 0, "delta": "x"}},
    {"data": {"sessionID": SID, "assistantMessageID": MID, "ordinal": 0}},  # delta missing
    {"data": {"sessionID": "ses_unknown", "assistantMessageID": MID, "ordinal": 0, "delta": "x"}},
    {"type": "session.text.ended"},
    {"type": ["session.text.delta"]},  # unhashable junk must not raise either
])
def test_anything_unusual_falls_back(patch: dict[str, Any]) -> None:
    frame = {"type": "session.text.delta",
             "data": {"sessionID": SID, "assistantMessageID": MID, "ordinal": 0, "delta": "x"}, **patch}
    fast = plain_delta(frame)
    assert fast is None or prepared().apply_delta(*fast) is None


@st.composite
def preview_deltas(draw: st.DrawFn) -> dict[str, Any]:
    rest = draw(st.sampled_from(["text.delta", "reasoning.delta", "tool.input.delta"]))
    data: dict[str, Any] = {"timestamp": 1796210186465}
    for key, values in (
        ("sessionID", st.sampled_from([SID, SID, "", 3])),
        ("assistantMessageID", st.sampled_from([MID, MID, None])),
        ("textID", st.sampled_from(["text-0", "text-2", "odd", 1, None])),
        ("reasoningID", st.sampled_from(["reasoning-1", "weird", None])),
        ("callID", st.sampled_from(["call_1", "call_2", "", None])),
        ("id", st.sampled_from(["call_1", 5])),
        ("delta", st.one_of(st.text(max_size=4), st.sampled_from([None, 3]))),
        ("provider", st.sampled_from([{"executed": True}, "x"])),
    ):
        if draw(st.integers(0, 4)):
            data[key] = draw(values)
    frame: dict[str, Any] = {"type": "session.next." + rest, "data": data}
    if draw(st.integers(0, 5)) == 0:
        frame["durable"] = {"aggregateID": SID, "seq": 4, "version": 1}
    return frame


@SETTINGS
@given(preview_deltas())
def test_preview_fast_path_equals_normalising(frame: dict[str, Any]) -> None:
    warm = Normaliser()
    for block_id in ("text-0", "text-2", "reasoning-1"):  # the first frame of a block parses its id
        warm.event({"type": "session.next.text.delta", "data": {"textID": block_id}})
    before = copy.deepcopy(frame)
    fast = warm.plain_delta(frame)
    assert frame == before  # reading only
    normalised = Normaliser().event(copy.deepcopy(frame))
    if fast is not None:
        assert normalised is not None and plain_delta(normalised) == fast


async def test_controller_ingest_equals_reference_store() -> None:
    """Through ``StreamIntake.ingest`` (both dialects' fast paths) against parse + apply."""

    class Client:
        dialect = Dialect.V2

    service = SessionService(Client(), Store(), lambda _c: None, lambda _s: None)  # type: ignore[arg-type]
    reference = Store()
    frames = [copy.deepcopy(f) for f in SETUP] + [
        {"type": "session.text.delta", "data": {"sessionID": SID, "assistantMessageID": MID,
                                                "ordinal": 0, "delta": "he"}},
        {"type": "session.text.delta", "data": {"sessionID": SID, "assistantMessageID": MID,
                                                "ordinal": 0, "delta": "llo"}},
        {"type": "session.tool.input.delta", "data": {"sessionID": SID, "assistantMessageID": MID,
                                                      "id": "call_1", "delta": "{}"}},
    ]
    for frame in frames:
        service.intake.ingest(copy.deepcopy(frame))
        reference.apply(parse_event(copy.deepcopy(frame)))
    assert snapshot(service.store) == snapshot(reference)
    text = service.store.sessions[SID].messages[MID].parts[0]
    assert getattr(text, "text", None) == "hello"

    preview = {"type": "session.next.text.delta", "data": {
        "timestamp": 1, "sessionID": SID, "assistantMessageID": MID, "textID": "text-0", "delta": "!"}}
    service.intake.ingest(copy.deepcopy(preview))  # switches the dialect, then normalises
    normalised = Normaliser().event(copy.deepcopy(preview))
    assert normalised is not None
    reference.apply(parse_event(normalised))
    assert service.client.dialect is Dialect.PREVIEW
    assert snapshot(service.store) == snapshot(reference)
    for task in list(service.intake.tasks):
        task.cancel()
    await asyncio.sleep(0)
