"""ReasoningView: bounded work per frame however long the reasoning is."""

from __future__ import annotations

import time

from textual.app import App, ComposeResult

from tui.state.transcript import TextBlock
from widgets.transcript import reasoning_block
from widgets.transcript.reasoning_block import ReasoningView


class ReasoningApp(App[None]):
    def __init__(self, block: TextBlock, collapsed: bool) -> None:
        super().__init__()
        self.view = ReasoningView(block, collapsed=collapsed)

    def compose(self) -> ComposeResult:
        yield self.view


def test_words_are_counted_incrementally_and_exactly() -> None:
    block = TextBlock(kind="reasoning", ordinal=0, streaming=True)
    view = ReasoningView(block)
    text = ""
    for piece in ["Hmm, ", "let me", " think", " about\tthis\n", "carefully", "", "  "]:
        text += piece
        assert view._words(text) == (len(text.split()), True), repr(text)
    assert view._words("Completely different text") == (3, True), "a replaced text is counted again"


async def test_a_huge_reasoning_block_is_counted_in_steps_and_shown_cut() -> None:
    text = "word " * 600_000  # 3 MB
    block = TextBlock(kind="reasoning", ordinal=0, text=text, streaming=False)
    app = ReasoningApp(block, collapsed=False)
    async with app.run_test(size=(100, 30)) as pilot:
        started = time.thread_time()  # CPU: a loaded machine must not fail it
        await pilot.pause()  # mounted: synced once
        assert time.thread_time() - started < 1.0
        for _ in range(100):  # bounded: the count catches up a step per timer tick
            if "(600000 words)" in str(app.view.title):
                break
            await pilot.pause(0.06)
        assert str(app.view.title) == "Thought (600000 words)"
        shown = str(app.view._body.render())
        assert shown.startswith("✂ the first 2,950,000 of 3,000,000 characters are not shown")
        assert len(shown) < reasoning_block.SHOWN_MAX_CHARS + 200
