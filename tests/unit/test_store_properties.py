"""Property tests: random event sequences built from the v2 examples (tests/fixtures/v2_events.json).

Ids, durable seqs, order and duplicates vary. The store never raises; re-applying any durable event
it has seen changes nothing; and a resync (``load_history`` of a projected transcript) followed by
a replay of durable events the snapshot already covers converges to the same state.
"""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.demo.projection import Projection
from tui.protocol.events import Event, ProtocolError, parse_event
from tui.state.store import Store

EXAMPLES: dict[str, dict[str, Any]] = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "v2_events.json").read_text(encoding="utf-8")
)
SESSIONS = ["ses_propA", "ses_propB"]
MESSAGES = ["msg_prop1", "msg_prop2"]
# session.deleted is left out: the store keeps no tombstone, so a durable event replayed after a
# deletion recreates the session (a known gap, reported; see test docstring in the report).
KINDS = sorted(k for k in EXAMPLES if k != "session.deleted")
SESSION_KINDS = sorted(k for k, v in EXAMPLES.items() if "sessionID" in v.get("data", {}))
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def build(kind: str, session: int, message: int, seq: int | None, ordinal: int) -> dict[str, Any]:
    frame = copy.deepcopy(EXAMPLES[kind])
    data = frame.setdefault("data", {})
    sid = SESSIONS[session]
    if "sessionID" in data:
        data["sessionID"] = sid
    for key in ("assistantMessageID", "messageID"):
        if key in data:
            data[key] = MESSAGES[message]
    if "ordinal" in data:
        data["ordinal"] = ordinal
    if seq is None:
        frame.pop("durable", None)
    elif "durable" in EXAMPLES[kind] and "sessionID" in data:  # only durable kinds carry a seq
        frame["durable"] = {"aggregateID": sid, "seq": seq, "version": 1}
    return frame


frames = st.builds(
    build,
    st.sampled_from(KINDS),
    st.integers(0, len(SESSIONS) - 1),
    st.integers(0, len(MESSAGES) - 1),
    st.one_of(st.none(), st.integers(0, 40)),
    st.integers(0, 2),
)


def parse(frame: dict[str, Any]) -> Event | None:
    try:
        return parse_event(frame)
    except ProtocolError:
        return None


def snapshot(store: Store) -> str:
    """Everything the store holds, deterministically (dataclass reprs include every field)."""
    sessions = {sid: repr(store.sessions[sid]) for sid in sorted(store.sessions)}
    return repr((sessions, sorted(store.asks)))


@SETTINGS
@given(st.lists(frames, max_size=40), st.randoms(use_true_random=False))
def test_store_never_raises_and_durable_replays_are_no_ops(sequence: list[dict[str, Any]], rnd: Any) -> None:
    sequence = sequence + [copy.deepcopy(f) for f in rnd.sample(sequence, k=len(sequence) // 3)]
    rnd.shuffle(sequence)
    store = Store()
    durable: list[Event] = []
    for frame in sequence:
        event = parse(frame)
        if event is None:
            continue
        store.apply(event)  # must never raise
        if event.durable is not None and event.session_id is not None:
            durable.append(event)
    before = snapshot(store)
    for event in durable:
        store.apply(event)
        assert snapshot(store) == before, f"re-applying {event.type} changed the store"


def monotonic(sequence: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Durable seqs strictly increasing per session, as the server sends them."""
    counters = {sid: itertools.count(1) for sid in SESSIONS}
    for frame in sequence:
        durable = frame.get("durable")
        if isinstance(durable, dict) and durable.get("aggregateID") in counters:
            durable["seq"] = next(counters[durable["aggregateID"]])
    return sequence


def projected(sequence: list[dict[str, Any]], session_id: str) -> list[dict[str, Any]]:
    """The server-side transcript for the prefix (the demo server's projection), oldest first."""
    ids = (f"msg_proj{i}" for i in itertools.count())
    projection = Projection(lambda: next(ids))
    for frame in sequence:
        try:
            projection.apply(copy.deepcopy(frame))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            continue  # a random sequence can be nonsense for a server; skip that event
    return copy.deepcopy(projection.messages.get(session_id, []))


@SETTINGS
@given(st.lists(frames, min_size=1, max_size=40), st.data())
def test_replay_after_resync_converges(sequence: list[dict[str, Any]], data: st.DataObject) -> None:
    sequence = monotonic(sequence)
    cut = data.draw(st.integers(0, len(sequence)), label="resync point")
    overlap = data.draw(st.integers(0, cut), label="replay from")
    events = [parse(f) for f in sequence]

    def resynced(replay: bool) -> Store:
        store = Store()
        for event in events[:cut]:
            if event is not None:
                store.apply(event)
        for sid in SESSIONS:  # reconnect: the HTTP snapshot replaces the transcript
            store.load_history(sid, projected(sequence[:cut], sid))
        if replay:  # the stream overlaps the snapshot: durable events it already covers come again
            for event in events[overlap:cut]:
                if event is not None and event.durable is not None:
                    store.apply(event)
        for event in events[cut:]:
            if event is not None:
                store.apply(event)
        return store

    with_replay, without = resynced(True), resynced(False)
    assert snapshot(with_replay) == snapshot(without)
    again = resynced(True)
    assert snapshot(again) == snapshot(with_replay), "deterministic"
