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
    """The package metadata (~30 ms to import) is not loaded on the way to the first frame; a
    ``--version`` among other arguments (which the fast path above does not see) still answers."""
    code = ("import sys\nimport tui.app.cli as cli\n"
            "print('LOADED', 'importlib.metadata' in sys.modules)\n"
            "cli.build_parser().parse_args(['--demo', '--version'])\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "LOADED False"
    assert lines[1].startswith("octui ") and len(lines[1]) > len("octui ")


COLLECTOR = """
import asyncio, gc, sys
import tui.app.cli as cli
from tui.app import entry
seen = {}

def run_ui(args, connection, directory, config):
    seen["ui"] = gc.isenabled()
    return 0

def export(args, connection, directory):
    seen["export"] = gc.isenabled()
    return 0

cli._run_ui, cli._export = run_ui, export
entry.main(["--demo"])
entry.main(["export", "--url", "http://127.0.0.1:9", "ses_1"])

async def mounted():
    from tui.app.app import ConnectSpec, OctuiApp
    from tui.demo import DemoServer
    demo = DemoServer(directory=".")
    app = OctuiApp(ConnectSpec(url=demo.base_url, transport=demo.transport, directory="."), demo=demo)
    gc.disable()  # as the console script leaves it
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        seen["mounted"] = gc.isenabled()

asyncio.run(mounted())
print("SEEN", sorted(seen.items()))
"""


def test_start_up_runs_without_the_collector_until_the_app_has_frozen_what_it_built() -> None:
    done = subprocess.run([sys.executable, "-c", COLLECTOR], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    # Off while the UI starts; on for an export (it never mounts an app), and once the app mounted.
    assert "SEEN [('export', True), ('mounted', True), ('ui', False)]" in done.stdout, done.stdout


NO_PASSES = """
import gc, sys
passes = []
gc.callbacks.append(lambda phase, info: passes.append(phase))
exit_ = sys.exit
def counted_exit(code=0):  # argparse ends --help and usage errors here, inside the CLI
    print("PASSES", len(passes) - before, "ENABLED", gc.isenabled(), file=sys.stderr)
    exit_(code)
sys.exit = counted_exit
from tui.app import entry
for argv in (["--help"], ["--no-such-option"]):
    before = len(passes)
    try:
        entry.main(argv)
    except SystemExit:
        pass
    print("AFTER", gc.isenabled(), file=sys.stderr)
"""


def test_the_collector_makes_no_pass_while_the_cli_loads_and_is_on_once_it_returns() -> None:
    """From a fresh interpreter: importing the CLI (protocol models, httpx, pydantic) with the
    collector on makes dozens of passes; none now. Whatever way the CLI ends (help, a usage
    error), the collector is on again after it."""
    done = subprocess.run([sys.executable, "-c", NO_PASSES], cwd=REPO, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert [line for line in done.stderr.splitlines() if line.startswith(("PASSES", "AFTER"))] == [
        "PASSES 0 ENABLED False", "AFTER True"] * 2, done.stderr[-2000:]
