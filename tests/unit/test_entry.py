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


def test_the_full_cli_looks_the_version_up_only_when_asked() -> None:
    """The package metadata (~35 ms to import and read) is not on the path of every start; a
    ``--version`` among other arguments (which the fast path above does not see) still answers."""
    code = ("import sys\nimport tui.app.cli as cli\n"
            "print('LOADED', 'importlib.metadata' in sys.modules)\n"
            "cli.build_parser().parse_args(['--demo', '--version'])\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "LOADED False"
    assert lines[1].startswith("octui ") and len(lines[1]) > len("octui ")
