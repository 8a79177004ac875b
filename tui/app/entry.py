"""The ``octui`` console script: answers ``--version`` before importing anything heavy."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def installed_version() -> str:
    """octui's version as installed. ``importlib.metadata`` (with zipfile, csv and the email
    package, ~0.8 MB) is loaded only to answer ``--version``: a session never asks."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("octui")
    except PackageNotFoundError:
        return "0+unknown"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:
        print(f"octui {installed_version()}")
        return 0
    from tui.app import exit_guard
    from tui.app.cli import main as cli_main

    if argv is None:  # the console script itself (tests pass argv): quitting is bounded (exit_guard.py)
        exit_guard.enable()
    return cli_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
