"""Command palette (Ctrl+P) provider: every octui action, with its key.

The list is generated from the bindings of the app and of the main screen, plus the actions that
have no key (``UNBOUND``), so a new binding appears in the palette by itself. Textual's own system
commands (Theme, Quit, Keys, Screenshot …) stay in the palette beside these; their actions are not
repeated here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.dom import DOMNode

from widgets._textual_compat import keymapped_bindings
from widgets.plain import highlight_match, palette_help, plain

__all__ = ["TEXTUAL_LABELS", "UNBOUND", "ActionsProvider", "PaletteAction", "action_label", "palette_actions"]

TEXTUAL_LABELS = {
    "help_quit": "How to quit (says which key)",
    "command_palette": "Command palette",
    "focus_next": "Focus next",
    "focus_previous": "Focus previous",
}
"""Textual's own bindings, labelled like ours (sentence case, saying what they do): Textual gives
``help_quit`` no description at all and the palette the lower-case "palette"."""


def action_label(binding: Binding) -> str:
    """What a binding does, in the words the help screen and the palette both show."""
    action = binding.action.split(".", 1)[-1] if binding.action.startswith(("app.", "screen.")) \
        else binding.action
    label = TEXTUAL_LABELS.get(action) or binding.description or binding.tooltip
    if not label:
        label = binding.action.split("(", 1)[0].replace("_", " ").strip()
    return label[:1].upper() + label[1:]


SYSTEM_ACTIONS = {"quit", "change_theme", "command_palette", "screenshot", "help_quit"}
"""Actions Textual's system commands already offer."""

UNBOUND: list[tuple[str, str, str]] = [
    ("slash_commands", "Slash commands", "Insert / in the composer to list the server's commands"),
    ("mention_file", "Mention a file", "Insert @ in the composer to attach a file"),
    ("attach_file", "Attach a local file", "Type /attach PATH: an image, PDF or text file from this machine"),
    ("detach_all", "Remove attachments", "Drop every file attached to the next prompt"),
]
"""``(action, name, help)`` of main-screen actions without a default key."""


@dataclass(frozen=True)
class PaletteAction:
    name: str
    help: str
    action: str
    namespace: DOMNode


def palette_actions(nodes: Iterable[DOMNode]) -> list[PaletteAction]:
    """Every bound action of ``nodes`` (first wins on duplicates) plus the main screen's ``UNBOUND``."""
    found: dict[str, PaletteAction] = {}
    for node in nodes:
        keys_of: dict[str, list[str]] = {}
        descriptions: dict[str, str] = {}
        for _, binding in keymapped_bindings(node):
            if binding.action in SYSTEM_ACTIONS or binding.action in found:
                continue
            keys_of.setdefault(binding.action, []).append(node.app.get_key_display(binding))
            descriptions.setdefault(binding.action, action_label(binding))
        for action, keys in keys_of.items():
            found[action] = PaletteAction(descriptions[action], " / ".join(dict.fromkeys(keys)), action, node)
        for action, name, text in UNBOUND:
            if action not in found and hasattr(node, f"action_{action}"):
                found[action] = PaletteAction(name, text, action, node)
    return list(found.values())


class ActionsProvider(Provider):
    """Lists the actions of the main screen (when it is below the palette) and of the app."""

    def _actions(self) -> list[PaletteAction]:
        nodes: list[DOMNode] = [self.screen] if hasattr(self.screen, "action_pick_model") else []
        return palette_actions([*nodes, self.app])

    def _run(self, item: PaletteAction) -> None:
        self.app.call_later(partial(self.app.run_action, item.action, item.namespace))

    async def discover(self) -> Hits:
        for item in self._actions():
            yield DiscoveryHit(plain(item.name), partial(self._run, item), help=palette_help(item.help))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for item in self._actions():
            score = max(matcher.match(item.name), 0.9 * matcher.match(item.action.replace("_", " ")))
            if score > 0:
                yield Hit(score, highlight_match(matcher, item.name), partial(self._run, item),
                          help=palette_help(item.help))
