"""The answers ``bench/real_stream.py`` streams are what its figures say they are."""

from __future__ import annotations

import pytest

from bench.real_stream import CHECKPOINTS, END_MARKER, SHAPES, answer_chunks, markdown_answer
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
                                              ("quotes", "blockquote_open"), ("longlines", "fence")])
def test_the_one_block_shapes_are_one_block(shape: str, block: str) -> None:
    text, _ = markdown_answer(20 * 1024, shape)
    opened = [token.type for token in PARSER.parse(text)
              if token.level == 0 and (token.nesting == 1 or token.type == "fence")]
    assert opened == [block]
    if shape == "table":
        assert streamed_table(text) is not None  # streamed row by row
