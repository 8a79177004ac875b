"""``AssistedScreen``: the main screen's composer assists, pickers, help and editor.

``MainScreen`` inherits it; it keeps the daily-driver keys and their handlers out of main.py:

* slash-command, skill and ``@`` file completion for the ``Composer`` (the widget asks with
  ``Composer.CompletionRequested``; HTTP happens here, in workers), and local path completion
  after ``/attach``;
* ``deliver``: a draft goes out as ``/command``, as a skill, or as a prompt with file mentions,
  carrying the files attached by path (``tui/screens/main_attach.py``);
* model and agent pickers from the live catalog (switching only when the choice changed, recent
  models remembered in the state store);
* the help screen (generated from the bindings) and ``$EDITOR`` for the draft.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import SuspendNotSupported
from textual.binding import Binding, BindingType

from tui.protocol.models import ModelRef
from tui.screens.main_attach import ATTACH_USAGE, AttachmentActions
from tui.session.attachments import path_completions
from tui.session.commands import Catalog, find_agent, find_model, slash_skills
from tui.session.errors import OctuiError
from tui.session.mentions import CompletionContext, fuzzy_filter, parse_slash
from tui.storage.bounded_read import read_bounded
from tui.storage.saved_state import DRAFT_MAX_BYTES, SavedState
from tui.text.sanitize import flatten, one_line
from widgets.composer.completion import Completion
from widgets.composer.composer import Composer
from widgets.plain import toast

if TYPE_CHECKING:
    from tui.app.app import OctuiApp
    from tui.state.transcript import SessionState

__all__ = ["LOCAL_COMMANDS", "AssistedScreen", "edit_text", "editor_command"]

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
"""octui's own ``/commands`` (name -> (action, description)); a server command or skill of the same
name wins."""

MENTION_DEBOUNCE_S = 0.08
MENTION_LIMIT = 20


def editor_command(env: dict[str, str] | None = None) -> list[str]:
    """``$VISUAL``, else ``$EDITOR``, else ``vi``, split like a shell would."""
    env = dict(os.environ) if env is None else env
    return shlex.split(env.get("VISUAL") or env.get("EDITOR") or "vi")


def edit_text(text: str, command: list[str]) -> str:
    """Open ``text`` in an editor (``command`` + a temp ``.md`` file) and return what was saved.

    Raises ``OSError`` when the editor cannot start or what it saved cannot be read (the editor
    may leave anything at the path: a huge file, a FIFO) and ``RuntimeError`` when it exits
    non-zero or saved no UTF-8 text.
    """
    fd, name = tempfile.mkstemp(prefix="octui-draft-", suffix=".md")
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        done = subprocess.run([*command, str(path)], check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} exited with code {done.returncode}")
        try:
            return read_bounded(path, DRAFT_MAX_BYTES).decode("utf-8")
        except UnicodeDecodeError:
            raise RuntimeError("the saved file is not UTF-8 text") from None
    finally:
        with contextlib.suppress(OSError):
            path.unlink()


class AssistedScreen(AttachmentActions):
    """Base of ``MainScreen``; expects ``session_id``, ``state``, ``octui`` and ``refresh_status``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+k", "pick_model", "Switch model", priority=True),  # over the composer's kill-line
        Binding("ctrl+l", "pick_agent", "Switch agent"),
        Binding("f1", "help", "Help: every key"),
        Binding("ctrl+e", "edit_in_editor", "Edit in $EDITOR", priority=True),
    ]

    session_id: str | None
    pending_model: ModelRef | None = None
    """Model chosen before a session exists: applied to the next new session."""
    pending_agent: str | None = None

    if TYPE_CHECKING:
        @property
        def octui(self) -> OctuiApp: ...

        @property
        def state(self) -> SessionState | None: ...

        def refresh_status(self) -> None: ...

    # ------------------------------------------------------------------ catalog
    @property
    def catalog(self) -> Catalog | None:
        """The session service's catalog (models, agents, commands, skills); None before connecting."""
        session = self.octui.session
        return session.catalog if session.is_ready else None

    def catalog_changed(self, event_type: str | None) -> None:
        """A ``catalog.updated``/``agent.updated``/… event: drop the cache, reload the models."""
        catalog = self.catalog
        if catalog is not None and "models" in catalog.changed(event_type):
            self._reload_models()

    @work(exclusive=True, group="catalog-models", exit_on_error=False)
    async def _reload_models(self) -> None:
        catalog = self.catalog
        if catalog is not None:
            self.octui.models = await catalog.load("models")
            self.refresh_status()

    # ------------------------------------------------------------------ completion
    @on(Composer.CompletionRequested)
    def _completion_requested(self, event: Composer.CompletionRequested) -> None:
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
        items += [Completion("slash", name, name, f"octui: {text}")
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
        session = self.octui.session
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

    # ------------------------------------------------------------------ sending
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
            self._switch_by_name(slash.name, slash.arguments, text)  # the draft stays until it worked
            return True
        if slash.arguments:
            return False
        self.query_one(Composer).text = ""
        self.call_later(self.run_action, LOCAL_COMMANDS[slash.name][0])
        return True

    @work(group="switch-by-name", exit_on_error=False)
    async def _switch_by_name(self, kind: str, name: str, draft: str) -> None:
        """``/model NAME`` or ``/agent NAME``: checked against the live catalog, never sent as text.

        Neither server checks a switch (TRACES.md §6: both answer 204; a bad model fails the next
        turn, and 1.18.33 then does nothing at all), so a name the catalog lacks is refused here."""
        catalog = self.catalog
        if catalog is None:
            toast(self, "Not connected yet — your draft is still in the box.", severity="warning")
            return
        shown = one_line(name, 60)
        if kind == "model":
            ref, candidates = find_model(await catalog.wait_models(), name)
            if ref is None:
                problem = (f"'{shown}' could be {', '.join(candidates[:4])} — type provider/model"
                           if candidates else f"unknown model '{shown}' — Ctrl+K lists the models")
                toast(self, problem, severity="error", timeout=8)
                return
            self._clear_draft(draft)
            self._switch_model(ref)
        else:
            agent = find_agent(await catalog.wait_agents(), name)
            if agent is None:
                toast(self, f"unknown agent '{shown}' — Ctrl+L lists the agents", severity="error", timeout=8)
                return
            self._clear_draft(draft)
            if agent != self.current_agent():
                self._switch_agent(agent)

    def _clear_draft(self, draft: str) -> None:
        composer = self.query_one(Composer)
        if composer.text.strip() == draft.strip():
            composer.text = ""

    def action_attach_file(self) -> None:
        composer = self.query_one(Composer)
        composer.focus()
        if composer.text.strip():
            toast(self, ATTACH_USAGE, timeout=5)
            return
        composer.insert("/attach ")  # opens the path completion at once

    async def deliver(self, session_id: str, text: str, delivery: str) -> None:
        """Send a draft: first the model/agent picked before the session existed, then the input."""
        attached = list(self.attachments)
        model, agent = self.pending_model, self.pending_agent
        await self.octui.session.send(session_id, text, delivery, model=model, agent=agent,
                                      mentioned=self.query_one(Composer).mentioned,
                                      attachments=[a.file_part() for a in attached])
        self.pending_model = self.pending_agent = None
        if attached:  # the chips go; say what went, since the transcript row shows only the text
            self.forget_attachments(attached)
            names = ", ".join(a.name for a in attached)
            toast(self, f"Sent with {len(attached)} attachment{'s' if len(attached) > 1 else ''}: {names}",
                        timeout=3)

    # ------------------------------------------------------------------ model and agent
    def current_model(self) -> ModelRef | None:
        state = self.state
        if state is None:
            return self.pending_model
        if state.info is not None and state.info.model is not None:
            return state.info.model
        last = next((m for m in reversed(state.messages.values()) if m.role == "assistant"), None)
        return last.model if last is not None else None

    def current_agent(self) -> str | None:
        state = self.state
        if state is None:
            return self.pending_agent
        if state.info is not None and state.info.agent:
            return state.info.agent
        last = next((m for m in reversed(state.messages.values()) if m.role == "assistant"), None)
        return last.agent if last is not None and last.agent else None

    def action_pick_model(self) -> None:
        self._open_model_picker()

    @work(exclusive=True, group="picker", exit_on_error=False)
    async def _open_model_picker(self) -> None:
        from tui.screens.model_picker import ModelPicker

        catalog = self.catalog
        if catalog is None:
            toast(self, "Not connected yet.", severity="warning")
            return
        recent = SavedState().recent_models()
        if catalog.has("models"):
            self.app.push_screen(ModelPicker(catalog.models, recent, self.current_model()),
                                 self._model_chosen)
            return
        picker = ModelPicker(None, recent, self.current_model())  # says it is loading
        self.app.push_screen(picker, self._model_chosen)
        models = await catalog.wait_models()
        self.octui.models = models
        picker.set_models(models)  # a closed picker just keeps the list

    def _model_chosen(self, ref: ModelRef | None) -> None:
        if ref is not None:
            self._switch_model(ref)

    @work(group="switch", exit_on_error=False)
    async def _switch_model(self, ref: ModelRef) -> None:
        current = self.current_model()
        with contextlib.suppress(OSError):
            SavedState().push_recent_model(ref)
        if current is not None and current.label == ref.label:
            return
        session, sid = self.octui.session, self.session_id
        if not session.is_ready:
            return
        if sid is None:
            self.pending_model = ref
            toast(self, f"The next session will use {ref.label}.", timeout=3)
            return
        try:
            await session.set_model(sid, ref)
        except OctuiError as exc:
            toast(self, f"Model not switched: {exc}", severity="error")

    def action_pick_agent(self) -> None:
        self._open_agent_picker()

    @work(exclusive=True, group="picker", exit_on_error=False)
    async def _open_agent_picker(self) -> None:
        from tui.screens.agent_picker import AgentPicker

        catalog = self.catalog
        if catalog is None:
            toast(self, "Not connected yet.", severity="warning")
            return
        if catalog.has("agents"):
            self.app.push_screen(AgentPicker(catalog.agents, self.current_agent()), self._agent_chosen)
            return
        picker = AgentPicker(None, self.current_agent())  # says it is loading
        self.app.push_screen(picker, self._agent_chosen)
        picker.set_agents(await catalog.wait_agents())

    def _agent_chosen(self, agent: str | None) -> None:
        if agent is not None and agent != self.current_agent():
            self._switch_agent(agent)

    @work(group="switch", exit_on_error=False)
    async def _switch_agent(self, agent: str) -> None:
        session, sid = self.octui.session, self.session_id
        if not session.is_ready:
            return
        if sid is None:
            self.pending_agent = agent
            toast(self, f"The next session will use the {agent} agent.", timeout=3)
            return
        try:
            await session.set_agent(sid, agent)
        except OctuiError as exc:
            toast(self, f"Agent not switched: {exc}", severity="error")

    # ------------------------------------------------------------------ help, editor, inserts
    def action_help(self) -> None:
        from tui.screens.help import HelpScreen, binding_rows, help_sections

        self.app.push_screen(HelpScreen(binding_rows(help_sections(self), self.app)))

    def action_edit_in_editor(self) -> None:
        composer = self.query_one(Composer)
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

    def action_slash_commands(self) -> None:
        composer = self.query_one(Composer)
        composer.focus()
        if not composer.text:
            composer.insert("/")

    def action_mention_file(self) -> None:
        composer = self.query_one(Composer)
        composer.focus()
        before = composer.index_of(composer.cursor_location)
        composer.insert("@" if before == 0 or composer.text[before - 1].isspace() else " @")


def one_line_template(template: str) -> str:
    """A command without a description is described by the start of its template."""
    return flatten(template)[:60]
