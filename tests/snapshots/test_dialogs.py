"""Approval, question and form dialogs and the inbox: functional pilot tests and SVG snapshots."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Static, Tab

from tests.snapshots.dialog_app import DialogApp
from tui.app import clock
from tui.app.app import OctuiApp
from tui.protocol.models import (
    FormCondition,
    FormField,
    FormInfo,
    FormOption,
    PermissionRequest,
    QuestionItem,
    QuestionOption,
    QuestionRequest,
)
from tui.screens.ask_router import draft_of, screen_for_ask
from tui.screens.form import FormScreen
from tui.screens.inbox import InboxChoice, InboxScreen
from tui.screens.permission import PermissionScreen
from tui.screens.question import QuestionScreen
from tui.state.asks import (
    FormAnswer,
    FormDismissed,
    PermissionAnswer,
    QuestionAnswer,
    QuestionDismissed,
    QuestionState,
    answer_for,
)
from tui.state.transcript import ToolCall
from widgets.asks.form_field import FieldEditor
from widgets.asks.form_field.choice_list import ChoiceList

SIZE = (100, 34)
SnapCompare = Callable[..., bool]


@pytest.fixture(autouse=True)
def deterministic(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Frozen clock and a steady (non-blinking) cursor."""
    clock.freeze(1_790_000_000.0)
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    yield
    clock.freeze(None)


# -------------------------------------------------------------------------------------- data

def bash_ask(save: list[str] | None = None) -> tuple[PermissionRequest, ToolCall]:
    ask = PermissionRequest(id="per_bash", sessionID="ses_a", action="bash",
                            resources=["make test"], save=save or [])
    tool = ToolCall(id="call_1", name="bash", session_id="ses_a",
                    input={"command": "make test && git status --short"})
    return ask, tool


PATCH = """Index: notes.txt
===================================================================
--- notes.txt
+++ notes.txt
@@ -1,4 +1,4 @@
 # Notes
-TODO: write the tests
+DONE: write the tests
 keep this line
-old ending
+new ending"""


def edit_ask() -> PermissionRequest:
    files = [{"file": "notes.txt", "patch": PATCH, "additions": 2, "deletions": 2, "status": "modified"}]
    return PermissionRequest(id="per_edit", sessionID="ses_a", action="edit", resources=["notes.txt"],
                             save=["*"], metadata={"files": files})


def long_lists_ask() -> PermissionRequest:
    """Sixty harmless resources and "always" patterns, and the ones that matter last."""
    return PermissionRequest(id="per_long", sessionID="ses_a", action="edit",
                             resources=[f"src/module_{i}.py" for i in range(60)] + ["/etc/shadow"],
                             save=[f"src/module_{i}.py" for i in range(60)] + ["rm -rf /*"])


def question_ask(multiple: bool = False, custom: bool | None = None, count: int = 1) -> QuestionRequest:
    colours = QuestionItem(
        question="Which colour should the status bar use?", header="Color", multiple=multiple,
        custom=custom,
        options=[QuestionOption(label="Red", description="Warm and loud"),
                 QuestionOption(label="Green", description="Calm"),
                 QuestionOption(label="Blue", description="The default")],
    )
    extras = QuestionItem(question="What else should I do?", header="Extras", multiple=True,
                          options=[QuestionOption(label="Tests"), QuestionOption(label="Docs")])
    return QuestionRequest(id="que_1", sessionID="ses_a", questions=[colours, extras][:count])


def every_kind_form() -> FormInfo:
    return FormInfo(id="frm_1", sessionID="ses_a", title="Deploy settings", fields=[
        FormField(key="name", title="Service name", required=True, placeholder="my-service",
                  minLength=3, description="Lowercase letters and dashes", pattern="^[a-z-]+$"),
        FormField(key="email", title="Owner email", format="email"),
        FormField(key="target", title="Target", options=[
            FormOption(value="cloud", label="Cloud"), FormOption(value="local", label="Local")],
            default="local"),
        FormField(key="region", title="Region", required=True,
                  when=[FormCondition(key="target", op="eq", value="cloud")]),
        FormField(key="replicas", title="Replicas", type="integer", minimum=1, maximum=9, default=2),
        FormField(key="ratio", title="Canary ratio", type="number", minimum=0, maximum=1),
        FormField(key="tls", title="Enable TLS", type="boolean", default=True),
        FormField(key="checks", title="Checks", type="multiselect", options=[
            FormOption(value="lint", label="Lint"), FormOption(value="unit", label="Unit tests"),
            FormOption(value="e2e", label="End to end")], default=["unit"], maxItems=2),
        FormField(key="docs", title="Runbook", type="external", url="https://example.com/runbook",
                  description="Read before deploying"),
    ])


class SizedDialogApp(DialogApp):
    """``DialogApp`` with octui's breakpoints, so the ``-narrow`` and ``-short`` rules apply."""

    HORIZONTAL_BREAKPOINTS = OctuiApp.HORIZONTAL_BREAKPOINTS
    VERTICAL_BREAKPOINTS = OctuiApp.VERTICAL_BREAKPOINTS


def app_for(make: Callable[[], Screen[Any]]) -> DialogApp:
    return DialogApp(make)


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.pause()


def toasts(app: DialogApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


# ------------------------------------------------------------------------------- permission


class TestPermissionKeys:
    async def test_o_allows_once_and_once_is_focused(self) -> None:
        ask, tool = bash_ask(save=["make *"])
        app = app_for(lambda: PermissionScreen(ask, tool=tool, session_title="Fix the tests"))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert app.focused is not None and app.focused.id == "once"
            await pilot.press("o")
            await settle(pilot)
        assert app.result == PermissionAnswer("once")

    async def test_always_absent_without_save(self) -> None:
        ask, tool = bash_ask()
        app = app_for(lambda: PermissionScreen(ask, tool=tool, session_title="s"))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert not app.screen.query("#always")
            await pilot.press("a")
            await settle(pilot)
            assert not app.answered
            await pilot.press("1")
            await settle(pilot)
        assert app.result == PermissionAnswer("once")

    async def test_always_when_save_present(self) -> None:
        app = app_for(lambda: PermissionScreen(edit_ask(), tool=None, session_title="s"))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("a")
            await settle(pilot)
        assert app.result == PermissionAnswer("always")

    async def test_reject_with_message(self) -> None:
        ask, tool = bash_ask()
        app = app_for(lambda: PermissionScreen(ask, tool=tool, session_title="s"))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("m")
            await settle(pilot)
            await pilot.press(*"not now", "enter")
            await settle(pilot)
        assert app.result == PermissionAnswer("reject", "not now")

    async def test_reject_and_escape(self) -> None:
        ask, tool = bash_ask()
        app = app_for(lambda: PermissionScreen(ask, tool=tool, session_title="s"))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("escape")
            await settle(pilot)
        assert app.result is None
        app = app_for(lambda: PermissionScreen(ask, tool=tool, session_title="s"))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.click("#reject")
            await settle(pilot)
        assert app.result == PermissionAnswer("reject")

    async def test_closed_elsewhere(self) -> None:
        ask, tool = bash_ask()
        app = app_for(lambda: PermissionScreen(ask, tool=tool, session_title="s"))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, PermissionScreen)
            screen.close_answered_elsewhere("answered elsewhere (once)")
            await settle(pilot)
        assert app.result is None
        assert toasts(app) == ["Permission answered elsewhere (once)."]


HIDDEN_COMMAND = "echo 'safe' # \u202e ;rm -rf ~ \u202c end"


def hidden_bash_ask() -> tuple[PermissionRequest, ToolCall]:
    ask = PermissionRequest(id="per_bash", sessionID="ses_a", action="bash", resources=[HIDDEN_COMMAND],
                            save=["echo *"])
    return ask, ToolCall(id="call_1", name="bash", session_id="ses_a", input={"command": HIDDEN_COMMAND})


def screen_lines(app: DialogApp) -> list[str]:
    return ["".join(segment.text for segment in strip) for strip in app.screen._compositor.render_strips()]


class TestPermissionInASmallTerminal:
    """QA, at 60x15: the hidden-character warning and the buttons took every row, the command
    was never shown, no scroll cue either, and Allow once [o] still took it."""

    async def test_a_short_terminal_still_shows_the_command(self) -> None:
        ask, tool = hidden_bash_ask()
        app = app_for(lambda: PermissionScreen(ask, tool=tool, session_title="Fix the tests"))
        async with app.run_test(size=(60, 15)) as pilot:
            await settle(pilot)
            shown = "\n".join(screen_lines(app))
            assert "Hidden or control characters" in shown and ";rm -rf ~ <U+202C>" in shown
            await pilot.press("o")
            await settle(pilot)
        assert app.result == PermissionAnswer("once")

    async def test_allow_waits_for_a_terminal_large_enough_to_show_the_command(self) -> None:
        ask, tool = hidden_bash_ask()
        app = app_for(lambda: PermissionScreen(ask, tool=tool, session_title="Fix the tests"))
        async with app.run_test(size=(30, 10)) as pilot:
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, PermissionScreen) and screen.cramped
            assert "rm -rf" not in "\n".join(screen_lines(app))
            assert "Too small to show" in "\n".join(screen_lines(app)).replace("\n", " ")
            await pilot.press("o")
            await pilot.press("a")
            await settle(pilot)
            assert not app.answered
            assert toasts(app) == ["Make the terminal larger to read the request before allowing it."] * 2
            await pilot.resize_terminal(100, 34)
            await settle(pilot)
            assert not screen.cramped and "rm -rf ~" in "\n".join(screen_lines(app))
            await pilot.press("o")
            await settle(pilot)
        assert app.result == PermissionAnswer("once")

    @pytest.mark.parametrize("size", [(60, 12), (100, 12)])
    async def test_an_edit_whose_diff_gets_no_rows_is_not_allowed(self, size: tuple[int, int]) -> None:
        """A review: the edit's resources (above its diff) gave the body rows, and Allow was
        taken with not one line of the diff shown."""
        app = app_for(lambda: PermissionScreen(edit_ask(), tool=None, session_title="s"))
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, PermissionScreen)
            shown = "\n".join(screen_lines(app))
            assert "-TODO" not in shown and screen.cramped  # (its first change)
            await pilot.press("o")
            await settle(pilot)
            assert not app.answered

    async def test_reject_and_later_work_however_small(self) -> None:
        ask, tool = hidden_bash_ask()
        app = app_for(lambda: PermissionScreen(ask, tool=tool, session_title="s"))
        async with app.run_test(size=(20, 8)) as pilot:
            await settle(pilot)
            await pilot.press("r")
            await settle(pilot)
        assert app.result == PermissionAnswer("reject")


# -------------------------------------------------------------------------------- questions


def long_question_ask() -> QuestionRequest:
    """A question as a model writes one (QA): four sentences, four options with a description
    each, which at 80x24 do not fit between the dialog's title and its buttons."""
    question = ("I looked through the repository and found three ways the configuration could be "
                "loaded: from the environment, from a TOML file in the user's config directory, or "
                "from a project-local file. Each has trade-offs for precedence and discoverability. "
                "Which should I implement first, keeping in mind that the CLI must keep working for "
                "existing users who rely on the old flags?")
    options = [QuestionOption(label=f"Option {i}: {name}",
                              description=f"This choice means {name.lower()} and it changes how precedence "
                                          "works for every later lookup in the loader.")
               for i, name in enumerate(["Environment first", "TOML file first", "Project file first",
                                         "Keep the old flags only"], 1)]
    return QuestionRequest(id="que_long", sessionID="ses_a", questions=[
        QuestionItem(question=question, header="Config", options=options)])


def screen_text(app: DialogApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


class TestQuestionKeys:
    async def test_pick_option_two_then_enter(self) -> None:
        app = app_for(lambda: QuestionScreen(question_ask()))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("2", "enter")
            await settle(pilot)
        assert app.result == QuestionAnswer([["Green"]])

    async def test_arrows_and_enter(self) -> None:
        app = app_for(lambda: QuestionScreen(question_ask()))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("down", "down", "enter")
            await settle(pilot)
        assert app.result == QuestionAnswer([["Blue"]])

    async def test_multi_with_space_then_next_tab(self) -> None:
        app = app_for(lambda: QuestionScreen(question_ask(multiple=True, count=2)))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("space", "down", "down", "space", "enter")  # Red, Blue; next tab
            await settle(pilot)
            assert not app.answered
            await pilot.press("2", "enter")  # Docs; last tab submits
            await settle(pilot)
        assert app.result == QuestionAnswer([["Red", "Blue"], ["Docs"]])

    async def test_custom_text(self) -> None:
        app = app_for(lambda: QuestionScreen(question_ask()))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("1", "tab", *"Teal", "enter")
            await settle(pilot)
        assert app.result == QuestionAnswer([["Teal"]])

    async def test_a_long_question_keeps_its_buttons_and_shows_what_the_keys_reach_at_80x24(self) -> None:
        # QA: at 80x24 the dialog ended at option 3's description; the buttons, the key hint,
        # option 4 and the typed-answer box were off screen and out of reach, and a "4" typed
        # after Tab went into the hidden box as the answer.
        app = SizedDialogApp(lambda: QuestionScreen(long_question_ask()))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            shown = screen_text(app)
            assert "Submit [ctrl+s]" in shown and "esc" in shown and "Scroll for the rest" in shown
            assert "I looked through the repository" in shown  # the question from its start
            assert "Option 4" not in shown
            await pilot.press("down", "down", "down")
            await settle(pilot)
            shown = screen_text(app)
            assert "4. ( ) Option 4: Keep the old flags only" in shown  # the highlight is in view
            assert "Submit [ctrl+s]" in shown
            await pilot.press("tab")
            await settle(pilot)
            box = app.screen.query_one(".question-custom")
            body = app.screen.query_one("#dialog-body")
            assert app.focused is box and body.region.contains_region(box.region)
            await pilot.press("4", "enter")
            await settle(pilot)
        assert app.result == QuestionAnswer([["4"]])  # typed, in a box the user could see

    async def test_wrapped_option_descriptions_hang_under_the_label(self) -> None:
        app = SizedDialogApp(lambda: QuestionScreen(long_question_ask()))
        async with app.run_test(size=(80, 40)) as pilot:
            await settle(pilot)
            lines = screen_text(app).splitlines()
        first = next(i for i, line in enumerate(lines) if "1. ( ) Option 1" in line)
        column = lines[first].index("Option 1")
        for line in lines[first + 1:first + 3]:  # the description, wrapped over two rows
            inner = line.split("│")[1]
            assert inner[:column - line.index("│") - 1].strip() == "", line
            assert line[column] != " ", line

    async def test_hidden_characters_in_a_question_are_warned_of(self) -> None:
        # Warned of "shown in reverse": in the label, the question and a description alike (a
        # review found the question and descriptions drew them as plain text, like typed ones).
        ask = question_ask()
        item = ask.questions[0]
        options = [item.options[0].model_copy(update={"label": "Red\u202e der",
                                                      "description": "warm\u2066 word"}),
                   *item.options[1:]]
        item = item.model_copy(update={"options": options, "question": "Which\x1b[2J colour?"})
        ask = ask.model_copy(update={"questions": [item]})
        app = app_for(lambda: QuestionScreen(ask))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            shown = screen_text(app)
            body = app.screen.query_one("#dialog-body")  # (not the warning, which names them)
            area = body.region
            rows = app.screen._compositor.render_strips()[area.y:area.bottom]
            tokens = {segment.text for strip in rows for segment in strip.crop(area.x, area.right)
                      if segment.style is not None and segment.style.reverse}
        assert "Hidden or control characters" in shown and "right-to-left" in shown
        assert "before answering" in shown
        assert {"<U+202E>", "<U+2066>", "␛"} <= tokens, tokens
        app = app_for(lambda: QuestionScreen(question_ask()))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert "Hidden or control characters" not in screen_text(app)

    async def test_page_keys_page_the_question_not_the_option_list(self) -> None:
        # A review: the list's own PgDn (a page of a list now as tall as its options) jumped to
        # the last option, and no key brought the question back into view.
        app = SizedDialogApp(lambda: QuestionScreen(long_question_ask()))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            body = app.screen.query_one("#dialog-body")
            choices = app.screen.query_one(ChoiceList)
            assert app.focused is choices and body.scroll_y == 0
            await pilot.press("pagedown")
            await settle(pilot)
            assert body.scroll_y > 0 and choices.highlighted == 0
            await pilot.press("pageup")
            await settle(pilot)
            assert body.scroll_y == 0 and "I looked through the repository" in screen_text(app)

    async def test_enter_never_answers_with_an_option_out_of_sight(self) -> None:
        # A review: at 80x14 the question took the body's rows, and Enter sent option 1, never
        # shown. The first Enter brings it into view; the next one answers.
        app = SizedDialogApp(lambda: QuestionScreen(long_question_ask()))
        async with app.run_test(size=(80, 14)) as pilot:
            await settle(pilot)
            assert "Option 1" not in screen_text(app)
            await pilot.press("enter")
            await settle(pilot)
            assert not app.answered and "1. ( ) Option 1" in screen_text(app)
            await pilot.press("enter")
            await settle(pilot)
        assert app.result == QuestionAnswer([["Option 1: Environment first"]])

    async def test_no_answer_is_sent_where_the_question_cannot_show(self) -> None:
        # A review: at 40x10 the head and foot took every row and Enter answered a question never
        # seen. Submitting is refused, and a note says why; Esc still leaves it for later.
        app = SizedDialogApp(lambda: QuestionScreen(long_question_ask()))
        async with app.run_test(size=(40, 10)) as pilot:
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, QuestionScreen) and screen.cramped
            assert screen.query_one("#cramped-note").region.height > 0 and "Too small" in screen_text(app)
            await pilot.press("1", "ctrl+s")
            await settle(pilot)
            assert not app.answered
            await pilot.press("escape")
            await settle(pilot)
        assert app.answered and app.result is None
        app = SizedDialogApp(lambda: QuestionScreen(long_question_ask()))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert not app.screen.cramped  # (the control: room enough)

    async def test_reopened_it_keeps_the_earlier_pick_on_enter(self) -> None:
        # A review: reopened from the inbox with Blue picked, the highlight was on Red, and Enter
        # replaced the pick with Red.
        ask = question_ask()
        states = [QuestionState(item) for item in ask.questions]
        states[0].pick(2)
        app = app_for(lambda: QuestionScreen(ask, states=states))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
        assert app.result == QuestionAnswer([["Blue"]])

    async def test_escape_leaves_it_for_later_and_ctrl_r_dismisses(self) -> None:
        # Esc rejected the question, and the turn ended; it now leaves it in the inbox, as the
        # permission dialog does (a reflexive Esc loses nothing). Dismissing takes its own key.
        app = app_for(lambda: QuestionScreen(question_ask()))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("escape")
            await settle(pilot)
        assert app.answered and app.result is None
        app = app_for(lambda: QuestionScreen(question_ask()))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+r")
            await settle(pilot)
        assert app.result == QuestionDismissed()

    async def test_left_for_later_it_reopens_as_it_was_left(self) -> None:
        """Esc means "later": what was picked and typed is there when the inbox reopens it."""
        first = QuestionScreen(question_ask(count=2))
        app = app_for(lambda: first)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("2", "right", "2")  # Green; on the second tab, Docs
            await settle(pilot)
            await pilot.press("escape")
            await settle(pilot)
        assert app.answered and app.result is None
        draft = draft_of(first)
        assert isinstance(draft, list)
        app = app_for(lambda: QuestionScreen(question_ask(count=2), states=draft))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+s")  # nothing to pick again: both answers are there
            await settle(pilot)
        assert app.result == QuestionAnswer([["Green"], ["Docs"]])

    async def test_submit_straight_away_sends_nothing_and_says_why(self) -> None:
        # QA: Ctrl+S at once sent an empty answer ("answered: ;") although the dialog says "Pick one".
        app = app_for(lambda: QuestionScreen(question_ask()))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+s")
            await settle(pilot)
            assert not app.answered
            pane = app.screen.query_one("#q-0")
            assert pane.has_class("-invalid")
            error = pane.query_one(".question-error", Static)
            assert error.display and "Pick one, or type your own answer" in str(error.render())
            assert not pane.query_one(".question-hint").display  # the error takes the hint's line
            assert app.focused is not None and app.focused.has_class("choice-list")
            assert "Color" in toasts(app)[-1]
            await pilot.press("2")  # the error goes as soon as the question is answered
            await settle(pilot)
            assert not pane.has_class("-invalid") and not error.display
            await pilot.press("ctrl+s")
            await settle(pilot)
        assert app.result == QuestionAnswer([["Green"]])

    async def test_submit_goes_to_the_question_still_unanswered(self) -> None:
        extras = QuestionItem(question="What else?", header="Extras", multiple=True,
                              options=[QuestionOption(label="Tests"), QuestionOption(label="Docs")])
        colour = question_ask().questions[0]
        ask = QuestionRequest(id="que_1", sessionID="ses_a", questions=[extras, colour])
        app = app_for(lambda: QuestionScreen(ask))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+s")  # Extras may stay empty; Color may not
            await settle(pilot)
            assert not app.answered
            screen = app.screen
            assert isinstance(screen, QuestionScreen) and screen.current == 1
            assert screen.query_one("#q-1").has_class("-invalid")
            assert not screen.query_one("#q-0").has_class("-invalid")
            assert app.focused is not None and screen.query_one("#q-1") in app.focused.ancestors
            assert str(screen.query_one("#qt-1", Tab).label).startswith("!")
            await pilot.press("3", "ctrl+s")
            await settle(pilot)
        assert app.result == QuestionAnswer([[], ["Blue"]])

    async def test_enter_on_the_last_question_checks_the_earlier_ones(self) -> None:
        app = app_for(lambda: QuestionScreen(question_ask(count=2)))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("right", "1", "enter")  # skip Color; Tests, then Enter on the last
            await settle(pilot)
            assert not app.answered
            screen = app.screen
            assert isinstance(screen, QuestionScreen) and screen.current == 0
            assert app.focused is not None and screen.query_one("#q-0") in app.focused.ancestors
            await pilot.press("1", "enter", "enter")  # Red, next; the last submits
            await settle(pilot)
        assert app.result == QuestionAnswer([["Red"], ["Tests"]])

    async def test_empty_multiple_choice_is_an_answer(self) -> None:
        app = app_for(lambda: QuestionScreen(question_ask(multiple=True)))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+s")
            await settle(pilot)
        assert app.result == QuestionAnswer([[]])

    async def test_question_form_submit_straight_away_sends_nothing(self) -> None:
        # The question tool asks through a form (the demo's `question` prompt, current servers).
        from tui.state.asks import form_from_question

        form = form_from_question(question_ask(count=2))
        app = app_for(lambda: screen_for_ask(form, None, "s"))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+s")
            await settle(pilot)
            assert not app.answered
            await pilot.press("1", "ctrl+s")
            await settle(pilot)
        assert answer_for(form, app.result) == FormAnswer({"q0": "Red", "q1": []})

    async def test_question_form_routes_to_question_screen(self) -> None:
        from tui.state.asks import form_from_question

        form = form_from_question(question_ask())
        screen = screen_for_ask(form, None, "s")
        assert isinstance(screen, QuestionScreen)
        app = app_for(lambda: screen)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("3", "enter")
            await settle(pilot)
        assert answer_for(form, app.result) == FormAnswer({"q0": "Blue"})


# ------------------------------------------------------------------------------------ forms


class TestFormFlow:
    async def test_the_first_field_opens_from_its_title_in_a_short_terminal(self) -> None:
        # A review: at 60x12 focusing the first input scrolled its title and description away.
        for size in ((60, 12), (60, 13), (100, 12)):
            app = SizedDialogApp(lambda: FormScreen(every_kind_form(), session_title="s"))
            async with app.run_test(size=size) as pilot:
                await settle(pilot)
                fields = app.screen.query_one("#form-fields")
                assert fields.scroll_y == 0 and "Service name" in screen_text(app), size

    async def test_a_small_terminal_keeps_the_buttons_and_scrolls_the_fields(self) -> None:
        # At 60x15 the fields took the dialog's rows and the buttons and keys were cut off.
        app = SizedDialogApp(lambda: FormScreen(every_kind_form(), session_title="s"))
        async with app.run_test(size=(60, 15)) as pilot:
            await settle(pilot)
            shown = screen_text(app)
            assert "Submit [ctrl+s]" in shown and "Cancel [ctrl+r]" in shown and "Deploy settings" in shown
            assert "Canary ratio" not in shown
            for _ in range(4):  # from the name: email, target, replicas, ratio
                await pilot.press("tab")
            await settle(pilot)
            shown = screen_text(app)
            assert "Canary ratio" in shown and "Submit [ctrl+s]" in shown
            focused = app.focused
            assert focused is not None
            assert next(node for node in focused.ancestors if isinstance(node, FieldEditor)).key == "ratio"
            fields = app.screen.query_one("#form-fields")
            focused = app.focused
            assert focused is not None and fields.region.contains_region(focused.region)

    async def test_fill_fail_fix_submit(self) -> None:
        app = app_for(lambda: FormScreen(every_kind_form()))
        async with app.run_test(size=(100, 60)) as pilot:
            await settle(pilot)
            await pilot.press(*"ab")  # too short for minLength 3
            await pilot.press("ctrl+s")
            await settle(pilot)
            assert not app.answered
            assert app.screen.query_one("#field-name").has_class("-invalid")
            await pilot.press(*"cd")
            await settle(pilot)
            assert not app.screen.query_one("#field-name").has_class("-invalid")
            await pilot.press("ctrl+s")
            await settle(pilot)
        assert app.result == FormAnswer(
            {"name": "abcd", "target": "local", "replicas": 2, "tls": True, "checks": ["unit"]})

    async def test_conditional_field_appears(self) -> None:
        from textual.widgets import Select

        app = app_for(lambda: FormScreen(every_kind_form()))
        async with app.run_test(size=(100, 60)) as pilot:
            await settle(pilot)
            region = app.screen.query_one("#field-region")
            assert not region.display
            app.screen.query_one("#field-target Select", Select).value = "cloud"
            await settle(pilot)
            assert region.display
            await pilot.press(*"good", "ctrl+s")  # name ok, region required and empty
            await settle(pilot)
            assert region.has_class("-invalid") and not app.answered

    @pytest.mark.parametrize(("fields", "expected"), [
        ([], "#field-name Input"),  # the form as it is
        (["name"], "#field-email Input"),  # the first field hidden: the first one shown
        (["name", "email", "target", "replicas", "ratio", "tls", "checks"], "#form-fields"),  # links
    ], ids=["first field", "first hidden", "nothing to fill in"])
    async def test_one_widget_is_focused_as_the_form_opens(
            self, monkeypatch: pytest.MonkeyPatch, fields: list[str], expected: str) -> None:
        """The first field to fill in, else the field list (the keys scroll it); nothing before
        it: Textual's default focused the list first, which restyled every field as it took the
        focus and again as it gave it up."""
        focused: list[str] = []
        set_focus = Screen.set_focus

        def spy(screen: Screen[Any], widget: Any, *args: Any, **kwargs: Any) -> None:
            if isinstance(screen, FormScreen) and widget is not None and widget is not screen.focused:
                focused.append(f"{type(widget).__name__}#{widget.id}")
            set_focus(screen, widget, *args, **kwargs)

        monkeypatch.setattr(Screen, "set_focus", spy)
        form = every_kind_form()
        hidden = [FormCondition(key="target", op="eq", value="nowhere")]
        form = form.model_copy(update={"fields": [
            f.model_copy(update={"when": hidden}) if f.key in fields else f for f in form.fields]})
        app = app_for(lambda: FormScreen(form))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert app.screen.focused is app.screen.query_one(expected)
            assert len(focused) == 1, focused
            await pilot.press("ctrl+r")
            await settle(pilot)
        assert app.result == FormDismissed()

    async def test_left_for_later_it_reopens_as_it_was_filled_in(self) -> None:
        first = FormScreen(every_kind_form())
        app = app_for(lambda: first)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press(*"api")  # the first field, focused: the service's name
            await settle(pilot)
            await pilot.press("escape")
            await settle(pilot)
        assert app.answered and app.result is None
        draft = draft_of(first)
        assert isinstance(draft, dict) and draft["name"] == "api"
        again = FormScreen(every_kind_form(), values=draft)
        app = app_for(lambda: again)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert again.values() == draft

    async def test_escape_leaves_it_for_later_and_ctrl_r_cancels(self) -> None:
        app = app_for(lambda: FormScreen(every_kind_form()))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("escape")
            await settle(pilot)
        assert app.answered and app.result is None
        app = app_for(lambda: FormScreen(every_kind_form()))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+r")
            await settle(pilot)
        assert app.result == FormDismissed()


# ------------------------------------------------------------------------------------ inbox


def inbox_entries() -> list[Any]:
    ask, tool = bash_ask()
    return [
        (ask, "Fix the flaky tests", tool),
        (question_ask(count=2), "Fix the flaky tests", None),
        (edit_ask().model_copy(update={"sessionID": "ses_b"}), "Write release notes", None),
    ]


class TestInbox:
    async def test_enter_opens_and_g_jumps(self) -> None:
        app = app_for(lambda: InboxScreen(inbox_entries()))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
        assert app.result == InboxChoice("open", "per_bash", "ses_a")
        app = app_for(lambda: InboxScreen(inbox_entries()))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("down", "down", "g")
            await settle(pilot)
        assert app.result == InboxChoice("jump", "per_edit", "ses_b")


# -------------------------------------------------------------------------------- snapshots


class TestSnapshots:
    def test_bash_permission(self, snap_compare: SnapCompare) -> None:
        ask, tool = bash_ask()
        app = app_for(lambda: PermissionScreen(ask, tool=tool, session_title="Fix the flaky tests",
                                               subagent_label="general"))
        assert snap_compare(app, terminal_size=SIZE)

    def test_hostile_bash_permission_80x24(self, snap_compare: SnapCompare) -> None:
        # Escapes, a carriage return, a bidi override and markup in the command and the title:
        # every one shown as a reverse-video token, a warning line above, nothing interpreted.
        command = ("echo harmless \x1b]; touch HIDDEN \x07\ntouch X\recho benign\n"
                   "awk -F'[/:]' '{print $1}' /etc/hostname \u202egnp.exe")
        ask = PermissionRequest(id="per_evil", sessionID="ses_a", action="bash", resources=[command],
                                save=["echo *"])
        tool = ToolCall(id="call_1", name="bash", session_id="ses_a", input={"command": command})
        title = '[/b] [@click=screen.reply("always")]fix[/]'
        app = app_for(lambda: PermissionScreen(ask, tool=tool, session_title=title))
        assert snap_compare(app, terminal_size=(80, 24))

    def test_edit_permission_with_diff(self, snap_compare: SnapCompare) -> None:
        app = app_for(lambda: PermissionScreen(edit_ask(), tool=None, session_title="Write release notes"))
        assert snap_compare(app, terminal_size=SIZE)

    def test_always_with_save_patterns(self, snap_compare: SnapCompare) -> None:
        ask, tool = bash_ask(save=["make *", "git status *"])
        app = app_for(lambda: PermissionScreen(ask, tool=tool, session_title="Fix the flaky tests"))
        assert snap_compare(app, terminal_size=SIZE)

    def test_long_lists_permission_100x30(self, snap_compare: SnapCompare) -> None:
        # The title, who asks, the buttons and the hints stay; the lists scroll, with a scrollbar
        # and the cue line above the buttons.
        app = SizedDialogApp(lambda: PermissionScreen(long_lists_ask(), tool=None,
                                                      session_title="Fix the flaky tests"))
        assert snap_compare(app, terminal_size=(100, 30))

    def test_long_lists_permission_scrolled_80x24(self, snap_compare: SnapCompare) -> None:
        # PgDn to the end: the last "always" pattern (the one that matters) in view, with the keys.
        app = SizedDialogApp(lambda: PermissionScreen(long_lists_ask(), tool=None,
                                                      session_title="Fix the flaky tests"))
        assert snap_compare(app, terminal_size=(80, 24), press=["pagedown"] * 20)

    def test_question_single(self, snap_compare: SnapCompare) -> None:
        app = app_for(lambda: QuestionScreen(question_ask(count=2), session_title="Theme"))
        # Highlight and pick "Green".
        assert snap_compare(app, terminal_size=SIZE, press=["2"])

    def test_question_multi(self, snap_compare: SnapCompare) -> None:
        app = app_for(lambda: QuestionScreen(question_ask(multiple=True, custom=False)))
        # Toggle Red and Blue with space.
        assert snap_compare(app, terminal_size=SIZE, press=["space", "down", "down", "space"])

    def test_question_custom_text(self, snap_compare: SnapCompare) -> None:
        app = app_for(lambda: QuestionScreen(question_ask()))
        # Tab to the typed-answer line and type.
        assert snap_compare(app, terminal_size=SIZE, press=["tab", *"Teal, like the logo"])

    def test_long_question_80x24(self, snap_compare: SnapCompare) -> None:
        # The title and tabs above, the cue, buttons and keys below; the question scrolls
        # between them, its options' descriptions hanging under their labels.
        app = SizedDialogApp(lambda: QuestionScreen(long_question_ask()))
        assert snap_compare(app, terminal_size=(80, 24), press=["down"])

    def test_form_every_kind(self, snap_compare: SnapCompare) -> None:
        app = app_for(lambda: FormScreen(every_kind_form(), session_title="Ship it"))
        assert snap_compare(app, terminal_size=(100, 60))

    def test_inbox_three_asks_two_sessions(self, snap_compare: SnapCompare) -> None:
        app = app_for(lambda: InboxScreen(inbox_entries()))
        assert snap_compare(app, terminal_size=SIZE)
