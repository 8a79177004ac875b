"""Set-up compiles octui's own modules (``scripts/compile.sh``): an editable install leaves them as
source, and where ``PYTHONDONTWRITEBYTECODE`` is set each launch compiled every one of them again."""

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
CHECKED_HASH = 0b11  # PEP 552 flags: hash-based, checked against the source at each import


def _cached(source: Path) -> Path:
    """Where the import system looks for ``source``'s bytecode, without a cache prefix (the script
    compiles beside the sources; one set in the environment would send the import system elsewhere)."""
    saved = sys.pycache_prefix
    sys.pycache_prefix = None
    try:
        return Path(importlib.util.cache_from_source(str(source)))
    finally:
        sys.pycache_prefix = saved


def stale_modules() -> list[str]:
    """The modules with no bytecode beside them, or bytecode that is not checked against their
    source as it is now (PEP 552 header: magic number, flags, the source's hash)."""
    stale: list[str] = []
    for package in PACKAGES:
        for source in sorted((REPO / package).rglob("*.py")):
            if "__pycache__" in source.parts:
                continue
            expected = (importlib.util.MAGIC_NUMBER + CHECKED_HASH.to_bytes(4, "little")
                        + importlib.util.source_hash(source.read_bytes()))
            try:
                header = _cached(source).read_bytes()[:16]
            except OSError:
                header = b""
            if header != expected:
                stale.append(str(source.relative_to(REPO)))
    return stale


def _compile() -> str:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPYCACHEPREFIX"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # as where this was found: importing writes nothing
    done = subprocess.run([str(REPO / "scripts" / "compile.sh"), "--quiet"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stderr


@pytest.mark.xdist_group("bytecode")
def test_every_module_has_bytecode_checked_against_its_source() -> None:
    _compile()
    assert stale_modules() == []
    assert _compile() == ""  # nothing newer: nothing done, nothing said


@pytest.mark.xdist_group("bytecode")
def test_a_changed_module_is_compiled_again() -> None:
    _compile()
    source = REPO / "tui" / "__init__.py"
    _cached(source).unlink()
    assert stale_modules() == ["tui/__init__.py"]
    later = time.time() + 2  # after the last compile, as a checkout or an edit leaves it
    os.utime(source, (later, later))
    assert _compile() == "setup: compiling octui's modules\n"
    assert stale_modules() == []
