"""The hostile-text corpus through every widget and screen that shows server or user text.

For each string of ``hostile_corpus.SMALL`` (and, bounded, the 1 MB lines) each scenario mounts or
updates the real widget in a headless app and renders the screen. Then:

* no exception (a ``MarkupError`` used to end octui);
* nothing that would be obeyed reaches the terminal: no control, escape, C1, bidi or surrogate
  character in any rendered segment, no hyperlink style, no ``@click`` action the same scenario
  does not have with benign text (``[@click=screen.reply("always")]`` used to become a button);
* the literal text is visible: the start of the string, hidden characters as tokens and markup
  brackets included, is found in the widget that shows it (whitespace ignored, as wrapping moves it).

What the terminal really receives from the real binary is checked in ``test_hostile_pty.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import re
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import Screen
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static
from textual.widgets._toast import Toast, ToastHolder

from tests.security.hostile_corpus import BIG, ESCAPE_BYTES, SMALL, visible_forms
from tui.app import clock
from tui.app.cli import _say
from tui.client.service import discover
from tui.protocol.models import (
    FileDiff,
    FormField,
    FormInfo,
    FormOption,
    ModelRef,
    PermissionRequest,
    PermissionSource,
    QuestionItem,
    QuestionOption,
    QuestionRequest,
    SessionInfo,
    StructuredError,
    ToolContent,
)
from tui.screens.form import FormScreen
from tui.screens.inbox import HISTORY_SHOWN, InboxEntry, InboxScreen
from tui.screens.permission import PermissionScreen
from tui.screens.question import QuestionScreen
from tui.screens.revert import RevertScreen
from tui.state.asks import PREVIEW_LINES
from tui.state.interrupts import INTERRUPTED
from tui.state.transcript import Message, PendingInput, TextBlock, ToolCall
from tui.state.tree import TreeNode
from tui.text.sanitize import overstrike
from widgets.asks.form_field.base import FieldEditor
from widgets.composer.pending_inputs import PendingInputs
from widgets.plain import toast
from widgets.sessions.session_list import SessionList
from widgets.status.connection_banner import ConnectionBanner
from widgets.status.session_header import SessionHeader
from widgets.status.status_bar import StatusBar, StatusInfo
from widgets.subagents.breadcrumb import Breadcrumb
from widgets.subagents.subagent_tree import SubagentTree
from widgets.tools.terminal_output import DEFAULT_CAP
from widgets.tools.tool_header import ToolHeader
from widgets.tools.tool_row import ToolRow
from widgets.transcript.message_view import MessageView

SIZE = (140, 60)
T0 = 1_800_000_000_000.0
BENIGN = ["plain words"]
CHUNK = 16
"""Corpus strings shown at once where a widget has room for many (list rows, lines, fields)."""
_WHITESPACE = re.compile(r"\s+")
SGR = re.compile(r"\x1b\[[0-9;:]*m")


class Harness(App[None]):
    """One scroll area; scenarios mount into it or push screens (which bring their own CSS)."""

    def __init__(self) -> None:
        super().__init__()
        self.animation_level = "none"

    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="area")


Shown = list[tuple[Widget, list[str]]]
"""Each widget that must show strings, with the strings it must show."""
Show = Callable[[Pilot[None], list[str]], Awaitable[Shown]]


@dataclass(frozen=True)
class Scenario:
    name: str
    show: Show
    chunk: int = CHUNK
    """How many corpus strings one showing takes (1: the widget shows one string at a time)."""
    limit: int = 24
    """How much of the start of each string the widget must show (its own cut, if shorter)."""
    markdown: bool = False
    """The widget renders markdown: the text need not appear literally (only its tokens)."""


# -- helpers ------------------------------------------------------------------------------------


async def _mount(pilot: Pilot[None], *widgets: Widget) -> list[Widget]:
    area = pilot.app.query_one("#area", VerticalScroll)
    await area.remove_children()
    await area.mount(*widgets)
    await pilot.pause()
    return list(widgets)


async def _push(pilot: Pilot[None], screen: Screen[Any]) -> Screen[Any]:
    app = pilot.app
    while len(app.screen_stack) > 1:
        app.pop_screen()
    await app.push_screen(screen)
    await pilot.pause()
    return screen


def _call(name: str, **kwargs: Any) -> ToolCall:
    return ToolCall(id=f"call_{name}", name=name, session_id="ses_1", message_id="msg_1",
                    status=kwargs.pop("status", "completed"), time_created=T0, time_ran=T0,
                    time_completed=T0 + 1200, **kwargs)


# -- scenarios ------------------------------------------------------------------------------


async def permission_bash(pilot: Pilot[None], texts: list[str]) -> Shown:
    command = "\n".join(texts)
    ask = PermissionRequest(id="per_1", sessionID="ses_1", action="bash", resources=[command],
                            save=texts, source=PermissionSource(messageID="msg_1", id="call_1"))
    # The agent's description of the command is its words, shown on one line.
    tool = ToolCall(id="call_1", name="bash", input={"command": command, "description": texts[-1]})
    screen = await _push(pilot, PermissionScreen(ask, tool=tool, session_title=texts[0],
                                                 subagent_label=texts[-1]))
    shown: Shown = [(screen.query_one("#command"), texts), (screen.query_one("#save-patterns"), texts),
                    (screen.query_one("#who"), texts[:1])]
    if texts[-1].strip():  # (a blank description is not shown)
        shown.append((screen.query_one("#intent"), texts[-1:]))
    return shown


async def permission_subcommands(pilot: Pilot[None], texts: list[str]) -> Shown:
    ask = PermissionRequest(id="per_1", sessionID="ses_1", action="shell", resources=[*texts, "x"])
    screen = await _push(pilot, PermissionScreen(ask, tool=None, session_title="s"))
    return [(screen.query_one("#sub-commands"), texts)]


async def permission_edit(pilot: Pilot[None], texts: list[str]) -> Shown:
    patch = "--- a\n+++ b\n@@ -1 +1 @@\n" + "".join(f"-{t}\n+{t}\n" for t in texts)
    files = [{"file": texts[0], "patch": patch, "additions": 1, "deletions": 1, "status": "modified"}]
    ask = PermissionRequest(id="per_2", sessionID="ses_1", action="edit", resources=texts, save=["*"],
                            metadata={"files": files})
    screen = await _push(pilot, PermissionScreen(ask, tool=None, session_title="s"))
    in_preview, lines = [], 4  # the preview shows PREVIEW_LINES lines of the patch, then a count
    for text in texts:
        lines += 2 * (text.count("\n") + 1)
        if lines < PREVIEW_LINES:
            in_preview.append(text)
    return [(screen.query_one("#resources"), texts), (screen.query_one("#diff"), in_preview)]


async def question(pilot: Pilot[None], texts: list[str]) -> Shown:
    item = QuestionItem(question=" \n".join(texts), header=texts[0], options=[
        QuestionOption(label=t, description=t) for t in texts])
    request = QuestionRequest(id="que_1", sessionID="ses_1", questions=[item, item])
    screen = await _push(pilot, QuestionScreen(request, session_title=texts[0]))
    return [(screen.query_one(".question-text"), texts), (screen.query_one(".choice-list"), texts)]


async def form(pilot: Pilot[None], texts: list[str]) -> Shown:
    # The keys are server text too (any string: "é", "a b" and "a_b", one key twice): each
    # field gets a widget id of its own.
    fields = [FormField(key=t, title=t, description=t, placeholder=t, default=t) for t in texts]
    fields += [FormField(key="pick", title="pick", options=[FormOption(value=f"v{i}", label=t)
                                                           for i, t in enumerate(texts)]),
               FormField(key="many", type="multiselect", title="many",
                         options=[FormOption(value=f"w{i}", label=t) for i, t in enumerate(texts)]),
               FormField(key="n", type="number", title="n", placeholder=texts[0], default=texts[0])]
    screen = await _push(pilot, FormScreen(FormInfo(id="frm_1", sessionID="ses_1", title=texts[0],
                                                    fields=fields), session_title=texts[0]))
    # Each field's title and description, read from that field (an empty description has no
    # widget: paired by position, every field after it was checked against the text before).
    # A key asked twice is asked once (the benign run's six fields are one).
    by_title = {editor.form_field.title or "": editor for editor in screen.query(FieldEditor)}
    shown: Shown = []
    for text in dict.fromkeys(texts):
        widgets = list(by_title[text].query(".field-title, .field-description"))
        assert len(widgets) == 1 + bool(text), text
        shown += [(widget, [text]) for widget in widgets]
    return [*shown, (screen.query_one("SelectionList"), texts)]


async def inbox(pilot: Pilot[None], texts: list[str]) -> Shown:
    asks: list[InboxEntry] = [
        (PermissionRequest(id=f"per_{i}", sessionID=f"ses_{i}", action="bash", resources=[t]), t, None)
        for i, t in enumerate(texts)]
    screen = await _push(pilot, InboxScreen(asks, history=texts))
    history = texts[:HISTORY_SHOWN]  # the inbox shows the newest few auto-answers only
    return [(screen.query_one("#inbox-list"), texts), (screen.query_one("#inbox-history"), history)]


async def revert_panel(pilot: Pilot[None], texts: list[str]) -> Shown:
    """The staged revert: the prompt it goes back to and each file's path (a column of its own)."""
    files = [FileDiff(file=t, status="modified", additions=1, deletions=2) for t in texts]
    screen = await _push(pilot, RevertScreen(texts[0], files, reverted_messages=3))
    paths = list(screen.query(".file-path"))
    return [(screen.query_one("#revert-prompt"), texts[:1])] + \
        [(w, [t]) for w, t in zip(paths, texts, strict=True)]


async def _clear_toasts(pilot: Pilot[None]) -> None:
    """No toast from the strings before. ``clear_notifications`` takes each toast out of its
    holder but leaves the holder (Textual 8.2.8; an expired toast takes its holder with it), and
    the layout of hundreds of empty holders made each showing slower than the one before."""
    pilot.app.clear_notifications()
    await pilot.app.screen.query(ToastHolder).remove()


async def toasts(pilot: Pilot[None], texts: list[str]) -> Shown:
    app = pilot.app
    await _clear_toasts(pilot)
    for text in texts:
        toast(app, text, title=text, timeout=30)
    await pilot.pause()
    await pilot.pause()
    found = list(app.screen.query("Toast"))
    return [(w, [t]) for w, t in zip(found, texts, strict=False)] if len(found) == len(texts) else \
        [(app.screen, texts)]


async def banner(pilot: Pilot[None], texts: list[str]) -> Shown:
    widgets = [ConnectionBanner() for _ in texts]
    await _mount(pilot, *widgets)
    for widget, text in zip(widgets, texts, strict=True):
        widget.show_state("reconnecting", 3, text)
    await pilot.pause()
    return [(w, [t]) for w, t in zip(widgets, texts, strict=True)]


async def session_list(pilot: Pilot[None], texts: list[str]) -> Shown:
    widget = SessionList()
    await _mount(pilot, widget)
    infos = [SessionInfo(id=f"ses_{i}", title=t, agent=t, model=ModelRef(providerID=t, id=t))
             for i, t in enumerate(texts)]
    widget.show(infos, busy=set(), has_more=False)
    await pilot.pause()
    return [(widget, texts)]


async def pending_inputs(pilot: Pilot[None], texts: list[str]) -> Shown:
    widget = PendingInputs()
    await _mount(pilot, widget)
    widget.show_items([PendingInput(id=f"msg_{i}", text=t) for i, t in enumerate(texts)])
    await pilot.pause()
    return [(widget, texts)]


async def pending_inputs_capabilities(pilot: Pilot[None], texts: list[str]) -> Shown:
    """A background subagent's report waiting in the inbox (2.0 preview), on a server that lets no
    client cancel or redeliver: the chip names the child by the server's description or id."""
    widget = PendingInputs()
    await _mount(pilot, widget)
    items = []
    for i, text in enumerate(texts):
        items += [PendingInput(id=f"syn_{i}", text=f"<subagent>{text}</subagent>", kind="synthetic",
                               description=text, metadata={"source": "subagent", "childID": "ses_c"}),
                  PendingInput(id=f"kid_{i}", text="", kind="synthetic", delivery="queue",
                               metadata={"source": "subagent", "childID": text})]
    widget.show_items(items, can_cancel=False, can_redeliver=False)
    await pilot.pause()
    return [(widget, texts)]


async def session_header(pilot: Pilot[None], texts: list[str]) -> Shown:
    """Title, directory and server, each from the server (the directory from the user's command
    line or the session), each in a header of its own so that none is dropped to fit. A long
    directory is cut in its middle, keeping its last folder: here ``/project``."""
    headers = [SessionHeader() for _ in range(3 * len(texts))]
    await _mount(pilot, *headers)
    for index, text in enumerate(texts):
        headers[3 * index].show(text, "/p", "s")
        headers[3 * index + 1].show("t", f"{text}/project", "s")
        headers[3 * index + 2].show("t", "/p", text)
    await pilot.pause()
    return [(headers[3 * index + part], [text]) for index, text in enumerate(texts) for part in range(3)]


async def message_failure(pilot: Pilot[None], texts: list[str]) -> Shown:
    """The failed-turn line: the model, the provider, the variant and the cause are the server's;
    a 2.x ``provider.no-route`` failure is a notice with no step (no assistant parts)."""
    views = []
    for i, text in enumerate(texts):
        error = StructuredError(type="provider.unknown", message=text)
        views += [
            MessageView(Message(id=f"msg_{i}_cause", role="assistant", error=error,
                                model=ModelRef(id="m", providerID="p"))),
            MessageView(Message(id=f"msg_{i}_model", role="assistant",
                                error=StructuredError(type=text, message="failed"),
                                model=ModelRef(id=text, providerID="p", variant="high"))),
            MessageView(Message(id=f"msg_{i}_provider", role="assistant", error=error,
                                model=ModelRef(id="m", providerID=text, variant=text))),
            MessageView(Message(id=f"msg_{i}_notice", role="notice", error=error,
                                model=ModelRef(id=text, providerID="p"))),
        ]
    await _mount(pilot, *views)
    await pilot.pause()
    shown: Shown = []
    for index, text in enumerate(texts):
        cause, model, provider, notice = views[4 * index:4 * index + 4]
        shown += [(cause.query_one(".message-error"), [text]), (model.query_one(".message-error"), [text]),
                  (provider.query_one(".message-error"), [text]), (notice.query_one(".message-text"), [text])]
    return shown


async def message_interrupted(pilot: Pilot[None], texts: list[str]) -> Shown:
    """After a server restart: the turn marked interrupted, with the streamed text it did not keep."""
    views = [MessageView(Message(id=f"msg_{i}", role="assistant", parts=[TextBlock("text", 0, "kept")],
                                 interrupted=INTERRUPTED, lost_text=text))
             for i, text in enumerate(texts)]
    await _mount(pilot, *views)
    await pilot.pause()
    return [(view.query_one(".message-error"), [text]) for view, text in zip(views, texts, strict=True)]


def _file_name(text: str) -> str:
    """``text`` as a file name this system can create (no ``/``, NUL or lone surrogate, ≤ 200 bytes)."""
    name = "".join("_" if c in "/\x00" or 0xD800 <= ord(c) < 0xE000 else c for c in text)
    return name.encode("utf-8")[:200].decode("utf-8", "ignore")


@contextlib.contextmanager
def hostile_registry(texts: list[str]) -> Iterator[tuple[list[Path], list[str]]]:
    """Registration files named after ``texts``, readable by others (mode 0644), so that service
    discovery refuses each with a notice naming the file. Yields the files and the names."""
    with tempfile.TemporaryDirectory() as directory:
        files, names = [], []
        for index, text in enumerate(texts):
            name = _file_name(text)
            path = Path(directory) / f"service-{index}-{name}.json"
            path.write_text("{}", encoding="utf-8")
            os.chmod(path, 0o644)
            files.append(path)
            names.append(name)
        yield files, names


async def service_notices(pilot: Pilot[None], texts: list[str]) -> Shown:
    """Service discovery's notices (a refused registration names its file: a name in the user's
    state directory is anyone's text) as the app shows them at start: one toast each."""
    with hostile_registry(texts) as (files, names):
        found = await discover(env={}, files=files)
    assert len(found.notices) == len(texts), found.notices
    app = pilot.app
    await _clear_toasts(pilot)
    for notice in found.notices:
        toast(app, notice, severity="warning", timeout=30)  # as OctuiApp._boot does
    await pilot.pause()
    await pilot.pause()
    toasts_shown = list(app.screen.query("Toast"))
    assert len(toasts_shown) == len(texts)
    return [(w, [name]) for w, name in zip(toasts_shown, names, strict=True)]


async def breadcrumb(pilot: Pilot[None], texts: list[str]) -> Shown:
    widgets = [Breadcrumb() for _ in texts]
    await _mount(pilot, *widgets)
    for widget, text in zip(widgets, texts, strict=True):
        widget.show_path([("ses_root", text), ("ses_kid", text)])
    await pilot.pause()
    return [(w, [t]) for w, t in zip(widgets, texts, strict=True)]


async def subagent_tree(pilot: Pilot[None], texts: list[str]) -> Shown:
    widget = SubagentTree()
    await _mount(pilot, widget)
    children = [TreeNode(session_id=f"ses_{i}", title=t, agent=t, status="running", started=T0, depth=1)
                for i, t in enumerate(texts)]
    root = TreeNode(session_id="ses_root", title=texts[0], agent=texts[0], status="running", started=T0,
                    children=children)
    widget.show_tree(root, "ses_0")
    await pilot.pause()
    return [(widget, texts)]


async def status_bar(pilot: Pilot[None], texts: list[str]) -> Shown:
    widgets = [StatusBar() for _ in texts]
    await _mount(pilot, *widgets)
    for widget, text in zip(widgets, texts, strict=True):
        widget.info = StatusInfo(connection="connected", server=text, agent="a", model=text, note=text,
                                 todos_done=1, todos_total=2, doing=text)  # the plan's item: server text
    await pilot.pause()
    return [(w, [t]) for w, t in zip(widgets, texts, strict=True)]


async def tool_bash(pilot: Pilot[None], texts: list[str]) -> Shown:
    rows = []
    for text in texts:
        output = [ToolContent(type="text", text=text),
                  ToolContent(type="text", text="Command exited with code 0.")]
        rows.append(ToolRow(_call("bash", input={"command": text, "description": text},
                                  metadata={"exit": 0}, content=output), expanded=True))
    await _mount(pilot, *rows)
    shown: Shown = []
    for row, text in zip(rows, texts, strict=True):
        # Colours stay colours and a carriage return goes back to the line's start, as in a
        # terminal (a progress bar shows its last frame); a long output shows its last lines.
        shown_text = overstrike(SGR.sub("", text))
        tail = "\n".join(shown_text.split("\n")[-DEFAULT_CAP:])
        shown += [(row.query_one(ToolHeader), [text]), (row.query_one(".-command"), [text]),
                  (row.query_one(".-output"), [tail])]
    return shown


async def tool_edit(pilot: Pilot[None], texts: list[str]) -> Shown:
    rows = []
    for text in texts:
        patch = f"@@ -1 +1 @@\n-{text}\n+{text}\n"
        rows.append(ToolRow(_call("edit", input={"path": text, "oldString": text, "newString": text},
                                  metadata={"files": [{"file": text, "patch": patch, "additions": 1,
                                                       "deletions": 1}]}), expanded=True))
    await _mount(pilot, *rows)
    return [(w, [t]) for row, t in zip(rows, texts, strict=True)
            for w in (row.query_one(ToolHeader), row.query_one("DiffView"))]


async def tool_write_shown(pilot: Pilot[None], texts: list[str]) -> Shown:
    """A write's row with the diff kept from its dialog (the file's old text is server data),
    allowed and refused."""
    rows = []
    for number, text in enumerate(texts):
        call = _call("write", input={"filePath": text, "content": f"{text}\n"})
        call.shown_patch = f"@@ -1 +1 @@\n-{text}\n+{text}"
        call.rejected = number % 2 == 1
        rows.append(ToolRow(call, expanded=True))
    await _mount(pilot, *rows)
    return [(w, [t]) for row, t in zip(rows, texts, strict=True)
            for w in (row.query_one(ToolHeader), row.query_one("DiffView"))]


async def tool_unknown_and_failed(pilot: Pilot[None], texts: list[str]) -> Shown:
    rows: list[ToolRow] = []
    for text in texts:
        output = [ToolContent(type="text", text=text)]
        rows.append(ToolRow(_call("mcp_thing", input={"q": text}, content=output), expanded=True))
        rows.append(ToolRow(_call("read", status="error", input={"path": text},
                                  error=StructuredError(type="tool", message=text)), expanded=True))
    await _mount(pilot, *rows)
    shown: Shown = []
    for index, text in enumerate(texts):
        tail = "\n".join(text.split("\n")[-DEFAULT_CAP:])  # long output shows its last lines
        shown += [(rows[2 * index].query_one(".-input"), [text]),
                  (rows[2 * index + 1].query_one(".-error-text"), [text])]
        shown += [(output, [tail]) for output in rows[2 * index].query(".-output")]  # none if empty
    return shown


async def tool_question_and_subagent(pilot: Pilot[None], texts: list[str]) -> Shown:
    rows: list[ToolRow] = []
    for text in texts:
        questions = [{"header": text, "question": text, "options": [{"label": text}]}]
        rows.append(ToolRow(_call("question", input={"questions": questions}, metadata={"answers": [[text]]}),
                            expanded=True))
        output = [ToolContent(type="text", text=f"<subagent>{text}</subagent>")]
        rows.append(ToolRow(_call("task", input={"description": text, "agent": text}, content=output),
                            expanded=True))
    await _mount(pilot, *rows)
    return [(row.query_one(ToolHeader), [text]) for row, text in zip(rows, [t for t in texts for _ in "ab"],
                                                                    strict=True)]


async def message_user(pilot: Pilot[None], texts: list[str]) -> Shown:
    views = [MessageView(Message(id=f"msg_{i}_{role}", role=role, text=t, description=t,
                                 metadata={"output": t}))
             for i, t in enumerate(texts)
             for role in ("user", "synthetic", "shell", "compaction", "agent-switched")]
    await _mount(pilot, *views)
    return [(view.query_one(".message-text"), [t]) for view, t in zip(views[::5], texts, strict=True)]


async def message_assistant(pilot: Pilot[None], texts: list[str]) -> Shown:
    views = [MessageView(Message(id=f"msg_{i}", role="assistant", parts=[
        TextBlock("reasoning", 0, t), TextBlock("text", 1, t)],
        error=StructuredError(type="provider", message=t)), reasoning_collapsed=False)
        for i, t in enumerate(texts)]
    await _mount(pilot, *views)
    await pilot.pause()
    return [(view.query_one(".message-error"), [t]) for view, t in zip(views, texts, strict=True)]


async def message_markdown(pilot: Pilot[None], texts: list[str]) -> Shown:
    views = [MessageView(Message(id=f"msg_{i}", role="assistant", parts=[TextBlock("text", 0, t)]))
             for i, t in enumerate(texts)]
    await _mount(pilot, *views)
    await pilot.pause()
    return [(view, [t]) for view, t in zip(views, texts, strict=True)]


SCENARIOS = [
    Scenario("permission: bash command, save patterns, title", permission_bash),
    Scenario("permission: sub-commands", permission_subcommands),
    Scenario("permission: edit resources and diff", permission_edit),
    Scenario("question dialog", question),
    Scenario("form dialog", form, chunk=12),
    Scenario("inbox", inbox),
    Scenario("revert panel: prompt and file paths", revert_panel),
    Scenario("toast", toasts, chunk=12),
    Scenario("connection banner", banner),
    Scenario("session list", session_list),
    Scenario("pending inputs", pending_inputs),
    Scenario("pending inputs: subagent reports, no cancel or redeliver", pending_inputs_capabilities),
    Scenario("session header: title, directory, server", session_header, chunk=8, limit=20),
    Scenario("service-discovery notices", service_notices, chunk=12, limit=20),
    Scenario("breadcrumb", breadcrumb, limit=8),
    Scenario("subagent tree", subagent_tree, limit=12),
    Scenario("status bar", status_bar, limit=20),
    Scenario("tool row: shell", tool_bash, chunk=12),
    Scenario("tool row: edit diff", tool_edit, chunk=12),
    Scenario("tool rows: write with the diff kept from its dialog", tool_write_shown, chunk=12),
    Scenario("tool rows: unknown tool, failed tool", tool_unknown_and_failed, chunk=12),
    Scenario("tool rows: question, subagent", tool_question_and_subagent, chunk=12),
    Scenario("message views: user, synthetic, shell, notices", message_user, chunk=12),
    Scenario("message view: reasoning, error", message_assistant, chunk=12),
    Scenario("message views: failure line (model, provider, cause)", message_failure, chunk=8),
    Scenario("message view: interrupted, with the text the server did not keep", message_interrupted,
             chunk=12),
    Scenario("message view: markdown answer", message_markdown, chunk=8, markdown=True),
]


# -- checks ---------------------------------------------------------------------------------


def _screen_strips(app: App[Any]) -> list[Strip]:
    return app.screen._compositor.render_strips()


def _widget_strips(widget: Widget) -> list[Strip]:
    """Every line ``widget`` renders at its laid-out size; for an option list every option, as the
    list renders it (``visualize`` with its default markup), scrolled into view or not."""
    if isinstance(widget, Toast):  # its text only: the border would sit between two wrapped lines
        visual = visualize(widget, widget.render())
        return Visual.to_strips(widget, visual, widget.content_region.width, None, widget.visual_style)
    if isinstance(widget, OptionList):
        width = max(20, widget.size.width)
        strips: list[Strip] = []
        for index in range(widget.option_count):
            visual = visualize(widget, widget.get_option_at_index(index).prompt)
            strips += Visual.to_strips(widget, visual, width, None, widget.visual_style)
        return strips
    width, height = widget.outer_size
    return widget.render_lines(Region(0, 0, width, height)) if width and height else []


def _actions(strips: list[Strip]) -> set[str]:
    found: set[str] = set()
    for strip in strips:
        for segment in strip:
            if segment.style is not None and segment.style.meta.get("@click"):
                found.add(str(segment.style.meta["@click"]))
    return found


def check_strips(strips: list[Strip], allowed_actions: set[str], where: str) -> None:
    for strip in strips:
        for segment in strip:
            assert not ESCAPE_BYTES.search(segment.text), f"{where}: raw {segment.text!r} on screen"
            style = segment.style
            assert style is None or not style.link, f"{where}: a hyperlink reached the screen"
    extra = _actions(strips) - allowed_actions
    assert not extra, f"{where}: server text became an action: {sorted(extra)}"


def check_visible(strips: list[Strip], text: str, limit: int, where: str) -> None:
    first_line = text.replace("\r\n", "\n").split("\n", 1)[0]
    forms = [f[:limit] for f in visible_forms(first_line, limit)]
    if not any(forms):
        return
    shown = _WHITESPACE.sub("", "".join(strip.text for strip in strips))
    assert any(form in shown for form in forms), f"{where}: {forms[0]!r} not visible in {shown[:120]!r}"


async def _run(scenario: Scenario, corpus: dict[str, str]) -> None:
    clock.freeze(T0 / 1000 + 5)
    app = Harness()
    items = list(corpus.items())
    try:
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            benign = await scenario.show(pilot, BENIGN * scenario.chunk)
            allowed = _actions(_screen_strips(app))
            for widget, _ in benign:
                allowed |= _actions(_widget_strips(widget))
            for start in range(0, len(items), scenario.chunk):
                chunk = items[start:start + scenario.chunk]
                names = ", ".join(name for name, _ in chunk)
                shown = await scenario.show(pilot, [text for _, text in chunk])
                check_strips(_screen_strips(app), allowed, f"{scenario.name} / [{names}]")
                by_text = {text: name for name, text in chunk}
                for widget, texts in shown:
                    strips = _widget_strips(widget)
                    for text in texts:
                        where = f"{scenario.name} / {by_text.get(text, '?')}"
                        check_strips(strips, allowed, where)
                        if not scenario.markdown:
                            check_visible(strips, text, scenario.limit, where)
    finally:
        clock.freeze(None)


@pytest.fixture(autouse=True)
def steady_cursor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
async def test_hostile_corpus(scenario: Scenario) -> None:
    await _run(scenario, SMALL)


BIG_SCENARIOS = [s for s in SCENARIOS if s.name in (
    "permission: bash command, save patterns, title", "permission: edit resources and diff",
    "question dialog", "form dialog", "toast", "revert panel: prompt and file paths",
    "session list", "pending inputs", "connection banner", "inbox", "breadcrumb", "status bar",
    "subagent tree", "pending inputs: subagent reports, no cancel or redeliver",
    "session header: title, directory, server", "message views: failure line (model, provider, cause)",
    "message view: interrupted, with the text the server did not keep")]
"""Where a 1 MB line must cost little: the dialogs cut it (and say so), summaries are one line.
Full-text views of huge text (answers, tool output) are issue #16's "bounded work per frame" part."""


@pytest.mark.parametrize("scenario", BIG_SCENARIOS, ids=[s.name for s in BIG_SCENARIOS])
async def test_one_megabyte_lines(scenario: Scenario) -> None:
    await _run(dataclasses.replace(scenario, chunk=1), BIG)


def test_service_notices_on_stderr_are_inert(capsys: pytest.CaptureFixture[str]) -> None:
    """Before the app starts (or when it cannot), the CLI prints discovery's notices on stderr,
    the user's terminal: the hostile file names arrive with their hidden characters as tokens."""
    texts = list(SMALL.values())
    for start in range(0, len(texts), 8):  # discovery looks at a bounded number of files
        with hostile_registry(texts[start:start + 8]) as (files, names):
            found = asyncio.run(discover(env={}, files=files))
        assert len(found.notices) == len(names)
        for notice, name in zip(found.notices, names, strict=True):
            _say(notice)
            printed = capsys.readouterr().err
            assert not ESCAPE_BYTES.search(printed), f"raw {printed!r} on stderr"
            first_line = name.replace("\r\n", "\n").split("\n", 1)[0]
            forms = [f[:20] for f in visible_forms(first_line, 20)]
            shown = _WHITESPACE.sub("", printed)
            assert not any(forms) or any(form in shown for form in forms), (name, printed)


async def test_checks_can_fail() -> None:
    """The checks catch what they are for: a Static that parses markup and writes raw escapes."""

    async def unsafe(pilot: Pilot[None], texts: list[str]) -> Shown:
        widgets = await _mount(pilot, *(Static(text) for text in texts))
        return [(w, [t]) for w, t in zip(widgets, texts, strict=True)]

    with pytest.raises(AssertionError, match="not visible"):
        await _run(Scenario("unsafe static", unsafe, chunk=1), {"markup": "[b]bold[/b] text"})
    with pytest.raises(AssertionError, match="raw"):
        await _run(Scenario("unsafe static", unsafe, chunk=1), {"osc": "a\x1b]0;t\x07b"})
    with pytest.raises(AssertionError, match="became an action"):
        await _run(Scenario("unsafe static", unsafe, chunk=1),
                   {"click": '[@click=screen.reply("always")]X[/]'})
    with pytest.raises(AssertionError, match="hyperlink"):
        await _run(Scenario("unsafe static", unsafe, chunk=1), {"link": "[link=\"https://evil.example/\"]x[/link]"})
