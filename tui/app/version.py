"""octui's version line, read from the installed package's metadata only when asked for."""

from __future__ import annotations


def version_line() -> str:
    """``octui <version>`` (``0+unknown`` from a source tree never installed).

    importlib.metadata (~30 ms) is imported here, not at start: pydantic loads it later anyway at
    its first validation, which --demo and a local server reach after the first frame.
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"octui {version('octui')}"
    except PackageNotFoundError:
        return "octui 0+unknown"
