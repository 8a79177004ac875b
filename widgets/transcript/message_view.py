"""One transcript entry: a user prompt, an assistant turn step, or a notice."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Region
from textual.message import Message as TextualMessage
from textual.renderables.blank import Blank
from textual.strip import Strip
from textual.visual import Visual
from textual.widget import Widget
from textual.widgets import Static

from tui.state.transcript import Message, TextBlock, ToolCall
from tui.text.failures import failure_fix, failure_pieces
from tui.text.sanitize import shows_nothing
from widgets._textual_compat import widget_visual
from widgets.plain import plain, plain_cut, plain_line, toast
from widgets.tools.tool_row import ToolRow
from widgets.transcript.light_repaint import LightRepaint
from widgets.transcript.reasoning_block import ReasoningView
from widgets.transcript.text_block import TextBlockView

# Background results arrive wrapped as <subagent …>…</subagent> / <shell …>…</shell>.
_RESULT_TAG = re.compile(r"</?(?:subagent|shell)\b[^>]*>")

_NOTICE_LABELS = {
    "agent-switched": "agent → {}",
    "model-switched": "model → {}",
    "skill": "skill activated: {}",
    "system": "system: {}",
}


def failure_text(msg: Message) -> Content:
    """A failed turn: which model failed and why (as the server said), then what to do about it.

    The model, provider and cause are the server's text: one line each, hidden characters as
    tokens (``tui.text.failures.failure_pieces`` says which pieces are the server's)."""
    assert msg.error is not None
    style = "$text-error"
    headline = Content.assemble(*[plain_line(text, limit, style) if limit else plain(text, style)
                                  for text, limit in failure_pieces(msg.error, msg.model)])
    if msg.metadata.get("retried"):
        return Content.assemble(headline, (" — retried", style))
    fix = failure_fix(msg.error)
    if fix is None:
        return headline
    return Content.assemble(headline, "\n", plain(fix, "$foreground-muted"))


LOST_SHOWN_CHARS = 20_000  # of the text the server did not keep, shown here (copy/export: all)
UNDO_CONFIRM_S = 3.0  # "u" on a prompt undoes when pressed again within this


def interrupted_note(message: Message) -> Content:
    """Why the turn is over, and the streamed text the server did not keep (its hidden characters
    as tokens; past ``LOST_SHOWN_CHARS`` the note says how much more copy and export hold)."""
    note = Content.assemble("⚠ ", plain(message.interrupted))
    lost = message.lost_text
    if not shows_nothing(lost):
        note = Content.assemble(
            note, f"\nText that streamed in but the server did not keep ({len(lost):,} characters; "
            "F6 copies it with the transcript):\n", plain_cut(lost, LOST_SHOWN_CHARS))
    return note


class MessageView(LightRepaint, Vertical):
    """Renders a ``Message``; assistant parts are child widgets updated in place by key."""

    DEFAULT_CLASSES = "message"
    # Prompts and answers take focus (Tab) so these keys act on one message; the main screen does
    # the work (widgets never do HTTP). Not on a click: the focus stays where typing goes (QA:
    # after a click on a message, typing "yes please" copied it and "update" asked to undo).
    FOCUS_ON_CLICK = False
    BINDINGS = [
        Binding("y", "request('copy')", "Copy message", id="octui.request_copy"),
        Binding("c", "request('copy_code')", "Copy code block", id="octui.request_copy_code"),
        Binding("u", "request('undo')", "Undo to here", id="octui.request_undo"),
    ]

    @dataclass
    class ActionRequested(TextualMessage):
        """The user asked for ``action`` (copy, copy_code, undo) on this message."""

        view: MessageView
        action: str

        @property
        def message(self) -> Message:
            return self.view.message

    _blank: tuple[Visual, Strip] | None  # a blank content line, and the visual it was made from
    _undo_asked_at = 0.0  # when "u" was pressed once (a second press undoes)

    def render_line(self, y: int) -> Strip:
        # A container has no content of its own. Textual's default renders every line of the
        # widget's height (``_render_content``) whenever its size changes: while a long answer
        # streams that is tens of thousands of blank Strips per frame. One line of the same
        # visual is enough; borders, padding and background are drawn around it as before.
        visual = widget_visual(self)
        if not isinstance(visual, Blank):
            return super().render_line(y)
        width = self.size.width
        if self._blank is None or self._blank[0] is not visual or self._blank[1].cell_length != width:
            self._blank = (visual, Visual.to_strips(self, visual, width, 1, self.visual_style)[0])
        return self._blank[1]

    def render_lines(self, crop: Region) -> list[Strip]:
        # An answer's view is a plain box (no border, outline or padding): all its own lines are
        # the same blank line, so one is rendered and repeated. While an answer streams, every
        # frame repaints the visible part of this layer under the text.
        styles = self.styles
        if crop.height > 1 and not styles.padding and not any(
                edge[0] not in ("", "none", "hidden") for edge in (*styles.border, *styles.outline)):
            return super().render_lines(Region(crop.x, crop.y, crop.width, 1)) * crop.height
        return super().render_lines(crop)

    def allow_focus(self) -> bool:
        return self.message.role in ("user", "assistant")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "request" and parameters == ("undo",):
            return self.message.role == "user"
        return True

    def action_request(self, action: str) -> None:
        if action == "undo":
            # Undo stages a revert: the files are put back at once. "u" is also the first letter
            # of a prompt typed on a focused message, so it asks for a second press.
            now = time.monotonic()
            if now - self._undo_asked_at > UNDO_CONFIRM_S:
                self._undo_asked_at = now
                toast(self, "Press u again to undo to this prompt (the files changed after it are "
                            "put back; F8 redoes).", timeout=UNDO_CONFIRM_S)
                return
            self._undo_asked_at = 0.0
        self.post_message(self.ActionRequested(self, action))

    def __init__(self, message: Message, *, reasoning_collapsed: bool = True,
                 child_states: Mapping[str, str] | None = None,
                 asking_calls: AbstractSet[str] | None = None) -> None:
        super().__init__()
        self.message = message
        self.child_states = child_states if child_states is not None else {}
        self.asking_calls = asking_calls if asking_calls is not None else set()
        self.reasoning_collapsed = reasoning_collapsed
        self._version = -1
        self._mount_ran = False
        self._parts: dict[str, Widget] = {}
        self._blank = None
        self.add_class(f"-{message.role}", update=False)  # (styled as it mounts, not before)


    def has_part(self, part_key: str) -> bool:
        """A widget for ``part_key`` is mounted (the transcript asks before it routes a change)."""
        return part_key in self._parts

    @property
    def rendering_behind(self) -> bool:
        """A text part still renders pieces it was given (work left for later frames)."""
        return any(isinstance(part, TextBlockView) and part.rendering_behind for part in self._parts.values())

    def compose(self) -> ComposeResult:
        msg = self.message
        if msg.role == "assistant":
            for part in msg.parts:
                yield self._make_part(part)
            yield Static("", classes="message-error", markup=False)
        else:
            yield Static(self._text(), classes="message-text", markup=False)

    def on_mount(self) -> None:
        # ``is_mounted`` only turns True after the Mount handlers have run, and a change can come
        # in between: from here on every sync applies (``_mount_ran``), this first one included.
        # No children: removed by a fast rebuild before its children were mounted; nothing to sync.
        self._mount_ran = True
        if self.children:
            self.sync(self.message, force=True)

    def _text(self) -> Content:
        msg = self.message
        if msg.role == "user":
            return plain(msg.text)
        if msg.role == "synthetic":
            label = msg.description or "note"
            state = msg.metadata.get("state")
            if msg.metadata.get("source") in ("subagent", "shell") and isinstance(state, str):
                label = f"{msg.metadata['source']} {label} {state}"
            result = _RESULT_TAG.sub("", msg.text)
            return Content.assemble("⟡ ", plain_line(label, 80), ": ", plain_line(result, 400))
        if msg.role == "shell":
            output = msg.metadata.get("output")
            body = plain(output.rstrip()) if isinstance(output, str) else Content("")
            command = plain(msg.text.rstrip(), strict=True)
            return Content.assemble("$ ", command, "\n", body) if body else Content.assemble("$ ", command)
        if msg.role == "compaction":
            progress = "failed" if msg.error else ("done" if msg.time_completed else "running…")
            summary = Content.assemble(": ", plain_line(msg.text, 200)) if msg.text else Content("")
            return Content.assemble(f"⇣ compaction {progress}", summary)
        if msg.error is not None:
            return failure_text(msg)
        before, _, after = _NOTICE_LABELS.get(msg.role, "{}").partition("{}")
        return Content.assemble(plain(before), plain_line(msg.text, 200), plain(after))

    def _make_part(self, part: TextBlock | ToolCall) -> Widget:
        widget: Widget
        if isinstance(part, ToolCall):
            widget = ToolRow(part, child_states=self.child_states, asking_calls=self.asking_calls)
        elif part.kind == "reasoning":
            widget = ReasoningView(part, collapsed=self.reasoning_collapsed)
        else:
            widget = TextBlockView(part)
        self._parts[part.key] = widget
        return widget

    def sync(self, message: Message, *, force: bool = False) -> None:
        """Bring the widget in line with the message (new parts mounted, errors shown)."""
        self.message = message
        if not self._mount_ran and not force:
            return  # on_mount syncs once the children exist
        self.set_class(message.reverted, "-reverted")
        if message.role != "assistant":
            if message.version != self._version:
                self._version = message.version
                self.query_one(".message-text", Static).update(self._text())
            return
        error = self.query_one(".message-error", Static)
        for part in message.parts:
            if part.key not in self._parts:
                self.mount(self._make_part(part), before=error)
            else:
                self.sync_part(part)
        notes: list[Content] = [failure_text(message)] if message.error is not None else []
        if message.interrupted is not None:
            notes.append(interrupted_note(message))
        if notes:
            error.update(Content("\n").join(notes))
        error.display = bool(notes)
        self._version = message.version

    def sync_part(self, part: TextBlock | ToolCall) -> None:
        widget = self._parts.get(part.key)
        if widget is None:
            return
        if isinstance(part, ToolCall) and isinstance(widget, ToolRow):
            # Also while it is still mounting: a status change in that window would be lost, and
            # the row would keep the status it was made with (ToolRow waits for its mount itself).
            widget.update_call(part)
        elif not widget.is_mounted:
            return
        elif isinstance(part, TextBlock) and isinstance(widget, (TextBlockView, ReasoningView)):
            widget.sync(part)

    def set_reasoning_collapsed(self, collapsed: bool) -> None:
        self.reasoning_collapsed = collapsed
        for widget in self._parts.values():
            if isinstance(widget, ReasoningView):
                widget.collapsed = collapsed
