"""Server generations behind one interface (``Dialect``), and how to tell them apart (``detect``).

``GENERATIONS`` lists them oldest first: the 1.18.33 preview, the 2.0 preview, the current 2.x
(the pinned ``openapi.json``). Everything above this package speaks the pinned v2 shapes.
"""

from __future__ import annotations

from tui.protocol.dialects import detect
from tui.protocol.dialects.base import Capabilities, Dialect, FrameNormaliser, route_key
from tui.protocol.dialects.registry import (
    GENERATIONS,
    PREVIEW_1_18,
    V2_0_PREVIEW,
    V2_CURRENT,
    by_name,
    family_default,
)

__all__ = ["GENERATIONS", "PREVIEW_1_18", "V2_0_PREVIEW", "V2_CURRENT", "Capabilities", "Dialect",
           "FrameNormaliser", "by_name", "detect", "family_default", "route_key"]
