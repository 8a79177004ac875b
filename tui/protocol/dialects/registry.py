"""The registered generations, oldest first. A new generation: one module, one line here."""

from __future__ import annotations

from tui.protocol.dialects.base import Dialect
from tui.protocol.dialects.preview_1_18 import Preview118
from tui.protocol.dialects.v2_0_preview import V2Preview
from tui.protocol.dialects.v2_current import V2Current

PREVIEW_1_18: Dialect = Preview118()
V2_0_PREVIEW: Dialect = V2Preview()
V2_CURRENT: Dialect = V2Current()

GENERATIONS: tuple[Dialect, ...] = (PREVIEW_1_18, V2_0_PREVIEW, V2_CURRENT)

Dialect.PREVIEW = PREVIEW_1_18
Dialect.V2_0_PREVIEW = V2_0_PREVIEW
Dialect.V2 = V2_CURRENT


def by_name(name: str) -> Dialect | None:
    return next((d for d in GENERATIONS if d.name == name), None)


def family_default(family: str) -> Dialect:
    """The guess for a family when nothing finer is known yet."""
    return next(d for d in GENERATIONS if d.family == family and d.family_default)
