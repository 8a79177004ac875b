"""tui.session.mentions: slash commands, @ mentions, mention spans, completion context, fuzzy ranking."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tui.session.mentions import (
    CompletionContext,
    Mention,
    SlashCommand,
    completion_context,
    file_uri,
    find_mentions,
    fuzzy_filter,
    fuzzy_score,
    parse_slash,
    prompt_files,
    utf16_offset,
)

DIR = "/home/demo/project"


@pytest.mark.parametrize(("text", "expected"), [
    ("/init", SlashCommand("init")),
    ("/review src/main.py please", SlashCommand("review", "src/main.py please")),
    ("  /review   two\nlines  ", SlashCommand("review", "two\nlines")),
    ("/review\targs", SlashCommand("review", "args")),
    ("review", None),
    ("/", None),
    ("/ init", None),
    ("hello /init", None),
])
def test_parse_slash(text: str, expected: SlashCommand | None) -> None:
    assert parse_slash(text) == expected


def test_parse_slash_only_known_names() -> None:
    assert parse_slash("/usr/bin is odd", {"init"}) is None
    assert parse_slash("/init now", {"init"}) == SlashCommand("init", "now")
    assert parse_slash("/initx", {"init"}) is None


def test_find_mentions_positions_and_boundaries() -> None:
    text = "look at @src/a.py and @b.md, not me@mail.com or @"
    assert find_mentions(text) == [Mention(8, 17, "src/a.py"), Mention(22, 27, "b.md")]
    assert text[8:17] == "@src/a.py"
    assert find_mentions("@x\n@y.") == [Mention(0, 2, "x"), Mention(3, 5, "y")]


def test_prompt_files_only_accepted_paths_with_spans() -> None:
    text = "fix @src/greet.py, ask @someone"
    files = prompt_files(text, DIR, {"src/greet.py"})
    assert files == [{
        "uri": "file:///home/demo/project/src/greet.py",
        "name": "src/greet.py",
        "mention": {"start": 4, "end": 17, "text": "@src/greet.py"},
    }]
    span = files[0]["mention"]
    assert text[span["start"]:span["end"]] == span["text"]
    assert [f["name"] for f in prompt_files(text, DIR)] == ["src/greet.py", "someone"]
    assert prompt_files(text, DIR, set()) == []


def test_mention_spans_count_utf16_units() -> None:
    text = "🙂 see @a.py"
    files = prompt_files(text, DIR, {"a.py"})
    # Python index 6, but the emoji is two UTF-16 units, as JavaScript counts it
    assert files[0]["mention"] == {"start": 7, "end": 12, "text": "@a.py"}
    assert utf16_offset("é🙂x", 3) == 4


def test_file_uri() -> None:
    assert file_uri(DIR, "src/a b.py") == "file:///home/demo/project/src/a%20b.py"
    assert file_uri(DIR, "/etc/hosts") == "file:///etc/hosts"
    assert file_uri("C:\\proj", "src\\a.py") == "file:///C:/proj/src/a.py"


@pytest.mark.parametrize(("text", "cursor", "expected"), [
    ("/", 1, CompletionContext("slash", "", 0, 1)),
    ("/rev", 4, CompletionContext("slash", "rev", 0, 4)),
    ("/review ", 8, None),
    ("/rev", 2, CompletionContext("slash", "r", 0, 2)),
    ("see @sr", 7, CompletionContext("mention", "sr", 4, 7)),
    ("@", 1, CompletionContext("mention", "", 0, 1)),
    ("line\n@src/", 10, CompletionContext("mention", "src/", 5, 10)),
    ("mail me@x", 9, None),
    ("see @src done", 13, None),
    ("plain", 5, None),
    ("", 0, None),
])
def test_completion_context(text: str, cursor: int, expected: CompletionContext | None) -> None:
    assert completion_context(text, cursor) == expected


def test_fuzzy_ranking() -> None:
    assert fuzzy_score("", "anything") == 0
    assert fuzzy_score("xyz", "review") is None
    names = ["review", "init", "preview-all", "revert"]
    assert fuzzy_filter("rev", names)[:2] == ["review", "revert"]  # prefix matches; ties keep order
    assert fuzzy_filter("rev", ["reviewers", "revert"])[0] == "revert"  # shorter prefix match first
    assert "preview-all" in fuzzy_filter("rev", names)
    assert fuzzy_filter("", names) == names
    assert fuzzy_filter("i", ["bin", "init"]) == ["init", "bin"]


@given(st.text(max_size=60), st.data())
def test_completion_context_never_crashes_and_is_consistent(text: str, data: st.DataObject) -> None:
    cursor = data.draw(st.integers(min_value=0, max_value=len(text)))
    context = completion_context(text, cursor)
    if context is not None:
        assert text[context.start] in "/@"
        assert text[context.start + 1:context.end] == context.query
        assert context.end == cursor


@given(st.text(max_size=80))
def test_mention_spans_always_point_at_their_text(text: str) -> None:
    for mention in find_mentions(text):
        assert text[mention.start:mention.end] == mention.text
