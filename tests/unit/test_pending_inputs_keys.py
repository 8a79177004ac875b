"""The pending-prompt list's keys: ``x`` cancels, ``s`` moves a prompt between steer and queue,
where the server can; where it cannot (the 1.18 and 2.0 previews), they say so."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult

from tui.state.transcript import PendingInput
from widgets.composer.pending_inputs import CANNOT_CANCEL, CANNOT_REDELIVER, PendingInputs


class PendingApp(App[None]):
    def __init__(self, *, can: bool) -> None:
        super().__init__()
        self.can = can
        self.sent: list[Any] = []

    def compose(self) -> ComposeResult:
        yield PendingInputs(id="pending")

    def on_mount(self) -> None:
        pending = self.query_one(PendingInputs)
        pending.show_items([PendingInput(id="msg_1", text="then add tests", delivery="steer")],
                           can_cancel=self.can, can_redeliver=self.can)
        pending.focus()

    def on_pending_inputs_cancel(self, message: PendingInputs.Cancel) -> None:
        self.sent.append(message)

    def on_pending_inputs_change_delivery(self, message: PendingInputs.ChangeDelivery) -> None:
        self.sent.append(message)


@pytest.mark.parametrize("key", ["x", "s"])
async def test_where_the_server_cannot_the_key_says_so(key: str) -> None:
    """QA (1.18.33): a focused pending prompt took s and x and did nothing, with no word why."""
    app = PendingApp(can=False)
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.press(key)
        await pilot.pause()
        said = [str(n.message) for n in app._notifications]
        assert said == [CANNOT_CANCEL if key == "x" else CANNOT_REDELIVER]
        assert app.sent == []


async def test_where_the_server_can_the_keys_ask_for_the_change() -> None:
    app = PendingApp(can=True)
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.press("s", "x")
        await pilot.pause()
        assert app.sent == [PendingInputs.ChangeDelivery("msg_1", "queue"), PendingInputs.Cancel("msg_1")]
        assert not list(app._notifications)
