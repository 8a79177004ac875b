"""The form dialog's keyboard path: Tab goes from field to field and to the buttons."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widget import Widget

from tests.snapshots.dialog_app import DialogApp
from tui.protocol.models import FormField, FormInfo
from tui.screens.form import FormScreen


def _stop(widget: Widget | None) -> str:
    """A focus stop, named by the field around it (or its own id)."""
    assert widget is not None
    for node in (widget, *widget.ancestors):
        if isinstance(node, Widget) and node.id:
            return node.id
    return type(widget).__name__


async def test_tab_visits_each_field_and_the_buttons_never_the_list() -> None:
    fields = [FormField(key="name", title="Name"), FormField(key="ok", title="OK?", type="boolean"),
              *(FormField(key=f"more{i}", title=f"More {i}") for i in range(8))]  # the list scrolls
    app = DialogApp(lambda: FormScreen(FormInfo(id="frm_1", sessionID="ses_1", title="t", fields=fields)))
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        listed = app.screen.query_one("#form-fields", VerticalScroll)
        stops, scrolled = [], 0.0
        for _ in range(len(fields) + 3):
            stops.append(_stop(app.focused))
            scrolled = max(scrolled, listed.scroll_y)
            await pilot.press("tab")
            await pilot.pause()
        assert "form-fields" not in stops
        assert len(set(stops[:len(fields)])) == len(fields)  # each field once
        assert stops[len(fields):] == ["submit", "cancel", stops[0]]  # then round again
        assert scrolled > 0  # the list followed the focus down


async def test_a_form_with_nothing_to_fill_in_focuses_the_list() -> None:
    """Only a link to open: the list takes the keys, so they scroll it."""
    fields = [FormField(key="docs", title="Docs", type="external", url="https://example.com/docs")]
    app = DialogApp(lambda: FormScreen(FormInfo(id="frm_1", sessionID="ses_1", title="t", fields=fields)))
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        assert _stop(app.focused) == "form-fields"
