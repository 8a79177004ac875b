"""The protocol/state/client layers must not drag in Textual or the widgets package."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

ALWAYS = ["tui.protocol.events", "tui.protocol.dialect", "tui.protocol.models", "tui.state.transcript",
          "tui.text.sanitize"]
IF_PRESENT = ["tui.client.http", "tui.client.stream", "tui.state.store"]

PROBE = """
import importlib, json, sys
for name in json.loads(sys.argv[1]):
    importlib.import_module(name)
bad = sorted(m for m in sys.modules
             if m == "textual" or m.startswith("textual.") or m == "widgets" or m.startswith("widgets."))
print(json.dumps({"bad": bad, "loaded": [m for m in json.loads(sys.argv[1]) if m in sys.modules]}))
"""


def _present(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def test_core_modules_do_not_import_textual() -> None:
    modules = ALWAYS + [m for m in IF_PRESENT if _present(m)]
    result = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(modules)],
        cwd=REPO, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["loaded"] == modules
    assert report["bad"] == [], f"UI modules imported by the core layers: {report['bad']}"


def test_probe_detects_textual_when_imported() -> None:
    """Control: the probe really notices a Textual import (if Textual is installed)."""
    if not _present("textual"):
        pytest.skip("textual is not installed in this environment")
    result = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(["textual.app"])],
        cwd=REPO, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "textual" in json.loads(result.stdout.strip().splitlines()[-1])["bad"]
