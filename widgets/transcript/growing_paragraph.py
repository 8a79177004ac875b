"""A paragraph growing at the end of the live tail, drawn from its newest text only.

The live tail of an answer is rendered again on every frame, and most of the time it ends in a
paragraph that grew by a few words: one long line of prose, or a block quote of many lines (its
lines are one paragraph). Rich parses and wraps the whole paragraph each time (17 ms a frame for
a 16 K quote). Here only the paragraph's *window* is rendered: the text after the last point
where the paragraph provably splits in two.

The window, and each part of the paragraph the window moves past, is rendered by Rich alone (at
a width that does not wrap) to its styled characters; they are then wrapped as Rich wraps a
paragraph (greedily from each line's start, ``rich_divide_line``), so the lines before the one
the window starts on stay as they were: they are kept (``fixed``), with the start of that line
(``carry``). Plain words added to the window's last line are drawn from the last window, with no
render at all (``_grown``).

"Provably" means (else the caller renders the piece with Rich, as before):

* the piece ends with a paragraph at the top level or inside block quotes only, and every one
  of its lines starts with the same quote markers (``prefix``) and then something no block
  starts with (``_BLOCK_START``), so the text added stays in the paragraph; a last line that has
  only some of the markers so far draws nothing yet; no link reference is defined above it in
  the piece (the paragraph's parts are drawn alone);
* its text has nothing ``clean_text`` would change, no tab, no image (Rich draws an image as a
  block of its own), no character of no cell (it joins the one before it) and no space of two
  (see ``_wide``), no entity that draws as anything else (a newline, a control or a
  zero-width character), and none at its end that draws as a space (it would not be told
  from the padding: that frame is rendered with Rich, and the paragraph followed on, ``waiting``);
* a hard break (as markdown-it reads the line: two spaces or a backslash at its end, not an
  escaped space) is moved past as soon as the line after it has begun, if the text up to the
  break, with the spaces or the backslash, is closed (see below), ends in no space of any kind
  (the text drawn alone would lose it), and the line after it is no link reference definition
  (drawn alone, it would be one): the line after a break starts a line of its own, so the lines
  up to it are kept and the window starts after it (``_past_breaks``). A window holds no hard
  break, so it is drawn as one line;
* the window starts right after spaces or a line break, at a letter, or between two wide
  characters (CJK prose has no spaces; markdown sees no delimiter on either side, and the split
  is in no autolink or HTML tag, which take such characters), and the text before it is
  closed: markdown-it's inline parse of it alone leaves no emphasis or strikethrough opener
  unmatched, no literal backtick, and no literal bracket that a link could go on from past it (a
  ``[`` that no later ``]`` outside an autolink closes, or a ``]`` right before ``(`` or ``[``:
  ``[1]`` and ``arr[0]`` are closed). Then no inline element spans the split, and the rendered
  paragraph is the text before it, the break (a space), and the window's text, each rendered
  alone;
* a paragraph that starts with ``[`` is not followed once ``]:`` is in it: it may be, or turn
  into, a link reference definition, drawn as nothing;
* the line the window starts on starts at a word (not inside one long word folded on, unless
  between two wide characters: see ``_advance``; and then not once the word ends with spaces
  that spill past the row, ``_spills``).

``tests/unit/test_growing_paragraph.py`` checks every frame against Rich's own rendering.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from functools import lru_cache

from markdown_it.common.utils import unescapeAll
from markdown_it.rules_inline import StateInline
from rich.cells import cell_len, chop_cells, get_character_cell_size
from rich.console import Console

from tui.text.sanitize import clean_text
from widgets._textual_compat import rich_divide_line
from widgets.transcript.markdown_chunk import render_markdown, too_deep
from widgets.transcript.markdown_parse import PARSER
from widgets.transcript.markdown_seal import Piece
from widgets.transcript.rendered_line import Line, line_text

ADVANCE = 160  # the window is split once it is this long: each frame renders about this much
MAX_WINDOW = 4096  # a window that could not split by then is no cheaper than the whole piece
_MARKERS = re.compile(r"(?: {0,3}> ?)*")  # a line's block-quote markers
# What a line may start with that could make it something else than the paragraph's next line
# (or will, with a character or two more): a rule, a bullet, a table's delimiter row, a heading,
# a quote, an indent, a blank line, a numbered item, a fence, a heading's underline.
_BLOCK_START = re.compile(r"[-:|#>\s]|[0-9]{1,9}[.)]|[*+](?:[ \t]|$)|(?:[*_][ \t]*){3,}$|```|~~~|=+[ \t]*$")
# Characters that mean nothing to markdown, whatever comes before or after them (no ";": "&amp"
# and ";" make an entity).
PLAIN = frozenset(string.ascii_letters + string.digits + " ,.:?/%@=$^{}-+")
_ENTITY = re.compile(r"&[#A-Za-z0-9]+;")
_ENTITY_AT_END = re.compile(_ENTITY.pattern + r"[ ]*$")
# Spaces Python does not call printable, each one cell wide: drawn as themselves.
_OTHER_SPACES = frozenset("\xa0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                          "\u202f\u205f")
_MAYBE_HARD_BREAK = re.compile(r"(?:  |\\)\n")  # markdown-it decides (an escape may come before)
# A line that starts with "[" may be a link reference definition (drawn alone, it draws nothing)
# until its label is closed by "]" followed by something else than ":".
_NO_DEFINITION = re.compile(r"\[(?:[^\]\\]|\\.)*\][^:]")
_QUOTE_BAR = "▌ "  # what Rich draws left of each quote level's lines (its padding is as wide)


def _letter(char: str) -> bool:
    return char.isascii() and char.isalpha()


def _plain(char: str) -> bool:
    """Whether ``char`` means nothing to markdown, whatever comes before or after it (see
    ``PLAIN``; a wide character is a letter or punctuation that opens or closes nothing)."""
    return char in PLAIN or (not char.isascii() and _wide(char))


@lru_cache(maxsize=8192)
def _wide(char: str) -> bool:
    """Whether Rich draws ``char`` in two cells and it is no space: CJK, kana, hangul syllables,
    full-width forms and punctuation, emoji. None of them means anything to markdown. (The
    ideographic space is a space to Rich's line breaking and to markdown: it is not one of them.
    Rich 15 measures a string as the sum of its characters unless it holds a joiner or a
    variation selector, both of no cell: see ``_cell_sized``.)"""
    return get_character_cell_size(char) == 2 and not char.isspace()


@dataclass
class GrowingParagraph:
    """The paragraph a live tail ends in, with the lines above its window kept."""

    width: int
    trim_top: int
    number: int | None  # the piece's Piece.number (its lines above depend on it)
    prefix: str  # the quote markers each of its lines starts with
    depth: int  # quote levels
    left: Line  # the quote bars on each of its lines
    right: Line  # the padding right of its text's width
    head: str  # the piece's markdown up to the window
    fixed: list[Line]  # the piece's lines above the line the window starts on
    carry: str = ""  # that line's characters before the window
    carry_styles: list[int] = field(default_factory=list)
    carry_in_word: bool = False  # the carry starts inside a long CJK word folded on (``_advance``)
    retry_at: int = 0  # a window that could not split is tried again at this length
    waiting: bool = False  # the last ``lines`` drew nothing until more text comes (see ``_window``)
    drawn: tuple[str, str, list[int], int] | None = None  # the last window, as ``_draw`` gave it
    # It starts with "[" (where in the piece's markdown it starts): its first lines may turn into
    # a link reference definition, drawn as nothing, once "]:" comes.
    label_at: int | None = None

    @property
    def inner(self) -> int:
        return self.width - 4 * self.depth

    @classmethod
    def start(cls, console: Console, piece: Piece, lines: list[Line], width: int) -> GrowingParagraph | None:
        """The growing paragraph ``piece`` (rendered as ``lines``) ends in; None if it does not
        end in one that can be followed (see the module docstring)."""
        text = piece.markdown
        last = text[text.rfind("\n") + 1:]
        markers = _MARKERS.match(last)
        content = markers.end() if markers else 0
        if piece.trim_bottom or not lines or len(last) == content or _BLOCK_START.match(last, content):
            return None  # (a table's row, a list's item, code: known without parsing the piece)
        tokens = PARSER.parse(clean_text(text))  # the structure only (same lines as ``text``)
        depth = 0
        while depth < len(tokens) and tokens[-1 - depth].type == "blockquote_close":
            depth += 1
        if len(tokens) < depth + 3 or tokens[-1 - depth].type != "paragraph_close":
            return None
        opening = tokens[-3 - depth]
        source = text.split("\n")
        if (opening.type != "paragraph_open" or opening.level != depth or opening.hidden
                or opening.map is None or opening.map[1] != len(source) or too_deep(tokens, width)):
            return None  # (a piece too deep for its width is shown as its plain text)
        first = opening.map[0]
        markers = _MARKERS.match(source[first])
        prefix = markers.group() if markers else ""
        if prefix.count(">") != depth:
            return None
        paragraph = "\n".join(source[first:])
        above = "\n".join(source[:first]) + ("\n" if first else "")
        if "]:" in above:
            return None  # a link reference defined above: the paragraph drawn alone lacks it
        label = paragraph[len(prefix):].lstrip(" ").startswith("[")  # (see ``label_at``)
        head = above + prefix
        grown = cls(width=width, trim_top=piece.trim_top, number=piece.number, prefix=prefix,
                    depth=depth, left=(), right=(), head=head, fixed=[],
                    label_at=len(above) if label else None)
        window = grown._window(paragraph[len(prefix):])
        if window is None or len(window) != len(paragraph) - len(prefix):
            return None
        drawn = render_markdown(console, paragraph, width)
        while drawn and not line_text(drawn[0]).strip():
            drawn.pop(0)  # the blank line Rich puts above a quote
        count = len(drawn)
        if not count or len(lines) < count or lines[-count:] != drawn:
            return None
        cells = [(char, style) for text, style in drawn[-1] for char in text]
        if (cell_len("".join(char for char, _ in cells)) != width
                or "".join(char for char, _ in cells[:2 * depth]) != _QUOTE_BAR * depth):
            return None
        grown.left = _runs(cells[:2 * depth])
        grown.right = _runs(cells[len(cells) - 2 * depth:])
        grown.fixed = lines[:-count]
        return grown

    def follows(self, piece: Piece, width: int) -> bool:
        """Whether ``piece`` is the tail this paragraph was found in, grown at its end."""
        return (width == self.width and piece.trim_top == self.trim_top and not piece.trim_bottom
                and piece.number == self.number and piece.markdown.startswith(self.head))

    def lines(self, console: Console, piece: Piece) -> list[Line] | None:
        """The lines of ``piece`` (which ``follows`` this), or None: render it with Rich."""
        self.waiting = False
        if self.label_at is not None and piece.markdown.find("]:", self.label_at) >= 0:
            return None  # (a definition, maybe: see ``label_at``)
        window = self._window(piece.markdown[len(self.head):])
        if window is not None:
            window = self._past_breaks(console, window)
        if window is None:
            return None
        if len(window) > max(ADVANCE, self.retry_at):
            moved = self._advance(console, window)
            self.retry_at = 0 if moved else len(window) + ADVANCE  # (each try costs a parse)
            window = window[moved:]
        if len(window) > MAX_WINDOW:
            return None
        drawn = self._grown(window) or self._draw(console, window)
        if drawn is None:
            return None
        chars, styles, pad = drawn
        self.drawn = (window, chars, styles, pad)
        if self.carry_in_word and _spills(self.carry + chars, self.inner):
            return None
        wrapped = _wrap(self.carry + chars, self.carry_styles + styles, pad, self.inner)
        if wrapped is None:
            return None
        return [*self.fixed, *(self._decorated(line) for line, _start in wrapped)]

    def _window(self, text: str) -> str | None:
        """``text`` (the piece after ``head``) without a last line that has only some of the
        quote markers so far; None if a line of it may not be the paragraph's."""
        if not text or _BLOCK_START.match(text):
            return None
        lines = text.split("\n")
        if len(lines) > 1 and self.prefix.startswith(lines[-1]):
            lines.pop()  # draws nothing yet
        size = len(self.prefix)
        for line in lines[1:]:
            if not line.startswith(self.prefix) or _BLOCK_START.match(line, size) or len(line) == size:
                return None
        window = "\n".join(lines)
        if _blank_at_end(window):
            self.waiting = True  # (the next characters take it from the end)
            return None
        if ("\t" in window or "\r" in window or "![" in window
                or clean_text(window) != window or not _cell_sized(window)
                or ("&" in window and not all(map(_plain_entity, _ENTITY.findall(window))))):
            return None
        return window

    def _past_breaks(self, console: Console, window: str) -> str | None:
        """``window`` after its last hard break: the line after one starts a line of its own, so
        the lines up to it are drawn (the text before it closed, as at any split) and kept; None
        if a break cannot be moved past."""
        size = len(self.prefix)
        while (newline := _hard_break(window, self.prefix)) >= 0:
            line_end = newline - 1 if window[newline - 1] == "\\" else len(window[:newline].rstrip(" "))
            text = window[:line_end]
            after = window[newline + 1 + size:].split("\n", 1)[0]
            if (not text.strip(" ") or text.endswith("\n" + self.prefix) or text[-1].isspace()
                    or _blank_at_end(text) or (after.startswith("[") and not _NO_DEFINITION.match(after))
                    or not _closed(window[:newline].replace("\n" + self.prefix, "\n"))):
                # A space at the end would be stripped from the text drawn alone; what the break
                # leaves open (an emphasis before a backslash) could close after it; the line after
                # it, drawn alone, must not be a link reference definition.
                return None
            drawn = self._draw(console, text)
            if drawn is None:
                return None
            chars, styles, pad = drawn
            wrapped = _wrap(self.carry + chars, self.carry_styles + styles, pad, self.inner)
            if wrapped is None:
                return None
            self.fixed = [*self.fixed, *(self._decorated(line) for line, _start in wrapped)]
            self.carry, self.carry_styles, self.drawn, self.retry_at = "", [], None, 0
            self.carry_in_word = False
            moved = newline + 1 + size
            self.head += window[:moved]
            window = window[moved:]
        return window

    def _grown(self, window: str) -> tuple[str, list[int], int] | None:
        """``window`` drawn from the last one, when it only adds plain words to its last line: no
        character that means anything to markdown (no newline, emphasis, code, link, escape,
        entity or HTML character), after a plain one (a delimiter run, an escape or an entity
        can change meaning with the character after it). The words take the style of the
        character before them; trailing spaces of the source are drawn when words follow."""
        if self.drawn is None:
            return None
        last, chars, styles, pad = self.drawn
        source = last.rstrip(" ")
        added = window[len(last):]
        if (len(window) <= len(last) or not window.startswith(last) or not source or not chars
                or not _plain(source[-1]) or not (PLAIN.issuperset(added) or all(map(_plain, added)))):
            return None
        text = (chars + " " * (len(last) - len(source)) + window[len(last):]).rstrip(" ")
        return text, styles + [styles[-1]] * (len(text) - len(chars)), pad

    def _draw(self, console: Console, window: str) -> tuple[str, list[int], int] | None:
        """The characters and styles ``window`` is drawn as alone (in the paragraph's quotes),
        and the style of the paragraph's padding."""
        markdown = self.prefix + window
        width = 2 * len(markdown) + 4 * self.depth + 16  # wide enough not to wrap it
        rows = [row for row in render_markdown(console, markdown, width) if line_text(row).strip()]
        if len(rows) != 1:
            return None
        chars = line_text(rows[0])
        styles: list[int] = []
        for text, style in rows[0]:
            styles.extend([style] * len(text))
        bars = 2 * self.depth
        if cell_len(chars) != width or chars[:bars] != _QUOTE_BAR * self.depth:
            return None
        inner, inner_styles = chars[bars:len(chars) - bars], styles[bars:len(chars) - bars]
        pad = inner_styles[-1]
        end = len(inner.rstrip(" "))
        for index in range(len(inner) - 1, end - 1, -1):
            if inner_styles[index] != pad:
                end = index + 1  # a space of the text's own (a code span's), not the padding
                break
        if end >= len(inner) - 1 or inner[-1] != " ":
            return None
        return inner[:end], inner_styles[:end], pad

    def _advance(self, console: Console, window: str) -> int:
        """Move the window's start to the latest split point that leaves some of it, if the text
        before that point is closed; returns by how much it moved (0: not at all)."""
        size = len(self.prefix)
        for split in _splits(window, self.prefix):
            if split < ADVANCE // 2:
                break
            before = window[:split]
            joined = _wide(window[split - 1])  # between two wide characters (no break drawn)
            broken = before.endswith("\n" + self.prefix)  # at a line break, else after spaces
            text = before[:split - size - 1] if broken else before.rstrip(" ")
            if not _closed(text.replace("\n" + self.prefix, "\n")) or (joined and _in_angle(before)):
                continue
            drawn = self._draw(console, window[:split + 1])  # with the next letter: keeps the break
            if drawn is None:
                return 0
            chars, styles, pad = drawn
            if not chars.endswith(window[split - 1:split + 1] if joined else " " + window[split]):
                return 0
            chars, styles = chars[:-1], styles[:-1]  # without the letter: ends with the break
            plain = self.carry + chars
            wrapped = _wrap(plain, self.carry_styles + styles, pad, self.inner)
            if wrapped is None:
                return 0
            start = wrapped[-1][1]
            if plain[start:start + 1] == " " or (start and plain[start - 1] != " "
                                                  and not (_wide(plain[start - 1]) and _wide(plain[start]))):
                # The line starts inside a long word folded on, not at a word's start: unless
                # between two wide characters. A word folded is longer than the width and stays
                # so as it grows, and Rich folds it greedily from its start, so its folds stay
                # where they are, and the rest of it, wrapped alone, is folded at the same places.
                return 0
            self.fixed = [*self.fixed, *(self._decorated(line) for line, _start in wrapped[:-1])]
            self.drawn = None  # (a window that starts elsewhere)
            self.carry_in_word = bool(start) and plain[start - 1] != " "
            self.carry = plain[start:]
            self.carry_styles = (self.carry_styles + styles)[start:]
            self.head += before
            return split
        return 0

    def _decorated(self, line: Line) -> Line:
        return (*self.left, *line, *self.right)


def _spills(plain: str, width: int) -> bool:
    """Whether the end of a folded word that ``plain`` starts with, and the spaces after it, take
    more than ``width``: Rich folds the word with those spaces (``chop_cells``), so they spill
    onto a line of their own, which the next word goes on after (a review: ``" word"`` where the
    rest of the word wrapped alone gives ``"word"``)."""
    match = _WORD_AND_SPACES.match(plain)
    if match is None or not match.group(2):
        return False
    folds = chop_cells(match.group(0), width)  # (greedy from the carry: the word's folds from it)
    return len(folds) > 1 and not folds[-1].strip()


_WORD_AND_SPACES = re.compile(r"(\S*)(\s*)")


def _blank_at_end(text: str) -> bool:
    """Whether ``text`` ends with an entity that draws as a space: at the end it could not be
    told from the padding (see ``_draw``)."""
    match = _ENTITY_AT_END.search(text)
    return match is not None and unescapeAll(match.group().rstrip(" ")).isspace()


@lru_cache(maxsize=256)
def _plain_entity(entity: str) -> bool:
    """Whether ``entity`` draws as characters of one or two cells each that break no line (not
    a newline, a control or a zero-width character: see ``_cell_sized``; a no-break or an em
    space is drawn as the character itself is)."""
    drawn = unescapeAll(entity)
    return all(char.isprintable() or char in _OTHER_SPACES for char in drawn) and _cell_sized(drawn)


def _cell_sized(text: str) -> bool:
    """Whether each character of ``text`` is a cell of its own or two (``_wide``): none of zero
    cells, which would join the one before it (a combining mark, a joiner), so each line's cells
    are its characters' (not only all of them together: a wide character and a combining mark
    add up to as many cells as characters)."""
    return text.isascii() or all(cell_len(char) == 1 or _wide(char) for char in text if not char.isascii())


def _hard_break(window: str, prefix: str) -> int:
    """Where the first line of ``window`` that ends in a hard break ends (its newline), or -1."""
    for match in _MAYBE_HARD_BREAK.finditer(window):
        newline = match.end() - 1
        start = window.rfind("\n", 0, newline) + 1
        line = window[start + (len(prefix) if start else 0):newline]
        tokens = PARSER.parseInline(line + "\nx")[0].children or []
        if len(tokens) > 1 and tokens[-2].type == "hardbreak":  # (else a softbreak)
            return newline
    return -1


def _splits(window: str, prefix: str) -> list[int]:
    """Where ``window`` may split, latest first: at a letter after spaces or after a line break
    and the quote markers, or between two wide characters (CJK prose has no spaces: the latest
    such place of each run of them), with text after it (the window may not end up empty)."""
    found: list[int] = []
    size = len(prefix)
    for match in re.finditer(r" +|\n", window):
        split = match.end() + (size if match.group() == "\n" else 0)
        if split < len(window) - 1 and _letter(window[split]) and split not in found[-1:]:
            found.append(split)  # (after "\n> " the space matches too: the same split)
    if not window.isascii():
        last = len(window) - 2  # (a character left after the split)
        split = last
        while split > 0:
            if _wide(window[split]) and _wide(window[split - 1]):
                if split == last or not (_wide(window[split + 1])):
                    found.append(split)  # the run's latest
            split -= 1
        found.sort()
    return found[::-1][:3]  # a few tries: each costs a parse


def _in_angle(text: str) -> bool:
    """Whether ``text`` ends inside what may be an autolink or an HTML tag, which take wide
    characters (``<http://例>``) but no spaces: drawn alone, its two halves would be text."""
    return "<" in text[text.rfind(">") + 1:]


def _closed(text: str) -> bool:
    """Whether no inline element of ``text`` (a paragraph's text, markers removed) could go on
    past its end: every emphasis opener matched, no literal backtick, and every literal ``[``
    closed by a ``]`` after it that no ``(`` or ``[`` follows (``[1]``, ``arr[0]``, ``[x]``: a
    link's text ends at the first ``]`` that closes it, so no link can start there any more; one
    whose definition comes later is drawn as text anyway, see ``markdown_seal``)."""
    state = StateInline(text, PARSER, {}, [])
    PARSER.inline.tokenize(state)
    for rule in PARSER.inline.ruler2.getRules(""):
        rule(state)  # matches the delimiters (balance_pairs sets ``end`` of each matched opener)
    if any(delimiter.open and delimiter.end < 0 for delimiter in state.delimiters):
        return False
    # (An escaped character is a token of its own, "text_special": "\[" opens no link text, and
    # "\]" closes none; nor does one in an autolink, whose text markdown-it skips looking for
    # the end of a link's text.)
    literal: list[str] = []
    autolink = False
    for token in state.tokens:
        if token.markup == "autolink":
            autolink = token.type == "link_open"
        elif token.type == "text" and not autolink:
            literal.append(token.content)
    return _brackets_closed("".join(literal))


def _brackets_closed(literal: str) -> bool:
    """Whether the literal text of a paragraph (what markdown-it made plain text) leaves no code
    span or link able to go on past its end (see ``_closed``)."""
    if "`" in literal:
        return False
    if "[" not in literal:
        return True
    if "](" in literal or "][" in literal:
        return False
    depth = 0
    for bracket in _BRACKETS.findall(literal):
        depth = depth + 1 if bracket == "[" else max(0, depth - 1)
    return depth == 0


_BRACKETS = re.compile(r"[\[\]]")


def _wrap(plain: str, styles: list[int], pad: int, width: int) -> list[tuple[Line, int]] | None:
    """``plain`` wrapped as Rich wraps a paragraph, each line padded to ``width`` in ``pad``, with
    the offset it starts at; None where the result would not be Rich's (a character of no cell,
    see ``_cell_sized``). Rich breaks lines at cells (``divide_line``), then strips the spaces
    past the width counted in characters (``Text.rstrip_end``), then crops to the width in cells
    and pads to it (``Text.truncate``)."""
    if not _cell_sized(plain) or width < 2:
        return None
    wide = not plain.isascii() and any(map(_wide, plain))
    lines: list[tuple[Line, int]] = []
    start = 0
    for end in [*rich_divide_line(plain, width, fold=True), len(plain)]:
        text = plain[start:end]
        if len(text) > width:
            text = text[:width] if not text[width:].strip(" ") else text  # Rich's rstrip_end
        size = cell_len(text) if wide else len(text)
        if size > width:
            kept = text.rstrip(" ")
            if cell_len(kept) > width:
                return None  # cannot happen with folding (only spaces go past); never guess
            text = kept + " " * (width - cell_len(kept))  # cropped at the width: spaces only
            size = width
        line_styles = styles[start:start + len(text)] + [pad] * (width - size)
        lines.append((_runs(list(zip(text + " " * (width - size), line_styles, strict=True))), start))
        start = end
    return lines


def _runs(cells: list[tuple[str, int]]) -> Line:
    """``cells`` as (text, style) runs, one per stretch of the same style."""
    runs: list[tuple[str, int]] = []
    begin = 0
    for index in range(1, len(cells) + 1):
        if index == len(cells) or cells[index][1] != cells[begin][1]:
            runs.append(("".join(char for char, _style in cells[begin:index]), cells[begin][1]))
            begin = index
    return tuple(runs)
