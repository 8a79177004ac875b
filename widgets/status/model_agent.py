"""``ModelAgentChoice``: which model and agent the session on view uses, and switching them.

The pickers (Ctrl+K, Ctrl+L) list the live catalog; ``/model NAME`` and ``/agent NAME`` are checked
against it. A choice made before a session exists waits here for the next new session. Recent
models are remembered in the state store.
"""

from __future__ import annotations

import contextlib

from textual import work
from textual.message import Message
from textual.widget import Widget

from tui.app.host import octui_app
from tui.protocol.models import ModelRef
from tui.session.commands import Catalog, find_agent, find_model
from tui.session.errors import OctuiError
from tui.state.transcript import SessionState
from tui.storage.saved_state import SavedState
from tui.text.sanitize import one_line
from widgets.plain import toast

__all__ = ["ModelAgentChoice"]


class ModelAgentChoice(Widget):
    """A non-visual helper. Posts ``DraftUsed`` when a ``/model``/``/agent`` draft did its work and
    ``ModelsLoaded`` when the model list was reloaded (the status bar shows context limits)."""

    DEFAULT_CSS = "ModelAgentChoice { display: none; }"

    class DraftUsed(Message):
        """``/model NAME`` or ``/agent NAME`` switched: the composer may drop ``draft``."""

        def __init__(self, draft: str) -> None:
            super().__init__()
            self.draft = draft

    class ModelsLoaded(Message):
        """The app's model list was reloaded from the catalog."""

    def __init__(self) -> None:
        super().__init__()
        self.session_id: str | None = None  # the session on view (the screen says)
        self.pending_model: ModelRef | None = None
        """Model chosen before a session exists: applied to the next new session."""
        self.pending_agent: str | None = None

    @property
    def state(self) -> SessionState | None:
        sid = self.session_id
        return octui_app(self).store.sessions.get(sid) if sid is not None else None

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

    @property
    def catalog(self) -> Catalog | None:
        """The session service's catalog (models, agents, commands, skills); None before connecting."""
        session = octui_app(self).session
        return session.catalog if session.is_ready else None

    def pending_sent(self) -> None:
        """The model and agent picked before a session existed went with its first prompt."""
        self.pending_model = self.pending_agent = None

    # ------------------------------------------------------------------ catalog
    def catalog_changed(self, event_type: str | None) -> None:
        """A ``catalog.updated``/``agent.updated``/… event: drop the cache, reload the models."""
        catalog = self.catalog
        if catalog is not None and "models" in catalog.changed(event_type):
            self._reload_models()

    @work(exclusive=True, group="catalog-models", exit_on_error=False)
    async def _reload_models(self) -> None:
        app = octui_app(self)
        catalog = self.catalog
        if catalog is not None:
            app.models = await catalog.load("models")
            self.post_message(self.ModelsLoaded())

    # ------------------------------------------------------------------ by name
    @work(group="switch-by-name", exit_on_error=False)
    async def switch_by_name(self, kind: str, name: str, draft: str) -> None:
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
            self.post_message(self.DraftUsed(draft))
            self._switch_model(ref)
        else:
            agent = find_agent(await catalog.wait_agents(), name)
            if agent is None:
                toast(self, f"unknown agent '{shown}' — Ctrl+L lists the agents", severity="error", timeout=8)
                return
            self.post_message(self.DraftUsed(draft))
            if agent != self.current_agent():
                self._switch_agent(agent)

    # ------------------------------------------------------------------ pickers
    def pick_model(self) -> None:
        self._open_model_picker()

    @work(exclusive=True, group="picker", exit_on_error=False)
    async def _open_model_picker(self) -> None:
        app = octui_app(self)
        catalog = self.catalog
        if catalog is None:
            toast(self, "Not connected yet.", severity="warning")
            return
        from tui.screens.model_picker import ModelPicker  # on first use (tui/screens/__init__.py)

        recent = SavedState().recent_models()
        if catalog.has("models"):
            app.push_screen(ModelPicker(catalog.models, recent, self.current_model()), self._model_chosen)
            return
        picker = ModelPicker(None, recent, self.current_model())  # says it is loading
        app.push_screen(picker, self._model_chosen)
        models = await catalog.wait_models()
        app.models = models
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
        session, sid = octui_app(self).session, self.session_id
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

    def pick_agent(self) -> None:
        self._open_agent_picker()

    @work(exclusive=True, group="picker", exit_on_error=False)
    async def _open_agent_picker(self) -> None:
        app = octui_app(self)
        catalog = self.catalog
        if catalog is None:
            toast(self, "Not connected yet.", severity="warning")
            return
        from tui.screens.agent_picker import AgentPicker  # on first use (tui/screens/__init__.py)

        if catalog.has("agents"):
            app.push_screen(AgentPicker(catalog.agents, self.current_agent()), self._agent_chosen)
            return
        picker = AgentPicker(None, self.current_agent())  # says it is loading
        app.push_screen(picker, self._agent_chosen)
        picker.set_agents(await catalog.wait_agents())

    def _agent_chosen(self, agent: str | None) -> None:
        if agent is not None and agent != self.current_agent():
            self._switch_agent(agent)

    @work(group="switch", exit_on_error=False)
    async def _switch_agent(self, agent: str) -> None:
        session, sid = octui_app(self).session, self.session_id
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
