"""Canaries for every private Textual/Rich name octui uses (all in ``widgets/_textual_compat.py``),
and a lint that nothing else in ``tui/`` or ``widgets/`` touches one.

Each canary fails with a message naming the compat entry to re-check. The source hashes are of
the Textual 8.2.8 methods that ``_textual_compat`` copies or mirrors: when one changes, read the
new method and port the change before updating the hash.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib
import importlib.metadata
import inspect
import re
import sys
from pathlib import Path
from typing import Any, cast

import pytest
import rich
import textual
import textual._compositor
from markdown_it import MarkdownIt
from rich.color import ColorSystem
from rich.console import Console
from rich.markdown import Markdown as RichMarkdown
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingsMap
from textual.containers import HorizontalScroll, VerticalScroll
from textual.dom import DOMNode
from textual.geometry import Region
from textual.message import Message
from textual.reactive import Reactive
from textual.screen import ModalScreen, Screen
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.visual import Visual
from textual.widget import Widget
from textual.widgets import Collapsible, Static, TextArea

import tui.app.frame_writer  # noqa: F401  (installs the compositor patch)
from widgets import _textual_compat as compat
from widgets._textual_compat import (
    RICH_VERSION,
    TEXTUAL_VERSION,
    ChopsUpdate,
    DisplayHookApp,
    LayoutUpdate,
    PreparsedMarkdown,
    TextAreaInputHooks,
    rich_divide_line,
)

REPO = Path(__file__).resolve().parents[2]
COMPAT = REPO / "widgets" / "_textual_compat.py"


def _hash(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def _params(function: Any) -> list[str]:
    return list(inspect.signature(function).parameters)


def _recheck(entry: str) -> str:
    return (f"Textual {textual.__version__} / Rich {importlib.metadata.version('rich')} changed what "
            f"widgets/_textual_compat.py:{entry} relies on (written against Textual {TEXTUAL_VERSION}, "
            f"Rich {RICH_VERSION}): re-read it against the new source and port it.")


# ---------------------------------------------------------------------------- the pins
def test_installed_textual_and_rich_are_the_versions_compat_was_written_for() -> None:
    assert textual.__version__ == TEXTUAL_VERSION, (
        f"Textual is {textual.__version__}, _textual_compat.py was written against {TEXTUAL_VERSION}: "
        "re-check every entry of widgets/_textual_compat.py (run this file), then move TEXTUAL_VERSION")
    assert importlib.metadata.version("rich") == RICH_VERSION, (
        f"Rich is {importlib.metadata.version('rich')}, _textual_compat.py was written against "
        f"{RICH_VERSION}: re-check PreparsedMarkdown and console_color_system, then move RICH_VERSION")
    assert rich.__name__ == "rich"


def test_pyproject_pins_textual_and_rich_exactly_to_those_versions() -> None:
    text = (REPO / "pyproject.toml").read_text()
    assert f'"textual=={TEXTUAL_VERSION}"' in text, "pyproject.toml must pin textual to TEXTUAL_VERSION"
    assert f'"rich=={RICH_VERSION}"' in text, "pyproject.toml must pin rich to RICH_VERSION"


# ---------------------------------------------------------------------------- App and driver
class RecordingDriver:
    """Stands in for the app's driver and keeps what is written (also used by test_frame_writer)."""

    is_headless = False
    is_inline = False

    def __init__(self) -> None:
        self.data: list[str] = []

    def write(self, data: str) -> None:
        self.data.append(data)

    def flush(self) -> None:
        pass


def test_driver_write_uses_app_driver() -> None:
    app = App[None]()
    assert "_driver" in vars(app), _recheck("driver_write (App._driver)")
    assert compat.driver_write(app, "\x07") is False  # no driver yet
    fake = RecordingDriver()
    app._driver = fake  # type: ignore[assignment]
    assert not app.is_headless, _recheck("driver_write (App.is_headless reads App._driver)")
    assert compat.driver_write(app, "\x07") and fake.data == ["\x07"]
    assert compat.driver_write(app, "") is False


def test_terminal_sync_available_reads_the_decrqm_answer() -> None:
    app = App[None]()
    assert compat.terminal_sync_available(app) is False
    assert "self._sync_available = True" in inspect.getsource(App), _recheck("terminal_sync_available")
    app._sync_available = True
    assert compat.terminal_sync_available(app) is True


def test_report_exception_is_apps_handler() -> None:
    assert _params(App._handle_exception) == ["self", "error"], _recheck("report_exception")


def test_console_color_system_is_the_enum() -> None:
    console = Console(color_system="truecolor", force_terminal=True, legacy_windows=False)
    assert compat.console_color_system(console) is ColorSystem.TRUECOLOR, _recheck("console_color_system")
    assert compat.console_color_system(Console(color_system=None)) is None, _recheck("console_color_system")
    rendered = Strip.render_style(Style(bold=True), "x", compat.console_color_system(console))  # type: ignore[arg-type]
    assert rendered == "\x1b[1mx\x1b[0m", _recheck("console_color_system (Strip.render_style)")


def test_sync_sequences_are_dec_mode_2026() -> None:
    assert (compat.SYNC_START, compat.SYNC_END) == ("\x1b[?2026h", "\x1b[?2026l"), _recheck("SYNC_START/END")


def test_display_hook_mirrors_app_display() -> None:
    assert _params(App._display) == ["self", "screen", "renderable"], _recheck("DisplayHookApp._display")
    assert _hash(inspect.getsource(App._display)) == "4b78dff6669a455c", _recheck(
        "DisplayHookApp._display (its guards copy App._display's)")
    app = App[None]()
    for name in ("_batch_count", "_running", "_closed"):
        assert name in vars(app), _recheck(f"DisplayHookApp._display (App.{name})")


def test_compositor_update_shapes() -> None:
    strip = Strip([], 0)
    layout = LayoutUpdate([[strip]], Region(0, 0, 4, 1))
    assert layout.strips and layout.region == Region(0, 0, 4, 1), _recheck("LayoutUpdate")
    assert _params(ChopsUpdate) == ["chops", "spans", "chop_ends"], _recheck("ChopsUpdate")


class _Recorder(DisplayHookApp[None]):
    def __init__(self) -> None:
        super().__init__()
        self.updates: list[Any] = []

    def compose(self) -> ComposeResult:
        yield Static("one", id="one")

    def display_update(self, screen: Screen[Any], update: Any, driver: Any) -> None:
        self.updates.append(update)


async def test_textual_hands_compositor_updates_to_the_hook() -> None:
    app = _Recorder()
    async with app.run_test() as pilot:
        await pilot.pause()
        app.query_one("#one", Static).update("two")
        await pilot.pause()
        await pilot.pause()
    kinds = {type(update) for update in app.updates}
    assert LayoutUpdate in kinds and ChopsUpdate in kinds, _recheck("DisplayHookApp (no updates arrive)")
    for update in app.updates:
        if isinstance(update, ChopsUpdate):
            assert update.chops and update.spans and update.chop_ends, _recheck("ChopsUpdate attributes")


def test_get_renders_is_the_one_replaced() -> None:
    source = inspect.getsource(textual._compositor)
    found = [node for node in ast.walk(ast.parse(source))
             if isinstance(node, ast.FunctionDef) and node.name == "_get_renders"]
    assert len(found) == 1, _recheck("install_cropped_renders (Compositor._get_renders is gone)")
    assert _hash(ast.get_source_segment(source, found[0]) or "") == "c5f86e10abeff84b", _recheck(
        "install_cropped_renders (Compositor._get_renders changed: port the change to _cropped_renders)")
    assert "renders = self._get_renders(crop)" in source, _recheck("install_cropped_renders (its caller)")
    assert textual._compositor.Compositor._get_renders is compat._cropped_renders
    # What a crop's cells being Textual's own rests on (``_cropped_renders``' docstring).
    compositor, chops = textual._compositor.Compositor, textual._compositor.ChopsUpdate
    methods: tuple[tuple[Any, str], ...] = (
        (compositor._render_chops, "ca8c3359d7afd017"), (chops.render_segments, "4c1cdb567e0b8354"),
        (cast(property, compositor.visible_widgets).fget, "6eddec5f271628f7"))
    for method, digest in methods:
        assert _hash(inspect.getsource(method)) == digest, _recheck(
            f"install_cropped_renders ({method.__qualname__} changed: is the first strip of a chop "
            "still the one shown, front to back, and only chops meeting a span read?)")



class _Layered(App[None]):
    """Widgets in front of others: a docked bar, a scrolled list with its scrollbar, a list
    scrolled sideways, a box with a border, and a floating layer (cut by the screen's edge) over
    the foot of the list and its scrollbar, the sideways list and the top of the box."""

    CSS = """
    Screen { layers: base above; }
    #bar { dock: top; height: 1; background: blue; }
    #list { height: 1fr; padding: 0 1; scrollbar-gutter: stable; }
    #wide { height: 4; }
    #wide > Static { width: 200; }
    #box { height: 6; padding: 1 2; border: round red; }
    #float { layer: above; offset: 40 12; width: 30; height: 8; background: green 50%; }
    """

    def compose(self) -> ComposeResult:
        yield Static("the bar", id="bar")
        with VerticalScroll(id="list"):
            for number in range(40):
                yield Static(f"line {number} " + "word " * (number % 9))
        with HorizontalScroll(id="wide"):
            yield Static("far " * 50)
        yield Static("in a box", id="box")
        yield Static("floating over the rest", id="float")


class _Veil(ModalScreen[None]):
    """A dialog over the app, its screen's background translucent (the app shows through)."""

    CSS = "_Veil { background: black 40%; align: center middle; } #dialog { width: 20; height: 3; }"

    def compose(self) -> ComposeResult:
        yield Static("a dialog", id="dialog")


def _cells(chops: Any, crop: Region) -> list[list[tuple[int, str, Any]]]:
    """The cells of ``crop`` that ``chops`` paint (what a writer of the crop would write)."""
    rows = []
    for y in range(crop.y, crop.bottom):
        cells: list[tuple[int, str, Any]] = []
        for x, strip in chops[y].items():
            if strip is None:
                continue
            chars = [(char, segment.style) for segment in strip for char in segment.text]  # ASCII
            for offset, (char, style) in enumerate(chars):
                if crop.x <= x + offset < crop.right:
                    cells.append((x + offset, char, style))
        rows.append(sorted(cells))
    return rows


def _compare_every_crop(compositor: Any, width: int, height: int) -> int:
    """Asserts both renders give every crop's cells alike; returns how many widget renders the
    crops were spared."""
    import random

    rng = random.Random(7)
    crops = [Region(0, 0, width, height), Region(3, 5, 40, 1), Region(width - 2, 0, 2, height),
             Region(10, 3, 30, 5), Region(0, height - 1, width, 1), Region(12, 4, 2, 2)]
    crops += [Region(x, y, rng.randint(1, width - x), rng.randint(1, height - y))
              for x, y in ((rng.randrange(width), rng.randrange(height)) for _ in range(80))]
    spared = 0
    for crop in crops:
        rendered = sum(1 for _ in compat._cropped_renders(compositor, crop))
        spared += sum(1 for _ in compat.textual_get_renders(compositor, crop)) - rendered
        textual._compositor.Compositor._get_renders = compat.textual_get_renders  # type: ignore[method-assign]
        try:
            theirs = compositor._render_chops(crop, lambda y: True)
        finally:
            textual._compositor.Compositor._get_renders = compat._cropped_renders  # type: ignore[method-assign]
        mine = compositor._render_chops(crop, lambda y: True)
        assert _cells(mine, crop) == _cells(theirs, crop), crop
    return spared


async def test_cropped_renders_paint_every_crop_as_textuals_own_do() -> None:
    """Widgets that paint no cell of a crop, or sit behind one covering it, are not rendered;
    the crop's cells still come out exactly as Textual's own ``_get_renders`` makes them: over a
    layered screen, lists scrolled both ways, and a translucent modal screen over it all."""
    app = _Layered()
    async with app.run_test(size=(60, 24)) as pilot:
        await pilot.pause()
        app.query_one("#list").scroll_to(y=7, animate=False)
        app.query_one("#wide").scroll_to(x=33, animate=False)
        await pilot.pause()
        compositor = app.screen._compositor
        assert _compare_every_crop(compositor, 60, 24) > 0
        # Inside the float, only the float is rendered: all behind it is hidden there.
        inside = app.query_one("#float").region.intersection(Region(0, 0, 60, 24)).shrink((1, 1, 1, 1))
        shown = [strips for _, _, strips in compat._cropped_renders(compositor, inside)]
        assert len(shown) == 1
        # Beside the list's scrollbar, the scrollbar is not rendered.
        scrollbar = app.query_one("#list").vertical_scrollbar
        line = Region(2, scrollbar.region.y + 1, 10, 1)
        assert scrollbar.region in [region for region, _, _ in compat.textual_get_renders(compositor, line)]
        assert scrollbar.region not in [region for region, _, _ in compat._cropped_renders(compositor, line)]
        await app.push_screen(_Veil())
        await pilot.pause()
        assert _compare_every_crop(app.screen._compositor, 60, 24) > 0


# ---------------------------------------------------------------------------- widgets
def test_node_bindings_are_the_class_bindings() -> None:
    class Bound(Widget):
        BINDINGS = [Binding("f5", "go", "Go", id="t.go")]

    bindings = compat.node_bindings(Bound())
    assert isinstance(bindings, BindingsMap), _recheck("node_bindings (DOMNode._bindings)")
    assert [b.id for _, b in bindings] == ["t.go"], _recheck("node_bindings")
    assert "self._bindings = (" in inspect.getsource(DOMNode.__init__), _recheck("node_bindings")


class _Scroller(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            for n in range(50):
                yield Static(f"line {n}")


async def test_anchor_released_follows_release_and_return_to_bottom() -> None:
    app = _Scroller()
    async with app.run_test(size=(20, 10)) as pilot:
        scroller = app.query_one(VerticalScroll)
        scroller.anchor()
        await pilot.pause()
        assert compat.anchor_released(scroller) is False, _recheck("anchor_released")
        scroller.release_anchor()
        assert compat.anchor_released(scroller) is True, _recheck("anchor_released (release_anchor)")
        assert scroller.is_anchored  # still anchored: hence the private flag
        scroller.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert compat.anchor_released(scroller) is False, _recheck("anchor_released (back at the bottom)")


async def test_widget_visual_is_the_cached_render() -> None:
    from widgets.transcript.message_view import MessageView

    assert compat.widget_visual is Widget._render and _params(Widget._render) == ["self"], _recheck(
        "widget_visual")
    assert _hash(inspect.getsource(Widget._render)) == "2dcb80e06be029c2", _recheck("widget_visual")
    overriders = [cls for cls in MessageView.__mro__ if "_render" in cls.__dict__]
    assert overriders == [Widget], f"{overriders} override _render: widget_visual would bypass them"
    app = _Scroller()
    async with app.run_test():
        visual = compat.widget_visual(app.query(Static).first())
        assert isinstance(visual, Visual), _recheck("widget_visual")


def test_light_repaint_overrides_the_methods_it_copies() -> None:
    assert _params(Widget._set_dirty) == ["self", "regions"], _recheck("LightRepaintBase._set_dirty")
    assert _params(Widget._size_updated) == ["self", "size", "virtual_size", "container_size", "layout"], (
        _recheck("LightRepaintBase._size_updated"))
    assert _hash(inspect.getsource(Widget._set_dirty)) == "9c280366b8986cc8", _recheck(
        "LightRepaintBase._set_dirty (it is a copy of Widget._set_dirty minus one step)")
    assert _hash(inspect.getsource(Widget._size_updated)) == "21ffb00b8a983315", _recheck(
        "LightRepaintBase._size_updated (relies on it calling _set_dirty() when the size changes)")


async def test_light_repaint_marks_the_whole_widget_dirty() -> None:
    class Tall(compat.LightRepaintBase, Static):
        pass

    class TallApp(App[None]):
        def compose(self) -> ComposeResult:
            yield Tall("x\n" * 40)

    app = TallApp()
    async with app.run_test(size=(20, 10)) as pilot:
        tall = app.query_one(Tall)
        await pilot.pause()
        tall._set_dirty()
        assert tall._dirty_regions == {tall.outer_size.region}, _recheck("LightRepaintBase._set_dirty")
        assert tall._repaint_regions == {tall.outer_size.region}, _recheck("LightRepaintBase._set_dirty")


async def test_light_repaint_keeps_only_the_lines_near_the_view() -> None:
    """Textual keeps every line a widget drew (``StylesCache._cache``, y → Strip) until it is
    resized or restyled; a tall widget scrolled through keeps the lines within a screen of the
    view only, and draws the others again when they come back."""

    class Tall(compat.LightRepaintBase, Static):
        DEFAULT_CSS = "Tall { height: auto; }"

    class TallApp(App[None]):
        def compose(self) -> ComposeResult:
            with VerticalScroll():
                yield Tall("\n".join(f"line {i}" for i in range(400)))

    app = TallApp()
    async with app.run_test(size=(20, 10)) as pilot:
        scroll, tall = app.query_one(VerticalScroll), app.query_one(Tall)
        for y in range(0, 400, 5):
            scroll.scroll_to(y=y, animate=False)
            await pilot.pause()
        cache = tall._styles_cache._cache
        assert isinstance(cache, dict) and all(isinstance(y, int) for y in cache), _recheck(
            "_trim_line_cache (StylesCache._cache: y -> Strip)")
        assert 10 <= len(cache) <= 5 * 10, len(cache)  # not the 400 lines it drew
        assert min(cache) >= 390 - 5 * 10
        scroll.scroll_to(y=0, animate=False)
        await pilot.pause()
        assert app.screen._compositor.render_strips()[0].text.startswith("line 0")


async def test_a_long_diff_keeps_only_the_lines_near_the_view() -> None:
    from tui.text.tool_diffs import DiffFile, parse_patch
    from widgets.tools.diff_view import DiffView

    patch = "@@ -1,600 +1,600 @@\n" + "".join(f"-old {i}\n+new {i}\n" for i in range(300))
    diff = DiffFile(path="a.py", hunks=parse_patch(patch))

    class DiffApp(App[None]):
        def compose(self) -> ComposeResult:
            with VerticalScroll():
                yield DiffView(diff, split=False)

    app = DiffApp()
    async with app.run_test(size=(60, 10)) as pilot:
        scroll, view = app.query_one(VerticalScroll), app.query_one(DiffView)
        for y in range(0, view.size.height, 5):
            scroll.scroll_to(y=y, animate=False)
            await pilot.pause()
        assert view.size.height > 500
        assert len(view._styles_cache._cache) <= 5 * 10


class _GrowingScroll(compat.OneLayoutPass, VerticalScroll):
    pass


class _Growing(compat.OneLayoutPass, Static):
    pass


class _GrowingApp(App[None]):
    def __init__(self, mixed: bool) -> None:
        super().__init__()
        self.mixed = mixed

    def compose(self) -> ComposeResult:
        with _GrowingScroll() if self.mixed else VerticalScroll():
            text = "\n".join(["x"] * 20)  # taller than the screen: the scrollbar is there already
            yield _Growing(text) if self.mixed else Static(text)


async def _layout_passes_for_a_new_line(mixed: bool, monkeypatch: pytest.MonkeyPatch) -> int:
    passes: list[int] = []
    original = Screen._refresh_layout

    def counted(screen: Screen[Any], *args: Any, **kwargs: Any) -> None:
        passes.append(1)
        original(screen, *args, **kwargs)

    app = _GrowingApp(mixed)
    async with app.run_test(size=(20, 10)) as pilot:
        await pilot.pause()
        monkeypatch.setattr(Screen, "_refresh_layout", counted)
        app.query_one(Static).update("\n".join(["x"] * 30))  # the scroll view's virtual size grows too
        for _ in range(5):
            await pilot.pause()
        monkeypatch.undo()
        scroll = app.query_one(VerticalScroll)
        assert scroll.virtual_size.height == 30 and scroll.show_vertical_scrollbar
    return len(passes)


async def test_one_layout_pass_per_resize(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = await _layout_passes_for_a_new_line(False, monkeypatch)
    mixed = await _layout_passes_for_a_new_line(True, monkeypatch)
    assert (plain, mixed) == (2, 1), _recheck(
        f"OneLayoutPass ({plain} layout passes without it, {mixed} with it)")


async def test_one_layout_pass_keeps_the_base_class_css() -> None:
    """A mixin put first must not hide the Textual base's default CSS (VerticalScroll: overflow-y auto)."""
    app = _GrowingApp(True)
    async with app.run_test(size=(20, 10)):
        scroll = app.query_one(_GrowingScroll)
        assert scroll.styles.overflow_y == "auto"
        assert app.query("VerticalScroll").first() is scroll  # its type selector matches too


def test_own_vertical_scrollbar_copies_the_property_and_wraps_the_scroll_update() -> None:
    scrollbar: Any = cast(property, Widget.vertical_scrollbar).fget
    assert _hash(inspect.getsource(scrollbar)) == "6b140a728f0b50e4", _recheck(
        "OwnVerticalScrollBar.vertical_scrollbar (a copy of Widget.vertical_scrollbar, its class swapped)")
    assert _hash(inspect.getsource(Widget._scroll_update)) == "edb9f6257285830d", _recheck(
        "OwnVerticalScrollBar._scroll_update (it hands the bar the repaint Widget._scroll_update asks)")
    assert _params(Widget.refresh) == ["self", "regions", "repaint", "layout", "recompose"], _recheck(
        "ThumbScrollBar.refresh (it overrides Widget.refresh)")
    # ThumbScrollBar._bar asks the renderer what ScrollBar._render_bar and the renderer ask.
    assert _hash(inspect.getsource(ScrollBar._render_bar)) == "1f4e4e637581fc4f", _recheck(
        "ThumbScrollBar._bar (mirrors ScrollBar._render_bar)")
    assert _hash(inspect.getsource(ScrollBarRender.__rich_console__)) == "39854fc82928d647", _recheck(
        "ThumbScrollBar._bar (mirrors ScrollBarRender.__rich_console__: size and thickness)")
    assert _hash(inspect.getsource(ScrollBar.render)) == "43a56156a9a6cc05", _recheck(
        "ThumbScrollBar (its geometry is compared in the renderer's default colours: does render() "
        "still give it only colours?)")


def test_steady_scroll_view_skips_only_what_scroll_view_would_redo() -> None:
    params = ["self", "size", "virtual_size", "container_size", "layout"]
    assert _params(ScrollView._size_updated) == params, _recheck("SteadyScrollView._size_updated")
    assert _hash(inspect.getsource(ScrollView._size_updated)) == "1606ca15d9392999", _recheck(
        "SteadyScrollView._size_updated (skips ScrollView._size_updated when what it reads is unchanged)")
    assert _hash(inspect.getsource(Widget._refresh_scrollbars)) == "4e52a14aae901b5b", _recheck(
        "SteadyScrollView._size_updated (skips while _refresh_scrollbars keeps no pending change in "
        "_scrollbar_changes; does it still read only the styles and sizes the skip compares?)")


async def test_the_transcript_and_the_composer_use_them() -> None:
    from widgets.composer.composer import Composer
    from widgets.transcript.thumb_scroll_bar import ThumbScrollBar
    from widgets.transcript.transcript import Transcript

    assert Transcript.VERTICAL_SCROLLBAR is ThumbScrollBar
    assert issubclass(Transcript, compat.OwnVerticalScrollBar)
    assert issubclass(Composer, compat.SteadyScrollView) and issubclass(Composer, ScrollView)


def test_text_area_has_the_private_handlers_the_hooks_wrap() -> None:
    for name in ("_on_key", "_on_paste"):
        assert name in TextArea.__dict__, _recheck(f"TextAreaInputHooks (TextArea.{name})")
        assert _params(TextArea.__dict__[name]) == ["self", "event"], _recheck(f"TextAreaInputHooks.{name}")


class _Hooked(TextAreaInputHooks):
    def __init__(self) -> None:
        super().__init__()
        self.keys: list[str] = []
        self.pastes: list[str] = []

    async def take_key(self, event: events.Key) -> None:
        self.keys.append(event.key)
        await super().take_key(event)

    async def take_paste(self, event: events.Paste) -> None:
        self.pastes.append(event.text)
        event.prevent_default()  # or Textual's dispatch calls TextArea's handler again after this
        await super().take_paste(event)


class _HookedApp(App[None]):
    def compose(self) -> ComposeResult:
        yield _Hooked()


async def test_text_area_hooks_see_keys_and_pastes_first() -> None:
    app = _HookedApp()
    async with app.run_test() as pilot:
        area = app.query_one(_Hooked)
        area.focus()
        await pilot.press("a", "b")
        app.post_message(events.Paste("cd"))  # as the driver delivers it
        await pilot.pause()
        assert area.keys == ["a", "b"] and area.pastes == ["cd"], _recheck("TextAreaInputHooks")
        assert area.text == "abcd", _recheck("TextAreaInputHooks (TextArea's own handling)")


# ---------------------------------------------------------------------------- Rich
def test_preparsed_markdown_sets_what_rich_markdown_init_sets() -> None:
    assert _params(RichMarkdown.__init__) == [
        "self", "markup", "code_theme", "justify", "style", "hyperlinks", "inline_code_lexer",
        "inline_code_theme"], _recheck("PreparsedMarkdown (Markdown.__init__'s parameters)")
    markup = "# Title\n\nSome *text* and `code`.\n\n```python\nx = 1\n```\n"
    parsed = MarkdownIt().enable("strikethrough").enable("table").parse(markup)
    ours = PreparsedMarkdown(markup, parsed, "monokai")
    rich_own = RichMarkdown(markup, code_theme="monokai", hyperlinks=False)
    assert set(vars(ours)) == set(vars(rich_own)), _recheck("PreparsedMarkdown (the attributes it sets)")
    console = Console(width=40, color_system="truecolor", force_terminal=True, legacy_windows=False)
    assert console.render_lines(ours) == console.render_lines(rich_own), _recheck("PreparsedMarkdown")


def test_rich_divide_line_is_where_text_wrap_breaks() -> None:
    assert _params(rich_divide_line) == ["text", "width", "fold"], _recheck("rich_divide_line")
    console = Console(width=40, color_system="truecolor", force_terminal=True, legacy_windows=False)
    for text in ("short words and a Supercalifragilisticexpialidocious-long-word  then more",
                 "x" * 75, "a  b   c    " * 6):
        for width in (7, 12, 30):
            offsets = rich_divide_line(text, width, fold=True)
            ours = [text[a:b] for a, b in zip([0, *offsets], [*offsets, len(text)], strict=True)]
            theirs = [line.plain for line in Text(text).wrap(console, width, overflow="fold")]
            assert [line[:width] for line in ours] == theirs, _recheck("rich_divide_line")
    # And Rich's markdown wraps a paragraph that way (left-justified, folded, padded).
    text = "plain words of a paragraph and Supercalifragilisticexpialidocious-long-words after"
    for width in (9, 20, 33):
        offsets = rich_divide_line(text, width, fold=True)
        ours = [text[a:b].ljust(width)[:width]
                for a, b in zip([0, *offsets], [*offsets, len(text)], strict=True)]
        theirs = ["".join(segment.text for segment in line)
                  for line in console.render_lines(RichMarkdown(text), console.options.update(width=width))]
        assert ours == theirs, _recheck("rich_divide_line (Rich's markdown paragraph)")


def test_table_widths_are_the_ones_rich_draws_a_table_at() -> None:
    """``table_column_widths`` / ``table_padding_width``: a table with its columns fixed at those
    widths (less the padding) draws as the table measured by Rich; and the methods the streamed
    table's blocks rely on (a row drawn from its own cells) are the ones it was written against."""
    from rich import box
    from rich.markdown import TableElement
    from rich.table import Table

    assert _hash(inspect.getsource(Table._render)) == "6490471a63634d32", _recheck(
        "table_column_widths (Table._render)")
    assert _hash(inspect.getsource(TableElement.__rich_console__)) == "e4e9e8fbbe8d0fb0", _recheck(
        "table_column_widths (the table TableElement builds: markdown_table._table)")
    assert _hash(inspect.getsource(Table._calculate_column_widths)) == "43a83e8eb7f1155a", _recheck(
        "table_column_widths (Table._calculate_column_widths)")
    console = Console(width=40, color_system="truecolor", force_terminal=True, legacy_windows=False)

    def built(fixed: list[int] | None) -> Table:
        table = Table(box=box.SIMPLE, pad_edge=False, show_edge=True, collapse_padding=True)
        for index, heading in enumerate(("name", "a longer heading", "n")):
            table.add_column(heading, width=None if fixed is None else fixed[index])
        table.add_row("one", "words that wrap across the width " * 2, "1")
        return table

    for width in (40, 17):
        options = console.options.update_width(width)
        measured = built(None)
        widths = compat.table_column_widths(measured, console, options)
        fixed = [w - compat.table_padding_width(measured, i) for i, w in enumerate(widths)]
        assert console.render_lines(built(fixed), options) == console.render_lines(measured, options), \
            _recheck("table_column_widths")


def test_collapsible_still_has_its_own_watcher_before_ours() -> None:
    """``ReasoningView.watch_collapsed`` (public) relies on Textual calling Collapsible's private
    watcher first: it fills the body after Collapsible has shown it."""
    source = inspect.getsource(Reactive._check_watchers)
    assert source.index("_watch_{name}") < source.index("watch_{name}\"", source.index("_watch_{name}")), (
        "Textual no longer calls private watchers before public ones: re-check ReasoningView.watch_collapsed")
    assert "_watch_collapsed" in Collapsible.__dict__


# ---------------------------------------------------------------------------- the lint
PRODUCT = ["tui", "widgets"]


def _product_files() -> list[Path]:
    return sorted(path for package in PRODUCT for path in (REPO / package).rglob("*.py") if path != COMPAT)


def _is_external(cls: type) -> bool:
    return cls.__module__.split(".")[0] in ("textual", "rich")


def _defined_by_external(name: str, cls: type, sources: dict[type, str]) -> type | None:
    """The Textual/Rich class in ``cls``'s MRO that defines or sets ``name``, if any."""
    for base in cls.__mro__:
        if not _is_external(base):
            continue
        if name in base.__dict__:
            return base
        if base not in sources:
            try:
                sources[base] = inspect.getsource(base)
            except (OSError, TypeError):
                sources[base] = ""
        if re.search(rf"self\.{re.escape(name)}\b", sources[base]):
            return base
    return None


@functools.cache  # (parsing all of Textual and Rich takes seconds; the lint runs ten times)
def _external_privates() -> frozenset[str]:
    """Every single-underscore name Textual or Rich defines (a def, a class attribute, ``self._x =``)."""
    names: set[str] = set()
    for package in (textual, rich):
        for path in Path(package.__file__ or "").parent.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    names.add(node.name)
                elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                    names.add(node.attr)
                elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    names.add(node.id)
    return frozenset(n for n in names if n.startswith("_") and not n.startswith("__"))


def _own_names(files: list[Path]) -> set[str]:
    """Private names octui's own code defines (so ``view._parts`` is ours, not Textual's)."""
    names: set[str] = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                    and isinstance(node.value, ast.Name) and node.value.id == "self":
                names.add(node.attr)
            elif isinstance(node, ast.AnnAssign | ast.Assign):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(target, ast.Name):
                        names.add(target.id)
    return names


# Private names of the standard library that octui uses and Textual or Rich happen to define too.
STDLIB = {("os", "_exit"), ("connection", "_replace"), ("re", "_parser")}


def _message_handler_names() -> set[str]:
    """``on_…`` handler names of every message class loaded (Textual's and octui's)."""
    names: set[str] = set()
    pending: list[type[Message]] = [Message]
    while pending:
        cls = pending.pop()
        names.add(getattr(cls, "handler_name", ""))
        pending.extend(cls.__subclasses__())
    return names


def _private_handler(name: str, cls: type, handlers: set[str]) -> bool:
    """Whether ``name`` is Textual's private form of a handler (``_on_<message>``) or of a
    reactive's watcher/compute/validator (``_watch_<reactive>`` …) on ``cls``."""
    if name[1:] in handlers:
        return True
    match = re.match(r"_(watch|compute|validate)_(\w+)$", name)
    return match is not None and isinstance(getattr(cls, match.group(2), None), Reactive)


def _calls_super_init(init: ast.FunctionDef) -> bool:
    for node in ast.walk(init):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "__init__":
            return True
    return False


def private_uses(files: list[Path], root: Path = REPO) -> list[str]:
    """Where ``files`` touch a private Textual/Rich name: imports of ``textual._*``/``rich._*``,
    ``x._name`` for a name Textual or Rich defines and octui does not, ``self._name`` (or a
    method ``_name``) in a class whose Textual/Rich base defines it, and Textual's private
    ``_on_*``/``_watch_*`` handler names in a Textual class."""
    external = _external_privates()
    own = _own_names(files)
    sources: dict[type, str] = {}
    found: list[str] = []
    modules = [importlib.import_module(".".join(path.relative_to(root).with_suffix("").parts))
               for path in files]
    handlers = _message_handler_names()  # after the imports: octui's messages too
    for path, module in zip(files, modules, strict=True):
        where = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and re.match(r"(textual|rich)\._", node.module or ""):
                found.append(f"{where}:{node.lineno} from {node.module} import")
            if isinstance(node, ast.Import):
                found += [f"{where}:{node.lineno} import {alias.name}" for alias in node.names
                          if re.match(r"(textual|rich)\._", alias.name)]
            private = node.attr.startswith("_") and not node.attr.startswith("__") \
                if isinstance(node, ast.Attribute) else False
            if isinstance(node, ast.Attribute) and private:
                base = node.value.id if isinstance(node.value, ast.Name) else ""
                if base != "self" and node.attr in external and node.attr not in own \
                        and (base, node.attr) not in STDLIB:
                    found.append(f"{where}:{node.lineno} .{node.attr}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                    node.func.id in ("getattr", "setattr", "hasattr") and len(node.args) >= 2:
                argument = node.args[1]
                if isinstance(argument, ast.Constant) and isinstance(argument.value, str) and \
                        argument.value in external and argument.value not in own:
                    found.append(f"{where}:{node.lineno} {node.func.id}(…, {argument.value!r})")
            if not isinstance(node, ast.ClassDef):
                continue
            cls = getattr(module, node.name, None)
            if not inspect.isclass(cls) or not any(_is_external(base) for base in cls.__mro__):
                continue
            init = next((item for item in node.body if isinstance(item, ast.FunctionDef)
                         and item.name == "__init__"), None)
            if init is not None and not _calls_super_init(init):
                found.append(f"{where}:{init.lineno} {node.name}.__init__ skips its base's __init__")
            for inner in ast.walk(node):
                name, line = "", 0
                if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef):
                    name, line = inner.name, inner.lineno
                    if _private_handler(name, cls, handlers):
                        found.append(f"{where}:{line} {node.name}.{name} (Textual's private handler name)")
                        continue
                elif isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) \
                        and inner.value.id == "self":
                    name, line = inner.attr, inner.lineno
                if name.startswith("_") and not name.startswith("__"):
                    owner = _defined_by_external(name, cls, sources)
                    if owner is not None:
                        found.append(f"{where}:{line} {node.name}.{name} ({owner.__qualname__})")
    return sorted(set(found))


def test_only_the_compat_module_touches_private_textual_or_rich_names() -> None:
    assert private_uses(_product_files()) == [], (
        "private Textual/Rich API outside widgets/_textual_compat.py: add a named function or base "
        "class there (with a canary in this file) and use that")


def test_the_lint_finds_each_kind_of_private_use() -> None:
    """Control: the compat module itself is full of them, each kind is found."""
    found = "\n".join(private_uses([COMPAT]))
    for expected in ("from textual._compositor import", "from textual._ansi_sequences import",
                     "._driver", "._sync_available", "._handle_exception", "._color_system",
                     "._bindings", "._anchor_released", "._get_renders", "._render",
                     "LightRepaintBase._set_dirty (Widget)", "LightRepaintBase._dirty_regions (Widget)",
                     "TextAreaInputHooks._on_key (Textual's private handler name)",
                     "PreparsedMarkdown.__init__ skips its base's __init__"):
        assert expected in found, expected


@pytest.mark.parametrize("snippet", [
    "from textual._compositor import Compositor\n",
    "import rich._loop\n",
    "def f(app):\n    return app._merged_bindings\n",
    "def f(app):\n    return getattr(app, '_driver', None)\n",
    "def f(cls):\n    cls._merged_bindings = cls._merge_bindings()\n",
    "from rich.markdown import Markdown\n"
    "class M(Markdown):\n    def __init__(self) -> None:\n        pass\n",
    "from textual.widget import Widget\n"
    "class W(Widget):\n    def f(self) -> bool:\n        return self._anchor_released\n",
    "from textual.widgets import Collapsible\n"
    "class C(Collapsible):\n    def _watch_collapsed(self, c: bool) -> None:\n        pass\n",
])
def test_the_lint_flags_a_new_use(tmp_path: Path, snippet: str, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "lintprobe"
    package.mkdir()
    (package / "__init__.py").write_text("")
    probe = package / "probe.py"
    probe.write_text(snippet)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("lintprobe", "lintprobe.probe"):  # a fresh module for each snippet
        monkeypatch.delitem(sys.modules, name, raising=False)
    assert private_uses([probe], root=tmp_path), snippet


def test_light_strips_make_the_caches_strip_init_makes() -> None:
    import textual.strip
    from rich.segment import Segment

    source = inspect.getsource(textual.strip)
    strip_class = next(node for node in ast.parse(source).body
                       if isinstance(node, ast.ClassDef) and node.name == "Strip")
    init = next(node for node in strip_class.body
                if isinstance(node, ast.FunctionDef) and node.name == "__init__")
    assert _hash(ast.get_source_segment(source, init) or "") == "466b535b5e38cc72", _recheck(
        "install_light_strips (Strip.__init__ changed: make _light_strip_init set what it sets)")
    # The caches are only read with .get and written with [key] = value (the two _Fifo has),
    # and only by Strip itself.
    caches = ("_divide_cache", "_crop_cache", "_style_cache", "_filter_cache", "_line_length_cache",
              "_crop_extend_cache", "_offsets_cache")
    names = "|".join(caches)
    used = set(re.findall(rf"\.({names})\.(\w+)\b", source))
    assert {name for _cache, name in used} == {"get"}, _recheck(f"install_light_strips ({sorted(used)})")
    # (Content has a ``_divide_cache`` of its own: only another object's attribute is looked for)
    other = re.compile(rf"(?<!\bself)\.({names})\b")
    elsewhere = [path.name for path in Path(textual.__file__).parent.rglob("*.py")
                 if path.name != "strip.py" and other.search(path.read_text(encoding="utf-8"))]
    assert not elsewhere, _recheck(f"install_light_strips (Strip's caches used in {elsewhere})")
    assert textual.strip.Strip.__init__ is compat._light_strip_init
    # Bounded as FIFOCache(16) / (4) are, the oldest first; the same strip back from a cache.
    strip = Strip([Segment("x" * 40)], 40)
    first = strip.crop(0, 1)
    assert strip.crop(0, 1) is first
    for end in range(2, 20):
        strip.crop(0, end)
    assert len(strip._crop_cache) == 16 and (0, 1) not in strip._crop_cache and (0, 19) in strip._crop_cache
    assert strip.divide([10, 40]) is strip.divide([10, 40])
    for cut in range(11, 16):
        strip.divide([cut, 40])
    assert len(strip._divide_cache) == 4


def test_alt_enter_sent_as_esc_cr_is_read_as_alt_enter() -> None:
    """tmux sends Alt+Enter as ESC CR; Textual's own parser reads it as "enter" (the prompt then
    steered where Alt+Enter queues). Read through the driver's parser, in one read and split."""
    from textual._xterm_parser import XTermParser

    from widgets._textual_compat import install_alt_keys, textual_sequence_to_key_events

    def keys(*reads: str) -> list[str]:
        parser = XTermParser()
        return [event.key for data in reads for event in parser.feed(data) if isinstance(event, events.Key)]

    original = XTermParser._sequence_to_key_events
    try:
        assert textual_sequence_to_key_events is not None  # (the canary: Textual still has it)
        XTermParser._sequence_to_key_events = textual_sequence_to_key_events  # type: ignore[method-assign]
        assert keys("a\x1b\rb", "") == ["a", "enter", "b"]  # Textual's own: the Alt is lost
        install_alt_keys()
        assert keys("a\x1b\rb\r") == ["a", "alt+enter", "b", "enter"]
        assert keys("\x1b", "\r") == ["alt+enter"]
        assert keys("\x1b[A\x1b[1;3A\r") == ["up", "alt+up", "enter"]  # the rest is Textual's
    finally:
        XTermParser._sequence_to_key_events = original  # type: ignore[method-assign]
