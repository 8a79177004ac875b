"""``PermissionModes``: the open session's permission mode (F2 cycles; full access asks once)."""

from __future__ import annotations

from textual.message import Message
from textual.widget import Widget

from tui.app.host import octui_app
from tui.screens.mode_confirm import ModeConfirmScreen
from tui.state.modes import Mode, next_mode
from widgets.plain import toast

__all__ = ["PermissionModes"]


class PermissionModes(Widget):
    """A non-visual helper; posts ``Changed`` when a session's mode changed (the status shows it)."""

    DEFAULT_CSS = "PermissionModes { display: none; }"

    class Changed(Message):
        """The mode of a session tree changed."""

    def text(self, session_id: str | None) -> str:
        """The status bar's indicator for ``session_id`` (empty for the default, supervised)."""
        session = octui_app(self).session
        if not session.is_ready or session_id is None:
            return ""
        mode = session.mode_of(session_id)
        return "" if mode is Mode.SUPERVISED else mode.short  # the default shows no indicator

    def cycle(self, session_id: str | None) -> None:
        """supervised → auto-accept edits → full access → supervised, for the session's tree."""
        session = octui_app(self).session
        if session.is_ready and session_id is not None:
            self.set_mode(session_id, next_mode(session.mode_of(session_id)))
        else:
            self.set_mode(session_id, Mode.SUPERVISED)

    def set_mode(self, session_id: str | None, mode: Mode) -> None:
        """Set the mode of the session's root (subagents follow it); full access asks once."""
        app = octui_app(self)
        session = app.session
        if not session.is_ready or session_id is None:
            toast(self, "Open a session first: the permission mode belongs to a session.",
                  severity="warning", timeout=3)
            return
        root = session.mode_root(session_id)

        def apply(confirmed: bool | None = True) -> None:
            if not confirmed:
                return
            saved = session.set_mode(root, mode)
            self.post_message(self.Changed())
            note = f"Permission mode: {mode.label} — {mode.help}."
            toast(self, note if saved else note + " Not saved: the state dir is not writable.",
                  severity="warning" if mode is Mode.FULL or not saved else "information",
                  timeout=4)

        if mode is Mode.FULL and not session.full_access_confirmed(root):
            app.push_screen(ModeConfirmScreen(app.store.session(root).title), apply)
        else:
            apply()
