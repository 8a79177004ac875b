"""Set-up compiles octui's own modules: an editable install leaves them as source, and where
``PYTHONDONTWRITEBYTECODE`` is set each launch compiled every one of them again."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("tui", "widgets", "styles")


def _cached(source: Path) -> Path:
    """Where the import system looks for ``source``'s bytecode, without a cache prefix (setup
    compiles beside the sources; the test run has a prefix of its own)."""
    saved = sys.pycache_prefix
    sys.pycache_prefix = None
    try:
        return Path(importlib.util.cache_from_source(str(source)))
    finally:
        sys.pycache_prefix = saved


def stale_modules() -> list[str]:
    """The modules whose bytecode is missing or would not be used for their source as it is (the
    header of PEP 552: magic number, timestamp flags, the source's mtime and size)."""
    stale: list[str] = []
    for package in PACKAGES:
        for source in sorted((REPO / package).rglob("*.py")):
            if "__pycache__" in source.parts:
                continue
            try:
                header = _cached(source).read_bytes()[:16]
            except OSError:
                stale.append(str(source.relative_to(REPO)))
                continue
            stat = source.stat()
            expected = (importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little")
                        + (int(stat.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
                        + (stat.st_size & 0xFFFFFFFF).to_bytes(4, "little"))
            if header != expected:
                stale.append(str(source.relative_to(REPO)))
    return stale


def _setup() -> None:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPYCACHEPREFIX"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # as where this was found: importing writes nothing
    done = subprocess.run([str(REPO / "scripts" / "setup.sh"), "--quiet"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr


@pytest.mark.xdist_group("setup")
def test_after_set_up_every_module_loads_from_bytecode() -> None:
    _setup()
    assert stale_modules() == []


@pytest.mark.xdist_group("setup")
def test_a_changed_module_is_compiled_again() -> None:
    _setup()
    source = REPO / "tui" / "__init__.py"
    later = time.time() + 2  # after the last compile, as a checkout or an edit leaves it
    os.utime(source, (later, later))
    assert stale_modules() == ["tui/__init__.py"]
    _setup()
    assert stale_modules() == []
