"""A full repaint of a tall widget that costs O(1), not O(height).

Textual's ``Widget._set_dirty()`` (a full repaint, done on every resize) empties the widget's
line cache and then also marks each of its lines dirty, one set entry per line. An empty cache
re-renders whatever is drawn anyway, so the second step only costs: for a block 35,000 lines tall
(a 1 MB answer) that is two 35,000-entry set updates per frame while it grows. This overrides the
private method as it is in Textual 8.2.8 (pinned), minus that step.
"""

from __future__ import annotations

from textual.geometry import Region
from textual.widget import Widget


class LightRepaint(Widget):
    """Mixin for widgets that can be very tall (put it before the Textual base class)."""

    def _set_dirty(self, *regions: Region) -> None:
        if regions:
            super()._set_dirty(*regions)
            return
        self._dirty_regions.clear()
        self._repaint_regions.clear()
        self._styles_cache.clear()
        outer_size = self.outer_size
        self._dirty_regions.add(outer_size.region)
        if outer_size:
            self._repaint_regions.add(outer_size.region)
