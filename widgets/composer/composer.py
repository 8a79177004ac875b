"""The prompt editor: Enter sends (steers while busy), Alt+Enter queues, Ctrl+J newline."""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.actions import SkipAction
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea
from textual.widgets.text_area import EditResult, Location

from tui.session.attachments import pasted_path
from tui.session.mentions import CompletionContext, completion_context
from tui.text.sanitize import clean_text
from widgets._textual_compat import SteadyScrollView, TextAreaInputHooks, keymapped_bindings
from widgets.composer.completion import Completion, CompletionMenu
from widgets.plain import toast

LARGE_PASTE_LINES = 50
TYPED_ONE_BY_ONE = 32  # characters typed ahead up to this many go in one by one (see settle_typed)


class Composer(SteadyScrollView, TextAreaInputHooks):
    """Multi-line prompt input with history."""

    DEFAULT_CLASSES = "composer"
    BINDINGS = [
        Binding("alt+enter", "submit('queue')", "Queue", show=False, id="octui.submit_queue"),
        Binding("ctrl+j,shift+enter", "newline", "Newline", show=False, id="octui.newline"),
        # Ids by the keymap's rule (octui. + the action's name): each key rebindable on its own.
        Binding("ctrl+up", "history('previous')", "Previous prompt", show=False, id="octui.history_previous"),
        Binding("ctrl+down", "history('next')", "Next prompt", show=False, id="octui.history_next"),
        # The transcript's pages, from the prompt (a prompt pages rarely; its arrows still move).
        Binding("pageup", "page_transcript('up')", "Transcript page up", show=False,
                id="octui.page_transcript_up"),
        Binding("pagedown", "page_transcript('down')", "Transcript page down", show=False,
                id="octui.page_transcript_down"),
    ]

    @dataclass
    class Submitted(Message):
        text: str
        delivery: str  # steer | queue

    @dataclass
    class CompletionRequested(Message):
        """The cursor is completing ``context``; the screen answers with ``show_completions``."""

        composer: Composer
        context: CompletionContext

    @dataclass
    class AttachRequested(Message):
        """A paste that is just an image/PDF path: the screen attaches it, or inserts ``text``."""

        composer: Composer
        path: str
        text: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, tab_behavior="focus", show_line_numbers=False,
                         compact=True, placeholder="Ask anything… (Enter send · Alt+Enter queue)")
        # A steady cursor: a blinking one repaints the screen twice a second, all day (idle CPU,
        # and bytes through every SSH link and tmux pane).
        self.cursor_blink = False
        self.prompt_history: list[str] = []
        self._history_index = 0
        self._history_draft = ""  # the text being typed when the history was entered
        self.mentioned: set[str] = set()
        """``@`` paths picked from completion; they are sent as file attachments where the server
        takes them (``tui/session/commands.py``: not text files on 1.18.33)."""
        self._completion: CompletionContext | None = None
        self._menu: CompletionMenu | None = None
        self._typed: list[str] = []
        """Characters typed ahead, not inserted yet (see ``take_key``)."""

    # ---------------------------------------------------------------- typed ahead
    # Characters typed in one terminal read (a paste where the terminal has no bracketed paste,
    # keys over a slow link, a script) are held back and inserted together: TextArea wraps the
    # whole line again at each insert, so 6,000 keys one by one into one line cost ~9 s of CPU.
    # They go in before anything else the prompt handles (any other key, a click, its own
    # callbacks) and before its text is changed from outside, so the order is the keys'; a read
    # of ``text`` meanwhile sees them where they will be.
    def settle_typed(self) -> None:
        """Insert the characters typed ahead, at the selection the first of them replaces. A few
        go in one by one, as keys do (one undo step per word, however the terminal split them);
        a paste-sized run is one edit."""
        typed, self._typed = self._typed, []
        if not typed or self.read_only:
            return
        for text in typed if len(typed) <= TYPED_ONE_BY_ONE else ["".join(typed)]:
            start, end = self.selection
            super().replace(text, start, end, maintain_selection_offset=False)

    async def on_event(self, event: events.Event) -> None:
        if self._typed and not isinstance(event, events.Key):
            self.settle_typed()
        await super().on_event(event)

    @property
    def text(self) -> str:
        # Read without inserting them (Textual reads it while rendering a line, too).
        text = self.document.text
        if not self._typed:
            return text
        start, end = sorted(self.selection)
        return text[:self.index_of(start)] + "".join(self._typed) + text[self.index_of(end):]

    @text.setter
    def text(self, value: str) -> None:
        self._typed.clear()  # typed before the text was replaced: replaced with it
        # Replaced from outside (another session's draft, a sent prompt, the editor): whatever
        # history was being browsed is over (Up then showed another session's draft).
        self._history_index = len(self.prompt_history)
        self._history_draft = ""
        self.load_text(value)

    # The editing methods settle first: where they edit (the cursor, the end) is read after.
    def insert(self, text: str, location: Location | None = None, *,
               maintain_selection_offset: bool = True) -> EditResult:
        self.settle_typed()
        return super().insert(text, location, maintain_selection_offset=maintain_selection_offset)

    def replace(self, insert: str, start: Location, end: Location, *,
                maintain_selection_offset: bool = True) -> EditResult:
        self.settle_typed()
        return super().replace(insert, start, end, maintain_selection_offset=maintain_selection_offset)

    def delete(self, start: Location, end: Location, *, maintain_selection_offset: bool = True) -> EditResult:
        self.settle_typed()
        return super().delete(start, end, maintain_selection_offset=maintain_selection_offset)

    def clear(self) -> EditResult:
        self._typed.clear()  # typed, then all of it cleared
        return super().clear()

    # ---------------------------------------------------------------- completion
    @property
    def menu(self) -> CompletionMenu | None:
        # Looked up once: a query walks the whole screen, and this is read several times a key
        # (6,000 keys in one read, a paste into a terminal without bracketed paste, took 10 s).
        menu = self._menu
        if menu is None or not menu.is_attached:
            found = self.screen.query(CompletionMenu) if self.is_attached else None
            menu = self._menu = found.first() if found else None
        return menu

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if not self.text:
            self.mentioned.clear()
        self._update_completion()

    def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        self._update_completion()

    def index_of(self, location: tuple[int, int]) -> int:
        """Index into ``self.text`` of a (row, column) location."""
        row, column = location
        step = len(self.document.newline)
        return sum(len(line) + step for line in self.document.lines[:row]) + column

    def location_of(self, index: int) -> tuple[int, int]:
        """(row, column) of an index into ``self.text``."""
        step = len(self.document.newline)
        for row, line in enumerate(self.document.lines):
            if index <= len(line):
                return row, index
            index -= len(line) + step
        return self.document.end

    def _update_completion(self) -> None:
        menu = self.menu
        if menu is None:
            return
        offset = self.index_of(self.cursor_location)
        context = completion_context(self.text, offset) if self.selection.is_empty else None
        if context == self._completion:
            return
        self._completion = context
        if context is None:
            menu.close()
            return
        self.post_message(self.CompletionRequested(self, context))

    def show_completions(self, context: CompletionContext, items: list[Completion]) -> None:
        """Show ``items`` for ``context`` unless the cursor has moved on to another completion."""
        menu = self.menu
        if menu is None or context != self._completion:
            return
        menu.show_items(items, (context.kind, context.query))

    def accept_completion(self, item: Completion | None = None) -> bool:
        """Replace the token being completed with ``item`` (default: the highlighted one)."""
        menu, context = self.menu, self._completion
        item = item or (menu.selected if menu is not None else None)
        if item is None or context is None:
            return False
        if item.kind == "mention" and not item.is_dir:
            self.mentioned.add(item.value)
        prefix = {"slash": "/", "mention": "@"}.get(item.kind, "")
        suffix = "" if item.is_dir or item.kind == "path" else " "  # Enter then attaches the path
        start, end = self.location_of(context.start), self.location_of(context.end)
        self._completion = None
        if menu is not None:
            menu.close()
        self.replace(f"{prefix}{item.value}{suffix}", start, end)
        return True

    def _completion_key(self, key: str) -> bool:
        """Keys that drive an open completion menu; ``True`` when handled."""
        menu = self.menu
        if menu is None or not menu.is_open:
            return False
        self._update_completion()  # (the text may have changed since: keys typed ahead went in)
        context = self._completion
        if not menu.is_open:
            return False
        if context is None or menu.context_key != (context.kind, context.query):
            # Its choices are for what was typed before ("/" then "model zzz" in one read: Enter
            # took "/init", QA). Enter goes on as if no menu were open; Tab waits for the new ones.
            if key == "enter":
                menu.close()
                return False
            return key == "tab"
        if key in ("up", "down"):
            menu.move(-1 if key == "up" else 1)
        elif key == "enter" and self._completion is not None and self._completion.kind == "slash" \
                and menu.selected is not None and menu.selected.runs_bare \
                and menu.selected.value == self._completion.query:
            menu.close()  # "/export" typed in full: Enter runs it (it took a second Enter: QA)
            return False
        elif key in ("tab", "enter"):
            return self.accept_completion()
        elif key == "escape":
            menu.close()
        else:
            return False
        return True

    async def take_paste(self, event: events.Paste) -> None:
        """Paste keeps line breaks but normalises them; a large paste says how much arrived."""
        # A clipboard can hold escapes (a web page's "copy" button can put anything there): shown
        # and sent as visible tokens, never drawn raw into the terminal.
        text = clean_text(event.text.replace("\r\n", "\n").replace("\r", "\n"))
        event.prevent_default()  # handled here: TextArea's own handler must not insert it again
        event.stop()
        path = pasted_path(text)
        if path is not None:  # a dragged/pasted image: attach it instead of typing its path
            self.post_message(self.AttachRequested(self, path, text))
            return
        await super().take_paste(events.Paste(text))
        lines = text.count("\n") + 1
        if lines >= LARGE_PASTE_LINES:
            toast(self, f"Pasted {lines:,} lines ({len(text):,} characters).", timeout=3)

    async def take_key(self, event: events.Key) -> None:
        bound = self._bound_action(event.key)
        if bound is None and event.is_printable and event.character and not self.read_only:
            event.prevent_default()
            event.stop()
            if not self._typed:
                self.call_later(self.settle_typed)  # after the keys queued behind this one
            self._typed.append(event.character)
            return
        self.settle_typed()
        if self._completion_key(event.key):
            event.prevent_default()
            event.stop()
            return
        if event.key == "enter":
            event.prevent_default()
            event.stop()
            self.action_submit("steer")
            return
        if event.key in ("up", "down") and self._at_edge(event.key):
            event.prevent_default()
            event.stop()
            self.action_history("previous" if event.key == "up" else "next")
            return
        # Run it now, in key order. As a binding it would run only after the key bubbled up the
        # DOM, and keys typed right after it (one terminal read: fast typing, a slow SSH link,
        # keys sent by a script) would land first: Ctrl+J then "two" gave "two\n", Alt+Enter
        # queued the text typed after it, "teh" Backspace Backspace "he" gave "tehhe". An action
        # that declines (Ctrl+C with nothing selected) lets the key go on to the bindings above
        # (the chain asks it again there, and it declines again: it changed nothing).
        if bound is not None and await self.app.run_action(bound, self):
            event.prevent_default()
            event.stop()
            return
        await super().take_key(event)

    def _bound_action(self, key: str) -> str | None:
        """The action the prompt's own bindings (its TextArea's editing keys and the Composer's,
        as remapped) give ``key``. The screen's and the app's priority bindings took their keys
        before the prompt saw them; other bindings of theirs come after the prompt's anyway."""
        for binding in keymapped_bindings(self).key_to_bindings.get(key, []):
            if not binding.priority:
                return binding.action
        return None

    def _at_edge(self, key: str) -> bool:
        row, _ = self.cursor_location
        if key == "up":
            return row == 0 and (not self.text or self._history_index < len(self.prompt_history))
        return row == self.document.line_count - 1 and self._history_index < len(self.prompt_history)

    def action_submit(self, delivery: str) -> None:
        text = self.text.strip()
        if not text:
            return
        if not self.prompt_history or self.prompt_history[-1] != text:
            self.prompt_history.append(text)
        self._history_index = len(self.prompt_history)
        self.post_message(self.Submitted(text, delivery))

    def action_newline(self) -> None:
        self.insert("\n")

    async def action_page_transcript(self, direction: str) -> None:
        # A screen without a transcript to page: the key goes on (as TextArea's own would).
        if not await self.app.run_action(f"screen.page_transcript({-1 if direction == 'up' else 1})", self):
            raise SkipAction()

    def action_history(self, direction: str) -> None:
        if not self.prompt_history:
            return
        step = -1 if direction == "previous" else 1
        index = max(0, min(len(self.prompt_history), self._history_index + step))
        if index == self._history_index:
            return
        if self._history_index >= len(self.prompt_history):
            # What was being typed: back past the newest prompt, it is there again (it was lost).
            self._history_draft = self.text
        self._history_index = index
        self._typed.clear()
        history = self.prompt_history
        self.load_text(history[index] if index < len(history) else self._history_draft)
        self.move_cursor(self.document.end)

    def load_history(self, prompts: list[str]) -> None:
        """Prompts sent in earlier runs, oldest first: Ctrl+Up recalls them before this run's (a
        history being browsed when they come stays where it is)."""
        earlier = [p for p in prompts if p not in self.prompt_history]  # (one sent meanwhile)
        self.prompt_history = [*earlier, *self.prompt_history]
        self._history_index += len(earlier)

