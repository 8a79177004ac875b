"""The title octui gives a session its server leaves untitled (``tui/state/titles.py``)."""

from __future__ import annotations

import pytest

from tui.state.titles import TITLE_CHARS, is_default_title, title_from_prompt


@pytest.mark.parametrize(("title", "default"), [
    ("New session - 2026-12-07T21:11:12.123Z", True),
    ("Child session - 2026-12-07T21:11:12Z", True),
    ("", True),
    (None, True),
    ("Fake title", False),
    ("New session - about dates", False),
    ("New session - 2026-12-07T21:11:12.123Z and more", False),
])
def test_the_servers_placeholder_titles_are_known(title: str | None, default: bool) -> None:
    assert is_default_title(title) is default


def test_a_title_is_the_prompts_first_line_that_says_something() -> None:
    assert title_from_prompt("\n  \n  Fix the login bug  \nand the tests") == "Fix the login bug"
    assert title_from_prompt("   \n\t\n") is None
    long = title_from_prompt("word " * 40)
    assert long is not None and len(long) == TITLE_CHARS and long.endswith("…")
    assert title_from_prompt("rm \x1b[2J now") == "rm ␛[2J now"  # (shown, never obeyed)
