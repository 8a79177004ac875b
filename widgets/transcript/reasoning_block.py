"""Reasoning ("thinking"): collapsed by default; rendered only while expanded.

Bounded per frame whatever the model thinks at once: the word count in the title is counted
incrementally (only what was appended), and an expanded block draws at most the last
``SHOWN_MAX_CHARS`` characters, with a note saying how much is not shown (the store keeps it
all; F6 copies and F7 exports the whole transcript, reasoning included).
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Collapsible, Static

from tui.state.transcript import TextBlock
from widgets.plain import as_markup_arg, plain

SHOWN_MAX_CHARS = 50_000
COUNT_STEP = 1_000_000  # characters counted per call (about 10 ms)
_SAMPLE = 32  # characters before the counted boundary, to notice a text that was replaced


class ReasoningView(Collapsible):
    """A collapsible thinking block. Collapsed blocks skip text rendering entirely."""

    DEFAULT_CLASSES = "reasoning-block"

    def __init__(self, block: TextBlock, *, collapsed: bool = True, id: str | None = None) -> None:
        self._block = block
        self._version = -1
        self._counted = (0, 0, "")  # (up to an index after whitespace, words before it, sample)
        self._recounting = False  # a timer counts the rest of a long text
        self._ready = False  # mounted (timers only then: ``is_mounted`` is False in on_mount)
        self._body = Static("", classes="reasoning-text", markup=False)
        super().__init__(self._body, title=as_markup_arg(self._heading(block, schedule=False)),
                         collapsed=collapsed, id=id)

    def on_mount(self) -> None:
        self._ready = True
        self.sync(self._block)

    def _words(self, text: str) -> tuple[int, bool]:
        """(words in ``text``, whether all were counted): only what was appended since the last
        call is counted, at most ``COUNT_STEP`` characters a call (a timer counts the rest)."""
        upto, words, sample = self._counted
        if upto > len(text) or text[max(0, upto - _SAMPLE):upto] != sample:
            upto, words = 0, 0  # not the same text any more: count from the start
        window = min(len(text), upto + COUNT_STEP)
        boundary = max(text.rfind(" ", upto, window), text.rfind("\n", upto, window),
                       text.rfind("\t", upto, window)) + 1
        if boundary > upto:
            words += len(text[upto:boundary].split())
            upto = boundary
            self._counted = (upto, words, text[max(0, upto - _SAMPLE):upto])
        if window < len(text):
            return words, False
        return words + (1 if upto < len(text) else 0), True  # text[upto:] holds no whitespace

    def _heading(self, block: TextBlock, *, schedule: bool = True) -> Content:
        words, complete = self._words(block.text)
        if not complete and schedule and not self._recounting and self._ready:
            self._recounting = True
            self.set_timer(0.05, self._recount)
        shown = f"{words:d}" if complete else f"{words:d}+"
        return Content(f"Thinking… ({shown} words)" if block.streaming else f"Thought ({shown} words)")

    def _recount(self) -> None:
        self._recounting = False
        self.title = as_markup_arg(self._heading(self._block))

    def sync(self, block: TextBlock) -> None:
        self._block = block
        self.title = as_markup_arg(self._heading(block))
        if not self.collapsed and block.version != self._version:
            self._version = block.version
            text = block.text
            if len(text) <= SHOWN_MAX_CHARS:
                self._body.update(plain(text))
            else:
                hidden = len(text) - SHOWN_MAX_CHARS
                self._body.update(Content.assemble(
                    f"✂ the first {hidden:,} of {len(text):,} characters are not shown; "
                    "F6 copies the whole transcript, F7 exports it\n…", plain(text[-SHOWN_MAX_CHARS:])))

    def watch_collapsed(self, collapsed: bool) -> None:
        # Textual calls Collapsible's own (private) watcher first, then this one.
        if not collapsed:
            self.sync(self._block)
