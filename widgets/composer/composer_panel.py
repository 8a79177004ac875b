"""``ComposerPanel``: everything about writing a prompt, up to handing it to the screen.

It owns the ``Composer`` and what sits around it: the completion menu's answers (slash commands,
skills, ``@`` files, local paths after ``/attach``), the files attached by path (the chip row),
the draft of each session (kept in the state dir), the pending prompts row, octui's own
``/commands`` and ``$EDITOR``. The screen asks it what an Enter means (``submission``: a
``PromptSubmitted`` to send, or nothing when it was octui's own command), sends the prompt through
the session and calls ``sent`` when it went.

Relative attachment paths are relative to octui's working directory, not the server's project
directory: the file is on this machine and goes inline as a ``data:`` URL.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass, field

from textual import work
from textual.app import SuspendNotSupported
from textual.message import Message
from textual.widget import Widget

from tui.app.host import octui_app
from tui.session.attachments import (
    AttachmentError,
    LocalAttachment,
    parse_attach,
    path_completions,
    read_attachment,
)
from tui.session.commands import Catalog, slash_skills
from tui.session.errors import OctuiError
from tui.session.mentions import CompletionContext, fuzzy_filter, parse_slash
from tui.state.transcript import SessionState
from tui.storage.bounded_read import human_bytes
from tui.storage.drafts import HOME_KEY, DraftKeeper
from tui.text.sanitize import flatten
from widgets.composer.attachment_bar import AttachmentBar
from widgets.composer.completion import Completion
from widgets.composer.composer import Composer
from widgets.composer.external_editor import edit_text, editor_command
from widgets.composer.local_commands import LOCAL_COMMANDS
from widgets.composer.pending_inputs import PendingInputs
from widgets.plain import toast

__all__ = ["ATTACH_USAGE", "ComposerPanel"]

ATTACH_USAGE = "Type a path after /attach (Tab completes it), or paste the path of an image."
MENTION_DEBOUNCE_S = 0.08
MENTION_LIMIT = 20


def one_line_template(template: str) -> str:
    """A command without a description is described by the start of its template."""
    return flatten(template)[:60]


class ComposerPanel(Widget):
    """Owns ``#composer``, ``#completion``'s answers, ``#attachments`` and ``#pending`` (found on the
    screen by type); a non-visual helper. The screen routes those widgets' messages here."""

    DEFAULT_CSS = "ComposerPanel { display: none; }"

    @dataclass
    class PromptSubmitted:
        """A prompt to send to the session on view (or to a new session on the home screen): what
        ``submission`` hands the screen (a value, not a message: the screen asked for it)."""

        text: str
        delivery: str  # steer | queue
        attachments: list[LocalAttachment] = field(default_factory=list)
        mentioned: set[str] = field(default_factory=set)  # @ paths picked from completion

    @dataclass
    class LocalCommand(Message):
        """An octui ``/command`` without arguments: run the screen action ``action``."""

        action: str

    @dataclass
    class SwitchRequested(Message):
        """``/model NAME`` or ``/agent NAME``; the draft stays until the switch worked."""

        kind: str  # model | agent
        name: str
        draft: str

    @dataclass
    class PendingChanged(Message):
        """A pending prompt of ``session_id``: cancel it (``delivery`` None) or change its delivery."""

        session_id: str
        inbox_id: str
        delivery: str | None

    def __init__(self) -> None:
        super().__init__()
        self.session_id: str | None = None  # the session the draft belongs to (None: home)
        self.drafts = DraftKeeper()  # composer drafts, per session, kept in the state dir
        self._draft_key: str | None = None  # the view the composer text belongs to
        self._draft_timer = False
        self._composer: Composer | None = None  # kept: on unmount it still holds the text
        self.attach_base: str | None = None
        """Directory relative paths start from (default: the current working directory)."""
        self.attachments: list[LocalAttachment] = []
        """Files attached to the next prompt, in the order they were added."""

    @property
    def composer(self) -> Composer:
        return self.screen.query_one(Composer)

    @property
    def catalog(self) -> Catalog | None:
        """The server's commands and skills (the session service's cache); None before connecting."""
        session = octui_app(self).session
        return session.catalog if session.is_ready else None

    @property
    def text(self) -> str:
        return self.composer.text

    def start(self) -> None:
        """The screen is mounted: hide the pending row, take the focus, recall earlier prompts."""
        self._composer = self.composer
        self.screen.query_one(PendingInputs).display = False
        self._composer.focus()
        self._load_history()

    @work(group="history", exit_on_error=False)
    async def _load_history(self) -> None:
        if not octui_app(self).config.prompt_history:
            return
        with contextlib.suppress(OSError):
            self.composer.load_history(await asyncio.to_thread(self.drafts.state.prompt_history))

    @work(group="history", exit_on_error=False)
    async def _remember(self, text: str) -> None:
        if not octui_app(self).config.prompt_history:  # prompts can hold secrets: opt out
            return
        # A state dir that cannot be written loses the history, never the prompt (drafts say so).
        with contextlib.suppress(OSError):
            await asyncio.to_thread(self.drafts.state.remember_prompt, text)

    def focus_composer(self) -> None:
        self.composer.focus()

    def insert(self, text: str) -> None:
        self.composer.insert(text)

    # ------------------------------------------------------------------ submitting
    def submission(self, event: Composer.Submitted) -> PromptSubmitted | None:
        """Enter or Alt+Enter: an octui ``/command`` runs here (None); anything else is the prompt
        the screen sends, with the attached files and the ``@`` paths picked."""
        if self.local_command(event.text):
            return None
        return self.PromptSubmitted(event.text, event.delivery, list(self.attachments),
                                    set(self.composer.mentioned))

    def local_command(self, text: str) -> bool:
        """Run an octui ``/command`` (``/model``, ``/help`` …); ``True`` when ``text`` was one."""
        slash = parse_slash(text, set(LOCAL_COMMANDS))
        catalog = self.catalog
        if slash is None or (catalog is not None and slash.name in {
                *(c.name for c in catalog.commands), *(k.name for k in catalog.skills)}):
            return False
        if slash.name == "attach" and slash.arguments:
            return self.attach_command(text)
        if slash.name in ("model", "agent") and slash.arguments:
            self.post_message(self.SwitchRequested(slash.name, slash.arguments, text))
            return True
        if slash.arguments:
            return False
        self.composer.text = ""
        self.post_message(self.LocalCommand(LOCAL_COMMANDS[slash.name][0]))
        return True

    def sent(self, text: str, attachments: list[LocalAttachment]) -> None:
        """``text`` went out with ``attachments``: their chips go, and the box empties unless the
        user typed on meanwhile. It is kept for Ctrl+Up in later runs too."""
        self._remember(text.strip())
        if attachments:  # say what went, since the transcript row shows only the text
            self.forget_attachments(attachments)
            names = ", ".join(a.name for a in attachments)
            plural = "s" if len(attachments) > 1 else ""
            toast(self, f"Sent with {len(attachments)} attachment{plural}: {names}", timeout=3)
        composer = self.composer
        if composer.text.strip() == text:
            composer.text = ""

    def clear_draft(self, draft: str) -> None:
        """A ``/model``/``/agent`` draft did its work: drop it (unless it was edited since)."""
        composer = self.composer
        if composer.text.strip() == draft.strip():
            composer.text = ""

    def restore_prompt(self, prompt: str) -> None:
        """An undone prompt comes back for editing, like OpenCode (an unsent draft wins)."""
        composer = self.composer
        if not composer.text.strip():
            composer.text = prompt
            composer.move_cursor(composer.document.end)  # typing goes after it, as with Ctrl+Up

    # ------------------------------------------------------------------ completion
    def complete(self, event: Composer.CompletionRequested) -> None:
        if event.context.kind == "slash":
            self._complete_slash(event.composer, event.context)
        elif event.context.kind == "path":
            self._complete_path(event.composer, event.context)
        else:
            self._complete_mention(event.composer, event.context)

    @work(exclusive=True, group="complete", exit_on_error=False)
    async def _complete_slash(self, composer: Composer, context: CompletionContext) -> None:
        catalog = self.catalog
        commands = await catalog.get("commands") if catalog is not None else []
        skills = await catalog.get("skills") if catalog is not None else []
        items = [Completion("slash", c.name, c.name, c.description or one_line_template(c.template))
                 for c in commands]
        server = {c.name for c in commands}
        items += [Completion("slash", k.name, k.name, k.description or "", tag="skill")
                  for k in slash_skills(skills) if k.name not in server]
        server |= {k.name for k in skills}
        items += [Completion("slash", name, name, f"octui: {text}", runs_bare=True)
                  for name, (_, text) in LOCAL_COMMANDS.items() if name not in server]
        composer.show_completions(context, fuzzy_filter(context.query, items, key=lambda c: c.value))

    @work(exclusive=True, group="complete", exit_on_error=False)
    async def _complete_path(self, composer: Composer, context: CompletionContext) -> None:
        found = await asyncio.to_thread(path_completions, context.query, self.attachment_base())
        items = [Completion("path", value, value.rstrip("/").rsplit("/", 1)[-1] or value, is_dir=is_dir)
                 for value, is_dir in found]
        composer.show_completions(context, items)

    @work(exclusive=True, group="complete", exit_on_error=False)
    async def _complete_mention(self, composer: Composer, context: CompletionContext) -> None:
        session = octui_app(self).session
        if not session.is_ready:
            return
        await asyncio.sleep(MENTION_DEBOUNCE_S)  # a newer keystroke cancels this worker
        try:
            found = await session.find_files(context.query, MENTION_LIMIT)
        except OctuiError:
            found = []
        items = [Completion("mention", str(f["path"]), str(f["path"]),
                            is_dir=f.get("type") == "directory")
                 for f in found if isinstance(f.get("path"), str) and f["path"]]
        composer.show_completions(context, items)

    # ------------------------------------------------------------------ attachments
    def attachment_base(self) -> str:
        return self.attach_base or os.getcwd()

    def attach_command(self, text: str) -> bool:
        """Handle a draft whose first line is ``/attach [PATH]``; ``True`` when it was one.

        The rest of the draft stays in the composer; on failure the whole draft does.
        """
        parsed = parse_attach(text)
        if parsed is None:
            return False
        path, rest = parsed
        if not path:
            toast(self, ATTACH_USAGE, timeout=5)
            return True
        self._read_attachment(path, rest=rest)
        return True

    def attach_pasted(self, event: Composer.AttachRequested) -> None:
        """A paste that is just a file path: attach the file (or insert the text after all)."""
        self._read_attachment(event.path, pasted=event.text)

    @work(group="attach", exit_on_error=False)
    async def _read_attachment(self, raw: str, *, rest: str | None = None, pasted: str | None = None) -> None:
        composer = self.composer
        try:
            item = await asyncio.to_thread(read_attachment, raw, self.attachment_base())
        except AttachmentError as exc:
            toast(self, f"Not attached: {exc}", severity="error", timeout=6)
            if pasted is not None:  # the paste was text after all: insert it as typed
                composer.insert(pasted)
            return
        caps = octui_app(self).session.caps
        if item.kind == "text" and caps is not None and not caps.text_files:
            # This server hands a text file to the provider as media: refused there, and every
            # later turn of the session fails on it (QA, 1.18.33). A mention lets the agent read it.
            toast(self, f"Not attached: this server sends text files to the model as media, which "
                        f"most providers refuse (and the session fails from then on). Mention it "
                        f"instead: @{item.name}", severity="warning", timeout=8)
            return
        if any(a.path == item.path for a in self.attachments):
            toast(self, f"{item.name} is already attached.", timeout=3)
        else:
            self.attachments.append(item)
            self.show_attachments()
        if rest is not None and parse_attach(composer.text) is not None:
            composer.text = rest
            composer.move_cursor(composer.document.end)

    def show_attachments(self) -> None:
        self.screen.query_one(AttachmentBar).show(
            [(a.path, a.name, f"{a.kind} · {human_bytes(a.size)}") for a in self.attachments])

    def forget_attachments(self, sent: list[LocalAttachment]) -> None:
        """Drop what a delivered prompt carried (files attached meanwhile stay)."""
        self.attachments = [a for a in self.attachments if not any(a is b for b in sent)]
        self.show_attachments()

    def remove_attachment(self, key: str) -> None:
        """A chip's ✕: the file stays out of the next prompt."""
        self.attachments = [a for a in self.attachments if a.path != key]
        self.show_attachments()
        self.composer.focus()

    def attach_file(self) -> None:
        composer = self.composer
        composer.focus()
        if composer.text.strip():
            toast(self, ATTACH_USAGE, timeout=5)
            return
        composer.insert("/attach ")  # opens the path completion at once

    def detach_all(self) -> None:
        if not self.attachments:
            toast(self, "Nothing is attached.", timeout=3)
            return
        self.attachments = []
        self.show_attachments()

    # ------------------------------------------------------------------ pending prompts
    def show_pending(self, state: SessionState | None) -> None:
        caps = octui_app(self).session.caps
        self.screen.query_one(PendingInputs).show_items(
            list(state.inbox.values()) if state else [],
            can_cancel=caps.pending_cancel if caps else True,
            can_redeliver=caps.pending_redeliver if caps else True)

    def pending_action(self, inbox_id: str, delivery: str | None) -> None:
        """A pending prompt's cancel or delivery button (``delivery`` None: cancel)."""
        if self.session_id is not None:
            self.post_message(self.PendingChanged(self.session_id, inbox_id, delivery))

    # ------------------------------------------------------------------ inserts and the editor
    def slash_commands(self) -> None:
        composer = self.composer
        composer.focus()
        if not composer.text:
            composer.insert("/")

    def mention_file(self) -> None:
        composer = self.composer
        composer.focus()
        composer.settle_typed()  # the cursor is read: after the letters typed ahead
        before = composer.index_of(composer.cursor_location)
        composer.insert("@" if before == 0 or composer.text[before - 1].isspace() else " @")

    def edit_in_editor(self) -> None:
        composer = self.composer
        command = editor_command()
        try:
            with self.app.suspend():
                text = edit_text(composer.text, command)
        except SuspendNotSupported:
            toast(self, "This terminal cannot hand over to an editor.", severity="warning")
            return
        except (OSError, RuntimeError) as exc:
            toast(self, f"Editor failed: {exc}. The draft is unchanged.", severity="error")
            return
        composer.text = text.rstrip("\n")
        composer.move_cursor(composer.document.end)
        composer.focus()

    # ------------------------------------------------------------------ drafts
    def text_changed(self) -> None:
        """The composer's text changed: the draft of the view on screen follows (debounced)."""
        self.drafts.note(self._draft_key or HOME_KEY, self.composer.text)
        self._schedule_draft_flush()

    def view_changed(self, session_id: str | None) -> None:
        """Keep the composer text of the view being left; show the draft of ``session_id``."""
        self.session_id = session_id
        key = session_id if session_id is not None else HOME_KEY
        composer = self.composer
        old = self._draft_key
        if old == key:
            return
        if old is not None:
            self.drafts.note(old, composer.text)
        self._draft_key = key
        saved = self.drafts.load(key)
        self._say_draft_problem()
        if old is None and composer.text.strip() and not saved.strip():
            self.drafts.note(key, composer.text)  # typed during start-up: keep it
        elif composer.text != saved:
            composer.text = saved
            composer.move_cursor(composer.document.end)
        self._schedule_draft_flush()

    def adopt_home_draft(self, session_id: str) -> None:
        """A prompt typed on the home screen created ``session_id``: its draft moves there."""
        self.drafts.note(HOME_KEY, "")
        self.drafts.note(session_id, self.composer.text)
        self._draft_key = session_id
        self._schedule_draft_flush()

    def _schedule_draft_flush(self) -> None:
        if not self._draft_timer and self.drafts.dirty:
            self._draft_timer = True
            self.set_timer(self.drafts.delay, self._flush_drafts)

    @work(group="drafts", exit_on_error=False)
    async def _flush_drafts(self) -> None:
        self._draft_timer = False
        await asyncio.to_thread(self.drafts.flush)  # fsync off the event loop
        self._say_draft_problem()

    def _say_draft_problem(self) -> None:
        problem = self.drafts.take_problem()
        if problem is not None:
            toast(self, f"Draft: {problem}", severity="warning", timeout=10)

    def on_unmount(self) -> None:
        """Exit: write the draft now (the debounce timer will not fire any more)."""
        self.save_draft()

    def save_draft(self) -> None:
        """Write the composer's text now (quitting: before anything that may be cut short)."""
        composer = self._composer  # out of the DOM on unmount, but it still holds the text
        if composer is not None:
            self.drafts.note(self._draft_key or HOME_KEY, composer.text)
        self.drafts.flush()
