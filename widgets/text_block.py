"""Assistant text: markdown that streams cheaply and settles on the authoritative text.

Textual's ``Markdown`` widget mounts one widget per block and re-lays all of them out on every
append, which made a long answer cost seconds per frame. Here the text is cut at block
boundaries into sealed pieces, each rendered once per width into one ``MarkdownChunk``
(never re-parsed), plus one small live tail that is the only
thing re-rendered while deltas arrive.
"""

from __future__ import annotations

from textual.containers import Vertical

from tui.state.transcript import TextBlock
from widgets.markdown_chunk import MarkdownChunk

CHUNK_CHARS = 600  # a tail longer than this is sealed at its last safe block boundary


def seal_point(text: str, minimum: int = CHUNK_CHARS) -> int:
    """Index after the last blank line (outside code fences) at or past ``minimum``; 0 if none.

    A boundary followed by an indented line or a list item is skipped, so loose lists and
    multi-paragraph items stay in one chunk.
    """
    if len(text) < minimum:
        return 0
    best = 0
    fence: str | None = None
    position = 0
    lines = text.split("\n")
    for index, line in enumerate(lines[:-1]):  # the last line may still be growing
        position += len(line) + 1
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            fence = None if fence == marker else (fence or marker)
            continue
        if fence or line.strip() or position < minimum:
            continue
        following = lines[index + 1]
        if following[:1] in (" ", "\t") or following.lstrip()[:2] in ("- ", "* ", "+ ") or \
                following.lstrip()[:1].isdigit():
            continue
        best = position
    return best


class TextBlockView(Vertical):
    """One text block: sealed chunks (static) + a live tail (re-rendered on change)."""

    DEFAULT_CLASSES = "text-block"
    DEFAULT_CSS = "TextBlockView { height: auto; }"
    paints = 0  # renders of tails and chunks, for benchmarks

    def __init__(self, block: TextBlock, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._sealed = 0  # text[:_sealed] lives in sealed chunks
        self._text = ""
        self._version = -1
        self._streaming = block.streaming
        self._body = MarkdownChunk(classes="text-chunk")
        self._tail = MarkdownChunk(classes="text-tail")
        self._initial = block
        self._ready = False

    @property
    def source(self) -> str:
        """The text currently shown."""
        return self._text

    def compose(self) -> list[MarkdownChunk]:
        return [self._body, self._tail]

    def on_mount(self) -> None:
        self._ready = True  # ``is_mounted`` is still False inside on_mount
        self.sync(self._initial)

    def sync(self, block: TextBlock) -> None:
        if not self._ready:
            self._initial = block  # on_mount renders the newest state
            return
        if block.version == self._version and block.streaming == self._streaming:
            return
        self._version = block.version
        self._streaming = block.streaming
        text = block.text
        if not text.startswith(self._text[: self._sealed]):
            self._reset()  # authoritative text differs from what streamed: rebuild
        self._text = text
        tail = text[self._sealed:]
        cut = len(tail) if not block.streaming else seal_point(tail)
        while cut:
            self._seal(tail[:cut])
            self._sealed += cut
            tail = tail[cut:]
            cut = seal_point(tail) if block.streaming else 0
        self._paint_tail(tail)

    def _reset(self) -> None:
        self._sealed = 0
        self._body.set_text("")

    def _seal(self, text: str) -> None:
        if not text.strip():
            return
        TextBlockView.paints += 1
        self._body.append_piece(text)

    def _paint_tail(self, tail: str) -> None:
        TextBlockView.paints += 1
        self._tail.display = bool(tail.strip())
        self._tail.set_text(tail)
