"""Provides ``AgentPicker``: switch the session's agent.

Offers the agents a session may switch to (``primary``/``all``, not hidden; PROTOCOL.md §4.10).
No HTTP here: the caller passes the catalog and gets the chosen agent id (or ``None``) back.
"""

from __future__ import annotations

from collections.abc import Sequence

from tui.protocol.models import AgentInfo
from tui.screens.model_picker import PickerEntry, PickerScreen
from tui.session.commands import switchable_agents

__all__ = ["AgentPicker", "agent_entries"]


def agent_entries(agents: Sequence[AgentInfo], current: str | None = None) -> list[PickerEntry[str]]:
    """One row per switchable agent, in catalog order, the current one marked."""
    rows: list[PickerEntry[str]] = []
    for agent in switchable_agents(agents):
        key = agent.id or agent.name
        rows.append(PickerEntry(key, agent.name or key, agent.description or "", "Agents",
                                current=key == current))
    return rows


class AgentPicker(PickerScreen[str]):
    """Choose an agent; dismisses with its id."""

    def __init__(self, agents: Sequence[AgentInfo] | None, current: str | None = None) -> None:
        """``agents`` None: the catalog is still loading; ``set_agents`` fills the list."""
        super().__init__("Switch agent", None if agents is None else agent_entries(agents, current),
                         empty="No agents available", loading="◌ Loading the agent list…")
        self._current_agent = current

    def set_agents(self, agents: Sequence[AgentInfo]) -> None:
        self.set_entries(agent_entries(agents, self._current_agent))
