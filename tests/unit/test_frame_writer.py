"""FrameWriter: what octui writes to the terminal is only what changed, and always leaves the
terminal showing exactly what Textual's own (full) output would. Every check replays the bytes in
pyte, an independent VT emulator."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pyte
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual._compositor import ChopsUpdate, LayoutUpdate
from textual.app import App
from textual.geometry import Offset, Region
from textual.strip import Strip

from tests.snapshots.main_app import (
    NOW,
    SIZE,
    MainApp,
    frozen,
    main_screen,
    settle,
    type_prompt,
    wait_connected,
)
from tests.unit.cell_looks import look
from tests.unit.test_textual_compat import RecordingDriver
from tui.app.frame_writer import DiffedOutput, FrameWriter, render_cells
from widgets.status.status_bar import StatusBar
from widgets.transcript.text_block import TextBlockView

W, H = 40, 8
CONSOLE = Console(width=W, height=H, color_system="truecolor", force_terminal=True, legacy_windows=False)
STYLES = [Style(color="red"), Style(color="green", bold=True), Style(bgcolor="blue")]
CUP = re.compile(r"\x1b\[(\d+);(\d+)H")


@pytest.fixture(autouse=True)
def frozen_clock() -> Iterator[None]:
    with frozen(NOW):
        yield


class Terminal:
    """A pyte screen fed with what a writer produced."""

    def __init__(self, width: int = W, height: int = H) -> None:
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.ByteStream(self.screen)
        self.width, self.height = width, height

    def feed(self, text: str) -> None:
        self.stream.feed(text.encode())

    def cells(self) -> list[list[Any]]:
        return [[look(self.screen.buffer[y][x]) for x in range(self.width)] for y in range(self.height)]

    def lines(self) -> list[str]:
        return list(self.screen.display)


def strip(text: str, style: Style | None = None, width: int = W) -> Strip:
    return Strip([Segment(text + " " * (width - cell_len(text)), style)], width)


def full(rows: list[Strip]) -> LayoutUpdate:
    return LayoutUpdate([[row] for row in rows], Region(0, 0, W, len(rows)))


def chops(rows: dict[int, Strip], height: int = H) -> ChopsUpdate:
    """A partial update repainting whole lines (one chop per line, as a one-widget screen)."""
    lines: list[dict[int, Strip | None]] = [{0: rows.get(y)} for y in range(height)]
    return ChopsUpdate(lines, [(y, 0, W) for y in sorted(rows)], [[W] for _ in range(height)])


def written_rows(text: str) -> set[int]:
    return {int(m.group(1)) - 1 for m in CUP.finditer(text)}


HOME = Offset(0, 0)


def write(writer: FrameWriter, terminal: Terminal, update: Any, cursor: Offset = HOME) -> str:
    out = writer.frame(update, terminal.width, terminal.height, CONSOLE, cursor)
    terminal.feed(out)
    return out


# ---------------------------------------------------------------------------- the writer alone
def test_an_identical_frame_writes_nothing() -> None:
    writer, terminal = FrameWriter(), Terminal()
    rows = [strip(f"line {y}", STYLES[y % 3]) for y in range(H)]
    assert write(writer, terminal, full(rows))
    assert write(writer, terminal, full(list(rows))) == ""
    same = {2: strip("line 2", STYLES[2]), 5: strip("line 5", STYLES[2])}
    assert write(writer, terminal, chops(same)) == ""


def test_appending_a_word_writes_only_the_word() -> None:
    writer, terminal = FrameWriter(), Terminal()
    rows = [strip("") for _ in range(H)]
    rows[3] = strip("the answer so far", STYLES[0])
    write(writer, terminal, full(rows))
    out = write(writer, terminal, chops({3: strip("the answer so far grows", STYLES[0])}))
    assert written_rows(out) == {3, 0}  # the row, then the cursor back home
    assert "\x1b[4;19Hgrows" in out.replace("\x1b[31m", "")  # the space before it was a space already
    assert "the answer" not in out
    assert terminal.lines()[3].rstrip() == "the answer so far grows"


def test_a_style_change_alone_is_written() -> None:
    writer, terminal = FrameWriter(), Terminal()
    write(writer, terminal, full([strip("x") for _ in range(H)]))
    out = write(writer, terminal, chops({1: strip("x", STYLES[1])}))
    assert written_rows(out) == {1, 0}
    assert terminal.screen.buffer[1][0].bold


def test_wide_characters_and_combining_marks_stay_whole() -> None:
    writer, terminal = FrameWriter(), Terminal()
    write(writer, terminal, full([strip("a中b"), strip("cafe"), *[strip("") for _ in range(H - 2)]]))
    out = write(writer, terminal, chops({0: strip("a中c"), 1: strip("cafe\u0301")}))
    assert "\x1b[1;4Hc" in out  # after the two cells of 中
    assert "\x1b[2;4He\u0301" in out  # the base letter is written again with its mark
    assert terminal.lines()[0].startswith("a中c") and terminal.lines()[1].startswith("café")


def test_changes_far_apart_are_written_as_separate_runs_keeping_marks_with_their_letter() -> None:
    writer, terminal = FrameWriter(), Terminal()
    rows = [strip("") for _ in range(H)]
    write(writer, terminal, full([strip("x" + " " * 20 + "e\u0301aaa"), *rows[1:]]))
    out = write(writer, terminal, chops({0: strip("y" + " " * 20 + "e\u0301bbb")}))
    assert "\x1b[1;1Hy" in out and "\x1b[1;22He\u0301bbb" in out  # the spaces between are not written
    assert terminal.lines()[0].startswith("y" + " " * 20 + "ébbb")


def test_a_line_scrolled_in_is_written_without_its_trailing_blanks() -> None:
    writer, terminal = FrameWriter(), Terminal()
    body = [f"line {n} " + "with some words " * (n % 2 + 1) for n in range(12)]
    write(writer, terminal, full([strip(t) for t in body[:H]]))
    out = write(writer, terminal, full([strip(t) for t in body[1:H + 1]]))
    assert writer.scrolls == 1 and out.endswith(f"{body[H].rstrip()}\x1b[1;1H")  # no padding after it
    assert [line.rstrip() for line in terminal.lines()] == [line.rstrip() for line in body[1:H + 1]]


def test_content_moving_up_scrolls_the_band_and_writes_the_new_line() -> None:
    writer, terminal = FrameWriter(), Terminal()
    body = [f"paragraph line {n} with words" for n in range(20)]
    footer = [strip("composer", STYLES[2]), strip("status", STYLES[1])]
    write(writer, terminal, full([strip(t, STYLES[n % 2]) for n, t in enumerate(body[:6])] + footer))
    after = full([strip(t, STYLES[(n + 1) % 2]) for n, t in enumerate(body[1:7])] + footer)
    out = write(writer, terminal, after)
    assert "\x1b[1;6r" in out and "\x1bD" in out and writer.scrolls == 1
    assert written_rows(out) - {0, 5} == set()  # only the row that came in (and the cursor)
    assert [line.rstrip() for line in terminal.lines()] == [*body[1:7], "composer", "status"]


def test_content_moving_down_scrolls_the_other_way() -> None:
    writer, terminal = FrameWriter(), Terminal()
    body = [(f"{n} " + "older words of line " * (n % 3 + 1))[:W].rstrip() for n in range(10)]
    write(writer, terminal, full([strip(t) for t in body[3:9]] + [strip("c"), strip("s")]))
    out = write(writer, terminal, full([strip(t) for t in body[1:7]] + [strip("c"), strip("s")]))
    assert "\x1bM\x1bM" in out and writer.scrolls == 1
    assert [line.rstrip() for line in terminal.lines()] == [*body[1:7], "c", "s"]


def test_neighbours_of_one_style_share_one_sgr() -> None:
    red, bold = STYLES[0], STYLES[1]
    line = Strip([Segment("def", red), Segment(" ", red), Segment("f", bold), Segment("(x)", bold),
                  Segment(" " * (W - 8), None)], W)
    ours, theirs = Terminal(), Terminal()
    out, sgr = render_cells(line, CONSOLE._color_system)  # type: ignore[arg-type]
    ours.feed(out + "\x1b[0m")
    theirs.feed(line.render(CONSOLE))
    assert ours.cells() == theirs.cells()
    assert out.count("\x1b[") == 3 and len(out) < len(line.render(CONSOLE))  # red, bold, reset
    assert sgr == ""  # the default look at the end: nothing left to reset


def test_rows_of_unknown_content_are_written_as_textual_would() -> None:
    writer, terminal = FrameWriter(), Terminal()
    out = write(writer, terminal, chops({2: strip("partial", STYLES[0])}))
    assert written_rows(out) == {2, 0}
    assert terminal.lines()[2].rstrip() == "partial"
    out = write(writer, terminal, chops({2: strip("partial", STYLES[0])}))
    assert out == ""  # known now


# Letters, spaces, a wide character and a letter with a combining mark (never a mark on its own).
row_text = st.lists(st.sampled_from(["a", "b", " ", "   ", "中", "e\u0301"]), max_size=6).map("".join)
# A row of up to three segments (style index 3: no style), or None: the moved row stays.
new_row = st.none() | st.lists(st.tuples(row_text, st.integers(0, len(STYLES))), min_size=1, max_size=3)


def segments_row(parts: list[tuple[str, int]]) -> Strip:
    segments = [Segment(text, STYLES[n] if n < len(STYLES) else None) for text, n in parts if text]
    used = sum(cell_len(segment.text) for segment in segments)
    return Strip([*segments, Segment(" " * (W - used))], W)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.lists(new_row, min_size=H, max_size=H), st.booleans()),
                min_size=1, max_size=6))
def test_any_sequence_of_frames_leaves_the_terminal_as_a_full_repaint_would(
        frames: list[tuple[int, list[list[tuple[str, int]] | None], bool]]) -> None:
    """Rows moved up or down by a few lines, some replaced, as full or partial updates."""
    writer, terminal, reference = FrameWriter(), Terminal(), Terminal()
    rows = [strip(f"row {y}") for y in range(H)]
    first = full(rows)
    write(writer, terminal, first)
    reference.feed(first.render_segments(CONSOLE))
    for shift, replaced, partial in frames:
        moved = rows[shift:] + rows[:shift]
        rows = [moved[y] if new is None else segments_row(new) for y, new in enumerate(replaced)]
        update: Any = chops(dict(enumerate(rows))) if partial else full(rows)
        write(writer, terminal, update)
        reference.feed(update.render_segments(CONSOLE))
        assert terminal.cells() == reference.cells()


def two_chops(rows: dict[int, tuple[Strip, list[tuple[int, int]]]], split: int) -> ChopsUpdate:
    """A partial update of spans [x1, x2) of lines drawn by two widgets side by side (the left one
    ``split`` cells wide: a transcript and its scrollbar)."""
    lines: list[dict[int, Strip | None]] = []
    for y in range(H):
        row = rows.get(y)
        line = row[0] if row else None
        lines.append({0: line.crop(0, split), split: line.crop(split, W)} if line else {0: None, split: None})
    spans = [(y, x1, x2) for y, (_, pairs) in sorted(rows.items()) for x1, x2 in pairs]
    return ChopsUpdate(lines, spans, [[split, W] for _ in range(H)])


# No wide characters or combining marks here: in the compositor's updates a span never cuts a
# character (it covers every cell that changed), and the whole-row test above has them.
narrow_text = st.lists(st.sampled_from(["a", "b", " ", "   "]), max_size=6).map("".join)
row_parts = st.lists(st.tuples(narrow_text, st.integers(0, len(STYLES))), min_size=1, max_size=3)
# One or two spans of a line, apart and in order, as the compositor gives them.
spans_of_a_line = st.lists(st.integers(0, W), min_size=2, max_size=4, unique=True).map(
    lambda cuts: [(a, b) for a, b in zip(sorted(cuts)[::2], sorted(cuts)[1::2], strict=False)])


@settings(max_examples=300, deadline=None)
@given(st.integers(1, W - 1),
       st.lists(st.lists(st.none() | st.tuples(row_parts, spans_of_a_line), min_size=H, max_size=H)
                .filter(any), min_size=1, max_size=6))
def test_spans_of_lines_repainted_in_parts_leave_the_terminal_as_a_full_repaint_would(
        split: int, frames: list[list[tuple[list[tuple[str, int]], list[tuple[int, int]]] | None]]) -> None:
    """Partial spans of known rows, each line cut between two widgets: what is around each span
    stays, what is in it is new, as the compositor hands them over (the chops hold each line as
    it is now, the spans say what changed), compared with a full repaint of the lines."""
    def widgets(line: Strip) -> Strip:  # each widget draws its own cells: none straddles the split
        return Strip.join([line.crop(0, split), line.crop(split, W)])

    writer, terminal = FrameWriter(), Terminal()
    rows = [widgets(strip(f"row {y} end", STYLES[y % len(STYLES)])) for y in range(H)]
    write(writer, terminal, full(rows))
    for spans in frames:
        changed: dict[int, tuple[Strip, list[tuple[int, int]]]] = {}
        for y, item in enumerate(spans):
            if item is not None:
                new, pairs = item
                line = rows[y]
                for x1, x2 in pairs:
                    line = Strip.join([line.crop(0, x1), segments_row(new).crop(x1, x2), line.crop(x2, W)])
                rows[y] = widgets(line)
                changed[y] = (rows[y], pairs)
        write(writer, terminal, two_chops(changed, split))
        repaint = Terminal()
        repaint.feed(full(rows).render_segments(CONSOLE))
        assert terminal.cells() == repaint.cells()


def test_a_lone_mark_at_a_widgets_edge_is_written_as_textual_would() -> None:
    """A combining mark styled apart from its letter, last in the left widget's piece: cut
    pieces keep it (as ``Strip.crop`` does), on an unknown row and on a known one."""
    left = Strip([Segment("abcde"), Segment("\u0301", STYLES[0])], 5)
    right = strip("fgh", width=W - 5)
    for known in (False, True):
        writer, terminal, reference = FrameWriter(), Terminal(), Terminal()
        if known:
            first = full([strip("")] * H)
            write(writer, terminal, first)
            reference.feed(first.render_segments(CONSOLE))
        lines: list[dict[int, Strip | None]] = [{0: None, 5: None} for _ in range(H)]
        lines[0] = {0: left, 5: right}
        update = ChopsUpdate(lines, [(0, 0, W)], [[5, W] for _ in range(H)])
        write(writer, terminal, update)
        reference.feed(update.render_segments(CONSOLE))
        assert terminal.cells()[0] == reference.cells()[0], known
        assert terminal.lines()[0].startswith("abcd\u00e9fgh"), known  # (pyte composes the mark)


def test_a_span_repainted_the_same_writes_nothing() -> None:
    writer, terminal = FrameWriter(), Terminal()
    rows = [strip(f"row {y}", STYLES[y % len(STYLES)]) for y in range(H)]
    write(writer, terminal, full(rows))
    update = ChopsUpdate([{0: row} for row in rows], [(y, 2, 9) for y in range(H)], [[W] for _ in range(H)])
    assert write(writer, terminal, update) == ""


def test_a_chop_wider_than_it_says_is_cut_to_its_span() -> None:
    """A Strip's ``cell_length`` is its maker's word: wide characters cut by characters say less
    than they take. Taken whole, such a chop would run past its span (over the scrollbar, or off
    the screen); it is cut to the span's cells, as one that says its width is."""
    wide = Strip([Segment("中" * 10)], 10)  # says 10 cells, takes 20
    bar = Strip([Segment("|" * (W - 10))], W - 10)
    for line, spans, ends in (({0: wide, 10: bar}, [(0, 0, W)], [10, W]),
                              ({0: Strip([Segment("中" * W)], W)}, [(0, 0, W)], [W])):
        writer, terminal = FrameWriter(), Terminal()
        lines: list[dict[int, Strip | None]] = [dict.fromkeys(line) for _ in range(H)]
        lines[0] = dict(line)
        write(writer, terminal, ChopsUpdate(lines, spans, [list(ends) for _ in range(H)]))
        shown = terminal.lines()[0]
        assert shown.count("中") == (5 if len(line) == 2 else W // 2), shown
        if len(line) == 2:
            assert shown.endswith("|" * (W - 10)), shown  # the bar is where it belongs


# ---------------------------------------------------------------------------- in the app
class Recorder:
    """Both outputs of every frame: Textual's own (full) rendering and the writer's."""

    def __init__(self, app: DiffedOutput[Any], *, replay: bool = True) -> None:
        """``replay``: both terminals start blank and the next frame repaints everything, so
        the two emulators can be compared; without it only what is written from now is kept."""
        width, height = app.size
        self.ours, self.textuals = Terminal(width, height), Terminal(width, height)
        self.frames: list[str] = []
        self.textual_chars = 0
        self.mismatches = 0
        # The two terminals are compared from the first frame that paints the whole screen on.
        # A partial frame already on its way when the writer was reset may come first: Textual
        # writes each chop a span touches from the chop's start (cells left of the span too),
        # the writer only the span, so on blank terminals the two differ there until the full
        # repaint (in use both show those cells already: they did not change).
        self.synced = not replay
        writer = app.frame_writer
        if replay:
            writer.reset()  # both terminals start blank: the next frames write everything
            app.screen.refresh()
        original = writer.frame
        size = app.size

        def frame(update: Any, *args: Any) -> str:
            out = original(update, *args)
            theirs = update.render_segments(app.console)
            self.textual_chars += len(theirs)
            self.frames.append(out)
            self.ours.feed(out)
            self.textuals.feed(theirs)
            if not self.synced and isinstance(update, LayoutUpdate):
                self.synced = update.region == Region(0, 0, size.width, size.height)
                self.mismatches += self.synced and self.ours.cells() != self.textuals.cells()
            elif self.synced:
                self.mismatches += replay and self.ours.cells() != self.textuals.cells()
            return out

        writer.frame = frame  # type: ignore[method-assign,assignment]

    @property
    def chars(self) -> int:
        return sum(map(len, self.frames))


async def stream_answer(app: MainApp, pilot: Any, chunks: list[str]) -> None:
    server = app.server
    sid = main_screen(app).session_id
    assert sid is not None
    mid = server.ids("msg")
    base = {"sessionID": sid, "assistantMessageID": mid}
    server.emit("session.step.started", base | {"agent": "build", "model": server.model_of(sid)})
    server.emit("session.text.started", base | {"ordinal": 0})
    await pilot.pause(0.1)
    for chunk in chunks:
        server.emit("session.text.delta", base | {"ordinal": 0, "delta": chunk})
        await pilot.pause(0.005)


async def open_session(app: MainApp, pilot: Any) -> None:
    await wait_connected(pilot)
    session = app.server.create_session(title="frames")
    await app.open_session(session["id"])
    await settle(pilot)


async def test_a_streamed_answer_writes_a_fraction_and_shows_the_same_screen() -> None:
    from bench.real_stream import answer_chunks

    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await open_session(app, pilot)
        recorder = Recorder(app)
        # Judged on frames of every slot: these deltas come as fast as a flood, whose painting
        # the app holds to about one frame a second (each then mostly new lines).
        app._measure_growth = lambda: None  # type: ignore[method-assign]
        await stream_answer(app, pilot, answer_chunks(4000)[:900])
        await settle(pilot)
        assert recorder.frames and recorder.synced and recorder.mismatches == 0
        # And the terminal shows what a full render of the screen shows (not only the same as
        # Textual's own partial updates would have).
        screen = [strip.text.rstrip() for strip in app.screen._compositor.render_strips()]
        assert [line.rstrip() for line in recorder.ours.lines()] == screen
        assert app.frame_writer.scrolls > 0  # the transcript followed the stream by scrolling
        assert recorder.chars * 10 < recorder.textual_chars, (recorder.chars, recorder.textual_chars)


async def test_appending_to_a_streaming_block_writes_only_the_changed_line() -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await open_session(app, pilot)
        await stream_answer(app, pilot, ["A first paragraph.\n\nAnd a second one that", " keeps"])
        await settle(pilot)
        recorder = Recorder(app, replay=False)
        await stream_answer_more(app, pilot, " going")
        await settle(pilot)
        view = main_screen(app).query_one(TextBlockView)
        assert "keeps going" in view.source
        out = "".join(recorder.frames)
        screen = [strip.text for strip in app.screen._compositor.render_strips()]
        row = next(y for y, line in enumerate(screen) if "keeps going" in line)
        assert written_rows(out) - {app.cursor_position.y} == {row}, out
        assert "A first paragraph" not in out and "\x1b[?2026h" not in out


async def stream_answer_more(app: MainApp, pilot: Any, chunk: str) -> None:
    server = app.server
    state = main_screen(app).state
    assert state is not None
    message = next(m for m in reversed(state.messages.values()) if m.role == "assistant")
    server.emit("session.text.delta", {"sessionID": state.id, "assistantMessageID": message.id,
                                       "ordinal": 0, "delta": chunk})
    await pilot.pause(0.1)


async def test_an_idle_screen_writes_nothing_when_chrome_repaints_unchanged() -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await open_session(app, pilot)
        await type_prompt(pilot, "hello")
        await settle(pilot)
        recorder = Recorder(app, replay=False)
        main = main_screen(app)
        main.refresh_status()  # the same information again
        main.query_one(StatusBar).refresh()
        await pilot.pause(0.1)
        app.screen.refresh()  # everything repainted, nothing changed
        await pilot.pause(0.2)
        assert recorder.frames  # Textual did send frames
        assert "".join(recorder.frames) == ""


async def test_frames_go_out_in_synchronized_output(monkeypatch: pytest.MonkeyPatch) -> None:
    app = MainApp()
    async with app.run_test(size=SIZE) as pilot:
        await open_session(app, pilot)
        real, fake = app._driver, RecordingDriver()
        app._driver = fake  # type: ignore[assignment]
        try:
            app.sync_assumed = True
            bar = main_screen(app).query_one(StatusBar)
            bar.info = replace(bar.info, note="changed")
            await pilot.pause(0.2)
            app.screen.refresh()
            await pilot.pause(0.2)
        finally:
            app._driver = real
        assert fake.data, "the changed status bar was written"
        assert all(d.startswith("\x1b[?2026h") and d.endswith("\x1b[?2026l") for d in fake.data)


class _Bare(DiffedOutput[None]):
    pass


async def test_a_resumed_terminal_makes_the_writer_forget_the_screen() -> None:
    app = _Bare()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.frame_writer._rows, "the first frame was recorded"
        app.app_resume_signal.publish(app)  # what Textual sends after Ctrl+Z and fg
        assert app.frame_writer._rows == [] and app.frame_writer._width == 0


def test_tmux_is_assumed_to_take_synchronized_output(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
    assert MainApp().synchronized_output
    monkeypatch.delenv("TMUX")
    assert not MainApp().synchronized_output  # until the terminal answers the DECRQM query


# ---------------------------------------------------------------------------- canaries
def test_canary_the_private_textual_api_the_writer_relies_on() -> None:
    """Textual is pinned (8.2.8); when a pin moves, this fails before the terminal goes wrong."""
    assert list(inspect.signature(App._display).parameters) == ["self", "screen", "renderable"]
    app = App[None]()
    for name in ("_driver", "_batch_count", "_running", "_closed", "_sync_available"):
        assert hasattr(app, name), name
    assert callable(app._handle_exception)
    layout = LayoutUpdate([[strip("x")]], Region(0, 0, W, 1))
    assert layout.strips and layout.region == Region(0, 0, W, 1)
    update = chops({0: strip("x")}, height=1)
    assert update.chops and update.spans == [(0, 0, W)] and update.chop_ends == [[W]]
    assert Strip.render_style(Style(bold=True), "x", CONSOLE._color_system) == "\x1b[1mx\x1b[0m"  # type: ignore[arg-type]
