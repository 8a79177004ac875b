"""Which generation is this server? Decided by behaviour, never by a version string.

A source build reports ``version: "local"``, so every function here reads evidence instead:

* the ``opencode serve`` start-up line (1.18: ``opencode server listening on URL``; 2.x:
  ``server listening on URL``) tells the family;
* the ``/api/health`` body (1.18: ``{healthy}``; 2.x: ``{healthy, version, pid}``) tells the family;
* the server's own OpenAPI document (2.x: ``GET /openapi.json``, auth required; 1.18: ``/doc``)
  lists exactly the routes it serves, which tells the generation;
* an event type only one generation sends tells the generation;
* a 404 with an empty body is a route the server does not have (an entity that is missing
  answers 404 with a JSON ``{_tag, message}``): the generation is another one of the family.
"""

from __future__ import annotations

import re
from typing import Any

from tui.protocol.dialects.base import Dialect, route_key
from tui.protocol.dialects.registry import GENERATIONS, family_default

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")

EVENT_MARKERS: dict[str, Dialect] = {kind: d for d in GENERATIONS for kind in d.marker_types}
"""Event type -> the only generation that sends it."""
MARKER_PREFIXES: tuple[str, ...] = tuple(p for d in GENERATIONS for p in d.marker_prefixes)
"""Event type prefixes that only one generation sends (see ``from_event_type``)."""


def from_startup_line(line: str) -> Dialect | None:
    """The family's best guess from one line ``opencode serve`` printed; None: not that line."""
    found = _startup(line)
    return found[0] if found else None


def startup_url(line: str) -> str | None:
    """The URL of a start-up line of any generation, else None."""
    found = _startup(line)
    return found[1] if found else None


def _startup(line: str) -> tuple[Dialect, str] | None:
    text = _ANSI.sub("", line).strip()
    for dialect in GENERATIONS:
        pattern = dialect.startup
        if pattern is None or not dialect.family_default:
            continue
        match = pattern.search(text)
        if match:
            return dialect, match.group(1).rstrip(".,;")
    return None


def from_health(health: Any) -> Dialect:
    """2.x ``/api/health`` carries ``version`` and ``pid``; 1.18 answers only ``{healthy}``."""
    if isinstance(health, dict) and ("version" in health or "pid" in health):
        return family_default("2.x")
    return family_default("1.18")


def from_event_type(kind: str) -> Dialect | None:
    """The generation that alone sends event type ``kind``; None when several do."""
    found = EVENT_MARKERS.get(kind)
    if found is not None:
        return found
    if kind.startswith(MARKER_PREFIXES):
        return next(d for d in GENERATIONS if d.marker_prefixes and kind.startswith(d.marker_prefixes))
    return None


def spec_routes(doc: Any) -> set[str]:
    """The ``route_key``s an OpenAPI document lists (empty for anything else)."""
    paths = doc.get("paths") if isinstance(doc, dict) else None
    return {route_key(p) for p in paths if isinstance(p, str)} if isinstance(paths, dict) else set()


def from_spec(doc: Any) -> Dialect | None:
    """The generation whose signature routes the served document lists; None: none matches.

    When several match (a server that grew a newer route and kept the old one) the newest wins."""
    routes = spec_routes(doc)
    matches = [d for d in GENERATIONS if d.spec_routes and d.spec_routes <= routes]
    return matches[-1] if matches else None


def is_missing_route(status: int, body: bytes | str | None) -> bool:
    """A 404 with an empty body: the route does not exist on this server (a capability miss)."""
    return status == 404 and not (body or b"").strip()


def after_missing_pending_route(current: Dialect) -> Dialect | None:
    """``current``'s pending-input list answered "no such route": the generation of the same
    family that lists pending inputs elsewhere, else None."""
    return next((d for d in GENERATIONS if d is not current and d.family == current.family
                 and d.caps.pending_route not in (None, current.caps.pending_route)), None)


__all__ = ["EVENT_MARKERS", "MARKER_PREFIXES", "after_missing_pending_route", "from_event_type",
           "from_health", "from_spec", "from_startup_line", "is_missing_route", "spec_routes",
           "startup_url"]
