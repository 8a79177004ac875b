"""The answers ``bench/real_stream.py`` streams are what its figures say they are."""

from __future__ import annotations

import pytest

from bench.real_stream import CHECKPOINTS, END_MARKER, SHAPES, answer_chunks, catch_up_lags, markdown_answer
from widgets.transcript.markdown_parse import PARSER
from widgets.transcript.markdown_table import streamed_table


@pytest.mark.parametrize("shape", SHAPES)
def test_each_shape_has_its_checkpoints_and_streams_whole(shape: str) -> None:
    text, labels = markdown_answer(20 * 1024, shape)
    assert 20 * 1024 <= len(text) < 22 * 1024
    assert len(labels) >= 18 and all(text.count(label) == 1 for label in labels)
    chunks = answer_chunks(4000, 20 * 1024, shape)
    assert len(chunks) == 4000 and chunks[-1].endswith(f"{END_MARKER}\n")
    joined = "".join(chunks[:-1])
    for index, label in CHECKPOINTS.items():  # the chunk that completes each word
        assert label in "".join(chunks[:index + 1]) and label not in "".join(chunks[:index])
    assert sorted(CHECKPOINTS.values()) == sorted(labels) and joined in text


@pytest.mark.parametrize(("shape", "block"), [("table", "table_open"), ("quote", "blockquote_open"),
                                              ("code", "fence"), ("prose", "paragraph_open"),
                                              ("numbered", "ordered_list_open"),
                                              ("quotes", "blockquote_open"), ("longlines", "fence"),
                                              ("cjk", "paragraph_open")])
def test_the_one_block_shapes_are_one_block(shape: str, block: str) -> None:
    text, _ = markdown_answer(20 * 1024, shape)
    opened = [token.type for token in PARSER.parse(text)
              if token.level == 0 and (token.nesting == 1 or token.type == "fence")]
    assert opened == [block]
    if shape == "table":
        assert streamed_table(text) is not None  # streamed row by row


def test_a_word_never_shown_counts_until_the_screen_showed_a_newer_one() -> None:
    labels = ["one", "two", "three", "four", END_MARKER]
    sent = {"one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, END_MARKER: 5.0}
    # "two" and "four" scrolled past (or were skipped); "three" was shown before "one" was seen.
    shown = {"one": 3.5, "three": 3.2, END_MARKER: 5.25}
    lags = catch_up_lags(labels, shown, sent)
    assert lags == pytest.approx({"one": 2.2, "two": 1.2, "three": 0.2, "four": 1.25, END_MARKER: 0.25})
    # A client that shows only the end of a burst is as late on every word as that end.
    assert catch_up_lags(labels, {END_MARKER: 5.1}, sent) == pytest.approx(
        {label: 5.1 - at for label, at in sent.items()})
    # Nothing shown yet, or a word the server clock missed: no lag for it.
    assert catch_up_lags(labels, {}, sent) == {}
    assert "two" not in catch_up_lags(labels, shown, {k: v for k, v in sent.items() if k != "two"})
