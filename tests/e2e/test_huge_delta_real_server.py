"""One 20 MB text delta, through the real server, must not wedge octui.

The fake LLM sends a 20 MB answer as a single chunk (no newline in it: the worst case for line
wrapping). While octui takes it in, keys keep working: each key pressed shows its effect within a
bounded wait. The turn completes, the screen says the display is cut and how to get the rest,
and the store (and so copy and export) keeps every character.
"""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
from textual import events

from tests.e2e.app_driver import running_app
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.server import RealServer
from tui.app.session_actions import last_answer
from tui.export import export_markdown
from tui.state.transcript import SessionState, TextBlock
from widgets.composer.composer import Composer

pytestmark = pytest.mark.e2e

HUGE = 20 * 1024 * 1024
KEY_BUDGET_S = 2.0  # a key's effect shows within this, however much text arrived at once
END = "END-OF-HUGE"


def _blocks(state: SessionState) -> list[TextBlock]:
    return [part for message in state.ordered_messages() if message.role == "assistant"
            for part in message.parts if isinstance(part, TextBlock) and part.kind == "text"]


def streamed(state: SessionState) -> int:
    """Characters of answer text in the store (no 20 MB join on every poll)."""
    return sum(len(block.text) for block in _blocks(state))


def ends_with(state: SessionState, marker: str) -> bool:
    blocks = _blocks(state)
    return bool(blocks) and blocks[-1].text.rstrip().endswith(marker)


async def test_a_20_mb_delta_leaves_keys_responsive_and_the_turn_completes(
    live_server: RealServer, fake_llm: FakeLLM
) -> None:
    name = f"huge-{uuid.uuid4().hex[:8]}"
    blob = ("0123456789abcdef" * (HUGE // 16))  # one line, 20 MB: the worst case for wrapping
    tag = fake_llm.add_scenario(name, [{"chunks": ["Huge answer follows.\n\n", blob, f" {END}"]}])
    sid = live_server.create_session()["id"]
    async with running_app(live_server, session_id=sid) as driver:
        app = driver.app
        composer = driver.main.query_one(Composer)
        await driver.type_prompt(f"Send me everything. {tag}")
        await driver.wait_until(lambda: streamed(driver.state) >= HUGE, "the 20 MB delta", 120.0)

        # Keys while octui digests it: each letter lands in the composer within the budget. A key
        # is posted as the terminal driver posts it (the pilot's press would also wait for the
        # whole app to go idle, which is not what a person waits for).
        composer.focus()
        worst = 0.0
        for letter in "wedge":
            expected = composer.text + letter
            started = time.monotonic()
            app.post_message(events.Key(letter, letter))
            await driver.wait_until(lambda: composer.text == expected,  # noqa: B023 (awaited here)
                                    f"the key {letter!r} to show", KEY_BUDGET_S * 5)
            worst = max(worst, time.monotonic() - started)
            await asyncio.sleep(0.2)
        assert composer.text == "wedge"
        assert worst <= KEY_BUDGET_S, f"a key took {worst:.1f} s to show"

        await driver.wait_until(lambda: not driver.state.busy and ends_with(driver.state, END),
                                "the turn to complete", 120.0)
        screen = await driver.wait_for_text("display cut", 30.0)
        assert "All of it is kept" in screen
        # Every character is kept: in the store, in what copying takes and in the export.
        answer = last_answer(driver.state)
        assert blob in answer and answer.rstrip().endswith(END)
        assert blob in export_markdown(driver.state)
        assert app.is_running
