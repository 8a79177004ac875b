"""The main screen's permission-mode actions (F2 cycles; full access asks once)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

if TYPE_CHECKING:
    from tui.app.app import OctuiApp
    from tui.state.transcript import SessionState

from tui.screens.mode_confirm import ModeConfirmScreen
from tui.state.modes import Mode, next_mode
from widgets.plain import toast


class PermissionModeActions(Screen[None]):
    """Mixed into ``MainScreen``; expects ``session_id``, ``octui`` and ``refresh_status``."""

    session_id: str | None

    if TYPE_CHECKING:
        @property
        def octui(self) -> OctuiApp: ...

        @property
        def state(self) -> SessionState | None: ...

        def refresh_status(self) -> None: ...

    def _mode_text(self) -> str:
        session = self.octui.session
        if not session.is_ready or self.session_id is None:
            return ""
        mode = session.auto.mode_of(self.session_id)
        return "" if mode is Mode.SUPERVISED else mode.short  # the default shows no indicator

    def action_cycle_mode(self) -> None:
        self.cycle_permission_mode()

    def cycle_permission_mode(self) -> None:
        """supervised → auto-accept edits → full access → supervised, for the open session's tree."""
        session = self.octui.session
        if session.is_ready and self.session_id is not None:
            self.set_permission_mode(next_mode(session.auto.mode_of(self.session_id)))
        else:
            self.set_permission_mode(Mode.SUPERVISED)

    def set_permission_mode(self, mode: Mode) -> None:
        """Set the mode of the open session's root (subagents follow it); full access asks once."""
        session = self.octui.session
        sid = self.session_id
        if not session.is_ready or sid is None:
            toast(self, "Open a session first: the permission mode belongs to a session.",
                        severity="warning", timeout=3)
            return
        auto = session.auto
        root = auto.book.root(self.octui.store, sid)

        def apply(confirmed: bool | None = True) -> None:
            if not confirmed:
                return
            if mode is Mode.FULL:
                auto.book.confirm_full(root)
            saved = auto.set_mode(root, mode)
            self.refresh_status()
            note = f"Permission mode: {mode.label} — {mode.help}."
            toast(self, note if saved else note + " Not saved: the state dir is not writable.",
                        severity="warning" if mode is Mode.FULL or not saved else "information",
                        timeout=4)

        if mode is Mode.FULL and not auto.book.full_confirmed(root):
            self.app.push_screen(ModeConfirmScreen(self.octui.store.session(root).title), apply)
        else:
            apply()

