"""The spec documents the tests check against: vendored copies, or what the real server serves.

The copies live in ``tests/fixtures/specs`` (``README.md`` there says where each comes from), so the
contract and protocol tests run on a plain clone and never skip for want of a file.

``preview_openapi`` (a session fixture, registered by ``tests/conftest.py``) is the OpenAPI
document of the 1.18 preview: the one the real server under test serves at ``GET /doc`` when it is
a 1.18 preview, else the vendored ``openapi-1.18.json``. Without a real server (``OCTUI_SKIP_E2E=1``,
or no ``opencode`` binary outside CI) the vendored copy is used; under ``CI=true`` a missing binary
fails, as for every e2e test.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.server import SPEC_FETCH_TIMEOUT, RealServer, in_ci

Json = dict[str, Any]

SPECS_DIR = Path(__file__).resolve().parent / "fixtures" / "specs"
V2_OPENAPI = SPECS_DIR / "openapi.json"
PREVIEW_OPENAPI = SPECS_DIR / "openapi-1.18.json"
PROTOCOL_MD = SPECS_DIR / "PROTOCOL.md"

# Where a server serves its own OpenAPI document, newest generation first. 1.18.33 answers every
# unknown path with its web app (200, text/html), so only a JSON OpenAPI document counts.
SERVED_ROUTES = {"/openapi.json": "v2", "/doc": "preview-1.18"}


@dataclass(frozen=True)
class Spec:
    """An OpenAPI document and where it came from (for failure messages)."""

    doc: Json
    source: str


@cache
def load_json(path: Path) -> Json:
    """A vendored document; a missing one is an error, never a skip (it is part of the repo)."""
    if not path.is_file():
        raise FileNotFoundError(f"vendored spec missing: tests/fixtures/specs/{path.name}")
    data: Json = json.loads(path.read_text(encoding="utf-8"))
    return data


def read_text(path: Path) -> str:
    if not path.is_file():
        raise FileNotFoundError(f"vendored spec missing: tests/fixtures/specs/{path.name}")
    return path.read_text(encoding="utf-8")


def served_openapi(server: RealServer) -> tuple[str, str, Json] | None:
    """``(generation, route, document)`` of the OpenAPI document the server serves, or None."""
    with server.client(timeout=SPEC_FETCH_TIMEOUT) as http:
        for route, generation in SERVED_ROUTES.items():
            try:
                response = http.get(route)
            except httpx.HTTPError:
                continue
            if response.status_code != 200 or "json" not in response.headers.get("content-type", ""):
                continue
            doc = response.json()
            if isinstance(doc, dict) and "openapi" in doc and isinstance(doc.get("paths"), dict):
                return generation, route, doc
    return None


@pytest.fixture(scope="session")
def served_spec(request: pytest.FixtureRequest) -> tuple[str, str, Json] | None:
    """What the worker's real server serves, or None when this run has no real server."""
    if os.environ.get("OCTUI_SKIP_E2E") == "1" and not in_ci():
        return None
    try:
        server: RealServer = request.getfixturevalue("real_server")
    except pytest.skip.Exception:  # no binary (locally): the vendored copies stand in
        return None
    if not server.running:
        server.start(ready_timeout=60.0, model_timeout=60.0)
    return served_openapi(server)


@pytest.fixture(scope="session")
def preview_openapi(served_spec: tuple[str, str, Json] | None) -> Spec:
    if served_spec is not None and served_spec[0] == "preview-1.18":
        _, route, doc = served_spec
        return Spec(doc, f"the real server's GET {route}")
    return Spec(load_json(PREVIEW_OPENAPI), "tests/fixtures/specs/openapi-1.18.json")
