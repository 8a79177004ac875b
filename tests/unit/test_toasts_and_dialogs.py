"""Toasts and dialogs: a toast raised on the main screen does not show through a dialog opened
over it (QA, 80x24: half of it stood under the dialog's border), and shows again after."""

from __future__ import annotations

import html
import re

from tests.snapshots.main_app import MainApp, settle, wait_connected
from tests.snapshots.test_dialogs import bash_ask
from tui.screens.permission import PermissionScreen
from widgets.plain import toast

TOAST = "Model switched: TOAST-WORD"


def shown(app: MainApp) -> str:
    """The text of the whole terminal as drawn (every screen on the stack that shows)."""
    svg = app.export_screenshot()
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


async def test_a_toast_raised_before_a_dialog_does_not_show_through_it() -> None:
    app = MainApp()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_connected(pilot)
        toast(app, TOAST, timeout=60)
        await settle(pilot)
        assert "TOAST-WORD" in shown(app)
        ask, tool = bash_ask()
        app.push_screen(PermissionScreen(ask, tool=tool, session_title="s"))
        await settle(pilot)
        assert isinstance(app.screen, PermissionScreen)
        assert "TOAST-WORD" not in shown(app)
        app.pop_screen()
        await settle(pilot)
        assert "TOAST-WORD" in shown(app)  # its time is not over: back with the main screen
