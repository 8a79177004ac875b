"""Session actions: copy, export, revert (undo/redo/commit), compact, rename, delete, create.

Two layers:

* pure helpers (no Textual, no HTTP) that pick what to copy, where to write, which message to
  revert to and how to word the toasts — unit tested directly;
* ``SessionActions`` (``app.actions``): the app's glue that the transcript actions and the session
  browser call. Every server call goes through ``app.session``, runs in an app worker
  (``exit_on_error=False``) and reports its outcome as a toast.

Copying is honest (ANCHORS.md §2 item 1): Textual's ``App.copy_to_clipboard`` writes an OSC 52
escape to the terminal and cannot know whether the terminal accepted it, so the toast says exactly
that, and the same text is always written to ``<state dir>/clipboard.txt`` whose path is shown.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tui.export import export_markdown
from tui.protocol.models import FileDiff, ModelRef, SessionInfo, SessionRevert
from tui.session.errors import Conflict, NotSupported, OctuiError, Unavailable
from tui.state.transcript import Message, SessionState, TextBlock
from tui.storage.config import atomic_write, state_dir
from tui.text.sanitize import clean_text, one_line, shows_nothing
from widgets.plain import toast

if TYPE_CHECKING:
    from tui.app.app import OctuiApp
    from tui.session.service import SessionService

__all__ = [
    "CLIPBOARD_FILE", "RevertChoice", "SessionActions", "clipboard_toast", "code_blocks",
    "export_file_name", "last_answer", "last_code_block", "message_copy_text", "revert_files",
    "undo_target", "write_clipboard_file", "write_export",
]

CLIPBOARD_FILE = "clipboard.txt"
"""File in the state dir that always holds the last copied text (the OSC 52 fallback)."""
EXPORT_DIR = "exports"
"""Folder in the state dir that exported transcripts go to."""

RevertChoice = Literal["clear", "commit"]
"""What the revert panel asked for: ``clear`` (redo: restore everything) or ``commit`` (final)."""

_FENCE = re.compile(
    r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})[^\n]*\n(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
    re.MULTILINE | re.DOTALL)


# ------------------------------------------------------------------------------ pure helpers


def message_copy_text(message: Message) -> str:
    """What "copy this message" puts on the clipboard: the prompt, or an answer's text blocks."""
    if message.role == "assistant":
        texts = [clean_text(p.text).strip("\n") for p in message.parts
                 if isinstance(p, TextBlock) and p.kind == "text" and not shows_nothing(p.text)]
        if not shows_nothing(message.lost_text):  # streamed, then interrupted: the server did not keep it
            texts.append(clean_text(message.lost_text).strip("\n"))
        return "\n\n".join(texts)
    return clean_text(message.text).strip("\n")


def turn_answers(state: SessionState) -> list[str]:
    """Each turn's answer, oldest first: the text of every assistant message after a prompt
    (empty for a turn that failed, or was stopped, before it wrote any)."""
    answers: list[list[str]] = [[]]
    for message in state.ordered_messages():
        if message.reverted:
            continue
        if message.role == "user":
            answers.append([])
        elif message.role == "assistant" and (text := message_copy_text(message)):
            answers[-1].append(text)
    return ["\n\n".join(texts) for texts in answers]


def last_answer(state: SessionState) -> str:
    """The text of the latest turn: every assistant message after the last user prompt."""
    return turn_answers(state)[-1]


def code_blocks(text: str) -> list[str]:
    """The bodies of fenced code blocks (``` or ~~~) in Markdown text, in order."""
    return [match.group("body").rstrip("\n") for match in _FENCE.finditer(text)]


def last_code_block(state: SessionState) -> str | None:
    """The last fenced code block in any assistant answer, or ``None``."""
    for message in reversed(state.ordered_messages()):
        if message.role == "assistant" and not message.reverted:
            blocks = code_blocks(message_copy_text(message))
            if blocks:
                return blocks[-1]
    return None


def undo_target(state: SessionState) -> Message | None:
    """The user message an undo should revert to (the boundary is kept on 1.18, dropped after).

    Repeated undos walk back: with a revert already staged, the target is the last user message
    *before* the current boundary.
    """
    boundary = state.info.revert.messageID if state.info and state.info.revert else None
    users: list[Message] = []
    for message in state.ordered_messages():
        if boundary is not None and message.id == boundary:
            break
        if message.role == "user":
            users.append(message)
    return users[-1] if users else None


def revert_files(revert: SessionRevert | dict[str, Any] | None) -> list[FileDiff]:
    """The staged file diffs of a revert (``[]`` when the server sent none, as 1.18 does)."""
    if revert is None:
        return []
    if isinstance(revert, dict):
        revert = SessionRevert.model_validate(revert)
    return list(revert.files or [])


def clipboard_toast(what: str, chars: int, fallback: Path | None) -> str:
    """An honest toast: OSC 52 cannot be confirmed, so say so and name the file copy."""
    noun = "character" if chars == 1 else "characters"
    text = (f"{what} ({chars} {noun}) sent to the terminal clipboard (OSC 52) — "
            "works if your terminal allows it.")
    if fallback is not None:
        text += f" Also saved to {fallback}"
    else:
        text += " Could not save a file copy."
    return text


def write_clipboard_file(text: str, root: Path | None = None) -> Path:
    """Write ``text`` to ``<state dir>/clipboard.txt`` (replaced each time) and return its path."""
    target = (root if root is not None else state_dir()) / CLIPBOARD_FILE
    atomic_write(target, text.encode("utf-8"))
    return target


def export_file_name(state: SessionState) -> str:
    """``<title-slug>-<session id>.md``: stable for one session, safe on every file system."""
    slug = re.sub(r"[^a-z0-9]+", "-", one_line(state.title, 60).lower()).strip("-")[:48]
    safe_id = re.sub(r"[^A-Za-z0-9_-]", "", state.id)[:64] or "session"
    return f"{slug}-{safe_id}.md" if slug and slug != safe_id.lower() else f"{safe_id}.md"


def write_export(state: SessionState, root: Path | None = None) -> Path:
    """Write the session as Markdown to ``<state dir>/exports/`` and return the path."""
    target = (root if root is not None else state_dir()) / EXPORT_DIR / export_file_name(state)
    atomic_write(target, export_markdown(state).encode("utf-8"))
    return target


def error_text(exc: OctuiError, what: str) -> str:
    """Why ``what`` failed, in words; 1.18's 503 on compaction is named plainly."""
    if isinstance(exc, Unavailable):
        return f"{what} is not available on this server ({exc})"
    if isinstance(exc, Conflict):
        return f"{what} refused: the session is busy — interrupt it first ({exc})"
    if isinstance(exc, NotSupported):
        return f"{what} is not supported here: {exc}"
    return f"{what} failed: {exc}"


# ------------------------------------------------------------------------------ glue


@dataclass
class NewSessionRequest:
    """What the new-session form asks for."""

    directory: str
    agent: str | None = None
    model: ModelRef | None = None


Notify = Callable[..., None]


class SessionActions:
    """Runs session actions for the app; outcomes are toasts. One instance per app is enough."""

    def __init__(self, app: OctuiApp, *, root: Path | None = None) -> None:
        self.app = app
        self.root = root  # state dir override (tests); None = tui.storage.config.state_dir()

    # -------------------------------------------------------------------------- local
    def copy(self, text: str | None, what: str, *, missing: str = "") -> Path | None:
        """Copy via OSC 52 and to the state-dir file; toast says both. Returns the file path.
        ``None``: there is no such thing to copy, and ``missing`` says so (not "… is empty")."""
        if not text:
            said = missing if text is None and missing else f"{what.lower()} is empty"
            toast(self.app, f"Nothing to copy: {said}.", severity="warning")
            return None
        self.app.copy_to_clipboard(text)
        path: Path | None
        try:
            path = write_clipboard_file(text, self.root)
        except OSError:
            path = None
        toast(self.app, clipboard_toast(what, len(text), path), timeout=8)
        return path

    def copy_last_answer(self, state: SessionState | None) -> None:
        """The latest turn's answer; if that turn wrote none (QA: after a failed turn F5 said
        "Nothing to copy" with a whole answer above it), the latest answer before it, said so."""
        answers = turn_answers(state) if state else [""]
        if answers[-1] or not any(answers):
            self.copy(answers[-1], "Last answer")
            return
        back = next(n for n in range(1, len(answers)) if answers[-1 - n])
        turns = "turn" if back == 1 else "turns"
        latest = "has none yet" if state is not None and state.busy else "wrote none"
        self.copy(answers[-1 - back], f"The answer {back} {turns} back (the latest turn {latest})")

    def copy_transcript(self, state: SessionState | None) -> None:
        self.copy(export_markdown(state) if state else "", "Transcript")

    def copy_code_block(self, state: SessionState | None) -> None:
        block = last_code_block(state) if state else None
        self.copy(block, "Last code block", missing="no code block in this session yet")

    def copy_message(self, message: Message) -> None:
        self.copy(message_copy_text(message), "Message")

    def copy_message_code(self, message: Message) -> None:
        blocks = code_blocks(message_copy_text(message))
        self.copy(blocks[-1] if blocks else None, "Code block", missing="this message has no code block")

    def export(self, state: SessionState | None) -> Path | None:
        if state is None:
            toast(self.app, "No session open to export.", severity="warning")
            return None
        try:
            path = write_export(state, self.root)
        except OSError as exc:
            toast(self.app, f"Export failed: {exc}", severity="error")
            return None
        toast(self.app, f"Exported {len(state.messages)} messages as Markdown to {path}", timeout=10)
        return path

    # -------------------------------------------------------------------------- server
    def _session(self) -> SessionService | None:
        """The command path, once connected (else a toast says so)."""
        session = self.app.session
        if not session.is_ready:
            toast(self.app, "Not connected yet.", severity="warning")
            return None
        return session

    async def revert_stage(self, session_id: str, message_id: str) -> SessionRevert | None:
        session = self._session()
        if session is None:
            return None
        try:
            return await session.revert_stage(session_id, message_id)
        except OctuiError as exc:
            toast(self.app, error_text(exc, "Undo"), severity="error")
            return None

    async def revert_clear(self, session_id: str) -> bool:
        session = self._session()
        if session is None:
            return False
        try:
            await session.revert_clear(session_id)
        except OctuiError as exc:
            toast(self.app, error_text(exc, "Redo"), severity="error")
            return False
        toast(self.app, "Redo: the reverted messages and files are back.", timeout=4)
        return True

    async def revert_commit(self, session_id: str) -> bool:
        session = self._session()
        if session is None:
            return False
        try:
            await session.revert_commit(session_id)
        except OctuiError as exc:
            toast(self.app, error_text(exc, "Commit revert"), severity="error")
            return False
        toast(self.app, "Revert committed: the messages after the boundary are gone.", timeout=4)
        return True

    async def compact(self, session_id: str) -> bool:
        session = self._session()
        if session is None:
            return False
        try:
            await session.compact(session_id)
        except OctuiError as exc:
            toast(self.app, error_text(exc, "Compaction"), severity="warning" if isinstance(exc, Unavailable)
                            else "error", timeout=8)
            return False
        toast(self.app, "Compaction queued: a summary row appears when it runs.", timeout=4)
        return True

    async def rename(self, session_id: str, title: str) -> bool:
        session = self._session()
        if session is None:
            return False
        try:
            await session.rename(session_id, title)
        except OctuiError as exc:
            toast(self.app, error_text(exc, "Rename"), severity="error")
            return False
        toast(self.app, f"Renamed to “{one_line(title, 60)}”.", timeout=3)
        return True

    async def delete(self, session_id: str) -> bool:
        session = self._session()
        if session is None:
            return False
        try:
            await session.delete(session_id)
        except OctuiError as exc:
            toast(self.app, error_text(exc, "Delete"), severity="error")
            return False
        toast(self.app, "Session deleted.", timeout=3)
        main = self.app.main_or_none() if hasattr(self.app, "main_or_none") else None
        if main is not None and getattr(main, "session_id", None) == session_id:
            main.show_home()
        return True

    @property
    def default_directory(self) -> str:
        return self.app.spec.directory

    async def choices(self) -> tuple[list[str], list[ModelRef]]:
        """Agent names and models for the new-session form (empty lists when unreachable)."""
        session = self.app.session
        if not session.is_ready:
            return [], []
        agents: list[str] = []
        try:
            agents = [a.name or a.id for a in await session.agents() if a.mode != "subagent" and not a.hidden]
        except OctuiError:
            pass
        models = self.app.models
        if not models:
            try:
                models = await session.models()
            except OctuiError:
                models = []
        refs = [ModelRef(providerID=m.providerID, id=m.id) for m in models if m.enabled]
        return agents, refs

    async def create(self, request: NewSessionRequest) -> SessionInfo | None:
        session = self._session()
        if session is None:
            return None
        try:
            return await session.create_session(directory=request.directory, agent=request.agent,
                                                   model=request.model)
        except OctuiError as exc:
            toast(self.app, error_text(exc, "New session"), severity="error")
            return None

