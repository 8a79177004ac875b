"""``octui --version`` answers without importing the app, pydantic or httpx."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_version_is_answered_without_heavy_imports() -> None:
    code = ("import sys\nfrom tui.app.entry import main\nrc = main(['--version'])\n"
            "heavy = [m for m in ('textual', 'pydantic', 'httpx') if m in sys.modules]\n"
            "print('HEAVY', heavy, rc)")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         timeout=60, check=True).stdout
    assert out.splitlines()[0].startswith("octui ")
    assert "HEAVY [] 0" in out


def test_other_arguments_reach_the_full_cli(capsys: object) -> None:
    from tui.app.entry import main

    try:
        main(["--help"])
    except SystemExit as exc:
        assert exc.code == 0
    else:
        raise AssertionError("--help should exit")
