"""Layer rules: the pure packages never drag in Textual or the widgets package, and only
``tui/session`` (and ``tui/client`` itself) imports ``tui.client``."""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

PURE = ["tui/protocol", "tui/client", "tui/state", "tui/session", "tui/storage", "tui/text"]
"""Packages that must run without a terminal: every module of them is imported, found by walking."""
CLIENT_USERS = ("tui/session", "tui/client")
"""The only packages that may import ``tui.client``: every server call of the UI goes through tui/session."""

PROBE = """
import importlib, json, sys
for name in json.loads(sys.argv[1]):
    importlib.import_module(name)
bad = sorted(m for m in sys.modules
             if m == "textual" or m.startswith("textual.") or m == "widgets" or m.startswith("widgets."))
print(json.dumps({"bad": bad, "loaded": [m for m in json.loads(sys.argv[1]) if m in sys.modules]}))
"""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def pure_modules() -> list[str]:
    """Every module of the pure packages (subpackages included), by walking the tree."""
    return sorted(_module_name(p) for package in PURE for p in (REPO / package).rglob("*.py"))


def _present(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def _probe(modules: list[str]) -> dict[str, list[str]]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(modules)],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    report: dict[str, list[str]] = json.loads(result.stdout.strip().splitlines()[-1])
    return report


def test_the_walk_finds_every_pure_package_and_their_subpackages() -> None:
    modules = pure_modules()
    for package in PURE:
        assert package.replace("/", ".") in modules  # each package's __init__
    assert "tui.protocol.dialects.base" in modules  # a subpackage's module is walked too
    assert "tui.session.service" in modules


def test_pure_modules_do_not_import_textual() -> None:
    modules = pure_modules()
    report = _probe(modules)
    assert report["loaded"] == modules
    assert report["bad"] == [], f"UI modules imported by the core layers: {report['bad']}"


def test_probe_detects_textual_when_imported() -> None:
    """Control: the probe really notices a Textual import (if Textual is installed)."""
    if not _present("textual"):
        pytest.skip("textual is not installed in this environment")
    assert "textual" in _probe(["textual.app"])["bad"]


def client_imports(source: str) -> list[str]:
    """The ``tui.client`` modules a source file imports (``import`` or ``from ... import``)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        found += [n for n in names if n == "tui.client" or n.startswith("tui.client.")]
    return sorted(set(found))


def test_only_the_session_layer_imports_the_client() -> None:
    offenders: dict[str, list[str]] = {}
    for root in ("tui", "widgets"):
        for path in sorted((REPO / root).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            if rel.startswith(tuple(f"{p}/" for p in CLIENT_USERS)):
                continue
            found = client_imports(path.read_text("utf-8"))
            if found:
                offenders[rel] = found
    assert offenders == {}, "call the server through tui/session, not tui.client"


def test_the_client_import_check_sees_every_form() -> None:
    """Control: each way of importing the client is noticed; a look-alike name is not."""
    assert client_imports("import tui.client.http") == ["tui.client.http"]
    assert client_imports("from tui.client.errors import OctuiError") == [
        "tui.client.errors", "tui.client.errors.OctuiError"]
    assert client_imports("from tui import client") == ["tui.client"]
    assert "tui.client" in client_imports("from tui.client import OpenCodeClient")
    assert client_imports("from tui.clients import x\nimport tui.session.connect") == []
