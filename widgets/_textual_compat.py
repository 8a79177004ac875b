"""Every use of a private Textual or Rich name in octui, behind a small public name.

Written against Textual 8.2.8 and Rich 15.0.0, both pinned exactly in ``pyproject.toml``.
Nothing else in ``tui/`` or ``widgets/`` may touch a private Textual/Rich name
(``tests/unit/test_textual_compat.py`` lints that), and each use here has a canary test there
that fails, naming what to re-check, when a pin moves or the private thing changes shape.

When bumping Textual or Rich: run ``tests/unit/test_textual_compat.py`` first, then read each
entry below against the new source. Each docstring says what breaks if it changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from markdown_it.token import Token
from rich._wrap import divide_line as rich_divide_line
from rich.color import ColorSystem
from rich.console import Console, ConsoleOptions
from rich.markdown import Markdown as RichMarkdown
from rich.table import Table
from textual import events
from textual._ansi_sequences import SYNC_END, SYNC_START
from textual._compositor import ChopsUpdate, Compositor, LayoutUpdate
from textual._context import NoActiveAppError
from textual._styles_cache import StylesCache
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.binding import BindingsMap
from textual.dom import DOMNode
from textual.driver import Driver
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.visual import Visual
from textual.widget import Widget
from textual.widgets import TextArea

__all__ = [
    "RICH_VERSION", "SYNC_END", "SYNC_START", "TEXTUAL_VERSION", "BoundedLineCache", "ChopsUpdate",
    "DisplayHookApp",
    "LayoutUpdate", "LightRepaintBase", "OneLayoutPass", "OwnVerticalScrollBar", "PreparsedMarkdown",
    "SteadyScrollView", "TextAreaInputHooks",
    "anchor_released", "console_color_system", "driver_write", "install_alt_keys", "install_cropped_renders",
    "install_light_strips", "keymapped_bindings", "node_bindings",
    "report_exception", "rich_divide_line", "table_column_widths", "table_padding_width",
    "terminal_sync_available", "widget_visual",
]

TEXTUAL_VERSION = "8.2.8"  # the versions this module was written against (pinned in pyproject.toml)
RICH_VERSION = "15.0.0"

ReturnType = TypeVar("ReturnType")

# ---------------------------------------------------------------------------- Rich's line breaking
# ``rich._wrap.divide_line(text, width, fold)`` (re-exported above as ``rich_divide_line``): the
# offsets where ``Text.wrap`` breaks a line (greedy, at word starts; a word longer than the width
# folded). ``widgets/transcript/growing_paragraph.py`` wraps a growing paragraph's newest text
# with it and must break exactly where Rich does: if it changes, a grown paragraph wraps
# differently from a rendered one.

# ---------------------------------------------------------------------------- the App and its driver
# ``textual._ansi_sequences.SYNC_START`` / ``SYNC_END`` (DEC mode 2026 begin/end) and the
# compositor's update classes ``textual._compositor.LayoutUpdate`` (``.strips``, ``.region``) and
# ``ChopsUpdate`` (``.chops``, ``.spans``, ``.chop_ends``) are re-exported above: the frame writer
# reads those attributes. If they change, the frame writer writes wrong cells.


def driver_write(app: App[Any], data: str) -> bool:
    """Write raw ``data`` to the terminal through ``App._driver`` (Textual 8.2.8 has no public
    API for raw output; ``App.bell`` does the same). Returns whether anything was written:
    nothing when headless or when the driver is gone. If ``_driver`` is renamed this writes
    nothing (notifications and bells go silent): the canary catches it."""
    driver: Driver | None = getattr(app, "_driver", None)
    if not data or app.is_headless or driver is None:
        return False
    driver.write(data)
    return True


def terminal_sync_available(app: App[Any]) -> bool:
    """``App._sync_available``: whether the terminal answered Textual's DECRQM query for mode 2026
    (synchronized output). If it is renamed, frames outside tmux lose their sync wrapping."""
    return bool(app._sync_available)


def report_exception(app: App[Any], error: Exception) -> None:
    """``App._handle_exception``: what Textual does with an exception in its own code (log it,
    exit with the traceback). If it changes, an error in the frame writer is lost or crashes."""
    app._handle_exception(error)


def console_color_system(console: Console) -> ColorSystem | None:
    """``Console._color_system`` (Rich 15.0.0): the enum that ``Strip.render_style`` takes (the
    public ``Console.color_system`` is its name as a string). Read once per frame."""
    return console._color_system


class DisplayHookApp(App[ReturnType]):
    """App base whose compositor updates go to ``display_update`` instead of ``Textual``'s writer.

    Overrides ``App._display(screen, renderable)`` (Textual 8.2.8), called once per frame.
    Updates that are not ``LayoutUpdate``/``ChopsUpdate``, or an inline driver, go to Textual's
    own ``_display`` (after ``display_bypassed``). A compositor update is handed over only when
    Textual would write it itself: not inside ``batch_update`` (``_batch_count``), while running
    (``_running``), not closed (``_closed``), with a driver (``_driver``). ``post_display_hook``
    runs after every frame, as in Textual. If ``_display`` is renamed or its guards change, the
    app falls back to Textual's full writes (or, worse, writes while batched or closed).
    """

    def display_update(self, screen: Screen[Any], update: LayoutUpdate | ChopsUpdate,
                       driver: Driver) -> None:
        """Write one compositor update for ``screen`` (override)."""
        raise NotImplementedError

    def display_bypassed(self) -> None:
        """Called before a frame goes to Textual's own writer (override)."""

    def _display(self, screen: Screen[Any], renderable: Any) -> None:
        driver = self._driver
        if renderable is None:  # nothing to update
            self.post_display_hook()
            return
        if not isinstance(renderable, (LayoutUpdate, ChopsUpdate)) or (
                driver is not None and driver.is_inline):
            self.display_bypassed()
            super()._display(screen, renderable)
            return
        try:
            if self._batch_count or not self._running or self._closed or driver is None:
                return
            self.display_update(screen, renderable, driver)
        finally:
            self.post_display_hook()


textual_get_renders = Compositor._get_renders  # Textual's own (the tests compare the two)


def _cropped_renders(self: Compositor, crop: Region | None = None
                     ) -> Iterable[tuple[Region, Region, list[Strip]]]:
    """``Compositor._get_renders`` that renders each widget only where it meets ``crop``.

    Textual's renders every widget overlapping the update's bounding box over its whole visible
    region, and then keeps the lines the update needs: one changed line of a streaming answer
    makes the screen, its containers, the transcript and the block behind it render every one
    of their lines again. The crop is the bounding box of everything the update repaints, so no
    line outside its rows is used: clipping to them gives the same chops.

    Widgets that paint no cell of the crop, and those behind one whose visible part covers all
    of it, are not rendered either. ``_render_chops`` goes front to back (``visible_widgets``'
    order) and the first strip to fill a chop wins, and every widget's edges are cuts, so each
    chop meeting the crop comes from the same widget as in Textual. Chops outside the crop's
    columns may then stay None, or hold the cells of a widget behind a skipped one (a container
    under its scrollbar): harmless, as Textual's writers and octui's read only the chops that
    meet the update's spans, and those lie inside the crop. Two rules follow for every widget:
    ``render_lines(crop)`` returns a full-width strip for each row asked (Textual's own
    rendering does; a short one would leave cells behind it unpainted, now that nothing behind
    is rendered), and it has no side effect that must run when the widget is hidden or beside
    the update (``TextBlockView`` records the rows painted: skipped, it keeps the last ones).
    """
    visible = self.visible_widgets
    if crop:
        # Only the rows: a chop starts where its widget does, left of the crop or not.
        rows = Region(0, crop.y, self.size.width, crop.height).intersection
        overlaps = crop.overlaps
        widget_regions = []
        for widget, (region, clip) in visible.items():  # front to back
            shown = region.intersection(clip)
            if not overlaps(shown):
                continue  # paints no cell of the update (a scrollbar beside a changed line)
            widget_regions.append((widget, region, rows(clip)))
            if shown.contains_region(crop):
                break  # the front widget's cell wins: nothing behind it shows in the crop
    else:
        widget_regions = [(widget, region, clip) for widget, (region, clip) in visible.items()]
    for widget, region, clip in widget_regions:
        if clip.contains_region(region):
            yield region, clip, widget.render_lines(Region(0, 0, region.width, region.height))
            continue
        x, y, width, height = region.intersection(clip)
        if width and height:
            yield region, clip, widget.render_lines(Region(x - region.x, y - region.y, width, height))


class _Fifo(dict[Any, Any]):
    """``textual.cache.FIFOCache``'s ``get`` and ``[key] = value`` (the only two a ``Strip`` uses
    on its caches) as a dict: at most ``maxsize`` entries, the oldest dropped first. Made and read
    in C (no ``__init__`` or ``get`` of its own), where a FIFOCache runs Python for each; a write
    still runs ``__setitem__`` here."""

    __slots__ = ()
    maxsize: ClassVar[int] = 4

    def __setitem__(self, key: Any, value: Any) -> None:
        if len(self) >= self.maxsize and key not in self:
            del self[next(iter(self))]
        super().__setitem__(key, value)


class _Fifo16(_Fifo):
    __slots__ = ()
    maxsize = 16


def _light_strip_init(self: Strip, segments: Iterable[Any], cell_length: int | None = None) -> None:
    self._segments = list(segments)
    self._cell_length = cell_length
    self._divide_cache = _Fifo()  # type: ignore[assignment]
    self._crop_cache = _Fifo16()  # type: ignore[assignment]
    self._style_cache = _Fifo16()  # type: ignore[assignment]
    self._filter_cache = _Fifo()  # type: ignore[assignment]
    self._line_length_cache = _Fifo()  # type: ignore[assignment]
    self._crop_extend_cache = _Fifo()  # type: ignore[assignment]
    self._offsets_cache = _Fifo()  # type: ignore[assignment]
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


def install_light_strips() -> None:
    """Replace ``Strip.__init__`` (Textual 8.2.8) with one that makes the same seven caches, of
    the same sizes, as dicts (``_Fifo``) instead of ``FIFOCache`` objects. Every line Textual draws
    is a Strip, and most are built, cut or styled once: building their seven FIFOCaches was ~9 %
    of the CPU of mounting and drawing octui's widgets (3 % of a streamed answer's frames). If
    ``Strip.__init__`` gains or renames an attribute, strips fail with an AttributeError, and if
    Strip starts using another FIFOCache method on them, with an AttributeError there: the canary
    compares ``Strip.__init__``'s source with the 8.2.8 text and lists the methods it calls."""
    Strip.__init__ = _light_strip_init  # type: ignore[method-assign]


def install_cropped_renders() -> None:
    """Replace ``Compositor._get_renders(self, crop=None)`` (Textual 8.2.8) with one that renders
    only the rows of ``crop``, and only the widgets that show in it. If Textual renames it, the
    patch adds a dead method and frames cost as much as Textual's (slower, still right); if its
    signature, its callers' use of the result, the order of ``visible_widgets``, the way
    ``_render_chops`` fills chops or the way ``ChopsUpdate.render_segments`` reads them change,
    chops come out wrong: the canary hashes each of them."""
    Compositor._get_renders = _cropped_renders  # type: ignore[method-assign]


_ALT_KEYS = {"\x1b\r": "alt+enter"}
"""Sequences Textual 8.2.8 reads without their Alt: tmux, and terminals that send Alt as an ESC
prefix, send Alt+Enter as ESC CR, which Textual's parser reads as "enter" (it adds "alt+" only to
keys of one character), so the prompt's Alt+Enter (queue) steered instead."""

textual_sequence_to_key_events = getattr(XTermParser, "_sequence_to_key_events", None)


def _alt_aware_key_events(self: XTermParser, sequence: str, alt: bool = False) -> Iterable[events.Key]:
    name = _ALT_KEYS.get(sequence)
    if name is not None:
        yield events.Key(name, None)
        return
    assert textual_sequence_to_key_events is not None  # (installed only where it exists)
    yield from textual_sequence_to_key_events(self, sequence, alt)


def install_alt_keys() -> None:
    """Replace ``XTermParser._sequence_to_key_events(self, sequence, alt=False)`` (Textual 8.2.8)
    with one that reads the sequences of ``_ALT_KEYS`` with their Alt. The parser asks it for
    each sequence as it grows (ESC, then ESC CR), so ESC CR is one key; anything else is Textual's.
    If Textual renames it, nothing is installed and Alt+Enter steers again (the canary parses ESC
    CR with the driver's parser)."""
    if textual_sequence_to_key_events is not None:
        XTermParser._sequence_to_key_events = _alt_aware_key_events  # type: ignore[method-assign]


# ---------------------------------------------------------------------------- widgets
def node_bindings(node: DOMNode) -> BindingsMap:
    """``DOMNode._bindings``: the node's own bindings, its class's merged ``BINDINGS`` (copied per
    instance in ``DOMNode.__init__``), as written: Textual 8.2.8 has no public per-node view. Not
    remapped: the keymap is applied to copies as the binding chain is built (``keymapped_bindings``)."""
    return node._bindings


def keymapped_bindings(node: DOMNode) -> BindingsMap:
    """``node``'s bindings as the binding chain has them: a copy with the app's keymap
    (``App._keymap``) applied, as ``Screen._binding_chain`` does in Textual 8.2.8. The help screen,
    the palette and the prompt's in-order keys read these: a remapped key is shown and acts under
    its new key only. If either name changes, they list and act on the keys as written."""
    bindings = node_bindings(node)
    try:
        keymap = node.app._keymap
    except NoActiveAppError:  # a node outside a running app: its bindings as written
        keymap = None
    if not keymap:
        return bindings
    mapped = bindings.copy()
    mapped.apply_keymap(keymap)
    return mapped


def anchor_released(widget: Widget) -> bool:
    """``Widget._anchor_released``: an anchored widget the user scrolled away from the bottom
    (Textual 8.2.8 sets it in ``release_anchor`` and clears it when the bottom is reached).
    ``is_anchored`` stays True meanwhile, so it is the only way to tell "following the end" from
    "scrolled up". If it goes, the transcript would yank a reader back to the bottom."""
    return widget._anchor_released


widget_visual: Callable[[Widget], Visual] = Widget._render
"""``Widget._render()``: the widget's ``render()`` as a cached ``Visual`` (Textual 8.2.8). Bound
directly (no wrapper: it is called per line); callers must not override ``_render`` (the canary
checks ``MessageView`` does not)."""


# A mixin is a plain class at run time: Textual inherits default CSS and type selectors through
# the first DOMNode base only, so a Widget mixin put first would hide the real base's CSS.
if TYPE_CHECKING:
    _MixinBase = Widget
else:
    _MixinBase = object


class OneLayoutPass(_MixinBase):
    """A widget whose new size, set by a layout pass, does not ask for a second layout pass.

    Textual's ``Widget._size_updated(size, virtual_size, container_size, layout)`` (8.2.8) is
    called by the layout pass with each widget's new size, and stores the virtual size through
    the ``virtual_size`` reactive, which is declared ``layout=True``: every layout that resizes
    the widget asks for another full layout and a full repaint of it on the next update, though
    the pass that called it has just placed everything at these sizes. A streaming answer resizes
    its block, its message and the transcript on every new line, so half of its layout passes
    were these. This passes ``layout=False`` (Textual's own choice for the layout of a scroll,
    and ``ScrollView``'s always): the value is set without a refresh. A scrollbar that appears or
    goes still asks for a layout (``show_vertical_scrollbar`` is a layout reactive), and a widget
    whose size changed is still repainted (``_size_updated`` calls ``_set_dirty()``). If Textual
    renames the method or its ``layout`` argument, the second pass comes back: the canary counts
    the passes. Put it before the Textual base class.
    """

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size,
                      layout: bool = True) -> bool:
        return super()._size_updated(size, virtual_size, container_size, False)


class SteadyScrollView(_MixinBase):
    """A ``ScrollView`` that a layout pass leaves alone when nothing of its own changed (put it
    before the Textual base class).

    Textual 8.2.8's ``ScrollView._size_updated(size, virtual_size, container_size, layout)`` is
    called for every widget by every layout pass. It compares the virtual size the pass gives
    (the viewport) with its own (the document's): they differ, so each pass (each new line of a
    streaming answer) set its scrollbars again and repainted them: the composer's, beside the
    transcript's, made the frame's crop a column from the top of the transcript to the foot of
    the composer. This skips the call when everything ``_scroll_update`` reads is what it read
    last time (the size, the virtual size, the gutter, the overflow and scrollbar styles), the
    scroll offsets are within their limits (``_scroll_update`` clamps them: text added and taken
    away between two passes leaves the key as it was and the offset past the end), and no
    scrollbar change is pending (``_scrollbar_changes``, which ``_refresh_scrollbars`` keeps);
    it returns what ScrollView returns then. If Textual changes any of these three methods, the
    canary compares its source with the 8.2.8 text.
    """

    _steady_key: tuple[object, ...] | None = None

    def _steady(self, size: Size) -> tuple[object, ...]:
        styles = self.styles
        return (size, self.virtual_size, styles.gutter.totals, styles.overflow_x, styles.overflow_y,
                styles.scrollbar_size_vertical, styles.scrollbar_size_horizontal, styles.scrollbar_gutter)

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size,
                      layout: bool = True) -> bool:
        key = self._steady(size)
        if (key == self._steady_key and not self._scrollbar_changes
                and self.validate_scroll_x(self.scroll_x) == self.scroll_x
                and self.validate_scroll_y(self.scroll_y) == self.scroll_y):
            return self._container_size != container_size  # ScrollView's answer, size unchanged
        resized = super()._size_updated(size, virtual_size, container_size, layout)
        self._steady_key = key
        return resized


class OwnVerticalScrollBar(_MixinBase):
    """A scrollable widget whose vertical scrollbar is a ``VERTICAL_SCROLLBAR``, not Textual's own
    ``ScrollBar`` (put it before the Textual base class).

    Textual 8.2.8 creates the bar in the ``Widget.vertical_scrollbar`` property, with no hook for
    the class: this is that property with the class swapped (it sets ``_vertical_scrollbar`` and
    starts the bar with ``App._start_widget``). ``Widget._scroll_update(virtual_size)`` sets the
    bar's sizes and then repaints it, moved or not; a bar with a ``geometry_only()`` context
    (``ThumbScrollBar``) is handed that repaint to judge. If Textual changes either, the canary
    compares their source with the 8.2.8 text; a bar not swapped is Textual's own (slower, still
    right), one not handed the repaint is repainted as in Textual.
    """

    VERTICAL_SCROLLBAR: ClassVar[type[ScrollBar]] = ScrollBar

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        if self._vertical_scrollbar is not None:
            return self._vertical_scrollbar
        self._vertical_scrollbar = scroll_bar = self.VERTICAL_SCROLLBAR(
            vertical=True, name="vertical", thickness=self.scrollbar_size_vertical)
        scroll_bar.display = False
        self.app._start_widget(self, scroll_bar)
        return scroll_bar

    def _scroll_update(self, virtual_size: Size) -> None:
        geometry_only = getattr(self._vertical_scrollbar, "geometry_only", None)
        if geometry_only is None:
            super()._scroll_update(virtual_size)
            return
        with geometry_only():
            super()._scroll_update(virtual_size)


def _trim_line_cache(cache: StylesCache, crop: Region, screen_rows: int) -> None:
    """Drop the lines a widget drew that are more than a screen away from ``crop``.

    Textual keeps every line a widget has drawn (``StylesCache._cache``: ``y`` → ``Strip``, ~1 KB
    each with its own caches and segments) until the widget is resized or restyled: a long
    answer followed to its end kept all of its lines. A line dropped is drawn again if the
    reader scrolls back to it. (Only when the cache holds more than four screens: the check
    walks it.) A widget drawn through ``render()`` (a ``Static``) also keeps its content's own
    rendering whole (``Widget._render_cache``): there this drops only the styled copy."""
    lines = cache._cache
    rows = max(1, screen_rows)
    if len(lines) > 4 * rows:
        low, high = crop.y - rows, crop.bottom + rows
        for y in [y for y in lines if not low <= y < high]:
            del lines[y]


class BoundedLineCache(_MixinBase):
    """A widget that keeps only the lines it drew within a screen of the view (``_trim_line_cache``;
    put it before the Textual base class)."""

    def render_lines(self, crop: Region) -> list[Strip]:
        lines = super().render_lines(crop)
        _trim_line_cache(self._styles_cache, crop, self.app.size.height)
        return lines


class LightRepaintBase(BoundedLineCache, OneLayoutPass, Widget):
    """A full repaint of a tall widget that costs O(1), not O(height) (put before the Textual base).

    Textual's ``Widget._set_dirty()`` (a full repaint, done on every resize) empties the widget's
    line cache and then also marks each of its lines dirty, one set entry per line. An empty
    cache re-renders whatever is drawn anyway, so the second step only costs. This overrides
    ``_set_dirty(*regions)`` as it is in Textual 8.2.8, minus that step (it touches
    ``_dirty_regions``, ``_repaint_regions`` and ``_styles_cache``), and
    ``_size_updated(size, virtual_size, container_size, layout)`` (reads ``_size``) to keep the
    line cache when only the height changed and ``KEEP_LINES_WHEN_TALLER`` is set. If Textual
    changes either method, tall widgets repaint stale lines or not at all: the canary compares
    both methods' source with the 8.2.8 text this copies.
    """

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


class TextAreaInputHooks(TextArea):
    """``TextArea`` whose key and paste handling can be taken over: override ``take_key`` /
    ``take_paste`` and call ``super()`` for TextArea's own behaviour.

    Wraps TextArea's private handlers ``_on_key(event)`` and ``_on_paste(event)`` (Textual
    8.2.8): Textual dispatches ``_on_key`` before any public ``on_key``, and TextArea inserts
    text there, so it is the only place to see a key before it is typed. Textual's dispatch then
    calls TextArea's own handler too unless the event's default was prevented (TextArea does so
    for a key it inserts): an override that handles the event itself calls ``prevent_default``.
    If they are renamed, the composer's Enter inserts a newline instead of sending and pastes
    skip cleaning.
    """

    async def _on_key(self, event: events.Key) -> None:
        await self.take_key(event)

    async def _on_paste(self, event: events.Paste) -> None:
        await self.take_paste(event)

    async def take_key(self, event: events.Key) -> None:
        await super()._on_key(event)

    async def take_paste(self, event: events.Paste) -> None:
        await super()._on_paste(event)


# ---------------------------------------------------------------------------- Rich
def table_column_widths(table: Table, console: Console, options: ConsoleOptions) -> list[int]:
    """The column widths (padding included, borders not) ``table`` is drawn at within ``options``,
    as ``Table.__rich_console__`` computes them with the private ``_calculate_column_widths`` and
    ``_extra_width``. ``widgets/transcript/markdown_table.py`` draws a streamed table's rows in
    cached blocks at these widths: if Rich computes them differently, its tables no longer
    match Rich's own (``tests/unit/test_markdown_table.py`` fails)."""
    max_width = options.max_width if table.width is None else table.width
    return table._calculate_column_widths(console, options.update_width(max_width - table._extra_width))


def table_padding_width(table: Table, column: int) -> int:
    """The padding ``table`` adds to ``column``'s cells (``Table._get_padding_width``): a fixed
    column width is given without it."""
    return table._get_padding_width(column)


class PreparsedMarkdown(RichMarkdown):
    """``rich.markdown.Markdown`` from tokens parsed already: its ``__init__`` is skipped.

    Rich 15.0.0's ``Markdown.__init__`` builds a new markdown-it parser every time (≈ 0.5 ms) and
    sets ``markup``, ``parsed``, ``code_theme``, ``justify``, ``style``, ``hyperlinks``,
    ``inline_code_lexer`` and ``inline_code_theme``; this sets the same attributes itself. If
    Rich adds one, rendering fails with an AttributeError (the canary compares the sets).
    """

    def __init__(self, markup: str, parsed: list[Token], code_theme: str) -> None:
        # no super().__init__: it would build a parser
        self.markup = markup
        self.parsed = parsed
        self.code_theme = code_theme
        self.justify = None
        self.style = "none"
        self.hyperlinks = False
        self.inline_code_lexer = None
        self.inline_code_theme = code_theme
