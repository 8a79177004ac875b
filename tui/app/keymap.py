"""Configurable keys: ``[keys]`` in the config file (action name -> key) applied via Textual's keymap.

Textual's keymap (``App.set_keymap``) replaces the key of every binding whose ``id`` is in the map.
octui's own bindings carry ids where they are declared: the binding for the action ``sessions``
has the id ``octui.sessions``; an action with arguments such as ``go('parent')`` has
``octui.go_parent`` (``tests/unit/test_keymap.py`` checks every one follows that rule). The config
names the action without the prefix::

    [keys]
    sessions = "ctrl+o"           # one key
    copy_last_answer = "f5,ctrl+y"  # several keys, comma-separated
    go_parent = "alt+k"

Textual normalises key names (``?`` -> ``question_mark``). Unknown action names are reported as
warnings, never errors.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode

__all__ = [
    "PREFIX", "action_name", "apply_keymap", "build_keymap", "configurable_actions",
]

PREFIX = "octui."


def action_name(action: str) -> str:
    """The config name of an action string: ``go('parent')`` -> ``go_parent``."""
    return re.sub(r"[^A-Za-z0-9]+", "_", action).strip("_")


def configurable_actions(classes: Iterable[type[DOMNode]]) -> dict[str, str]:
    """Config name -> current key(s), for every binding with an octui id (help and docs)."""
    result: dict[str, str] = {}
    for cls in classes:
        for binding in cls.__dict__.get("BINDINGS", []):
            if isinstance(binding, Binding) and binding.id and binding.id.startswith(PREFIX):
                name = binding.id[len(PREFIX):]
                result[name] = f"{result[name]},{binding.key}" if name in result else binding.key
    return result


def build_keymap(keys: Mapping[str, str], known: Iterable[str]) -> tuple[dict[str, str], list[str]]:
    """Turn ``[keys]`` into a Textual keymap; returns ``(keymap, warnings)``."""
    names = set(known)
    keymap: dict[str, str] = {}
    warnings: list[str] = []
    for name, key in keys.items():
        clean = ",".join(k.strip() for k in key.split(",") if k.strip())
        wanted = action_name(name)
        if wanted not in names:
            warnings.append(f"keys.{name}: no such action (known: {', '.join(sorted(names))})")
        elif not clean:
            warnings.append(f"keys.{name}: empty key")
        else:
            keymap[PREFIX + wanted] = clean
    return keymap, warnings


def apply_keymap(app: App[Any], keys: Mapping[str, str], classes: Iterable[type[DOMNode]]) -> list[str]:
    """Install ``keys`` for the bindings of ``classes`` with ``App.set_keymap``. Returns warnings."""
    keymap, warnings = build_keymap(keys, configurable_actions(classes))
    app.set_keymap(keymap)
    return warnings
