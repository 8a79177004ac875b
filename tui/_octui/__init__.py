"""The installed ``octui`` package: one top-level name in site-packages, not three.

A checkout keeps the repository's layout: ``tui/``, ``widgets/`` and ``styles/`` at the top,
imported by those names (the tests, ``python -m tui.app.cli``). An installed octui (``pip``,
``pipx``, ``uv tool``) puts them under ``octui.`` instead (``setup.py``), so it cannot clash with
another distribution that ships a ``tui`` or ``widgets`` package. The code's own absolute imports
(``from tui.state import Store``) still work: the finder below answers for those three names, ahead
of every other finder, with the very module ``octui.tui.state`` (one module object, two names).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType

OWN = ("tui", "widgets", "styles")


class _OwnNames(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``tui.x`` -> the module ``octui.tui.x``, for octui's three package names only."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname.partition(".")[0] not in OWN:
            return None
        real = importlib.import_module(f"{__name__}.{fullname}")
        return importlib.machinery.ModuleSpec(fullname, self, is_package=hasattr(real, "__path__"))

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return sys.modules[f"{__name__}.{spec.name}"]

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module ran once, under its ``octui.`` name."""


# Only as the installed ``octui`` package: in a checkout this file is also ``tui._octui``, where
# ``tui`` is the real package and an alias would point at itself.
if __name__ == "octui" and not any(isinstance(finder, _OwnNames) for finder in sys.meta_path):
    sys.meta_path.insert(0, _OwnNames())


def main() -> int:
    """The ``octui`` console script of an installed octui."""
    from tui.app.entry import main as entry_main

    return entry_main()
