"""Provides OutputText: the text of a terminal output block."""

from __future__ import annotations

from textual.widgets import Static

from widgets._textual_compat import BoundedLineCache


class OutputText(BoundedLineCache, Static):
    """A command's output as a ``Static`` whose styled lines are kept only within a screen of the
    view: with "show all" it can be thousands of lines, and Textual kept each one it drew, a
    second copy beside the content's own rendering (which stays whole)."""
