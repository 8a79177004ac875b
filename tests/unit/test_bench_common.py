"""The benchmarks' shared helpers that decide what a killed bench leaves behind."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

KILLED = """
import os, signal, sys, time
sys.path.insert(0, {repo!r})
if {install}:
    from bench.common import exit_on_terminate
    exit_on_terminate()
try:
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(10)
finally:
    print("stopped what it started", flush=True)
"""


def _killed(install: bool) -> subprocess.CompletedProcess[str]:
    code = KILLED.format(repo=str(REPO), install=install)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_a_bench_ended_by_sigterm_runs_its_finally_blocks() -> None:
    """``timeout`` and a CI's stop send SIGTERM: the bench's ``finally`` stops its server."""
    result = _killed(install=True)
    assert "stopped what it started" in result.stdout
    assert result.returncode == 128 + signal.SIGTERM


def test_without_it_sigterm_skips_them() -> None:
    """Control: Python's default SIGTERM ends the process before any ``finally`` runs."""
    result = _killed(install=False)
    assert "stopped what it started" not in result.stdout
    assert result.returncode == -signal.SIGTERM
