"""The current 2.x generation: the pinned ``openapi.json`` (PROTOCOL.md). Shapes pass through.

Pending inputs are the *inbox* (``session.inbox.*`` events, ``GET …/inbox`` with ``payload``,
cancel and steer/queue routes); ``skills`` ride on prompts; ``/compact`` takes ``delivery``.
"""

from __future__ import annotations

import re
from typing import ClassVar

from tui.protocol.dialects.base import Capabilities, Dialect

STARTUP_2X = re.compile(r"(?<!opencode )\bserver listening on (\S+)")
"""The 2.x start-up line: ``server listening on URL``, without 1.18's ``opencode `` before it."""


class V2Current(Dialect):
    name: ClassVar[str] = "v2"
    label: ClassVar[str] = "v2"
    family_default: ClassVar[bool] = True  # a 2.x server not yet told apart speaks the pinned spec
    caps: ClassVar[Capabilities] = Capabilities(
        flat_api=True, pending_route="inbox", pending_cancel=True, pending_redeliver=True,
        prompt_skills=True, compaction=True, compaction_delivery=True, interrupt_continue=True,
        forms=True, subagents=True, shell_output=True, default_model=True, durable_history=False,
        session_title=True, text_files=True, reject_message=True)
    marker_types: ClassVar[frozenset[str]] = frozenset({
        "session.inbox.enqueued", "session.inbox.delivered", "session.inbox.cancelled",
        "session.inbox.delivery.changed"})
    spec_routes: ClassVar[frozenset[str]] = frozenset({"/api/session/{}/inbox"})
    startup: ClassVar[re.Pattern[str] | None] = STARTUP_2X
