"""Static catalog answers of the demo server: models, agents, commands, skills."""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]


def _model(model_id: str, name: str, context: int) -> Json:
    return {
        "id": model_id, "modelID": model_id, "providerID": "demo", "family": "demo", "name": name,
        "capabilities": {"tools": True, "input": ["text"], "output": ["text"]},
        "variants": [], "time": {"released": 1735689600000},
        "cost": [{"input": 0, "output": 0, "cache": {"read": 0, "write": 0}}],
        "status": "active", "enabled": True, "limit": {"context": context, "output": 8192},
    }


MODELS: list[Json] = [
    _model("scripted", "Scripted demo", 128000),
    _model("scripted-mini", "Scripted demo (mini)", 32000),
]

_REQUEST: Json = {"settings": {}, "headers": {}, "body": {}}


def _agent(agent_id: str, description: str, mode: str, rules: list[Json]) -> Json:
    return {"id": agent_id, "name": agent_id, "description": description, "mode": mode,
            "hidden": False, "request": _REQUEST, "permissions": rules}


_ALLOW_ALL = [{"action": "*", "resource": "*", "effect": "allow"},
              {"action": "shell", "resource": "*", "effect": "ask"}]
_READ_ONLY = [{"action": "*", "resource": "*", "effect": "allow"},
              {"action": "edit", "resource": "*", "effect": "deny"},
              {"action": "shell", "resource": "*", "effect": "ask"}]

AGENTS: list[Json] = [
    _agent("build", "The default agent: reads, edits and runs commands.", "primary", _ALLOW_ALL),
    _agent("plan", "Plans changes without editing files.", "primary", _READ_ONLY),
    _agent("explore", "Fast read-only exploration of the codebase.", "subagent", _READ_ONLY),
    _agent("general", "General-purpose subagent for multi-step tasks.", "subagent", _ALLOW_ALL),
]

COMMANDS: list[Json] = [
    {"name": "init", "template": "Create or update AGENTS.md for this project.",
     "description": "create or update AGENTS.md"},
    {"name": "review", "template": "Review the current changes. $ARGUMENTS",
     "description": "review changes", "agent": "plan"},
]

SKILLS: list[Json] = [
    {"id": "changelog", "name": "changelog", "slash": True,
     "description": "write a changelog entry for the current changes",
     "location": "/home/demo/project/.opencode/skill/changelog/SKILL.md",
     "content": "# Changelog\n\nSummarise the staged changes as one Keep-a-Changelog entry."},
    {"id": "release-notes", "name": "release-notes", "slash": True,
     "description": "draft release notes from the git log",
     "location": "/home/demo/project/.opencode/skill/release-notes/SKILL.md",
     "content": "# Release notes\n\nGroup the commits since the last tag into Added, Changed, Fixed."},
    {"id": "style-guide", "name": "style-guide", "slash": False, "autoinvoke": True,
     "description": "the project's code style (loaded by the model when it needs it)",
     "location": "/home/demo/project/.opencode/skill/style-guide/SKILL.md",
     "content": "# Style\n\nFour-space indents, type hints everywhere."},
]
"""``Skill.Info`` items; ``style-guide`` has ``slash: false`` so it is not offered as ``/style-guide``."""
