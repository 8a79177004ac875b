"""Values a broken or hostile server can send that a JavaScript server never would: NaN and
infinite numbers (Python's JSON parser accepts ``NaN``, ``Infinity`` and ``1e999``) and malformed
entries in a permission's file list. Each used to raise while a widget rendered (an app crash)."""

from __future__ import annotations

import math

import pytest

from tui.protocol.models import PermissionRequest
from tui.screens.model_picker import humane_count
from tui.state.asks import UNREADABLE_PATCH, permission_preview
from tui.text.tools import format_duration
from widgets.asks.form_field import field_id
from widgets.sessions.session_list import format_age
from widgets.status.status_bar import _tokens
from widgets.subagents.subagent_tree import format_cost, format_tokens

BROKEN = [math.nan, math.inf, -math.inf]


@pytest.mark.parametrize("value", BROKEN)
def test_non_finite_numbers_are_shown_as_unknown(value: float) -> None:
    assert _tokens(value) == "?"  # the status bar's token counts
    assert format_duration(value) == "?"  # tool rows and the subagent tree
    assert humane_count(value) == "?"  # the model picker's context sizes
    assert format_age(value, 1.7e12) == "—" and format_age(1.7e12, value) == "—"  # the session list
    assert (format_tokens(value), format_cost(value)) == ("? tok", "$?")  # the subagent tree


def test_finite_numbers_read_as_before() -> None:
    assert (_tokens(1500), format_duration(65_000), humane_count(128_000)) == ("1.5k", "1m05s", "128k")
    assert format_age(1.7e12 - 3 * 3600_000, 1.7e12) == "3h ago"


def test_a_malformed_file_entry_keeps_what_is_well_formed() -> None:
    files = [{"file": "a.py", "additions": 1.5, "patch": "@@ -1 +1 @@\n-old\n+new\n"},
             {"file": "b.py", "deletions": math.nan, "patch": ["not", "text"]}]
    ask = PermissionRequest(id="per_1", sessionID="ses_1", action="edit", resources=["a.py", "b.py"],
                            metadata={"files": files})
    preview = permission_preview(ask, None)  # raised a ValidationError: the dialog did not open
    shown = "\n".join(line for _, line in preview.diff)
    assert "a.py" in shown and "+new" in shown and "-old" in shown
    assert "b.py" in shown and UNREADABLE_PATCH in shown  # not an edit that looks empty


def test_field_ids_are_valid_and_distinct_for_any_key() -> None:
    keys = ["name", "é", "名前", "ß", "²", "a b", "a_b", "", "9lives", "x" * 300]
    ids = [field_id(key) for key in keys]
    assert len(set(ids)) == len(ids)
    assert all(i.isascii() and i.replace("-", "").replace("_", "").isalnum() for i in ids), ids
    assert field_id("name") == "field-name"  # a plain key reads as itself


def test_a_huge_key_makes_a_short_id_of_its_own() -> None:
    one, two = "k" * 1_000_000, "k" * 999_999 + "j"  # the same start, past what an id keeps
    assert field_id(one) != field_id(two)
    assert len(field_id(one)) < 100 and field_id(one).startswith("field-" + "k" * 64 + "-")


async def test_a_long_default_stays_out_of_the_box_and_is_the_answer_until_the_box_is_edited(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual's Input measures its whole value on every paint (a megabyte of hostile text took
    six seconds to open the form, and with the cursor blinking the app never went idle): a long
    default is shown as a note and is the answer, made visible as a default in the box is, until
    the box is edited; then the box is, empty included, as when a default in the box is cleared."""
    import time

    from textual.widgets import Input, Select, Static

    from tests.snapshots.dialog_app import DialogApp
    from tui.protocol.models import FormField, FormInfo, FormOption
    from tui.screens.form import FormScreen
    from tui.text.sanitize import clean_text
    from widgets.asks.form_field.base import LONG_DEFAULT, LONG_PLACEHOLDER

    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)  # a steady cursor: bounded before
    hostile = ("[/b]\x1b]0;x\x07\u202e" * 111_112)[:1_000_000]
    short, number = "s" * LONG_DEFAULT, "0" * LONG_DEFAULT + "7"
    fields = [FormField(key="long", title="long", default=hostile),
              FormField(key="count", type="number", title="count", default=number),
              FormField(key="short", title="short", default=short),
              FormField(key="kept", title="kept", default=number),
              FormField(key="pick", title="pick", default=number, custom=True,
                        options=[FormOption(value="a"), FormOption(value="b")])]
    app = DialogApp(lambda: FormScreen(FormInfo(id="frm_1", sessionID="ses_1", title="t", fields=fields)))
    started = time.process_time()
    async with app.run_test(size=(100, 60)) as pilot:
        await pilot.pause()
        opened = time.process_time() - started
        screen = app.screen
        assert isinstance(screen, FormScreen)

        def box(key: str) -> Input:
            return screen.query_one(f"#{field_id(key)} Input", Input)

        def note(key: str) -> str:
            return str(screen.query_one(f"#{field_id(key)} .field-default", Static).render())

        boxed = len(box("long").value)
        assert not boxed, f"{boxed:,} characters in the box, opened in {opened:.1f} s"
        assert opened < 3.0  # ~7 s with the megabyte in the box
        assert box("short").value == short  # up to the line: in the box, as before
        assert len(screen.query(".field-default")) == 4
        assert note("long").startswith("sent while the box is untouched, the default (1,000,000 characters): "
                                       "[/b]␛]0;x␇<U+202E>")
        assert note("count").startswith("sent while the box is untouched, the default (4,097 characters): "
                                        "000")
        assert note("count").endswith("…") and box("long").placeholder == LONG_PLACEHOLDER
        values = screen.values()
        assert (values["long"], values["count"], values["pick"]) == (clean_text(hostile), number, number)

        box("long").value = "typed"  # typed text is the answer
        await pilot.pause()
        assert screen.values()["long"] == "typed"
        assert note("long").startswith("replaced by the box, the default (1,000,000 characters): ")
        box("long").value = ""  # and an emptied box is no answer, as a cleared default is
        await pilot.pause()
        assert screen.values()["long"] == ""
        box("short").value = ""
        await pilot.pause()
        screen.query_one(f"#{field_id('pick')} Select", Select).value = "b"  # a pick replaces the default
        await pilot.pause()
        assert screen.values()["pick"] == "b" and note("pick").startswith("replaced by the box")
        screen.action_submit()
        await pilot.pause()
    answer = app.result.answer
    assert answer["count"] == 7 and answer["kept"] == number and answer["pick"] == "b"
    assert "long" not in answer and "short" not in answer


async def test_a_pick_replaces_what_the_box_held() -> None:
    """Options and a box for your own answer: a pick used to lose to a default left in the box."""
    from textual.widgets import Input, Select

    from tests.snapshots.dialog_app import DialogApp
    from tui.protocol.models import FormField, FormInfo, FormOption
    from tui.screens.form import FormScreen

    fields = [FormField(key="pick", title="pick", default="mine", custom=True,
                        options=[FormOption(value="a"), FormOption(value="b")])]
    app = DialogApp(lambda: FormScreen(FormInfo(id="frm_1", sessionID="ses_1", title="t", fields=fields)))
    async with app.run_test(size=(100, 34)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FormScreen)
        box = screen.query_one(f"#{field_id('pick')} Input", Input)
        assert box.value == "mine" and screen.values()["pick"] == "mine"
        screen.query_one(f"#{field_id('pick')} Select", Select).value = "b"
        await pilot.pause()
        assert box.value == "" and screen.values()["pick"] == "b"
        box.value = "own"  # typed after the pick: the box again
        await pilot.pause()
        assert screen.values()["pick"] == "own"


async def test_a_form_with_odd_and_repeated_keys_opens_and_keeps_what_is_typed() -> None:
    from textual.widgets import Input, Static

    from tests.snapshots.dialog_app import DialogApp
    from tui.protocol.models import FormField, FormInfo
    from tui.screens.form import FormScreen

    fields = [FormField(key=key, title=f"field {key}") for key in ("é", "a b", "a_b", "name")]
    # The same key again, another kind: its default, checks and type must not rule the first field.
    fields.append(FormField(key="name", type="number", required=True, default=3))
    app = DialogApp(lambda: FormScreen(FormInfo(id="frm_1", sessionID="ses_1", title="t", fields=fields)))
    async with app.run_test(size=(100, 34)) as pilot:  # raised BadIdentifier, then MountError
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FormScreen)
        assert [editor.key for editor in screen.editors()] == ["é", "a b", "a_b", "name"]
        assert "name" in str(screen.query_one("#repeated-fields", Static).render())
        name = screen.query_one(f"#{field_id('name')} Input", Input)
        assert name.value == ""  # not the repeated field's default
        name.value = "typed"
        await pilot.pause()
        assert screen.values()["name"] == "typed"
        screen.action_submit()  # the number field's default, type and check do not apply
        await pilot.pause()
    assert app.result.answer["name"] == "typed"


def test_a_number_no_json_number_holds_is_not_a_number() -> None:
    """``float`` reads "inf", "nan" and 400 digits as infinite or NaN: sent, they were not JSON."""
    from tui.protocol.models import FormField, FormInfo
    from tui.state.asks import form_answer_body, validate_form

    form = FormInfo(id="frm_1", sessionID="ses_1", title="t",
                    fields=[FormField(key="n", type="number", title="n")])
    for text in ("inf", "-Infinity", "nan", "9" * 400):
        assert validate_form(form, {"n": text}) == {"n": "Enter a number"}, text
        assert form_answer_body(form, {"n": text}) == {}
    assert form_answer_body(form, {"n": "1e300"}) == {"n": 1e300}


async def test_a_long_default_that_breaks_a_rule_is_named_in_the_message(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The box of a long default is empty: its error said "At most 10 characters" under an empty
    box. It names the default, the answer until the box is edited, and then it is the box's again."""
    from textual.widgets import Input, Static

    from tests.snapshots.dialog_app import DialogApp
    from tui.protocol.models import FormField, FormInfo
    from tui.screens.form import FormScreen
    from widgets.asks.form_field.base import LONG_DEFAULT

    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    fields = [FormField(key="name", title="name", default="n" * (LONG_DEFAULT + 1), maxLength=10),
              FormField(key="other", title="other", default="o" * 20, maxLength=10)]
    app = DialogApp(lambda: FormScreen(FormInfo(id="frm_1", sessionID="ses_1", title="t", fields=fields)))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FormScreen)

        def error(key: str) -> str:
            return str(screen.query_one(f"#{field_id(key)} .field-error", Static).render())

        screen.action_submit()
        await pilot.pause()
        assert error("name") == "At most 10 characters (the default above; type in the box to replace it)"
        assert error("other") == "At most 10 characters"  # a default in the box is the box's
        screen.query_one(f"#{field_id('name')} Input", Input).value = "x" * 11
        await pilot.pause()
        assert error("name") == "At most 10 characters"  # the box is the answer now
        screen.query_one(f"#{field_id('name')} Input", Input).value = "fine"
        await pilot.pause()
        assert error("name") == ""
    assert not app.answered  # never sent: "other" still breaks its rule
