"""Provides ``PermissionScreen``: approve or reject one permission request."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Input, Static

from tui.protocol.models import PermissionRequest
from tui.screens.docked_dialog import DockedDialog, rows_shown
from tui.state.asks import (
    DiffKind,
    PermissionAnswer,
    PermissionPreview,
    PermissionReplyKind,
    permission_preview,
)
from tui.state.transcript import ToolCall
from tui.text.sanitize import flatten, hidden_characters, hidden_name, one_line, token_for
from widgets.plain import CUT_AT, HIDDEN_STYLE, plain, plain_cut, plain_line, toast

STYLES = Path(__file__).resolve().parent.parent.parent / "styles"

_DIFF_STYLES: dict[DiffKind, str] = {
    "add": "$text-success",
    "del": "$text-error",
    "hunk": "$text-accent",
    "meta": "bold dim",
    "ctx": "",
}
SHOWN_CHARS = CUT_AT
"""The longest command (or resource, pattern) the dialog draws in full; a longer one is cut where
it says so, with a warning line, so that one huge string cannot wedge the dialog."""
DIFF_LINE_CHARS = 2_000
"""The same for one line of a diff (a preview holds up to ``PREVIEW_LINES`` of them)."""
PAYLOAD_MIN_ROWS = 1
"""Rows of the command the dialog must show for Allow to be taken (the body scrolls: the scroll
cue says the rest is below)."""
DIFF_MIN_ROWS = 4
"""The same for a diff: its file lines, a hunk header and a first change."""
WARNED_KINDS = 4
"""Hidden characters named in the warning line (the rest are counted)."""


def command_content(command: str) -> Content:
    """What the dialog shows for ``command``: exactly it, nothing parsed, every hidden character a
    reverse-video token, newlines kept; ``widgets.plain.decode_runs`` maps it back to ``command``
    (up to ``SHOWN_CHARS``: a longer command is cut, and says so)."""
    return exactly(command)


def exactly(text: str, style: str = "", limit: int = SHOWN_CHARS) -> Content:
    """``text`` shown exactly (``strict``), cut after ``limit`` characters with a note saying so."""
    return plain_cut(text, limit, style, strict=True)


def diff_content(preview: PermissionPreview) -> Content:
    """Unified diff lines coloured by kind (green adds, red removals), hidden characters shown.
    One ``Content``, so the mouse selects and copies it as text. (A wrapped line goes on at the
    left edge, in its line's colour: drawn as a marker and a hanging body, each line its own
    visual, the diff could not be selected; a review.)"""
    parts: list[Content] = []
    for kind, line in preview.diff:
        parts.append(exactly(line or " ", _DIFF_STYLES[kind], DIFF_LINE_CHARS))
    if preview.truncated:
        parts.append(Content.styled(f"… {preview.truncated:,} more lines", "dim"))
    return Content("\n").join(parts)


def hidden_warning(texts: list[str], *, strict: bool = True, before: str = "allowing") -> Content | None:
    """The warning line for text that holds hidden characters (those its dialog shows as tokens:
    every one when ``strict``, prose's own when not), or ``None``."""
    found: dict[str, None] = {}
    for text in texts:
        for char in hidden_characters(text, strict=strict):
            found.setdefault(char, None)
    if not found:
        return None
    parts: list[Content | tuple[str, str]] = [
        ("⚠ Hidden or control characters, shown in reverse: ", "bold $text-error")]
    for index, char in enumerate(list(found)[:WARNED_KINDS]):
        parts += [(", " if index else "", "$text-error"), (token_for(char), HIDDEN_STYLE),
                  (" " + hidden_name(char), "$text-error")]
    more = len(found) - WARNED_KINDS
    parts.append((f" and {more} more" if more > 0 else "", "$text-error"))
    parts.append(plain(f". Read it closely before {before}.", "$text-error"))
    return Content.assemble(*parts)


LONG_WARNING = Content.styled(
    f"⚠ Part of this request is longer than {SHOWN_CHARS:,} characters and is cut where it says so. "
    "Reject it unless you know what it holds.", "bold $text-error")


INTENT_CHARS = 300  # the agent's description of a command, cut after this (it is not what runs)
REJECT_PLACEHOLDER = "Tell the model why (Enter sends, Esc cancels)"
# QA, 1.18.33: the typed reason reached neither the model nor the transcript, silently.
REJECT_PLACEHOLDER_DROPPED = "This server does not give the reason to the model (Enter, Esc cancels)"


class PermissionScreen(DockedDialog[PermissionAnswer | None]):
    """Who asks, for what, on which resources, with the command or diff; dismissed with the reply.

    Esc dismisses with ``None``: the ask stays pending (inbox). Allow once is the focused default.
    Every server string is shown exactly (``strict``): escapes, controls, bidi and invisible
    characters as reverse-video tokens, with a warning line when there are any. However much the
    server sends, the title, who asks, the buttons and the keys stay on screen (docked head and
    foot): the resources, the command or diff and the "always" patterns scroll between them.
    """

    CSS_PATH = str(STYLES / "dialogs.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o,1", "reply('once')", "Allow once"),
        Binding("a", "reply('always')", "Allow always"),
        Binding("r", "reply('reject')", "Reject"),
        Binding("m", "message", "Reject with message"),
        Binding("escape", "cancel", "Later"),
        Binding("pagedown", "scroll_body(1)", "Scroll down", show=False),
        Binding("pageup", "scroll_body(-1)", "Scroll up", show=False),
    ]
    BODY_TAKES_FOCUS = True  # a Tab stop when it scrolls: nothing in it takes focus

    def __init__(
        self,
        ask: PermissionRequest,
        *,
        tool: ToolCall | None,
        session_title: str,
        subagent_label: str | None = None,
        reject_message: bool = True,
    ) -> None:
        super().__init__(classes="ask-dialog")
        self.ask = ask
        self.ask_id = ask.id
        self.tool = tool
        self.session_title = session_title
        self.subagent_label = subagent_label
        self.reject_message = reject_message  # the server passes a reject's message to the model
        self.preview = permission_preview(ask, tool)

    @property
    def can_always(self) -> bool:
        return bool(self.ask.save)

    def compose(self) -> ComposeResult:
        ask, preview = self.ask, self.preview
        action = plain_line(ask.action or (self.tool.name if self.tool else "") or "permission", 40,
                            strict=True)
        with Vertical(id="dialog", classes="-permission"):
            # Head and foot are docked, so they stay on screen however much the server sends; the
            # body between them (everything that grows with server data) scrolls.
            with Vertical(id="dialog-head"):
                yield Static(Content.assemble(("Permission ", "bold"), ("· ", "dim"), action),
                             id="dialog-title")
                yield Static(self._who(), id="who")
                warning = hidden_warning(self._shown_texts())
                if warning is not None:
                    yield Static(warning, id="hidden-warning")
                if self._too_long():
                    yield Static(LONG_WARNING, id="long-warning")
            with VerticalScroll(id="dialog-body", can_focus=False):
                if not preview.shell and ask.resources:
                    yield Static("Resources", classes="section-title")
                    yield Static(Content("\n").join(exactly(r) for r in ask.resources), id="resources")
                with VerticalScroll(id="preview", can_focus=False):  # the body scrolls it
                    yield from self._compose_preview()
                if self.can_always:
                    yield Static(self._always_note(), id="save-patterns")
            with Vertical(id="dialog-foot"):
                yield Static(Content.styled(
                    "↕ Scroll to read all of it before allowing (wheel, PgUp/PgDn)",
                    "bold $text-warning"), id="scroll-cue")
                yield Static(Content.styled(
                    "⚠ Too small to show what you would allow: make the terminal larger. "
                    "r rejects, esc leaves it for later.", "bold $text-error"), id="cramped-note")
                with Horizontal(id="buttons"):
                    yield Button(Content("Allow once [o]"), id="once", variant="primary", compact=True)
                    if self.can_always:
                        yield Button(Content("Allow always [a]"), id="always", variant="warning",
                                     compact=True)
                    yield Button(Content("Reject [r]"), id="reject", variant="error", compact=True)
                    yield Button(Content("Reject with message [m]"), id="message", compact=True)
                why = REJECT_PLACEHOLDER if self.reject_message else REJECT_PLACEHOLDER_DROPPED
                yield Input(placeholder=why, id="reject-message")
                always = "a always · " if self.can_always else ""
                yield Static(f"o/1 once · {always}r reject · m reject with message · "
                             "esc later (stays in inbox)", classes="dialog-hint")

    @property
    def intent(self) -> str:
        """What the agent says the command is for (a shell tool's ``description``), or "": its
        own words, so shown as such (QA: OpenCode's TUI shows it, octui never did)."""
        value = self.tool.input.get("description") if self.tool is not None else None
        return value if self.preview.shell and isinstance(value, str) and value.strip() else ""

    def _compose_preview(self) -> ComposeResult:
        preview = self.preview
        if preview.shell:
            if self.intent:
                # One line, its breaks a visible token: a description of many lines drew a fake
                # "Command" block and pushed the real one out of view (review).
                yield Static(Content.assemble(("The agent says it is to: ", "$foreground-muted"),
                                              plain_line(self.intent, INTENT_CHARS, strict=True,
                                                         breaks=True)), id="intent")
            if preview.command is not None:
                title = "Command" if preview.from_tool else \
                    "Command (as the server's permission check gives it)"
                yield Static(title, classes="section-title")
                yield Static(Content.assemble(("$ ", "dim"), command_content(preview.command)),
                             id="command")
            if preview.sub_commands:
                title = ("Checked by the server as" if preview.command is not None
                         else "Sub-commands (as the server parsed them; the full command is not known yet)")
                yield Static(title, classes="section-title")
                yield Static(Content("\n").join(exactly(r) for r in preview.sub_commands),
                             id="sub-commands")
            if preview.command is None and not preview.sub_commands:
                yield Static(Content.styled("(the server gave no command)", "$foreground-muted"),
                             id="command")
        elif preview.diff:
            yield Static("Changes", classes="section-title")
            yield Static(diff_content(preview), id="diff")

    def _too_long(self) -> bool:
        preview = self.preview
        texts = [*(self.ask.save or []), *preview.sub_commands, preview.command or ""]
        texts += [] if preview.shell else self.ask.resources
        return any(len(text) > SHOWN_CHARS for text in texts) or \
            any(len(line) > DIFF_LINE_CHARS for _, line in preview.diff)

    def _shown_texts(self) -> list[str]:
        """Every server string the dialog shows in full (for the hidden-character warning)."""
        preview = self.preview
        texts = [self.ask.action or "", *(self.ask.save or []), *preview.sub_commands]
        texts += [line for _, line in preview.diff]
        if preview.command is not None:
            texts.append(preview.command)
        if self.intent:
            texts.append(self.intent)
        if not preview.shell:
            texts += self.ask.resources
        return texts

    def _always_note(self) -> Content:
        action = flatten(self.ask.action or "this action")[:30]
        parts: list[str | Content | tuple[str, str]] = [
            plain(f"Allow always saves these {action} patterns for the project;", "$text-warning",
                  strict=True),
            (" matching requests will not ask again:", "$text-warning"),
        ]
        for pattern in self.ask.save or []:
            parts += ["\n  ", exactly(pattern, "bold")]
            if pattern.strip() in ("*", "**"):
                parts.append(("   (everything)", "$text-warning"))
        return Content.assemble(*parts)

    def _who(self) -> Content:
        title = plain_line(self.session_title, 60, "bold")
        parts: list[Content | tuple[str, str]] = [("session ", "dim"), title]
        if self.subagent_label:
            parts += [("  ·  subagent ", "dim"), plain_line(self.subagent_label, 40, "bold")]
        if self.tool is not None and self.tool.name:
            parts += [("  ·  tool ", "dim"), plain_line(self.tool.name, 30)]
        return Content.assemble(*parts)

    def on_mount(self) -> None:
        self.query_one("#once", Button).focus()

    def show_preview(self, preview: PermissionPreview) -> None:
        """A whole-file write's change, once the file it replaces has been read (or why it could
        not be): the diff, and the warnings its old lines may need (hidden characters, lines
        too long to show whole)."""
        self.preview = preview
        for diff in self.query("#diff").results(Static):
            diff.update(diff_content(preview))
        head = self.query_one("#dialog-head")
        warning = hidden_warning(self._shown_texts())
        shown = list(self.query("#hidden-warning").results(Static))
        if warning is not None and shown:
            shown[0].update(warning)
        elif warning is not None:
            head.mount(Static(warning, id="hidden-warning"), after="#who")
        if self._too_long() and not self.query("#long-warning"):
            head.mount(Static(LONG_WARNING, id="long-warning"))

    def lacks_room(self) -> bool:
        """Whether the command (``PAYLOAD_MIN_ROWS``) or diff (``DIFF_MIN_ROWS``) does not show
        between the docked head and foot, scrolled to its top as the dialog opens. Then allowing
        is refused until the terminal is larger; rejecting and leaving it for later still work.
        (The note only takes rows from the body: shown, it never makes room for itself.)"""
        # The command or diff itself (a review: an edit's resources above its diff took the rows
        # and Allow was taken with no line of the diff shown), or what the body shows first.
        found = self.query("#command, #sub-commands, #diff")
        payload = found.first().region if found else self.query_one("#dialog-body").region
        need = DIFF_MIN_ROWS if found and found.first().id == "diff" else PAYLOAD_MIN_ROWS
        return rows_shown(self, payload) < min(need, max(1, payload.height))

    def cramped_changed(self, cramped: bool) -> None:
        for button in self.query("#once, #always").results(Button):
            button.disabled = cramped

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "reply" and parameters and parameters[0] == "always":
            return self.can_always
        return True

    def action_reply(self, reply: PermissionReplyKind) -> None:
        if reply == "always" and not self.can_always:
            return
        if reply != "reject" and self.cramped:
            toast(self.app, "Make the terminal larger to read the request before allowing it.",
                  severity="warning")
            return
        self.dismiss(PermissionAnswer(reply))

    def action_message(self) -> None:
        box = self.query_one("#reject-message", Input)
        self.add_class("-messaging")
        box.focus()

    def action_cancel(self) -> None:
        if self.has_class("-messaging"):
            self.remove_class("-messaging")
            self.query_one("#reject", Button).focus()
            return
        self.dismiss(None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "message":
            self.action_message()
        elif event.button.id in ("once", "always", "reject"):
            self.action_reply(event.button.id)  # type: ignore[arg-type]

    @on(Input.Submitted, "#reject-message")
    def _send_message(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        self.dismiss(PermissionAnswer("reject", text or None))

    def close_answered_elsewhere(self, why: str = "answered elsewhere") -> None:
        """Settled by the server (another client answered, or its turn ended): close and say
        ``why``, send nothing."""
        toast(self.app, f"Permission {one_line(why, 60)}.", title="Permission")
        self.dismiss(None)
