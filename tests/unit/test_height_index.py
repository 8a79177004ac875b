"""The Fenwick tree of piece heights agrees with plain prefix sums."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from widgets.transcript.height_index import HeightIndex

OPS = st.lists(st.one_of(
    st.tuples(st.just("append"), st.integers(min_value=0, max_value=50)),
    st.tuples(st.just("set"), st.integers(min_value=0, max_value=50)),
    st.tuples(st.just("pop"), st.just(0)),
), max_size=120)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=50), max_size=40), OPS)
def test_matches_prefix_sums(initial: list[int], ops: list[tuple[str, int]]) -> None:
    index, plain = HeightIndex(initial), list(initial)
    for op, value in ops:
        if op == "append":
            index.append(value)
            plain.append(value)
        elif op == "set" and plain:
            where = value % len(plain)
            index.set(where, value)
            plain[where] = value
        elif op == "pop" and plain:
            assert index.pop() == plain.pop()
    assert index.total == sum(plain) and len(index) == len(plain)
    for block in range(len(plain) + 1):
        assert index.start(block) == sum(plain[:block])
    for line in range(sum(plain) + 2):
        block, offset = index.find(line)
        expected = next((b for b in range(len(plain)) if sum(plain[:b + 1]) > line), len(plain))
        assert block == expected
        if block < len(plain):
            assert offset == line - sum(plain[:block]) and 0 <= offset < plain[block]
