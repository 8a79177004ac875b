"""Themes: apply the config file's Textual theme at start and save the user's choice back.

The theme is changed with Textual's own theme picker (command palette → Theme, or ``/themes``);
every change is written to the config file (``tui.storage.config.save_config``). Saving is skipped when
the file had problems on load, so a file the user must fix is never overwritten with defaults.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from textual.app import App
from textual.theme import Theme

from tui.storage.config import Config, save_config
from widgets.plain import toast

__all__ = ["persist_theme"]

log = logging.getLogger("octui")


def persist_theme(app: App[Any], config: Config, path: str | os.PathLike[str] | None = None) -> None:
    """Use ``config.theme`` (when Textual knows it) and save later theme changes to ``path``.

    ``path`` defaults to the config file path (``$OCTUI_CONFIG`` or the platform config dir).
    """
    if config.theme in app.available_themes:
        app.theme = config.theme
    elif config.theme:
        toast(app, f"config: unknown theme {config.theme!r}; using {app.theme}", severity="warning")

    def changed(theme: Theme) -> None:
        if theme.name == config.theme:
            return
        config.theme = theme.name
        if config.warnings:
            toast(app, "Theme not saved: fix the config file problems first.", severity="warning")
            return
        try:
            saved = save_config(config, Path(path) if path is not None else None)
        except OSError as exc:
            toast(app, f"Theme not saved: {exc}", severity="warning")
            return
        log.info("theme %s saved to %s", theme.name, saved)

    app.theme_changed_signal.subscribe(app, changed)
