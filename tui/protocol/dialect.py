"""Compatibility names for ``tui.protocol.dialects`` (one module per server generation).

``Dialect.V2`` is the current 2.x (pinned ``openapi.json``), ``Dialect.V2_0_PREVIEW`` the 2.0
preview, ``Dialect.PREVIEW`` the 1.18.33 preview. ``Normaliser`` and the module functions below
are the 1.18 ones (they leave v2 shapes alone).
"""

from __future__ import annotations

from typing import Any

from tui.protocol.dialects import Dialect, detect
from tui.protocol.dialects.preview_1_18 import (
    PREVIEW_PREFIXES,
    Normaliser,
    message,
    permission_request,
    question_request,
    session_info,
)

V2 = "v2"


def detect_from_health(health: Any) -> Dialect:
    return detect.from_health(health)


def detect_from_event_type(kind: str) -> Dialect | None:
    return detect.from_event_type(kind)


def prompt_body(dialect: Dialect, body: dict[str, Any]) -> dict[str, Any]:
    """Build the prompt request body of ``dialect`` from the v2 flat form."""
    return dialect.prompt_body(body)


__all__ = ["PREVIEW_PREFIXES", "V2", "Dialect", "Normaliser", "detect_from_event_type",
           "detect_from_health", "message", "permission_request", "prompt_body", "question_request",
           "session_info"]
