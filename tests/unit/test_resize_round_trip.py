"""Back at a size it had before, the screen shows what it showed then.

Textual keeps each widget's box model per container size. An answer's text block renders its
lines for the width it is asked its height at: back at a width it was laid out at before, Textual
took the height it had then without asking, and the lines stayed at the width in between. After
a narrow spell (a tmux pane split, a phone's SSH session), widening the terminal left answers
wrapped at the narrow width and cut to their old height: their last lines were gone (QA, against
the real server).
"""

from __future__ import annotations

from typing import Any

from textual.app import App

from tests.snapshots.main_app import MainApp, main_screen, permission_open, settle
from widgets.transcript.text_block import TextBlockView


def screen_rows(app: App[Any]) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def test_a_narrow_spell_and_back_shows_the_same_screen() -> None:
    app = MainApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await permission_open(pilot)
        await pilot.press("o")  # the welcome answer: paragraphs, a list, code
        for _ in range(100):
            await pilot.pause(0.05)
            if not app.store.asks and not any(s.busy for s in app.store.sessions.values()):
                break
        await settle(pilot)
        before = screen_rows(app)
        blocks = list(main_screen(app).query(TextBlockView))
        assert blocks and all(block._pieces.width == block.content_size.width for block in blocks)
        for width, height in ((30, 10), (100, 30), (90, 30), (100, 30)):
            await pilot.resize_terminal(width, height)
            await settle(pilot)
            await pilot.pause(0.2)
            await settle(pilot)
            for block in blocks:  # every block's lines at its width, and as tall as they are
                assert block._pieces.width == block.content_size.width, (width, block._pieces.width)
                assert block.size.height == block._pieces.total
        assert screen_rows(app) == before
