"""Where streamed markdown may be cut into pieces that, rendered one by one, look like the whole.

A streamed answer is shown as sealed pieces (each rendered once) plus a live tail (re-rendered as
deltas arrive). For the tail to stay small however long the answer is, the text is cut at:

* a blank line between top-level blocks. The next piece is rendered after a one-line sentinel
  paragraph whose line is dropped, so Rich itself draws the separation (its count of blank lines
  depends on the blocks: a list or a table brings one of its own);
* a line boundary inside a top-level bullet list: Rich draws items with no gap between them, and
  the blank line it puts before a list is dropped from the next piece. A loose list (a blank
  line between items: items with paragraphs or code of their own, as step-by-step answers
  write them) is cut at the blank line before an item, which Rich draws as a tight one;
* a line boundary inside a top-level numbered list once it has ten numbers (from then on each
  number takes its own width, two digits at least: ``markdown_chunk``'s ``NumberedList``), cut as
  a bullet list is; the next piece's list is numbered from its first item's number in the whole
  list (``Piece.number``: Rich numbers a list from its first item's number on, whatever the
  others say). A paragraph after a blank line indented less than the item's text ends the list,
  and so does a fence indented less than it, blank line or not (``10.`` under items indented
  three: its text starts at four); a numbered item after a blank line outside any list starts a
  list of its own, cut before as any block is;
* a line boundary inside a top-level code fence: the first piece gets a closing fence and the
  next one re-opens it with the same opening line; the padding lines Rich adds around each half
  are dropped, so the two halves render exactly like the unsplit block. The cut is only made
  where the syntax highlighter is back in its plain state (checked with Rich's own lexer), so a
  docstring or a block comment is never cut in two; nor a shell or Perl heredoc, nor a block
  comment or string that one lexer rule reads whole (``/* … */`` to JavaScript, ``<!-- … -->``
  to HTML, Go's raw strings, Lua's long strings) while its closer has not come yet (until it
  comes its lines lex as code);
* a blank line of a block quote at the margin (``>`` alone) before a paragraph of it that starts
  with a letter, emphasized or not (``> Text``, ``> **Note**``): Rich draws a quote's blocks
  with nothing between them, each line after its bar, so the next piece is the rest of the quote
  drawn as a quote of its own, without the blank line Rich puts above a quote. Not after a rule
  (Rich puts no blank line above a quote whose last block is one), not inside a fence in the
  quote, and not after a line indented with a tab, a fence line indented less than its opener,
  or a marker after spaces (where the quote's blocks are not plain to see).

Tables, paragraphs and the rest of a quote (its nested quotes, its lists) are not cut inside:
their layout depends on all their lines (HTML is text, see ``markdown_chunk``). Except when a
piece would grow past ``MAX_PIECE`` characters with no such cut (one line of megabytes, a giant
table): rendering it would stall the event loop for seconds, so it is *forced* cut after about
``MAX_PIECE / 2`` characters (at a newline or a space if one is near), and the rest renders as a
new block on the next line (a code fence is closed and re-opened as at any fence cut; a table
whose rows go on with lines that start with ``|`` is re-opened: the rest is drawn as a table
with the same header, not as lines of pipes). Such text looks different from the whole; it is
pathological anyway, and every piece renders in bounded time. A link reference definition
(``[label]: url``) holds for the whole answer: each piece is rendered with the definitions of all
of them (``piece_lines``), so none stops the cuts (a blank line, or the next item, ends one).
Known differences: a quote cut in pieces whose last block turns out to be a rule has the blank
line above it that Rich draws only above other quotes; Rich draws an image that sits inside a list
item above the list; if the list was cut, above the piece the image is in (no piece boundary can
know that an image will come later in the list).
This module is pure text logic (no widgets), so it is unit- and property-tested on its own.
"""

from __future__ import annotations

import inspect
import re
import weakref
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, islice
from typing import Any

from pygments.lexer import Lexer, RegexLexer
from pygments.token import Token
from rich.syntax import Syntax

from tui.text.lexer_guard import LexerStuck, progressing
from tui.text.sanitize import clean_text
from widgets.transcript.markdown_parse import PARSER, draws_nothing

# Every finished block is sealed soon (the tail is re-rendered each frame, a sealed piece once),
# but not into crumbs: each piece has a fixed rendering cost (≈ 0.3 ms).
MIN_PIECE = 100
FENCE_PIECE = 300  # a code fence is cut only into parts this long: each cut costs a tokenization
FENCE_RETRY = 150  # after a tokenization found no cut (a long string), the next one waits this long
LIMIT_PIECE = 800  # cut at the last boundary before this: a piece renders in ≤ ~15 ms
# The lines after a fence cut are tokenized in context this far past it (see ``_plain_state_cut``).
# Where the lexer's state is read (``_state_cut``: Python, bash, JavaScript, Go, Rust, …), one
# tokenization of the window checks several cuts. Elsewhere (C, JSON, …) the fence is
# tokenized in context to FENCE_SPAN past its start (most cuts come before LIMIT_PIECE), and
# from the cut on alone to FENCE_SPAN past the cut, which is the next cut's span in context
# (tokenized once for both). A flood's backlog was tokenized 7.2 times over for its cuts (60 %
# of a code burst's CPU), each check reading to the end of the sealer's window twice; 3.96 times
# with the spans; 1.84 times where the state is read.
FENCE_LOOKAHEAD = 2_400
FENCE_SPAN = LIMIT_PIECE + FENCE_LOOKAHEAD
WINDOW_PIECES = 6  # the sealer reads this many LIMIT_PIECEs at a time: the span after a cut at
# LIMIT_PIECE fits (a later one, with less than FENCE_LOOKAHEAD after it, waits for a larger window)
MAX_PIECE = 16_384  # no piece (nor the tail) grows past this: forced cut (see the docstring)
NUMBERED_FROM = 10  # a numbered list is cut once its numbers reach this (see ``NumberedList``)

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_BULLET = re.compile(r"^[-*+][ \t]")
_BULLET_MARK = re.compile(r"^[-*+](?:[ \t]|$)")  # an item, with its text or not (on the next line)
# A link reference definition, in quotes or items (or what may be one): a label then ":" and a
# destination alone or before a title, or a label going on on the next line. Not "[Note]: text".
_DEFINITION = re.compile(r"^(?:[ \t]*(?:>|[-*+](?=[ \t]|$)|[0-9]{1,9}[.)](?=[ \t]|$)))*[ \t]*\["
                         r"(?:[^\]\\]|\\.)*\\?(?:$|\]:[ \t]*(?:$|<|\S+[ \t]*(?:$|[\"'(])))", re.MULTILINE)
_ORDERED = re.compile(r"^ {0,3}\d{1,9}[.)]")
_DELIMITER_ROW = re.compile(r"^ {0,3}[|:-][-:| \t]*$")  # a table's second line, roughly
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_NUMBERED = re.compile(r"^([0-9]{1,9})([.)])([ \t]+)(?=\S)")  # "12. text": number, delimiter, gap
_QUOTE_BLANK = re.compile(r"^> *$")  # a blank line of a block quote at the margin
_QUOTE_LINE = re.compile(r"^ {0,3}>")  # a line of a block quote (or its start)
_QUOTED_TEXT = re.compile(r"^> ?(?:[*_]{1,3})?[^\W\d_]")  # a paragraph of it: a letter first (emphasized)


def may_define(markdown: str) -> bool:
    """Whether ``markdown`` (made inert: ``clean_text``) may hold a link reference definition (a
    line that looks like one: the parser decides, see ``markdown_parse.definitions``)."""
    return "]:" in markdown and _DEFINITION.search(markdown) is not None


SENTINEL = "x\n\n"  # rendered before a piece that starts a new block, then dropped (see Piece)


@dataclass(frozen=True)
class Piece:
    """A sealed part of the text and the markdown that renders it as part of the whole.

    Rich separates top-level blocks with blank lines whose count depends on the block before
    (a list or a table brings its own). So a piece that starts a new block is rendered after a
    one-line sentinel paragraph whose line is then dropped: Rich itself draws the separation.
    """

    source: str  # the slice of the streamed text it covers
    markdown: str  # what is rendered
    trim_top: int = 0  # rendered lines to drop at the top (sentinel, re-opened fence padding, …)
    trim_bottom: int = 0  # rendered lines to drop at the bottom (the padding of a closed fence)
    number: int | None = None  # its first numbered list goes on one: numbered from this
    trim_blank: bool = False  # drop its first rendered line if blank (the rest of a quote, below)


@dataclass(frozen=True)
class Cut:
    """A cut of a markdown text at ``end`` (an index just after a newline)."""

    end: int
    close: str = ""  # appended to the piece: a closing fence
    reopen: str = ""  # prepended to the rest: the fence's opening line
    joined: bool = False  # the rest continues the same block (a list): no separation
    quoted: bool = False  # the rest goes on a block quote (see ``Sealer._piece``)
    number: int | None = None  # the rest's first item is this number of its numbered list
    forced: bool = False  # not a safe cut (a piece would be too large): the rest starts a new line


@dataclass
class _Quote:
    """A block quote at the margin the lines read so far are in (see ``find_cut``)."""

    fence: _Fence | None = None  # a fence open in it
    drawn: bool = False  # it has a line with text (a piece ending in it draws something)
    plain: bool = True  # its blocks are plain to see: no tab in a line's indent, no fence line
    # indented less than its opener (in a list item of the quote, that line may end the item), no
    # marker after spaces
    last: str = ""  # its last line with text outside a fence

    def read(self, line: str) -> None:
        """Follow ``line`` (``>`` at its start, or after one to three spaces) as a line of it."""
        content = line[2:] if line[1:2] == " " else line[1:]
        if line[:1] != ">" or "\t" in line[:len(line) - len(line[1:].lstrip(" \t"))]:
            self.plain = False  # a marker after spaces; a tab (its width depends on its column)
        elif self.fence is not None:
            if not _blank(content) and _spaces(content) < self.fence.indent:
                self.plain = False
            elif self.fence.closes(content):
                self.fence = None
        elif not _blank(content):
            self.fence = _opens(content)
            # (what may be a link reference definition draws nothing: not yet drawn)
            self.drawn, self.last = self.drawn or _DEFINITION.match(content) is None, content

    def cut_before(self, line: str, following: str) -> bool:
        """Whether a cut after ``line`` starts the rest of the quote at a paragraph of its own.

        Its first character a letter (emphasized or not: "**Note**"): not an image or a
        definition (drawn as nothing of its own line) nor a rule. Not after a rule: Rich puts
        the blank line above a quote only if its last block is not a rule, so the piece before
        the cut must not end in one."""
        return (self.plain and self.drawn and self.fence is None and _RULE.match(self.last) is None
                and _QUOTE_BLANK.match(line) is not None and _QUOTED_TEXT.match(following) is not None)


@dataclass
class _Fence:
    char: str
    length: int
    opener: str  # the opening line, verbatim
    indent: int
    first: int = 0  # index of its first content line
    start: int = 0  # offset of its first content line

    def closes(self, line: str) -> bool:
        stripped = line.strip(" \t")  # (a no-break space is text to markdown)
        return (_spaces(line) <= 3 and len(stripped) >= self.length
                and stripped == self.char * len(stripped))


@dataclass(frozen=True)
class _Numbered:
    """The top-level numbered list the lines read so far are in (see ``_numbered``)."""

    start: int  # its first number (markdown-it's ``start``: the first item's number as written)
    count: int  # its items so far (0: the lines are in no list at all, for sure)
    delimiter: str  # "." or ")": another one starts another list
    indent: int  # where the last item's text starts: a line after a blank one indented less ends it


_NO_LIST = _Numbered(0, 0, "", 0)


def _numbered(known: _Numbered | None, line: str, after_blank: bool, first: bool) -> _Numbered | None:
    """The numbered list ``line`` leaves the text in, from what the line before it left (None:
    not known for sure; no cut is made in a list not followed from its start). Only what is
    certain is followed: items with text at the start of a line, indented lines, blank lines,
    paragraphs that start after a blank line (at the margin, or indented less than the item's
    text: either ends the list), and fence openers (in the item when indented as its text, else
    at the top level: a fence is never a lazy line). Anything else (a line less indented than the
    item's text with no blank line before it, an empty item, a heading, a bullet, a quote) leaves
    it unknown until a paragraph after a blank line."""
    item = _NUMBERED.match(line)
    if item is not None:
        digits, delimiter, gap = item.group(1), item.group(2), item.group(3)
        if "\t" in gap:
            return None  # a tab's width depends on its column: where its text starts is not plain
        indent = _item_text(len(digits) + 1, len(gap))
        if known is not None and known.count and known.delimiter == delimiter:
            return _Numbered(known.start, known.count + 1, delimiter, indent)
        # A list starts here: at the text's start, after a blank line outside any list, or
        # under a paragraph (only a list starting at 1 interrupts one).
        if first or (known is _NO_LIST and (after_blank or int(digits) == 1)):
            return _Numbered(int(digits), 1, delimiter, indent)
        return None
    if _blank(line):
        return known
    if _opens(line) is not None:
        spaces = _spaces(line)
        if known is not None and known.count and spaces >= known.indent:
            return known  # the item's own code
        if spaces == 0 or known is _NO_LIST or (known is not None and known.count):
            return _NO_LIST  # a fence at the top level (none is a lazy line): it ends any list
        return None  # (indented up to 3, under a list not followed: it may be an item's)
    if line[:1] == " ":
        if known is None or not known.count:
            if (after_blank and _spaces(line) >= 4) or _PLAIN_START.match(line.lstrip(" ")):
                return known  # code indented after a blank line, or a paragraph's line
            return None  # (an item may be indented up to 3)
        if _spaces(line) >= known.indent:
            return known  # the item's own text
        if after_blank and _spaces(line) <= 3 and _PLAIN_START.match(line.lstrip(" ")):
            return _NO_LIST  # a paragraph at the top level: after a blank line, none is lazy
        return None  # less indented: a lazy line of the item's paragraph, or the item's end (a
        # heading or code as its last block has no lazy lines): not known without parsing
    if _PLAIN_START.match(line) is not None and (first or after_blank or known is _NO_LIST):
        return _NO_LIST  # a paragraph: it ends any list above it
    return None


def _item_text(marker: int, gap: int) -> int:
    """Where a list item's text starts, after its marker (``-``, ``12.``) and ``gap`` spaces:
    five or more make the text an indented code block, one space after the marker."""
    return marker + (gap if gap <= 4 else 1)


def _opens(line: str) -> _Fence | None:
    match = _FENCE.match(line)
    if match is None:
        return None
    marker, info = match.group(2), match.group(3)
    if marker[0] == "`" and "`" in info:
        return None  # CommonMark: a backtick fence's info string has no backticks
    return _Fence(marker[0], len(marker), line, len(match.group(1)))


def _spaces(line: str) -> int:
    """How many spaces ``line`` starts with (a fence's indent)."""
    return len(line) - len(line.lstrip(" "))


def _blank(line: str) -> bool:
    """A blank line as markdown reads it: spaces and tabs only (a no-break space or a control
    character is text to it, and the renderer shows controls as symbols)."""
    return not line.strip(" \t")


@lru_cache(maxsize=64)
def markdown_lexer(name: str) -> Lexer | None:
    """The lexer Rich's markdown code block would use for this info string (None: unknown)."""
    syntax = Syntax("", name or "text")  # same options as rich.markdown.CodeBlock's
    return syntax.lexer


@lru_cache(maxsize=2)
def _line_tokens(lexer: Lexer, code: str) -> list[list[tuple[Any, str]]]:
    """Tokens of ``code`` line by line; each line ends with its newline token. The last two are
    kept (callers only read them): the lines after an accepted fence cut, tokenized alone to check
    it (the last tokenization), are the next piece's, tokenized in context to check its own cut."""
    return token_lines(progressing(lexer.get_tokens(code)))


def token_lines(tokens: Iterable[tuple[Any, str]]) -> list[list[tuple[Any, str]]]:
    """``tokens`` (of whole lines) line by line, a token across lines cut at each newline; each
    line ends with its newline."""
    lines: list[list[tuple[Any, str]]] = [[]]
    for kind, value in tokens:
        while value:
            head, newline, value = value.partition("\n")
            if head or newline:
                lines[-1].append((kind, head + newline))
            if newline:
                lines.append([])
    return lines[:-1] if not lines[-1] else lines


def find_cut(text: str, minimum: int = MIN_PIECE, limit: int = LIMIT_PIECE,
             fence_minimum: int | None = FENCE_PIECE, number: int | None = None,
             lexed: list[int] | None = None, whole: bool = True) -> Cut | None:
    """Where to cut ``text`` (a tail still growing at its end), or None.

    A cut is made after a complete line, and what the line after it is decides whether the cut
    is safe: it must be complete too, or have started with what settles that (``_decided``; not
    inside a code fence, whose closing line it could be). Lines are read as the renderer reads
    them (``clean_text``: a ``\r`` before a newline is part of it, other hidden characters are
    visible tokens; HTML is text). The cut is the last safe one in
    ``text[:limit]`` at or past ``minimum`` (or before it, at the blank line above what looks
    like a table: see ``_table_starts``), or else the first one after ``limit``. Code fences
    are cut only past ``fence_minimum`` (None: never). ``number``: ``text`` goes on a numbered
    list, its first item being that number of it. ``lexed`` gets a 1 for each tokenization run
    to check a fence cut (the costly part). ``whole``: ``text`` is all that has come (False: a
    window of it, more past its end: a fence cut is checked only as far as the window reaches).
    """
    if len(text) < minimum:
        return None
    raw = text.split("\n")
    lines = _as_rendered(text).split("\n")  # as many lines as raw (offsets are raw's)
    complete = len(lines) - 1  # the last line may still be growing
    best: Cut | None = None
    fence: _Fence | None = None
    fence_candidates: list[int] = []
    closed: tuple[_Fence, list[int], int] | None = None  # the last closed fence's candidates, and
    # where it closed: tokenized only if no cut comes after it (the cut wanted is the latest one)
    end = 0
    past_limit = False
    last_text = ""  # the last non-blank line outside fences (and outside what may be definitions)
    defining = False  # the lines since the last blank one may be a link reference definition
    numbered: _Numbered | None = None  # the top-level numbered list the lines so far are in
    fences: list[tuple[int, int]] = []  # the lines each closed fence opened and closed on
    quote: _Quote | None = None  # the block quote at the margin the lines are in

    def settle_fence() -> Cut | None:
        # A fence cut is checked with the lexer only when it would be chosen: that costs a
        # tokenization, the other checks are string tests.
        nonlocal fence_candidates, closed
        earlier, closed = closed, None
        if earlier is not None and (best is None or best.end < earlier[2]):
            found = settle(*earlier[:2])
            if found is not None:
                return found
        if fence is None or not fence_candidates:
            return None
        found, fence_candidates = settle(fence, fence_candidates), []
        return found

    def settle(cut_fence: _Fence, candidates: list[int]) -> Cut | None:
        if lexed is not None:
            lexed.append(1)
        ok = _plain_state_cut(cut_fence, lines, candidates, whole)
        if ok is None:
            return None
        closing = cut_fence.char * cut_fence.length + "\n"
        return Cut(sum(len(line) + 1 for line in raw[:ok + 1]), close=closing,
                   reopen=cut_fence.opener + "\n", joined=True)

    def later(found: Cut | None) -> Cut | None:
        return found if found is not None and (best is None or found.end > best.end) else best

    for index in range(complete):
        line, following = lines[index], lines[index + 1]
        growing = index + 1 == complete  # the line after this one is still streaming
        if growing and not _decided(following):
            break
        end += len(raw[index]) + 1  # the cut would be here, after this line
        if end > limit and not past_limit:
            past_limit = True  # settle once here: past it, each try would re-tokenize the fence
            best = later(settle_fence())
        if past_limit and best is not None:
            break
        # A definition draws nothing: a cut after it is one after the block before (a rule, maybe;
        # a rule right after it is a rule: a definition's lines go on only with its title).
        defining = not _blank(line) and (defining or (fence is None and _DEFINITION.match(line) is not None))
        if not _blank(line) and (not defining or _RULE.match(line)):
            last_text = line
        if fence is None:
            numbered = _numbered(numbered, line, index > 0 and _blank(lines[index - 1]), index == 0)
            if index == 0 and number is not None and numbered is not None and numbered.count:
                numbered = _Numbered(number, 1, numbered.delimiter, numbered.indent)
        if fence is not None:
            if not _blank(line) and _spaces(line) < fence.indent:
                # An indented fence may sit in a list item (as indented as its text, at most 3):
                # a line indented less ends the item (and the fence), or is the fence's own (at
                # the top level): not known.
                return best
            if fence.closes(line):
                if fence_candidates:
                    closed, fence_candidates = (fence, fence_candidates, end), []
                fences.append((fence.first - 1, index))
                fence = None
            elif (fence_minimum is not None and not growing and end - fence.start >= fence_minimum
                  and fence.indent == 0
                  and not _blank(line) and not _blank(following) and not fence.closes(following)):
                fence_candidates.append(index)
            continue
        opened = _opens(line)
        if opened is not None:
            opened.first, opened.start = index + 1, end
            fence = opened
            quote = None
            continue
        if not _QUOTE_LINE.match(line):
            quote = None  # a blank line or any other line ends what can be followed of a quote
        else:  # (a quote's line outside a fence, indented up to 3, is at the top level: no line
            # starting a quote is a lazy one, and only a quote's lines start with its marker)
            quote = quote or _Quote()
            quote.read(line)
        if end < minimum and not (_blank(line) and _table_starts(lines, index + 1, complete)):
            continue  # (a table is cut from a short text above it: a tail of one table is cheap)
        if _blank(line) and not _BULLET_MARK.match(following) and (
                not _ORDERED.match(following) or (numbered is _NO_LIST and _NUMBERED.match(following))):
            # (a numbered item after a blank line outside any list starts a list of its own.)
            # Not after a thematic break: Rich puts no blank line after one.
            if not _blank(following) and following[:1] not in (" ", "\t") and not _RULE.match(last_text):
                best = Cut(end)
        # An item after this line, in a list that goes on: a joined cut (the next piece's list
        # drawn without the blank line Rich puts before a list). After a blank line too (a loose
        # list: its items have paragraphs or code of their own), which Rich draws as a tight one.
        elif _BULLET.match(following) and following.strip(following[0] + " \t"):
            # (an item with text: an empty one cannot interrupt a paragraph, and "- " under one
            # underlines it as a heading; a rule has nothing but markers and spaces either)
            joined = _continues_list(lines, index, following[0], fences)
            if joined is not None:
                best = Cut(end, joined=joined)
        elif numbered is not None and numbered.start + numbered.count >= NUMBERED_FROM:
            item = _NUMBERED.match(following)
            next_number = numbered.start + numbered.count  # the next item's, in the whole list
            if item is not None and item.group(2) == numbered.delimiter and next_number < 10 ** 9:
                best = Cut(end, joined=True, number=next_number)
        elif quote is not None and quote.cut_before(line, following):
            best = Cut(end, quoted=True)
    return later(settle_fence())


def _table_starts(lines: list[str], start: int, complete: int) -> bool:
    """Whether a table looks to start at ``lines[start]`` (its delimiter line complete)."""
    return start + 1 < complete and "|" in lines[start] and "-" in lines[start + 1] \
        and _DELIMITER_ROW.match(lines[start + 1]) is not None


_NEWLINES_AND_TABS = str.maketrans("", "", "\n\t")


def _as_rendered(text: str) -> str:
    """``text`` as the renderer reads it (``clean_text``): only a ``\r\n`` loses a character (its
    ``\r``), so the lines stay as many; a ``\r`` at the very end may start a ``\r\n``: not read
    yet. Plain ASCII (most of it) is returned as it is, without the scan."""
    if text.isascii() and text.translate(_NEWLINES_AND_TABS).isprintable():
        return text
    return clean_text(text.removesuffix("\r"))


def _decided(start: str) -> bool:
    """Whether the start of a line still streaming gives the answers ``find_cut`` needs about
    the line after a cut as the whole line will: they depend on its first characters only (blank,
    indented, a list marker, a thematic break), settled once a character comes that none of them
    allows. So a heading or a finished code block is sealed as soon as the paragraph after it
    starts, not when that paragraph's one long line ends."""
    first = start[:1]
    if _blank(start) or first in (" ", "\t"):
        return False  # blank or indented so far (no cut is made before an indented line anyway)
    if first in ("-", "*", "+"):
        # A bullet ("- x") or not ("-x", "**bold**"), and no rule (markers and spaces only), once
        # a character comes that is neither the marker nor a space.
        return bool(start.strip(first + " \t"))
    if first.isdecimal():  # an ordered item's number ("12." or "12)"), as _ORDERED's \d reads it
        return not start.isdecimal() or len(start) > 9
    return True


def _continues_list(lines: list[str], index: int, marker: str,
                    fences: list[tuple[int, int]]) -> bool | None:
    """Whether a bullet item after ``lines[index]`` (blank in a loose list) continues a list
    (True), starts a new block after a plain paragraph (False), or None when that is not certain
    (no cut then).

    Walking back: a bullet line with the same marker (through indented and blank lines only: an
    item's own blocks) means the same list; a run of plain paragraph lines back to a blank line
    means a paragraph the list interrupts (only right under it: a bullet after a blank line that
    ends no item is not cut before). Anything else (headings, tables, quotes, fences, lazy
    continuation lines of an item, another marker) is left alone.
    """
    line = lines[index]
    back = index
    loose = _blank(line)
    while (line[:1] in (" ", "\t") or _blank(line)) and back > 0:  # an item's indented blocks
        back -= 1
        line = lines[back]
    if _BULLET.match(line):
        # Not an item without text: "- - -" is a rule, and "- " under a paragraph underlines it.
        # Nor a line of a fence (closed by a line indented as an item's text would be).
        if (line[0] != marker or not line.strip(marker + " \t")
                or any(start < back <= end for start, end in fences)):
            return None
        gap = len(line) - 1 - len(line[1:].lstrip(" \t"))
        if "\t" in line[:1 + gap]:
            return None  # a tab's width depends on its column: where the text starts is not plain
        text = _item_text(1, gap)
        for below in lines[back + 1:index + 1]:
            indent = len(below) - len(below.lstrip(" \t"))
            if "\t" in below[:indent] or (not _blank(below) and indent < text):
                return None  # less indented than its text: a lazy line, or the item's end (its
                # last block decides: a heading has no lazy lines)
        return True
    if loose:
        return None
    for back in range(index, -1, -1):
        line = lines[back]
        if _blank(line):
            return False
        if line[:1] in (" ", "\t") or _PLAIN_START.match(line) is None:
            return None
    return False


_PLAIN_START = re.compile(r"^[^\s#>|`~<=*+\-\d]")  # a line that can only be paragraph text


def _plain_state_cut(fence: _Fence, lines: list[str], candidates: list[int],
                     whole: bool = True) -> int | None:
    """``_checked_cut``, or None (no cut) where the lexer makes no progress (``lexer_guard``)."""
    try:
        return _checked_cut(fence, lines, candidates, whole)
    except LexerStuck:
        return None


def _checked_cut(fence: _Fence, lines: list[str], candidates: list[int],
                 whole: bool = True) -> int | None:
    """The last candidate line (cut after it) that leaves the highlighter as at the fence start.

    The newline ending the line must be plain text (not inside a string or a comment), and the
    lines after it must tokenize alone exactly as they do in context: all of them, to
    ``FENCE_LOOKAHEAD`` characters past the candidate (a state such as bash's ``$( … )``
    changes nothing until its closing line, however far; past that, as past what has come, it is
    not known), or to the fence's end or the end of what has come if nearer. ``lines`` not
    ``whole`` (a window of more): a candidate whose lookahead the window cuts is not taken (the
    sealer reads a larger window). Few candidates are tried: inside a long docstring none passes,
    and each try costs a tokenization. For most languages the lexer's own state says whether the
    lines after the cut go on alone as in context, with no second tokenization (``_state_cut``);
    the comparison below is for the lexers whose state cannot be read so.
    """
    info = fence.opener.lstrip(" ")[fence.length:].strip()
    lexer = markdown_lexer(info.partition(" ")[0])
    if lexer is None:
        return candidates[-1]  # no highlighting: every line is independent
    first = fence.first
    last = len(lines)
    for index in range(first, len(lines)):
        if fence.closes(lines[index]):
            last = index
            break
    code = "\n".join(lines[first:last]) + "\n"  # (``lines`` are cleaned: no "\r", no BOM)
    heredocs = _heredoc_rule(lexer)
    if heredocs is not None:
        candidates = _outside_heredocs(code, lines, first, candidates, heredocs)
    candidates = _before_open_block(lexer, code, lines, first, candidates)
    if not candidates:
        return None
    cut_short = last == len(lines) and not whole  # the window ends before the fence and the text
    at_start = _text_start_rules(lexer)
    if at_start is not None:
        return _state_cut(lexer, at_start, code, first, candidates, closed=last < len(lines),
                          cut_short=cut_short)
    latest = sum(len(line) + 1 for line in lines[first:candidates[-1] + 1])
    end = _span_end(lines, first, last, max(FENCE_SPAN, latest + FENCE_LOOKAHEAD))
    in_context = _line_tokens(lexer, "\n".join(lines[first:end]) + "\n")
    # (Once the fence has closed, an opener the lexer still cannot read never closes.)
    unread = end if end == last < len(lines) else _first_unread(in_context, 0, candidates[-1] - first + 1)
    for index in candidates[::-1][:4]:  # the latest cut is the one wanted: try it first
        row = index - first
        if index + 1 >= end or row >= unread or not in_context[row]:
            continue
        if cut_short and sum(len(line) + 1 for line in lines[index + 1:last]) < FENCE_LOOKAHEAD:
            continue
        kind, value = in_context[row][-1]
        if not value.endswith("\n") or kind not in Token.Text:
            continue
        # Alone, the lines after the cut are tokenized over the span the next piece's own check
        # reads in context (the same text: ``_line_tokens`` keeps it), and compared where both
        # were read, but for the margin line at the end of the shorter one (it may read
        # otherwise where the text ends) when they end apart.
        after = _span_end(lines, index + 1, last, FENCE_SPAN)
        alone = _line_tokens(lexer, "\n".join(lines[index + 1:after]) + "\n")
        shared = min(end, after) - index - 1 - (1 if after != end else 0)
        if shared > 0 and alone[:shared] == in_context[row + 1:row + 1 + shared]:
            return index
    return None


# A shell heredoc as Pygments lexes it (bash, zsh, tcsh, …): one rule from ``<<WORD`` to the next
# WORD anywhere after it, so the lines in between are one string once WORD comes. Until it comes
# they lex as code: a cut there would keep them coloured as code when the whole is a string. And a
# closing WORD further than the lookahead is not seen by the lexer's check either. Perl's rule
# wants ``<<WORD`` (or ``<<"WORD"``, ``<<'WORD'``) to end its line, with a ``;`` at most, and
# WORD on a line of its own to close it.
_HEREDOC = re.compile(r"<<-?\s*('?)\\?(\w+)")
_PERL_HEREDOC = re.compile(r"<<(['\"]?)([a-zA-Z_]\w*)\1;?\n")
# What on the line before a ``<<`` makes it no heredoc: a comment, an open quote, arithmetic.
_NOT_HEREDOC = re.compile(r"(?:^|\s)#|\(\((?!.*\)\))")


@dataclass(frozen=True)
class _Heredocs:
    opener: re.Pattern[str]  # its group 2 is the word
    own_line: bool  # the closing word stands on a line of its own (Perl's), or anywhere after
    not_after: re.Pattern[str]  # on the line before the opener, what makes it none
    odd_quotes: bool  # an odd quote on that line makes it none (not to Perl's lexer)


_SHELL_HEREDOCS = _Heredocs(_HEREDOC, own_line=False, not_after=_NOT_HEREDOC, odd_quotes=True)
_PERL_HEREDOCS = _Heredocs(_PERL_HEREDOC, own_line=True, not_after=re.compile(r"(?:^|\s)#"), odd_quotes=False)
_HEREDOC_RULE: weakref.WeakKeyDictionary[Lexer, _Heredocs | None] = weakref.WeakKeyDictionary()


def _heredoc_rule(lexer: Lexer) -> _Heredocs | None:
    """The heredocs the lexer reads with one rule that ends at their word: a shell's (a rule from
    ``<<`` to the word's backreference, anywhere after), Perl's (a rule from ``(<<)(`` to the
    word's backreference on a line of its own); None if it has neither."""
    if lexer not in _HEREDOC_RULE:
        rules = [rule[0] for state in (getattr(lexer, "tokens", None) or {}).values() for rule in state
                 if isinstance(rule, tuple) and isinstance(rule[0], str)]
        shell = any(rule.startswith("<<") and "\\2" in rule for rule in rules)
        perl = any(rule.startswith("(<<)(") and rule.endswith("(\\3)(\\n)") for rule in rules)
        _HEREDOC_RULE[lexer] = _SHELL_HEREDOCS if shell else _PERL_HEREDOCS if perl else None
    return _HEREDOC_RULE[lexer]


def _cut_offsets(lines: list[str], first: int, candidates: list[int]) -> list[int]:
    """Where the cut after each candidate line falls in the fence's code (from line ``first``)."""
    ends = list(accumulate(len(line) + 1 for line in lines[first:max(candidates) + 1]))
    return [ends[index - first] for index in candidates]


def _outside_heredocs(code: str, lines: list[str], first: int, candidates: list[int],
                      heredocs: _Heredocs) -> list[int]:
    """The candidate lines whose cut (after them) is in no heredoc of the fence's ``code`` (its
    ``lines`` from ``first``): closed as the lexer closes it, or not closed yet (it goes on to the
    end). A ``<<`` after a comment's ``#`` on its line is none, and for the shells' lexers one
    after an odd quote or an open ``((``."""
    spans: list[tuple[int, int]] = []
    for found in heredocs.opener.finditer(code):
        at = found.start()
        line = code[code.rfind("\n", 0, at) + 1:at]
        if (code.startswith("<<<", at) or (at and code[at - 1] == "<") or heredocs.not_after.search(line)
                or (heredocs.odd_quotes and (line.count('"') % 2 or line.count("'") % 2))):
            continue  # (a here-string; or no heredoc to the lexer)
        word = found.group(2)
        if heredocs.own_line:  # (its body has a newline at least, after the opener's own)
            closer = code.find(f"\n{word}\n", found.end())
            closer += 1 if closer >= 0 else 0
        else:
            closer = code.find(word, found.end() + 1)  # (the rule takes at least a character)
        spans.append((at, len(code) + 1 if closer < 0 else closer + len(word)))
        if closer < 0:
            break  # the rest is in it
    if not spans or not candidates:
        return candidates
    return [index for index, cut in zip(candidates, _cut_offsets(lines, first, candidates), strict=True)
            if not any(start < cut < end for start, end in spans)]


# Block comments and strings, opener and closer, that many lexers read with one rule (below); a
# closer that must start its line has its newline. A string whose opener closes it too is open
# while their count is odd (C#'s three quotes); one quote (Go's backtick) is too common to count
# in code that is whole, but most such openers are an Error token until they close
# (``_first_unread``).
ONE_RULE_BLOCKS = (("/*", "*/"), ("<!--", "-->"), ("--[[", "]]"), ("=begin", "\n=end"),
                   ("[[", "]]"), ('R"(', ')"'), ("$/", "/$"),  # (Lua's, C++'s, Groovy's strings)
                   ('"' * 3, '"' * 3))  # (C#'s raw strings: open while their count is odd)
# Blocks whose delimiter holds a part of its own, repeated in the closer (the opener's pattern,
# the closer's template, and an opener and closer to probe the lexer with): C++'s raw strings
# with a delimiter (``R"sql(`` … ``)sql"``), Lua's long strings and comments of a level.
DELIMITED_BLOCKS = ((re.compile(r'R"([^()\\\s"]{1,16})\('), r')\1"', 'R"x(', ')x"'),
                    (re.compile(r"\[(=+)\["), r"]\1]", "[=[", "]=]"),
                    (re.compile(r"--\[(=+)\["), r"]\1]", "--[=[", "]=]"))
_BLOCKS_OF: weakref.WeakKeyDictionary[Lexer, tuple[tuple[str, str], ...]] = weakref.WeakKeyDictionary()
_DELIMITED_OF: weakref.WeakKeyDictionary[Lexer, tuple[tuple[re.Pattern[str], str], ...]] = \
    weakref.WeakKeyDictionary()
_PROBE_TOKENS = 40  # (a lexer may give empty tokens for ever on a text it does not expect)
_OPEN_SEEN: list[tuple[str, str, int, bool]] = []  # the last opener found open or not (see below)
_CONTEXT_LINES = 3  # lines before an opener's tokenized with it


def _reads_as_one_block(lexer: Lexer, opener: str, closer: str) -> bool:
    """Whether the lexer reads ``opener`` … ``closer`` over two lines as comment or string tokens
    only, the first of them starting with the whole opener (three quotes are two strings to Go's,
    ``/`` a regular expression to Ruby's), or a string's prefix (C++'s ``R``) that it starts."""
    text = f"{opener} a\n{closer.lstrip(chr(10))}\n"
    read = ""
    for _, kind, value in islice(lexer.get_tokens_unprocessed(text), _PROBE_TOKENS):
        if value and ((kind not in Token.Comment and kind not in Token.Literal.String)
                      or (not read and not value.startswith(opener)
                          and not (kind in Token.Literal.String.Affix and opener.startswith(value)))):
            break
        read += value
    if not (read.startswith(opener) and closer.lstrip("\n") in read[len(opener):]):
        return False
    # ... and, open, leaves the line after it as code (Python reads an open docstring as one)
    unclosed = f"{opener} a\nalpha\n"
    return any(kind not in Token.Comment and kind not in Token.Literal.String and "alpha" in value
               for _, kind, value in islice(lexer.get_tokens_unprocessed(unclosed), _PROBE_TOKENS))


def _blocks_of(lexer: Lexer) -> tuple[tuple[str, str], ...]:
    """The blocks the lexer reads as such (``/* … */`` is none to Python's lexer, nor to a
    diff's; ``<!--`` is a line comment to JavaScript's; ``[[`` a string to Lua's only)."""
    found = _BLOCKS_OF.get(lexer)
    if found is None:
        found = _BLOCKS_OF[lexer] = tuple(
            pair for pair in ONE_RULE_BLOCKS if _reads_as_one_block(lexer, *pair))
    return found


def _delimited_of(lexer: Lexer) -> tuple[tuple[re.Pattern[str], str], ...]:
    """The ``DELIMITED_BLOCKS`` the lexer reads as such, as opener pattern and closer template."""
    found = _DELIMITED_OF.get(lexer)
    if found is None:
        found = _DELIMITED_OF[lexer] = tuple(
            (pattern, closer) for pattern, closer, *probe in DELIMITED_BLOCKS
            if _reads_as_one_block(lexer, *probe))
    return found


def _last_open(pattern: re.Pattern[str], closer: str, code: str) -> int:
    """Where the last opener ``pattern`` finds in ``code`` is, if its closer does not come after
    it; else -1."""
    last = None
    for found in pattern.finditer(code):
        last = found
    return last.start() if last is not None and code.find(last.expand(closer), last.end()) < 0 else -1


def _before_open_block(lexer: Lexer, code: str, lines: list[str], first: int,
                       candidates: list[int]) -> list[int]:
    """The candidate lines whose cut comes before a block comment (or string: ``ONE_RULE_BLOCKS``)
    that has not closed yet. Many
    lexers (JavaScript's, Java's, Go's, CSS's, HTML's, Ruby's, …) read one with one rule, ``/*``
    to ``*/``: until ``*/`` comes its lines lex as code (``/`` and ``*`` operators, names), so a
    piece cut inside it while it streamed stayed coloured as code.

    Comments do not nest: only the last opener of each kind may be open, when no closer comes
    after it. It is, unless the lexer reads it in a string, or in a comment that started before
    it (``// see /*``): its line is tokenized, with a few lines before it (a string or comment
    that began further up is not seen: no cut after it then, as for an open comment), once for
    the same lines (a ``"src/**/*.js"`` in a long fence is looked at again at every check).

    A string whose opener closes it too (C#'s raw strings, three double quotes) is open while the
    count of them is odd, from the last; the lines before it are read with it only when no other
    such opener is among them (from inside the string before it, they would be read otherwise)."""
    if not candidates:
        return candidates
    blocks = _blocks_of(lexer)
    opened = [at for opener, closer in blocks if opener != closer
              and (at := code.rfind(opener)) >= 0 and code.find(closer, at + len(opener)) < 0]
    opened += [at for pattern, closer in _delimited_of(lexer)
               if (at := _last_open(pattern, closer, code)) >= 0]
    if opened and not _opens_there(lexer, code, min(opened)):
        opened = []
    for opener, closer in blocks:  # (the lines before the last may be in the string before it)
        if opener == closer and code.count(opener) % 2 and (at := code.rfind(opener)) >= 0 and (
                opener in code[_context_start(code, at):at] or _opens_there(lexer, code, at)):
            opened.append(at)
    if not opened:
        return candidates
    at = min(opened)
    return [index for index, cut in zip(candidates, _cut_offsets(lines, first, candidates), strict=True)
            if cut <= at]


def _context_start(code: str, at: int) -> int:
    """Where the few lines before ``at`` that ``_opens_there`` reads with it start."""
    start = code.rfind("\n", 0, at) + 1
    for _ in range(_CONTEXT_LINES):
        start = code.rfind("\n", 0, max(0, start - 1)) + 1
    return start


def _opens_there(lexer: Lexer, code: str, at: int) -> bool:
    """Whether the lexer reads an opener at ``at`` in ``code`` as one, not in a string or comment
    (see ``_before_open_block``), read with a few lines before it. (Not from the closer of a
    block before it, when nearer: that closer may be in a string, as ``*/`` is in a glob.)"""
    start = _context_start(code, at)
    lines_of_it = code[start:code.find("\n", at) + 1]
    if _OPEN_SEEN and _OPEN_SEEN[0][:3] == (lexer.name, lines_of_it, at - start):
        is_open = _OPEN_SEEN[0][3]
    else:
        is_open = True
        for offset, kind, value in progressing(lexer.get_tokens_unprocessed(lines_of_it)):
            if offset <= at - start < offset + len(value):
                # (a string or comment that starts at it is what it opens)
                inside = (kind in Token.Literal.String or kind in Token.Comment) and offset < at - start
                is_open = not inside
                break
        _OPEN_SEEN[:] = [(lexer.name, lines_of_it, at - start, is_open)]
    return is_open


def _opens_string(tokens: Sequence[tuple[Any, ...]], index: int) -> bool:
    """Whether ``tokens[index]`` (each token's kind and text last) is an Error token that may be
    the opener of a string that some lexers read with one rule, opener to closer, over lines, and
    whose closer has not come: until it comes the lexer cannot read the opener (Go's raw strings'
    backtick, Scala's triple quotes, a quote in JSX text in a JavaScript fence, C#'s ``@"`` and
    PostgreSQL's ``$$``, seen with the token after them) and the lines after it lex as code.
    Other Error tokens are common in code that is whole (``</h2>`` in JavaScript, ``!pip``, CSS
    nesting's ``&``, SQL's ``$1``) and stay so."""
    kind, error = tokens[index][-2:]
    if kind not in Token.Error:
        return False
    following = tokens[index + 1][-1] if index + 1 < len(tokens) else ""
    return error in ("`", '"', "'") or (error == "@" and following.startswith('"')) \
        or (error == "$" and following.startswith("$"))


def _first_unread(lines: list[list[tuple[Any, str]]], start: int, stop: int) -> int:
    """The first of ``lines[start:stop]`` (tokenized) with an Error token that may open a string
    (``_opens_string``), or ``stop``: a piece cut after it would stay coloured as code if the
    string closes later, so no cut comes after one in a piece (until the fence has closed)."""
    tokens = [(row, kind, value) for row in range(start, min(stop + 1, len(lines)))
              for kind, value in lines[row]]  # (and the line after: the token after the last)
    for index, (row, _kind, _value) in enumerate(tokens):
        if row >= stop:
            break
        if _opens_string(tokens, index):
            return row
    return stop


def _span_end(lines: list[str], start: int, stop: int, chars: int) -> int:
    """Where the lines from ``start`` reach ``chars`` characters (their newlines counted), and
    one line more (a margin: the last line tokenized may read otherwise where the text ends, and
    is not compared): the index after them, at most ``stop``."""
    total = 0
    for index in range(start, stop):
        total += len(lines[index]) + 1
        if total >= chars:
            return min(index + 2, stop)
    return stop


# -- fence cuts checked by the lexer's own state -------------------------------------------------
# Most languages' Pygments lexers are a ``RegexLexer``: at each position it tries its current
# state's rules in turn, the first that matches makes the tokens, and the state stack moves. Its
# rules read nothing before a line (no lookbehind but one character that is not a newline, no
# ``^`` but at line starts) and call no code of their own (only ``bygroups`` and ``using``, which
# read their match). So when the lexer, on a line alone, reaches the line's first match start in
# context (the line's start for a line that starts one, else past what a token from the line
# before took in: blanks before an indent, most often) in the same state, by a match both times
# (not the reset to the root state at a newline no rule matched), with the same tokens before it,
# it goes on exactly as in context from there (``_resyncs``). And the line before the cut must
# tokenize alike with nothing after it (``_ends_alone``: a rule may look past the cut). A cut
# before such a line needs no second tokenization of what follows, and the tokens after it are
# those of the next piece in context, so one tokenization of a window checks the cuts of several
# pieces (``_LEXED``): a code burst's backlog is tokenized about twice over for its cuts, not four
# times. The lines after a cut are still
# read ``FENCE_LOOKAHEAD`` past it in context (a string or comment matched by one rule to its
# closer, further on, covers the cut). Lexers that do otherwise keep ``_plain_state_cut``'s
# comparison (C, JSON, YAML, Ruby, PHP, HTML, SQL, …).

# By lexer (its options count, not only its class), for as long as ``markdown_lexer`` keeps it.
_START_RULES: weakref.WeakKeyDictionary[Lexer, tuple[re.Pattern[str], ...] | None] = \
    weakref.WeakKeyDictionary()


def _text_start_rules(lexer: Lexer) -> tuple[re.Pattern[str], ...] | None:
    """None if ``lexer``'s state cannot be read for cuts (see above); else its rules that match
    only at the start of the text (``\\A``: a shebang), which a line alone may match."""
    if lexer not in _START_RULES:
        try:
            _START_RULES[lexer] = _read_start_rules(lexer)
        except (AttributeError, TypeError, ValueError):  # (Pygments' rule tables changed shape)
            _START_RULES[lexer] = None
    return _START_RULES[lexer]


def _read_start_rules(lexer: Lexer) -> tuple[re.Pattern[str], ...] | None:
    kind = type(lexer)
    if (not isinstance(lexer, RegexLexer) or lexer.filters or lexer.stripall or lexer.stripnl
            or kind.get_tokens_unprocessed is not RegexLexer.get_tokens_unprocessed
            or kind.get_tokens is not Lexer.get_tokens
            or not {"pos", "statestack", "m"} <= set(RegexLexer.get_tokens_unprocessed.__code__.co_varnames)):
        return None
    at_start: dict[str, re.Pattern[str]] = {}
    for rules in lexer._tokens.values():
        for match, action, _state in rules:
            pattern = getattr(match, "__self__", None)
            if not isinstance(pattern, re.Pattern) or not _pure_action(action):
                return None
            source = pattern.pattern
            if not _lookbehinds_see_the_line(pattern) or ("^" in source and not pattern.flags & re.MULTILINE):
                return None
            if "\\A" in source:
                at_start[source] = pattern
    return tuple(at_start.values())


_LOOKBEHIND = re.compile(r"\(\?<[=!]")


def _lookbehinds_see_the_line(pattern: re.Pattern[str]) -> bool:
    """Whether each lookbehind of ``pattern`` decides alike on a line alone and in context: one
    character wide, and not a newline (Python's ``(?<!\\.)``). In context, the character before
    a line is its newline; alone, there is none: such a lookbehind fails (or, negative, passes)
    either way. (A bracket in a class may end the scan early: the lexer is then turned down.)"""
    source = pattern.pattern
    for found in _LOOKBEHIND.finditer(source):
        depth, index, in_class = 1, found.end(), False
        while index < len(source) and depth:
            char = source[index]
            if char == "\\":
                index += 1
            elif in_class:
                in_class = char != "]"
            elif char == "[":
                in_class = True
            elif char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
            index += 1
        if depth:
            return False
        inner = source[found.end():index - 1]
        flags = pattern.flags & (re.IGNORECASE | re.DOTALL | re.VERBOSE | re.UNICODE)
        try:
            width = re._parser.parse(inner, flags).getwidth()  # type: ignore[attr-defined]
        except Exception:  # (a private module: if it changes, the comparison is used instead)
            return False
        if width != (1, 1) or re.fullmatch(inner, "\n", flags) is not None:
            return False
    return True


def _pure_action(action: Any) -> bool:
    """Whether a rule's action makes its tokens from its match alone."""
    if action is None or isinstance(action, type(Token)):
        return True
    name = getattr(action, "__qualname__", "")
    if name == "using.<locals>.callback":  # another lexer (or this one) over the match's text
        return True
    if name == "bygroups.<locals>.callback":
        groups = inspect.getclosurevars(action).nonlocals.get("args", None)
        return isinstance(groups, tuple) and all(_pure_action(group) for group in groups)
    return False


_Sync = tuple[int, list[str], bool]


@dataclass
class _Lexed:
    """Code tokenized in context (from a cut, or a fence's start), line by line, with where each
    line's first match starts (at the line's start, or past what a token from the line before
    took in) and the lexer's state stack there."""

    lexer: Lexer
    text: str  # whole lines, as the lexer read them (tabs expanded)
    starts: list[int]  # where each line starts in ``text``
    lines: list[list[tuple[Any, str]]]
    syncs: list[_Sync | None]  # each line's first match start, the stack there, and whether a rule matched
    unread: list[int]  # the lines the lexer could not read (see ``_lexed``), in order


_LEXED: _Lexed | None = None  # the last tokenization: the next cuts are checked from it


def _lexed(lexer: Lexer, text: str) -> _Lexed | None:
    """``text`` (whole lines, tabs expanded) tokenized as ``Lexer.get_tokens`` does, with each
    line's first match start and the state there, read from the lexer's frame (None: the tokens
    are not its text), and the lines it could not read: an Error token that may open a string
    (``_opens_string``), or a newline no rule of its state matched (it then goes back to its
    root state: R's string before its closing quote)."""
    starts = [0]
    at = text.find("\n")
    while 0 <= at < len(text) - 1:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    syncs: list[_Sync | None] = [None] * len(starts)
    unread: list[int] = []
    errors: list[tuple[int, int]] = []  # each Error token's index and line
    line = 0
    tokens: list[tuple[Any, str]] = []
    run = lexer.get_tokens_unprocessed(text)
    for position, kind, value in progressing(run):  # (``run`` paused at each token: its state is read)
        while line + 1 < len(starts) and position >= starts[line + 1]:
            line += 1
        if syncs[line] is None and position >= starts[line]:
            state = _state_at(run, position)
            if state is not None:
                syncs[line] = (position, *state)
        if kind in Token.Error:
            errors.append((len(tokens), line))
        elif kind is Token.Text.Whitespace and value == "\n" and _reset_at(lexer, run, text, position):
            unread.append(line)
        tokens.append((kind, value))
    if "".join(value for _kind, value in tokens) != text:
        return None
    unread += [line for index, line in errors if _opens_string(tokens, index)]
    return _Lexed(lexer, text, starts, token_lines(tokens), syncs, sorted(set(unread)))


def _state_at(run: Any, position: int) -> tuple[list[str], bool] | None:
    """The state stack of ``RegexLexer.get_tokens_unprocessed`` (``run``, paused at a token at
    ``position``) if a match starts there (the frame is at it: not a later group of a
    ``bygroups`` match, whose frame is still at its start), and whether a rule matched there (not
    the lexer's reset at a newline no rule matched: it sets the root state, then yields the
    newline); None for a token inside a match."""
    frame = run.gi_frame.f_locals if run.gi_frame is not None else {}
    stack, match = frame.get("statestack"), frame.get("m")
    if frame.get("pos") != position or not isinstance(stack, list):
        return None
    return list(stack), isinstance(match, re.Match) and match.start() == position


def _reset_at(lexer: Lexer, run: Any, text: str, position: int) -> bool:
    """Whether the newline at ``position`` of ``text`` is the lexer's reset out of a state other
    than its root: no rule of the state it was in matched it, and a rule of the root state would
    have (some lexers have no rule for a newline at all: Dockerfile's, CMake's)."""
    state = _state_at(run, position)
    return state is not None and not state[1] and any(
        match(text, position) for match, _action, _state in lexer._tokens["root"])


def _resyncs(lexed: _Lexed, row: int, at_start: tuple[re.Pattern[str], ...]) -> bool:
    """Whether line ``row`` alone is tokenized as in context: alone, the lexer reaches the line's
    first match start in context in the same state, with the same tokens before it (from there on
    both runs are the same), and no ``\\A`` rule reads the line as the start of a text."""
    sync = lexed.syncs[row]
    if sync is None:
        return False
    at, stack, matched = sync
    start = lexed.starts[row]
    rest = lexed.text[start:]
    if any(pattern.match(rest) for pattern in at_start):
        return False  # alone, the line would be read as the start of the text (a shebang)
    alone: list[tuple[Any, str]] = []
    run = lexed.lexer.get_tokens_unprocessed(rest)
    try:
        for position, kind, value in progressing(run):
            if start + position > at:
                return False
            if start + position == at:
                state = _state_at(run, position)
                if state is not None:
                    if state != (stack, matched):
                        return False
                    break
            if value:
                alone.append((kind, value))
        else:
            return False
    finally:
        run.close()
    before: list[tuple[Any, str]] = []
    length = 0
    for kind, value in lexed.lines[row]:
        if length >= at - start:
            break
        before.append((kind, value))
        length += len(value)
    return length == at - start and before == alone


def _state_cut(lexer: Lexer, at_start: tuple[re.Pattern[str], ...], code: str, first: int,
               candidates: list[int], *, closed: bool, cut_short: bool) -> int | None:
    """``_plain_state_cut`` for a lexer whose state is read, ``code`` being the fence's lines from
    ``first`` (its closing line excluded: ``closed``).

    The kept tokenization is read when ``code`` starts on one of its lines that goes on alone as
    in context, and holds its text to the start of its last line (that line may have been cut by
    the window's end, or was still growing): only the cuts it reads far enough past count then,
    and ``code`` is tokenized anew when none does (a window's lines check ~4 cuts of a flood's)."""
    global _LEXED
    text = code.expandtabs(lexer.tabsize) if lexer.tabsize > 0 else code
    kept = _LEXED
    if kept is not None and kept.lexer is lexer and len(kept.starts) > 1:
        head = text[:text.find("\n") + 1]
        known = kept.starts[-1]  # the text up to its last line, which may read otherwise in ``code``
        for row, start in enumerate(kept.starts[:-1]):
            if (kept.text.startswith(head, start) and text.startswith(kept.text[start:known])
                    and (start == 0 or _resyncs(kept, row, at_start))):
                if kept.text[start:] == text:  # the same lines: as a new tokenization would read them
                    return _cut_in(kept, row, at_start, first, candidates, len(kept.text),
                                   to_close=closed, to_end=not cut_short)
                index = _cut_in(kept, row, at_start, first, candidates, known, to_close=False, to_end=False)
                if index is not None:
                    return index
                break
    fresh = _lexed(lexer, text)
    if fresh is None:
        return None
    _LEXED = fresh
    return _cut_in(fresh, 0, at_start, first, candidates, len(text), to_close=closed, to_end=not cut_short)


def _cut_in(lexed: _Lexed, row0: int, at_start: tuple[re.Pattern[str], ...], first: int,
            candidates: list[int], known: int, *, to_close: bool, to_end: bool) -> int | None:
    """The last of the (latest four) candidates whose newline is plain text and whose next line
    goes on alone as in context (``_resyncs``), tokenized in context ``FENCE_LOOKAHEAD`` past it
    (in ``lexed.text[:known]``, the text known to be the fence's), or to the fence's end
    (``to_close``: ``lexed`` ends there), or to the end of what has come (``to_end``) with a
    line more (it may read otherwise once more comes). ``first``'s line is at ``row0``."""
    rows = sum(1 for start in lexed.starts if start < known)
    after = bisect_left(lexed.unread, row0)
    unread = lexed.unread[after] if after < len(lexed.unread) and not to_close else rows
    for index in candidates[::-1][:4]:  # the latest cut is the one wanted: try it first
        row = index - first + row0
        if row + 1 >= rows or row >= unread or not lexed.lines[row]:
            continue
        kind, value = lexed.lines[row][-1]
        if not value.endswith("\n") or kind not in Token.Text:
            continue
        start = lexed.starts[row + 1]
        if known - start < FENCE_LOOKAHEAD and not to_close and not (to_end and row + 2 < rows):
            continue  # not read far enough past it: a larger window, or more text, will
        if _resyncs(lexed, row + 1, at_start) and _ends_alone(lexed, row0, row, at_start):
            return index
    return None


def _ends_alone(lexed: _Lexed, row0: int, row: int, at_start: tuple[re.Pattern[str], ...]) -> bool:
    """Whether the line before a cut tokenizes alike with nothing after it: the piece it ends is
    drawn so (a rule may look past the cut: Nix reads ``name`` before a ``=`` on the next line as
    an attribute). Tokenized from that line if it goes on alone as in context, else from the
    piece's start."""
    top = row if row > row0 and _resyncs(lexed, row, at_start) else row0
    text = lexed.text[lexed.starts[top]:lexed.starts[row + 1]]
    alone = token_lines((kind, value) for _position, kind, value
                        in progressing(lexed.lexer.get_tokens_unprocessed(text)))
    return alone == lexed.lines[top:row + 1]


class Sealer:
    """Cuts a growing text into pieces as it streams; remembers what was sealed."""

    def __init__(self, minimum: int = MIN_PIECE, limit: int = LIMIT_PIECE,
                 fence_minimum: int = FENCE_PIECE, max_piece: int = MAX_PIECE,
                 fence_retry: int = FENCE_RETRY) -> None:
        self.minimum = minimum
        self.limit = limit
        self.fence_minimum = fence_minimum
        self.fence_retry = fence_retry
        self.max_piece = max(max_piece, 2)
        self.consumed = 0  # text[:consumed] is in sealed pieces
        self.reopen = ""  # the rest renders as reopen + text[consumed:] (a fence cut in two)
        self.joined = False  # the rest continues the last piece's block (a list, a fence)
        self.continued = False  # the rest follows a forced cut: rendered as is, on a new line
        self.quoted = False  # the rest goes on a block quote
        self.number: int | None = None  # the rest's first item's number in its numbered list
        self.has_content = False  # whether a sealed piece drew anything
        self._fence_retry = 0  # while less than this is unsealed, fences are not tokenized again
        # (one was, and no cut was found: inside a string or a comment each try would cost a
        # tokenization of all of it again)

    def tail(self, text: str, end: int | None = None) -> Piece:
        """The part of ``text[:end]`` not sealed yet, as a piece."""
        return self._piece(text[self.consumed:end])

    def _piece(self, source: str, cut: Cut | None = None) -> Piece:
        if self.reopen:
            markdown, top = self.reopen + source, 1  # drop the re-opened fence's top padding
        elif self.continued:
            markdown, top = source, 0  # after a forced cut: no separation, nothing to drop
        elif self.joined:
            markdown, top = source, 1  # drop the blank line Rich puts before a list
        elif self.quoted:
            # Drawn as a quote of its own: the blank line Rich puts above a quote is dropped if
            # it is there (not when the quote's last block is a rule).
            markdown, top = source, 0
        elif self.has_content:
            markdown, top = SENTINEL + source, 1  # drop the sentinel's line
        else:
            markdown, top = source, 0
        if cut is not None and cut.close:  # drop the fence's padding
            return Piece(source, markdown + cut.close, top, 1, self.number, self.quoted)
        return Piece(source, markdown, top, number=self.number, trim_blank=self.quoted)

    def feed(self, text: str, *, final: bool = False, end: int | None = None) -> list[Piece]:
        """New sealed pieces of ``text[:end]`` (which starts with what was fed before).

        With ``final`` everything is sealed, the last piece being what is left. Each step looks
        at a window of a few pieces' length, so sealing a long finished text costs O(length);
        ``end`` spares the caller a copy of a long text's head.
        """
        pieces: list[Piece] = []
        window = WINDOW_PIECES * self.limit
        retry = self._fence_retry  # (a try that fails below holds for the next feeds, not this one's
        # larger windows: they reach past what the first one could not cut)
        length = len(text) if end is None else min(end, len(text))
        while self.consumed < length:
            rest = text[self.consumed:min(self.consumed + window, length)]
            at_end = self.consumed + window >= length
            markdown = self.reopen + rest
            unsealed = len(self.reopen) + length - self.consumed  # (more than the window, maybe)
            split_fences = final or unsealed >= retry
            padded = markdown + ("\n\n" if final and at_end else "")  # makes the last line complete
            lexed: list[int] = []
            cut = find_cut(padded, self.minimum, self.limit, self.fence_minimum if split_fences else None,
                           self.number, lexed, whole=at_end)
            if cut is not None and cut.end >= len(markdown):
                cut = None  # nothing would be left after it
            if cut is not None and cut.end - len(self.reopen) > self.max_piece:
                cut = None  # too large to render in one go: forced below
            if cut is None and len(rest) > self.max_piece:
                cut = _forced_cut(self.reopen, rest, self.max_piece // 2)
            if cut is None:
                if lexed and not final:
                    self._fence_retry = unsealed + self.fence_retry  # (the larger window too)
                if not at_end:
                    window *= 2  # one block longer than the window (a huge table): look further
                    continue
                if final:
                    pieces.append(self.tail(text, length))
                    self.consumed, self.reopen, self.joined, self.continued = length, "", False, False
                    self.quoted = False
                    self.number = None
                break
            size = cut.end - len(self.reopen)
            pieces.append(self._piece(rest[:size], cut))
            # (blank lines draw nothing, see _blank; nor do link reference definitions)
            self.has_content = self.has_content or (bool(rest[:size].strip(" \t\r\n"))
                                                    and not draws_nothing(clean_text(rest[:size])))
            self.consumed += size
            self.reopen, self.joined, self.continued = cut.reopen, cut.joined, cut.forced
            self.quoted = cut.quoted
            self.number = cut.number
            self._fence_retry = retry = 0
        return pieces


def _forced_cut(reopen: str, rest: str, at: int) -> Cut:
    """A cut of ``rest`` after about ``at`` characters where no safe one exists: after the last
    newline or else the last space in its second half, else right there. Inside a code fence,
    the fence is closed there and re-opened after; inside a table, the table is re-opened after
    (its header and delimiter lines again)."""
    window = rest[:at]
    end = window.rfind("\n", at // 2) + 1 or window.rfind(" ", at // 2) + 1 or at
    fence: _Fence | None = None
    lines = (reopen + rest[:end]).split("\n")
    for line in lines[:-1]:  # complete lines only: the cut's own line decides nothing
        if fence is None:
            fence = _opens(line)
        elif fence.closes(line):
            fence = None
    if fence is None:
        table = _table_running_on(reopen + rest[:end], rest[end:])
        if table is not None:  # the rest renders as the same table: its header drawn again
            return Cut(len(reopen) + end, reopen=table)
        return Cut(len(reopen) + end, forced=True)
    newline = "" if rest[end - 1] == "\n" else "\n"
    return Cut(len(reopen) + end, close=newline + fence.char * fence.length + "\n",
               reopen=fence.opener + "\n", joined=True, forced=False)


def _table_running_on(text: str, after: str) -> str | None:
    """The header and delimiter lines (with their newlines) of the table ``text`` ends in, when
    the line after it (the start of ``after``) is another row of it for sure (it starts with
    ``|``); else None (the rest is then drawn as it is, as after any forced cut). Parsed: this
    runs once per forced cut, and only markdown-it knows where its tables are."""
    if not text.endswith("\n") or not after.startswith("|") or "\r" in text.replace("\r\n", ""):
        return None  # (markdown-it reads a lone \r as a line break: its lines would not be ours)
    lines = text.split("\n")
    for token in reversed(PARSER.parse(text)):
        if token.level == 0 and token.nesting == 1:  # the last top-level block
            if token.type != "table_open" or token.map is None or token.map[1] != len(lines) - 1:
                return None
            return f"{lines[token.map[0]]}\n{lines[token.map[0] + 1]}\n"
    return None
