"""A full repaint of a tall widget that costs O(1), not O(height).

Textual's ``Widget._set_dirty()`` (a full repaint, done on every resize) empties the widget's
line cache and then also marks each of its lines dirty, one set entry per line. An empty cache
re-renders whatever is drawn anyway, so the second step only costs: for a block 35,000 lines tall
(a 1 MB answer) that is two 35,000-entry set updates per frame while it grows. This overrides the
private method as it is in Textual 8.2.8 (pinned), minus that step.

A widget whose lines do not depend on its height (no top or bottom border or padding) can also
keep its line cache when only its height changes (``KEEP_LINES_WHEN_TALLER``): a streaming block
grows by a line and marks the lines it changed itself, so the lines above are not rendered again
for every line it gains (``Widget._size_updated`` is overridden for that, also private).
"""

from __future__ import annotations

from textual.geometry import Region, Size
from textual.widget import Widget


class LightRepaint(Widget):
    """Mixin for widgets that can be very tall (put it before the Textual base class)."""

    KEEP_LINES_WHEN_TALLER = False
    _height_only = False  # inside a resize that changed nothing but the height

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size,
                      layout: bool = True) -> bool:
        self._height_only = self.KEEP_LINES_WHEN_TALLER and size.width == self._size.width
        try:
            return super()._size_updated(size, virtual_size, container_size, layout)
        finally:
            self._height_only = False

    def _set_dirty(self, *regions: Region) -> None:
        if regions:
            super()._set_dirty(*regions)
            return
        self._dirty_regions.clear()
        self._repaint_regions.clear()
        if not self._height_only:
            self._styles_cache.clear()
        outer_size = self.outer_size
        self._dirty_regions.add(outer_size.region)
        if outer_size:
            self._repaint_regions.add(outer_size.region)
