"""A full repaint of a tall widget that costs O(1), not O(height).

Textual's full repaint (done on every resize) empties the widget's line cache and then also
marks each of its lines dirty, one set entry per line. An empty cache re-renders whatever is
drawn anyway, so the second step only costs: for a block 35,000 lines tall (a 1 MB answer) that
is two 35,000-entry set updates per frame while it grows. ``LightRepaintBase`` (in
``widgets/_textual_compat.py``: it overrides private Textual methods) skips that step.

A widget whose lines do not depend on its height (no top or bottom border or padding) can also
keep its line cache when only its height changes (``KEEP_LINES_WHEN_TALLER``): a streaming block
grows by a line and marks the lines it changed itself, so the lines above are not rendered again
for every line it gains.
"""

from __future__ import annotations

from widgets._textual_compat import LightRepaintBase


class LightRepaint(LightRepaintBase):
    """Mixin for widgets that can be very tall (put it before the Textual base class)."""

    KEEP_LINES_WHEN_TALLER = False
