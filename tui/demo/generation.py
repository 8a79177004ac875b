"""Which server generation the demo server speaks (``octui --demo --demo-generation NAME``).

* ``v2`` (default): the pinned ``opencode-v2/openapi.json`` (inbox routes, ``session.inbox.*``).
* ``2.0-preview``: the 2.0 preview build recorded in ``opencode-v2/traces-2.0`` (TRACES.md,
  ROUTES.md): ``session.input.admitted/promoted`` with ``input.data``, ``GET …/pending`` instead of
  the inbox routes, ``session.compaction.admitted``, steers delivered before queued inputs inside
  one execution, subagent progress at ``metadata.metadata.sessionID``, background completion as a
  ``synthetic`` input, no ``session.status``/``session.idle``, empty 401/404 bodies, its own
  ``/openapi.json``, health version ``local``.
"""

from __future__ import annotations

from enum import Enum


class DemoGeneration(str, Enum):  # noqa: UP042 (str() gives the value, as argparse choices want)
    V2 = "v2"
    PREVIEW = "2.0-preview"


GENERATIONS = tuple(g.value for g in DemoGeneration)

__all__ = ["GENERATIONS", "DemoGeneration"]
