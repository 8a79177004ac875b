"""The vendored spec documents are the ones their README names, and 1.18.33 serves the one we keep.

* every file in ``tests/fixtures/specs`` has the sha256 its README lists (no silent edit), and the
  README lists every file;
* the real server under test serves its own OpenAPI document, and when it is the 1.18 preview that
  document is exactly the vendored ``openapi-1.18.json`` (the contract tests then use the served one).
"""

from __future__ import annotations

import hashlib
import re

import pytest

from tests.e2e.server import RealServer
from tests.specs import PREVIEW_OPENAPI, SPECS_DIR, Spec, load_json, served_openapi

ROW = re.compile(r"^\| `(?P<name>[^`]+)` \|.*\| `(?P<sha>[0-9a-f]{64})` \|$")


def listed_hashes() -> dict[str, str]:
    text = (SPECS_DIR / "README.md").read_text(encoding="utf-8")
    return {m["name"]: m["sha"] for line in text.splitlines() if (m := ROW.match(line))}


def test_every_vendored_spec_has_the_hash_its_readme_lists() -> None:
    listed = listed_hashes()
    present = {p.name for p in SPECS_DIR.iterdir() if p.is_file() and p.name != "README.md"}
    assert present == set(listed), "README.md must list exactly the vendored files"
    for name, sha in listed.items():
        assert hashlib.sha256((SPECS_DIR / name).read_bytes()).hexdigest() == sha, name


def test_the_hash_check_is_not_vacuous() -> None:
    listed = listed_hashes()
    assert {"openapi.json", "openapi-1.18.json", "PROTOCOL.md"} <= set(listed)
    assert hashlib.sha256(b"").hexdigest() not in listed.values()


@pytest.mark.e2e
def test_the_real_server_serves_its_spec_and_1_18_serves_the_vendored_one(
    live_server: RealServer, preview_openapi: Spec
) -> None:
    served = served_openapi(live_server)
    assert served is not None, "the server serves no OpenAPI document at /openapi.json or /doc"
    generation, route, doc = served
    assert doc["paths"], f"{route}: no paths"
    if generation != "preview-1.18":
        pytest.skip(f"the server under test is not the 1.18 preview (serves {route})")
    assert doc == load_json(PREVIEW_OPENAPI), "tests/fixtures/specs/openapi-1.18.json is not what 1.18 serves"
    assert preview_openapi.source == "the real server's GET /doc", "the contract tests use the served one"
