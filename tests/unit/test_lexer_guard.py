"""A Pygments lexer that makes no progress on some text (MCSchema's on ``<!-- a``: empty tokens
for ever) neither hangs an answer's code fence (``test_markdown_seal``) nor a diff's colours."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from pygments.lexers import get_lexer_by_name
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from tui.text.lexer_guard import STUCK_AFTER, LexerStuck, makes_progress, progressing
from tui.text.tool_diffs import DiffFile, parse_patch
from widgets.tools.diff_view import DiffView

STUCK = "<!-- a\n-->\n"


@contextmanager
def at_most(seconds: int) -> Iterator[None]:
    def stuck(*_: object) -> None:
        raise TimeoutError("hung on a lexer that makes no progress")

    old = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_a_lexer_that_makes_no_progress_is_told_from_one_that_does() -> None:
    with at_most(20):
        assert not makes_progress(get_lexer_by_name("mcschema"), STUCK)
        assert makes_progress(get_lexer_by_name("mcschema"), '{"type": "object"}\n')
        assert makes_progress(get_lexer_by_name("python"), "def f():\n    return ''\n" * 50)
    with pytest.raises(LexerStuck):
        list(progressing([("a", "x")] + [("b", "")] * (STUCK_AFTER + 1)))
    assert len(list(progressing([("b", "")] * STUCK_AFTER + [("a", "x")] * 3))) == STUCK_AFTER + 3


async def test_a_diff_of_such_a_file_is_drawn_as_plain_text() -> None:
    patch = "@@ -1,2 +1,2 @@\n-<!-- old\n+<!-- new\n -->\n"
    diff = DiffFile(path="schema.mcschema", hunks=parse_patch(patch))

    class DiffApp(App[None]):
        def compose(self) -> ComposeResult:
            with VerticalScroll():
                yield DiffView(diff, split=False)

    with at_most(30):
        app = DiffApp()
        async with app.run_test(size=(60, 10)) as pilot:
            await pilot.pause()
            shown = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
    assert "<!-- old" in shown and "<!-- new" in shown and "-->" in shown
