"""The ``octui`` console script: answers ``--version`` before importing anything heavy."""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:
        from tui.app.version import version_line

        print(version_line())
        return 0
    # Start-up builds ~65,000 objects that live as long as the process (modules, classes, styles)
    # and little garbage (a few thousand unreachable objects): the collector's passes over them
    # while they are made cost ~14 % of the imports' CPU. It is off until the app has frozen them
    # (OctuiApp.on_mount), until an export starts (cli.main), and in any case once the CLI returns.
    gc.disable()
    try:
        from tui.app import exit_guard
        from tui.app.cli import main as cli_main

        if argv is None:  # the console script itself (tests pass argv): quitting is bounded (exit_guard.py)
            exit_guard.enable()
        return cli_main(args)
    finally:
        gc.enable()  # --help, a usage or config error, a server that cannot be reached, the app's end


if __name__ == "__main__":
    raise SystemExit(main())
