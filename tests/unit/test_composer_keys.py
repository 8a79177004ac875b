"""The composer's own keys act in key order, even when the keys arrive together.

A terminal delivers what is typed fast in one read, so Ctrl+J and the letters after it reach the
app back to back. As a plain binding, Ctrl+J ran only after its key had bubbled up the DOM, and
the letters landed first: "one", Ctrl+J, "two" gave "onetwo\\n". The keys here are posted in one go,
with no pause between them, as the driver does with one read.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from textual import events
from textual.pilot import Pilot

from tests.snapshots.main_app import (
    NOW,
    SIZE,
    MainApp,
    ManualClock,
    frozen,
    main_screen,
    make_demo,
    settle,
    type_prompt,
    wait_connected,
    wait_until,
)
from tui.demo import DemoServer, history_fixture
from tui.screens.message_keys import TYPING_WINDOW_S
from widgets._textual_compat import anchor_released
from widgets.composer.composer import Composer
from widgets.transcript.message_view import MessageView
from widgets.transcript.transcript import Transcript


def burst(app: MainApp, *keys: str) -> None:
    """Post every key at once (no pause, no waiting for the previous one to be handled)."""
    for key in keys:
        app.post_message(events.Key(key, " " if key == "space" else key if len(key) == 1 else None))


async def composer_after(pilot: Pilot[Any], *keys: str) -> Composer:
    app = pilot.app
    assert isinstance(app, MainApp)
    await wait_connected(pilot)
    composer = app.screen_main().query_one(Composer)
    composer.focus()
    await pilot.pause()
    burst(app, *keys)
    await pilot.pause(0.2)
    await pilot.pause()
    return composer


@contextlib.asynccontextmanager
async def reading(messages: int, *, notifications: bool = False) -> AsyncIterator[
        tuple[MainApp, Pilot[Any], DemoServer, str]]:
    """The app (time frozen) on a demo session of ``messages`` messages, opened and settled."""
    with frozen(NOW):
        clock = ManualClock()
        demo = make_demo(clock)
        app = MainApp(demo, demo_clock=clock)
        async with app.run_test(size=SIZE, notifications=notifications) as pilot:
            sid = demo.seed_session("Reading", history_fixture(messages))["id"]
            await wait_connected(pilot)
            main_screen(app).open(sid)
            await settle(pilot)
            yield app, pilot, demo, sid


async def test_ctrl_j_then_text_at_once_keeps_the_order() -> None:
    with frozen():
        app = MainApp()
        async with app.run_test(size=(100, 24)) as pilot:
            composer = await composer_after(pilot, *"one", "ctrl+j", *"two", "ctrl+j", *"three")
            assert composer.text == "one\ntwo\nthree"


async def test_shift_enter_too() -> None:
    with frozen():
        app = MainApp()
        async with app.run_test(size=(100, 24)) as pilot:
            composer = await composer_after(pilot, "a", "shift+enter", "b", "shift+enter", "c")
            assert composer.text == "a\nb\nc"


async def test_alt_enter_queues_only_what_was_typed_before_it() -> None:
    with frozen():
        app = MainApp()
        sent: dict[int, tuple[str, str]] = {}  # the hook sees a message at every hop it bubbles

        def hook(message: object) -> None:
            if isinstance(message, Composer.Submitted):
                sent[id(message)] = (message.text, message.delivery)

        async with app.run_test(size=(100, 24), message_hook=hook) as pilot:
            await composer_after(pilot, *"first", "alt+enter", *"late")
            assert list(sent.values()) == [("first", "queue")]


async def test_editing_keys_at_once_keep_the_order() -> None:
    """TextArea's own keys (Backspace, Ctrl+U, the arrows) ran after the letters typed after them."""
    with frozen():
        app = MainApp()
        async with app.run_test(size=(100, 24)) as pilot:
            composer = await composer_after(pilot, *"fix teh", "backspace", "backspace", *"he bug")
            assert composer.text == "fix the bug"
            composer.text = ""
            burst(app, *"abc", "ctrl+u", *"xyz")
            await pilot.pause(0.2)
            assert composer.text == "xyz"
            composer.text = ""
            burst(app, *"abc", "left", "left", "X", "end", "!")
            await pilot.pause(0.2)
            assert composer.text == "aXbc!"


async def test_a_key_the_prompt_declines_goes_on_to_the_app() -> None:
    """Ctrl+C copies a selection in the prompt; with none, the app's Ctrl+C says how to quit."""
    with frozen():
        app = MainApp()
        async with app.run_test(size=(100, 24), notifications=True) as pilot:
            composer = await composer_after(pilot, *"typed", "ctrl+c")
            assert composer.text == "typed"
            assert any("quit" in str(toast.message) for toast in app._notifications)


async def test_page_keys_in_the_prompt_page_the_transcript() -> None:
    async with reading(80) as (app, pilot, demo, sid):
        transcript = main_screen(app).query_one(Transcript)
        composer = main_screen(app).query_one(Composer)
        composer.focus()
        await settle(pilot)
        bottom = transcript.scroll_y
        assert bottom > 0 and bottom >= transcript.max_scroll_y - 1
        burst(app, *"draft", "pageup")
        await settle(pilot)
        page = transcript.scrollable_content_region.height
        assert transcript.scroll_y == max(0, bottom - page)  # a page up, held there
        assert anchor_released(transcript)  # not yanked back by what streams meanwhile
        assert composer.text == "draft" and composer.has_focus
        burst(app, "pagedown", "pagedown", "pagedown")
        await settle(pilot)
        assert transcript.scroll_y >= transcript.max_scroll_y - 1
        assert not anchor_released(transcript)  # at the bottom: following again
        transcript.focus()  # the same keys with the transcript focused (Textual's own PgDn
        await settle(pilot)  # at the bottom released the anchor, and it stayed released)
        assert app.focused is transcript
        for key in ("pageup", "pagedown", "pagedown"):  # one at a time: a page scroll is done
            burst(app, key)  # after the next refresh, and a burst would judge from before it
            await settle(pilot)
        assert transcript.scroll_y >= transcript.max_scroll_y - 1 and not anchor_released(transcript)


async def test_a_remapped_prompt_key_acts_under_its_new_key_only() -> None:
    """The in-order keys read the bindings as remapped (``[keys]`` in the config): the old key
    recalled the history still, and took a key the user had given to something else."""
    from tui.screens.help import binding_rows, help_sections

    with frozen():
        app = MainApp()
        async with app.run_test(size=(100, 24)) as pilot:
            app.set_keymap({"octui.history_previous": "alt+p"})
            composer = await composer_after(pilot)
            composer.prompt_history.append("first")  # as a sent prompt leaves it
            composer._history_index = len(composer.prompt_history)
            burst(app, "ctrl+up")
            await pilot.pause(0.2)
            assert composer.text == ""  # not the old key any more
            burst(app, "alt+p")
            await pilot.pause(0.2)
            assert composer.text == "first"
            rows = binding_rows(help_sections(app.screen), app)
            assert [row.keys for row in rows if row.description == "Previous prompt"] == ["alt+p"]


async def test_letters_in_one_read_are_one_edit() -> None:
    """A paste where the terminal has no bracketed paste arrives as thousands of keys: inserted one
    by one, TextArea wrapped the whole line again at each, ~9 s of CPU for 6,000 characters."""
    with frozen():
        app = MainApp()
        async with app.run_test(size=(100, 24)) as pilot:
            composer = await composer_after(pilot)
            edits: list[str] = []
            real_edit = composer.edit

            def counted(edit: Any) -> Any:
                edits.append(edit.text)
                return real_edit(edit)

            composer.edit = counted  # type: ignore[method-assign]
            text = "the quick brown fox jumps over the lazy dog " * 40
            for ch in text:  # as the driver reads them: a space is the key "space"
                app.post_message(events.Key("space" if ch == " " else ch, ch))
            await pilot.pause(0.2)
            assert composer.text == text
            assert 1 <= len(edits) <= 5, len(edits)  # not one a key
            assert composer.cursor_location == (0, len(text))


async def test_letters_typed_ahead_replace_the_selection_and_are_read_in_order() -> None:
    with frozen():
        app = MainApp()
        async with app.run_test(size=(100, 24)) as pilot:
            composer = await composer_after(pilot, *"old text")
            composer.select_all()
            burst(app, *"new", "left", *"ly")
            await pilot.pause(0.2)
            assert composer.text == "nelyw"
            # Read from outside while a letter waits to be inserted: it is in the text already,
            # at the cursor.
            composer._typed.append("!")  # as the key handler leaves it, before its callback ran
            assert composer.text == "nely!w"
            composer._typed.append("?")
            composer.text = "reset"  # written after the letter: it replaces the letter too
            await pilot.pause(0.2)
            assert composer.text == "reset" and not composer._typed
            # Written into from outside (the server appends to the prompt, @ from the palette):
            # after the letters typed ahead, where they leave the cursor.
            composer.move_cursor(composer.document.end)
            composer._typed.extend("cd")
            composer.insert("X")
            assert composer.text == "resetcdX" and composer.cursor_location == (0, 8)


async def test_a_word_split_over_two_reads_is_still_one_undo_step() -> None:
    """Typed ahead, a few letters go in one by one as keys do: TextArea makes any edit of more
    than one character an undo step of its own, so undo would take back arbitrary fragments of
    a word, as the terminal happened to split it."""
    with frozen():
        app = MainApp()
        async with app.run_test(size=(100, 24)) as pilot:
            composer = await composer_after(pilot, *"hel")
            burst(app, *"lo")
            await pilot.pause(0.2)
            assert composer.text == "hello"
            burst(app, "ctrl+z")
            await pilot.pause(0.2)
            assert composer.text == ""


async def test_letters_typed_on_a_message_go_to_the_prompt() -> None:
    """After a click on a message (or Tab to it), typing went nowhere (QA). Letters that are no
    key of the message's go to the prompt, with the focus, in order; its own keys still act."""
    async with reading(6, notifications=True) as (app, pilot, demo, sid):
        composer = main_screen(app).query_one(Composer)
        views = list(main_screen(app).query(MessageView))
        answer = next(view for view in reversed(views) if view.message.role == "assistant")
        answer.focus()
        await settle(pilot)
        assert app.focused is answer
        burst(app, *"fix", "space", *"it")  # (the driver's space: key "space", character " ")
        await settle(pilot)
        assert composer.text == "fix it" and app.focused is composer

        answer.focus()
        await settle(pilot)
        burst(app, "space")  # no start of a prompt: nothing moves
        await settle(pilot)
        assert composer.text == "fix it" and app.focused is answer
        # A message's own letter with another character right behind it (one terminal read)
        # began a prompt (QA: "copy" typed on an answer became "opy", the "c" copying its code).
        burst(app, "y", "x")
        await settle(pilot)
        assert not any("Message" in str(toast.message) for toast in app._notifications)
        assert composer.text == "fix ityx" and app.focused is composer
        # Alone, it acts once the moment to tell it from typing is over, and a letter after
        # that goes to the prompt.
        answer.focus()
        await settle(pilot)
        burst(app, "y")
        await pilot.pause(TYPING_WINDOW_S + 0.2)
        await settle(pilot)
        assert any("Message" in str(toast.message) for toast in app._notifications)
        burst(app, "x")
        await settle(pilot)
        assert composer.text == "fix ityxx" and app.focused is composer
        answer.focus()
        await settle(pilot)
        burst(app, "u", "p")  # undo is a prompt's key only: on an answer, "u" is a letter
        await settle(pilot)
        assert composer.text == "fix ityxxup" and app.focused is composer


async def test_a_click_on_a_message_leaves_typing_in_the_prompt() -> None:
    """QA: after a click on a message, typing "yes please" copied the message ("y" is its key)
    and the prompt got "es please"; "update the docs" asked to undo. A click no longer moves
    the focus to the message; Tab does, and the message shows it (its keys then act on it)."""
    async with reading(6, notifications=True) as (app, pilot, demo, sid):
        screen = main_screen(app)
        composer = screen.query_one(Composer)
        views = list(screen.query(MessageView))
        answer = next(view for view in reversed(views) if view.message.role == "assistant")
        prompt = next(view for view in reversed(views) if view.message.role == "user")
        before = answer.styles.background
        for view in (answer, prompt):
            await pilot.click(view)
            await settle(pilot)
            assert app.focused is composer
        burst(app, *"yes", "space", *"please", "space", *"update")
        await settle(pilot)
        assert composer.text == "yes please update"
        assert not [toast for toast in app._notifications if "Message" in str(toast.message)]
        answer.focus()
        await settle(pilot)
        assert answer.styles.background != before  # marked as focused


async def test_tab_from_the_prompt_goes_to_the_last_message_on_screen() -> None:
    """QA: Tab from the prompt of a long session went to its first message, and the view jumped
    to the top. It goes to the last message (or tool row) on screen, and the view stays."""
    async with reading(80) as (app, pilot, demo, sid):
        screen = main_screen(app)
        transcript = screen.query_one(Transcript)
        composer = screen.query_one(Composer)
        composer.focus()
        await settle(pilot)
        at = transcript.scroll_y
        await pilot.press("tab")
        await settle(pilot)
        focused = app.focused
        assert isinstance(focused, MessageView) and focused.region.overlaps(transcript.content_region)
        last = [v for v in screen.query(MessageView) if v.region.overlaps(transcript.content_region)][-1]
        assert focused is last and transcript.scroll_y == at


async def test_tab_goes_round_the_last_message_the_subagent_tree_and_the_prompt() -> None:
    """QA: with a subagent tree shown, Tab never reached it (the prompt sent Tab back into the
    transcript). From the last message, Tab goes to the tree, and from the tree to the prompt;
    Shift+Tab goes the same way back."""
    import time

    from tui.screens.key_guard import keys_taken
    from tui.screens.main import MainScreen
    from tui.screens.permission import PermissionScreen
    from widgets.subagents.subagent_tree import SubagentTree

    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        await type_prompt(pilot, "Split this work across subagents.")
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionScreen))  # (one subagent asks)
        dialog = app.screen
        await wait_until(pilot, lambda: keys_taken(dialog, time.perf_counter()))
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
        await settle(pilot)
        screen = main_screen(app)
        tree = screen.query_one(SubagentTree)
        assert tree in screen.focus_chain  # shown, with the subagents in it
        screen.query_one(Composer).focus()
        seen = []
        for _ in range(6):
            await pilot.press("tab")
            await settle(pilot)
            seen.append(type(app.focused).__name__)
        assert seen == ["MessageView", "SubagentTree", "Composer"] * 2
        seen = []
        for _ in range(3):  # Shift+Tab: the same way back
            await pilot.press("shift+tab")
            await settle(pilot)
            seen.append(type(app.focused).__name__)
        assert seen == ["SubagentTree", "MessageView", "ToolRow"]


async def test_u_on_a_prompt_undoes_on_the_second_press_only() -> None:
    """Undo stages a revert (the files are put back at once), and "u" is the first letter of
    many a prompt typed on a focused message: the first press asks, the second undoes."""
    async with reading(6, notifications=True) as (app, pilot, demo, sid):
        views = list(main_screen(app).query(MessageView))
        prompt = next(view for view in reversed(views) if view.message.role == "user")
        prompt.focus()
        await settle(pilot)
        staged = [e for e in demo.emitted if e["type"] == "session.revert.staged"]
        burst(app, "u")
        await settle(pilot)
        assert any("Press u again" in str(toast.message) for toast in app._notifications)
        assert [e for e in demo.emitted if e["type"] == "session.revert.staged"] == staged
        burst(app, "u")
        for _ in range(50):  # the undo is a worker's request to the (demo) server
            await pilot.pause(0.1)
            if any(e["type"] == "session.revert.staged" for e in demo.emitted):
                break
        assert any(e["type"] == "session.revert.staged" for e in demo.emitted)


async def test_a_prompt_sent_while_scrolled_up_brings_the_view_to_the_bottom() -> None:
    """The prompt and its answer went in below, out of sight, under a "new below" chip (QA)."""
    from tests.snapshots.main_app import type_prompt

    async with reading(80) as (app, pilot, demo, sid):
        transcript = main_screen(app).query_one(Transcript)
        burst(app, "pageup", "pageup")
        await settle(pilot)
        assert anchor_released(transcript) and transcript.scroll_y < transcript.max_scroll_y - 1
        await type_prompt(pilot, "long")
        for _ in range(50):
            await pilot.pause(0.1)
            if not anchor_released(transcript) and transcript.scroll_y >= transcript.max_scroll_y - 1:
                break
        assert not anchor_released(transcript)
        assert transcript.scroll_y >= transcript.max_scroll_y - 1
        from tui.storage.saved_state import SavedState
        for _ in range(20):  # and kept for Ctrl+Up in the next run (written off the loop)
            if SavedState().prompt_history() == ["long"]:
                break
            await pilot.pause(0.05)
        assert SavedState().prompt_history() == ["long"]


async def test_the_history_keeps_the_draft_and_earlier_runs_prompts() -> None:
    """Ctrl+Up then Ctrl+Down came back to an empty prompt: what was being typed was gone
    (QA). And the history was this run's only: after a restart Ctrl+Up recalled nothing."""
    from tui.storage.saved_state import SavedState

    SavedState().remember_prompt("from the last run")
    with frozen():
        app = MainApp()
        async with app.run_test(size=(100, 24)) as pilot:
            composer = await composer_after(pilot)
            for _ in range(20):  # the history is read off the event loop
                if composer.prompt_history:
                    break
                await pilot.pause(0.05)
            composer.prompt_history.append("sent earlier")  # as a sent prompt leaves it
            composer._history_index = len(composer.prompt_history)
            burst(app, *"my precious draft", "ctrl+up")
            await pilot.pause(0.2)
            assert composer.text == "sent earlier"
            burst(app, "ctrl+up")
            await pilot.pause(0.2)
            assert composer.text == "from the last run"
            burst(app, "ctrl+down", "ctrl+down")
            await pilot.pause(0.2)
            assert composer.text == "my precious draft"
            # Browsing, then the text replaced from outside (another session's draft shown): the
            # browsing is over, and Ctrl+Down does not bring the first draft back over it.
            burst(app, "ctrl+up")
            await pilot.pause(0.2)
            composer.text = "another session's draft"
            burst(app, "ctrl+down")
            await pilot.pause(0.2)
            assert composer.text == "another session's draft"
            # Earlier runs' prompts that come while the history is browsed leave it where it is.
            burst(app, "ctrl+up")
            await pilot.pause(0.2)
            assert composer.text == "sent earlier"
            composer.load_history(["older still"])
            burst(app, "ctrl+down")
            await pilot.pause(0.2)
            assert composer.text == "another session's draft"


async def test_page_up_at_the_top_brings_the_older_page_in() -> None:
    """PgUp stopped at "show older messages": only a click on it, or Home, went further (QA)."""
    from widgets.transcript.transcript_window import WINDOW

    async with reading(WINDOW * 3) as (app, pilot, demo, sid):
        transcript = main_screen(app).query_one(Transcript)
        assert transcript.mounted_messages == WINDOW
        transcript.scroll_home(animate=False, immediate=True)
        await settle(pilot)
        top = next(iter(transcript._views.values()))
        burst(app, "pageup")  # at the top: the older page comes in, the view a screen above
        await settle(pilot)
        assert transcript.mounted_messages > WINDOW
        view = transcript.scrollable_content_region.height
        below = top.virtual_region_with_margin.y - transcript.scroll_y
        assert view - 2 <= below <= view + 2, (below, view)  # what was at the top: just under
        first = next(iter(app.store.sessions[sid].messages))
        for _ in range(60):  # bounded: page up until the first message is mounted
            if first in transcript._views:
                break
            burst(app, "pageup")
            await settle(pilot)
        assert first in transcript._views and transcript.mounted_messages > WINDOW


async def test_no_prompt_history_is_kept_when_the_config_says_so() -> None:
    """Prompts can hold secrets: ``prompt_history = false`` keeps none, and recalls none."""
    from tests.snapshots.main_app import type_prompt
    from tui.storage.config import Config
    from tui.storage.saved_state import SavedState

    SavedState().remember_prompt("from the last run")
    with frozen():
        app = MainApp()
        app.config = Config(prompt_history=False)
        async with app.run_test(size=(100, 24)) as pilot:
            composer = await composer_after(pilot)
            await type_prompt(pilot, "a secret")
            await pilot.pause(0.3)
            assert composer.prompt_history == ["a secret"]  # this run's only
    assert SavedState().prompt_history() == ["from the last run"]


async def test_hiding_the_focused_subagent_tree_gives_the_prompt_its_keys_back() -> None:
    """QA: Ctrl+G hid the tree while it had the focus; nothing was focused after, and the prompt
    typed next went nowhere (two real prompts were lost so)."""
    from widgets.subagents.subagent_tree import SubagentTree

    async with reading(6) as (app, pilot, demo, sid):
        composer = main_screen(app).query_one(Composer)
        await pilot.press("ctrl+g")
        await settle(pilot)
        tree = main_screen(app).query_one(SubagentTree)
        assert tree.display
        tree.focus()
        await settle(pilot)
        assert app.focused is tree
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert not tree.display and app.focused is composer
        burst(app, *"sent")
        await settle(pilot)
        assert composer.text == "sent"


async def test_a_mouse_selection_over_an_answer_copies_its_text() -> None:
    """QA: dragging over an answer and pressing Ctrl+C copied "TextBlockView.text-block" (the
    widget's name), wrote no file copy and said nothing."""
    from textual.selection import Selection

    from tui.storage.config import state_dir
    from widgets.transcript.text_block import TextBlockView

    async with reading(6, notifications=True) as (app, pilot, demo, sid):
        screen = main_screen(app)
        view = list(screen.query(TextBlockView))[-1]
        assert view.source
        copied: list[str] = []
        app.copy_to_clipboard = copied.append  # type: ignore[method-assign,assignment]
        screen.selections = {view: Selection(None, None)}
        await pilot.press("ctrl+c")
        await settle(pilot)
        assert copied == [view.source.rstrip("\n")]
        assert (state_dir() / "clipboard.txt").read_text() == copied[0]
        assert any("Selection" in str(toast.message) for toast in app._notifications)


async def test_a_focused_answer_is_marked_in_any_colours() -> None:
    """QA: with 16 or 256 colours, Tab to an answer changed no cell (its tint mapped to the same
    colour), yet its keys acted. A band is drawn in its first column, a character, not a colour."""
    async with reading(6) as (app, pilot, demo, sid):
        views = list(main_screen(app).query(MessageView))
        answer = next(view for view in reversed(views) if view.message.role == "assistant")
        await pilot.pause()
        region = answer.region

        def first_column() -> set[str]:
            rows = main_screen(app)._compositor.render_strips()[region.y:region.bottom]
            return {row.crop(region.x, region.x + 1).text for row in rows}

        assert first_column() == {" "}
        answer.focus()
        await settle(pilot)
        assert first_column() - {" "}, "no band on the focused answer"


async def test_a_word_typed_on_a_focused_row_keeps_its_first_letter() -> None:
    """QA: on a focused tool row "check git" reached the prompt as "heck git" (the "c" copied
    the message's code), and on a prompt "update it" as "pdate it" (the "u" asked to undo)."""
    from widgets.tools.tool_row import ToolRow

    async with reading(6, notifications=True) as (app, pilot, demo, sid):
        screen = main_screen(app)
        composer = screen.query_one(Composer)
        rows = list(screen.query(ToolRow))
        assert rows, "the history needs a tool row"
        rows[-1].focus()
        await settle(pilot)
        burst(app, *"check", "space", *"git")
        await settle(pilot)
        assert composer.text == "check git" and app.focused is composer
        composer.clear()
        prompt = next(view for view in screen.query(MessageView) if view.message.role == "user")
        prompt.focus()
        await settle(pilot)
        burst(app, *"update")
        await pilot.pause(TYPING_WINDOW_S + 0.2)
        await settle(pilot)
        assert composer.text == "update"
        assert not any("again" in str(toast.message) for toast in app._notifications)
