"""``octui_app(node)``: the running ``OctuiApp`` of a widget or screen, typed.

Screens and widgets need the app's store and its session service; importing ``tui.app.app`` for the
type would make them part of an import circle with the app (which imports the screens). The cast
names the class as a string, so the import happens for the type checker only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.dom import DOMNode

if TYPE_CHECKING:
    from tui.app.app import OctuiApp

__all__ = ["octui_app"]


def octui_app(node: DOMNode) -> OctuiApp:
    """The app ``node`` runs in (octui has one app class)."""
    return cast("OctuiApp", node.app)
