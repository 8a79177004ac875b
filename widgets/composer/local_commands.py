"""octui's own ``/commands``: typed in the composer, run here, never sent to the server."""

from __future__ import annotations

__all__ = ["LOCAL_COMMANDS"]

LOCAL_COMMANDS: dict[str, tuple[str, str]] = {
    "model": ("pick_model", "switch the model: /model NAME, or pick one"),
    "agent": ("pick_agent", "switch the agent: /agent NAME, or pick one"),
    "new": ("new_session", "start a new session"),
    "sessions": ("sessions", "browse sessions"),
    "help": ("help", "list every key"),
    "editor": ("edit_in_editor", "edit the draft in $EDITOR"),
    "themes": ("app.change_theme", "change the colour theme"),
    "quit": ("app.quit", "quit octui"),
    "compact": ("compact", "summarise the session to free context"),
    "undo": ("undo", "undo the last prompt (revert)"),
    "redo": ("redo", "bring back what undo reverted"),
    "export": ("export", "export the transcript as Markdown"),
    "copy": ("copy_last_answer", "copy the last answer"),
    "attach": ("attach_file", "attach a local file or image: /attach PATH"),
    "detach": ("detach_all", "remove every attached file"),
}
"""name -> (main-screen action, description); a server command or skill of the same name wins."""
