"""The main screen's components: on Enter the screen asks the composer panel for the prompt
(``PromptSubmitted``, or nothing for octui's own commands) and sends it through the session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.snapshots.main_app import settle, wait_connected
from tests.unit.test_pickers import composer, recorded_app, seeded, type_text
from tui.screens.main import MainScreen
from widgets.composer.composer_panel import ComposerPanel


@pytest.fixture
def submitted(monkeypatch: pytest.MonkeyPatch) -> list[ComposerPanel.PromptSubmitted]:
    """The prompts the screen was asked to send (the sending itself is replaced)."""
    seen: list[ComposerPanel.PromptSubmitted] = []
    monkeypatch.setattr(MainScreen, "send_prompt", lambda self, prompt: seen.append(prompt))
    return seen


async def test_enter_sends_the_prompt_with_text_delivery_and_attachments(
        tmp_path: Path, submitted: list[ComposerPanel.PromptSubmitted]) -> None:
    (tmp_path / "notes.md").write_text("# notes\n", encoding="utf-8")
    with seeded() as (demo, sid):
        app, recorder = recorded_app(demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            panel = app.screen_main().composer
            panel.attach_base = str(tmp_path)
            composer(app).text = "/attach notes.md"
            await pilot.press("enter")
            await settle(pilot)
            assert submitted == []  # /attach is octui's own: nothing goes to the screen
            await type_text(pilot, "first")
            await pilot.press("enter")
            await pilot.pause(0.1)
            composer(app).text = ""  # the sending was replaced: nothing empties the box
            await type_text(pilot, "second")
            await pilot.press("alt+enter")
            await pilot.pause(0.1)
            assert [(p.text, p.delivery) for p in submitted] == [("first", "steer"), ("second", "queue")]
            assert [a.name for a in submitted[0].attachments] == ["notes.md"]
            assert panel.attachments == submitted[0].attachments  # kept until the prompt went
    assert recorder.posts("/prompt") == []


async def test_local_commands_never_reach_the_screen_as_prompts(
        submitted: list[ComposerPanel.PromptSubmitted]) -> None:
    with seeded() as (demo, sid):
        app, _ = recorded_app(demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            composer(app).text = "/new"
            await pilot.press("enter")
            await settle(pilot)
            assert submitted == []
            assert app.screen_main().session_id is None  # /new ran the screen's action
            assert composer(app).text == ""


async def test_the_screen_sends_a_submitted_prompt_to_the_open_session() -> None:
    with seeded() as (demo, sid):
        app, recorder = recorded_app(demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            main = app.screen_main()
            composer(app).text = "queued"
            main.send_prompt(ComposerPanel.PromptSubmitted("queued", "queue"))
            await settle(pilot)
            assert recorder.posts("/prompt") == [{"text": "queued", "delivery": "queue"}]
            assert main.session_id == sid
            assert composer(app).text == ""  # the panel was told it went


async def test_a_prompt_on_the_home_screen_creates_the_session_it_goes_to() -> None:
    app, recorder = recorded_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_connected(pilot)
        main = app.screen_main()
        assert main.session_id is None
        main.send_prompt(ComposerPanel.PromptSubmitted("hello", "steer"))
        await settle(pilot)
        assert main.session_id is not None
        assert recorder.posts("/prompt") == [{"text": "hello", "delivery": "steer"}]
        assert app.store.session(main.session_id).messages  # the server's answer came back on the stream


def test_message_fields() -> None:
    prompt: Any = ComposerPanel.PromptSubmitted("x", "steer")
    assert prompt.attachments == [] and prompt.mentioned == set()
