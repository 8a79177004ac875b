"""Make server text inert and visible before it can reach the terminal.

Server text is data. Nothing in it is obeyed and nothing is silently deleted: every character
that a terminal would obey or that a reader could not see is replaced by a visible *token*, so
what the user reads is what the server sent:

* ``ESC`` -> ``␛`` (so ``ESC ] 0 ; t BEL`` reads ``␛]0;t␇``), other C0 controls and DEL -> their
  Unicode control pictures (``␀`` … ``␟``, ``␡``), ``\\r`` -> ``\\r``;
* C1 controls (U+0080–U+009F), bidi controls, zero-width and other format characters (category
  Cf), line/paragraph separators and lone surrogates -> ``<U+XXXX>``;
* ``\\n`` stays a line break. ``\\t`` stays a tab in prose; in ``strict`` mode (anything the user
  approves, command lines, file names, diffs) it is ``\\t``, and ZWJ/ZWNJ, variation selectors,
  invisible fillers and non-ASCII spaces become ``<U+XXXX>`` too. In prose a ZWJ stays only after
  a character it can join (an emoji's, an Indic letter's); any other is a token as well.

Every token is one source character and the token set is prefix-free, so a run of tokens decodes
back exactly (``decode_tokens``); ``widgets.plain`` styles the tokens so a reader can tell a token
from the same characters typed literally. No Textual here: the state layer uses this module.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import TypeVar

from rich.cells import get_character_cell_size

__all__ = [
    "LINE_WINDOW", "LONGEST_TOKEN", "clean_text", "decode_tokens", "describe_hidden", "drop_sgr",
    "escape_hidden_json", "flatten", "hidden_characters", "hidden_name", "keep_sgr", "line_from_start",
    "one_line", "overstrike", "reveal", "shows_nothing", "token_for", "visible_runs",
]

Line = TypeVar("Line")

ESC_TOKEN = "\u241b"  # ␛
DEL_TOKEN = "\u2421"  # ␡
_BACKSLASH_TOKENS = {"\r": "\\r", "\t": "\\t"}
_BACKSLASH_CHARS = {v[1]: k for k, v in _BACKSLASH_TOKENS.items()}  # "r" -> "\r"


def _ranges(codes: Iterable[int]) -> str:
    """A regex character-class body for ``codes`` (sorted), as ``\\uXXXX-\\uYYYY`` ranges."""
    out: list[str] = []
    items = sorted(set(codes))
    start = prev = -2
    for code in [*items, -1]:
        if code == prev + 1:
            prev = code
            continue
        if start >= 0:
            out.append(_escape(start) if start == prev else f"{_escape(start)}-{_escape(prev)}")
        start = prev = code
    return "".join(out)


def _escape(code: int) -> str:
    return f"\\U{code:08x}"


def _format_chars() -> list[int]:
    """Every Cf (format) code point; Unicode has them only in planes 0, 1 and 14."""
    # A chain, not a tuple: 135k int objects at once would raise the peak RSS by ~6 MB for good.
    planes = itertools.chain(range(0x20000), range(0xE0000, 0xE1000))
    return [c for c in planes if unicodedata.category(chr(c)) == "Cf"]


# ``_format_chars`` as ranges, for the Unicode versions of the Pythons octui runs on (3.11: 14.0;
# 3.12 and 3.13: 15.0 and 15.1, read with those Pythons): reading all 135k code points took a few
# dozen milliseconds of every start. Another version is read at import (``tests/unit/test_sanitize.py``
# checks the running version's ranges against ``_format_chars``).
_FORMAT_14 = ((0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F),
              (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E),
              (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD),
              (0x110CD, 0x110CD), (0x13430, 0x13438), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
              (0xE0001, 0xE0001), (0xE0020, 0xE007F))
# Unicode 15 added seven Egyptian hieroglyph format controls.
_FORMAT_15 = tuple((0x13430, 0x1343F) if pair == (0x13430, 0x13438) else pair for pair in _FORMAT_14)
_FORMAT_RANGES = {"14.0.0": _FORMAT_14, "15.0.0": _FORMAT_15, "15.1.0": _FORMAT_15}


def _format_chars_known() -> list[int]:
    ranges = _FORMAT_RANGES.get(unicodedata.unidata_version)
    if ranges is None:
        return _format_chars()
    return [code for first, last in ranges for code in range(first, last + 1)]


_FORMAT = _format_chars_known()
_ALWAYS = [
    *range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0),  # C0 (not \t \n), DEL, C1
    0x2028, 0x2029, *range(0xD800, 0xE000),  # line/paragraph separators, lone surrogates
]
# Allowed in prose (emoji sequences, Persian/Indic joining), hidden in strict mode.
_PROSE_OK = [0x200C, 0x200D]
_STRICT_ONLY = [
    0x09, *_PROSE_OK,
    *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0), 0x034F,  # variation selectors, CGJ
    0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, *range(0x180B, 0x1810),  # blank-looking letters
    0x00A0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000,  # spaces that are not " "
]
_PROSE_HIDDEN = re.compile(f"[{_ranges([*_ALWAYS, *(c for c in _FORMAT if c not in _PROSE_OK)])}]")
# Rich measures text that starts with two joiners two ways (``cell_len`` counts the character
# after them, its grapheme split does not): cutting such a line or segment to a width raised
# IndexError, which ended the app. Two joiners meet in what Rich draws also when the source had
# markdown between them (``\u200d**\u200d日**``), or an SGR sequence in tool output. So in prose
# a joiner stays only after a character it can join, one drawn as itself: not ASCII (markdown's
# marks, an SGR's ``m``), not a blank, not a hidden character or another joiner, and not the
# start of the text. Emoji and Indic sequences keep theirs; any other is a token. (A pattern of
# its own, for text that holds a joiner: the look-behind doubles the cost of every search.)
_JOINS_AFTER = f"[^\\x00-\\x7f\\s{_ranges([*_ALWAYS, *_FORMAT])}]"
_PROSE_HIDDEN_JOINERS = re.compile(f"{_PROSE_HIDDEN.pattern}|(?<!{_JOINS_AFTER})\u200d")
_STRICT_HIDDEN = re.compile(f"[{_ranges([*_ALWAYS, *_FORMAT, *_STRICT_ONLY])}]")
_SGR = re.compile(r"\x1b\[[0-9;:]*m")
_TOKEN = re.compile(r"<U\+([0-9A-F]{4,6})>|\\([rt])|([\u2400-\u241f\u2421])")


def token_for(char: str) -> str:
    """The visible token for one hidden character."""
    code = ord(char)
    if char in _BACKSLASH_TOKENS:
        return _BACKSLASH_TOKENS[char]
    if code == 0x1B:
        return ESC_TOKEN
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return DEL_TOKEN
    return f"<U+{code:04X}>"


def _pattern(strict: bool, text: str) -> re.Pattern[str]:
    """The hidden characters of ``text`` (the joiners' pattern only where there are joiners: both
    find the same in text without one)."""
    if strict:
        return _STRICT_HIDDEN
    return _PROSE_HIDDEN_JOINERS if "\u200d" in text else _PROSE_HIDDEN


def visible_runs(text: str, *, strict: bool = False) -> list[tuple[str, bool]]:
    """``text`` as ``(piece, is_token)`` runs: literal pieces and runs of tokens, in order.

    A token run holds one token per hidden character; ``decode_tokens`` turns it back.
    """
    runs: list[tuple[str, bool]] = []
    pos = 0
    pattern = _pattern(strict, text)
    for match in pattern.finditer(text):
        start = match.start()
        if start > pos:
            runs.append((text[pos:start], False))
        token = token_for(match.group(0))
        if runs and runs[-1][1] and start == pos:
            runs[-1] = (runs[-1][0] + token, True)
        else:
            runs.append((token, True))
        pos = match.end()
    if pos < len(text):
        runs.append((text[pos:], False))
    return runs


def reveal(text: str, *, strict: bool = False) -> str:
    """``text`` with every hidden character replaced by its token (as plain characters)."""
    if not text:
        return ""
    pattern = _pattern(strict, text)
    if not pattern.search(text):
        return text
    return pattern.sub(lambda m: token_for(m.group(0)), text)


def hidden_characters(text: str, *, strict: bool = True) -> list[str]:
    """The distinct hidden characters in ``text``, in order of first appearance."""
    seen: dict[str, None] = {}
    for match in _pattern(strict, text).finditer(text):
        seen.setdefault(match.group(0), None)
    return list(seen)


_NAMES = {"\x1b": "escape", "\r": "carriage return", "\t": "tab", "\x07": "bell", "\x08": "backspace",
          "\x00": "NUL", "\x7f": "delete", "\x0b": "vertical tab", "\x0c": "form feed"}


def hidden_name(char: str) -> str:
    """``"escape"``, ``"right-to-left override"``, ``"C1 control"``: what a hidden character is."""
    code = ord(char)
    name = _NAMES.get(char) or unicodedata.name(char, "").lower()
    if not name:
        name = "C1 control" if 0x80 <= code < 0xA0 else "surrogate" if 0xD800 <= code < 0xE000 else "control"
    return name


def describe_hidden(char: str) -> str:
    """``"␛ escape"``, ``"<U+202E> right-to-left override"``: a hidden character for a warning."""
    return f"{token_for(char)} {hidden_name(char)}"


def decode_tokens(tokens: str) -> str:
    """The inverse of a run of tokens: ``"␛\\\\r<U+202E>"`` -> ``"\\x1b\\r\\u202e"``.

    Raises ``ValueError`` on anything that is not a whole run of tokens.
    """
    out: list[str] = []
    pos = 0
    while pos < len(tokens):
        match = _TOKEN.match(tokens, pos)
        if match is None:
            raise ValueError(f"not a token at {pos}: {tokens[pos:pos + 10]!r}")
        hex_code, letter, picture = match.groups()
        if hex_code is not None:
            out.append(chr(int(hex_code, 16)))
        elif letter is not None:
            out.append(_BACKSLASH_CHARS[letter])
        elif picture == DEL_TOKEN:
            out.append("\x7f")
        else:
            out.append(chr(ord(picture) - 0x2400))
        pos = match.end()
    return "".join(out)


def clean_text(text: str) -> str:
    """Prose safe for the screen: ``\\r\\n`` is a newline, every other hidden character a token.

    Keeps ``\\n`` and ``\\t``. Nothing is deleted: ``"a\\x1b]0;t\\x07b"`` -> ``"a␛]0;t␇b"``.
    """
    if not text:
        return ""
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return reveal(text)


def escape_hidden_json(text: str) -> str:
    """JSON text (as ``json.dumps`` writes it) with every hidden character still raw in it (the
    strict set: DEL, C1, bidi, zero-width, surrogates…; ``json.dumps`` escapes only C0 controls)
    written as a ``\\u`` escape: printed it obeys nothing, and it decodes to exactly the same
    data. Only a line break is left, for the layout (``json.dumps`` escapes those in strings)."""

    def escaped(match: re.Match[str]) -> str:
        code = ord(match.group(0))
        if code == 0x0A:
            return "\n"
        if code > 0xFFFF:  # a surrogate pair, as JSON writes a character past the first plane
            high, low = divmod(code - 0x10000, 0x400)
            return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"
        return f"\\u{code:04x}"

    return _STRICT_HIDDEN.sub(escaped, text)


def shows_nothing(text: str) -> bool:
    """Whether ``text`` draws nothing once made inert: blanks and line breaks only. Python's
    ``str.strip`` also takes ``\x0b``, ``\x0c``, ``\x1c``-``\x1f`` and ``\x85`` for whitespace,
    but they (and a lone ``\r``) are drawn as tokens: text of them is not empty."""
    return not text.strip() and not clean_text(text).strip()  # (only all-blank text is cleaned)


def keep_sgr(text: str) -> str:
    """Like ``clean_text`` but well-formed 7-bit SGR colour sequences (``ESC [ … m``) are kept raw
    for our own ANSI renderer; every other escape byte becomes a visible token."""
    return _around_sgr(text, keep=True)


def drop_sgr(text: str) -> str:
    """The characters a shell's output row draws (``widgets.plain.plain_ansi``), for a file or the
    clipboard: carriage returns obeyed as a terminal does (``overstrike``), the SGR colour sequences
    dropped (drawn as colours, as tokens they would be noise the screen never showed), every other
    escape byte and hidden character a visible token, each piece between them cleaned on its own
    as ``keep_sgr`` does. ``"\\x1b[31mred\\x1b[0m\\x1b[2J"`` -> ``"red␛[2J"``."""
    return _around_sgr(overstrike(text), keep=False)


def _around_sgr(text: str, *, keep: bool) -> str:
    """Each piece between SGR sequences cleaned on its own (``reveal``); the sequences kept raw
    or dropped."""
    if "\x1b" not in text:
        return clean_text(text)
    text = text.replace("\r\n", "\n")
    out: list[str] = []
    pos = 0
    for match in _SGR.finditer(text):
        out.append(reveal(text[pos:match.start()]))
        if keep:
            out.append(match.group(0))
        pos = match.end()
    out.append(reveal(text[pos:]))
    return "".join(out)


_RESET_PARAMS = re.compile(r"\x1b\[(?:0*(?:[;:]|m))")
# What a line with a carriage return is read as: a CR, an SGR, an erase in line (CSI K), any
# other CSI or OSC sequence or escape (written whole, as one column: it is shown as a token).
_LINE_CONTROL = re.compile(r"(\r)|(\x1b\[[0-9;:]*m)|\x1b\[([012]?)K"
                           r"|\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?", re.S)
_ERASED = ""  # a cell an erase in line blanked (a space, unless nothing is written after it)
_WIDE_TAIL = None  # the second cell of a wide character
_SGR_STATE_MAX = 32
"""SGR sequences remembered since the last reset (a stream that sets colours forever without a
reset forgets its oldest ones: a bounded cost per sequence)."""


def overstrike(text: str) -> str:
    """``text`` with its carriage returns obeyed as a terminal does: ``\\r\\n`` is a line end, a
    lone ``\\r`` goes back to the start of the line and what follows overwrites what was there
    (a shorter frame leaves the tail of a longer one). ``"[##  ] 10%\\r[####] 100%"`` ->
    ``"[####] 100%"``.

    An erase in line (``ESC[K``, ``ESC[1K``, ``ESC[2K``: progress bars redraw with ``\\r ESC[K``)
    blanks cells as a terminal does. A wide character takes two columns (a character written over
    either half blanks the other). Every other escape (whole) and control is written as one column
    and left as it is (made visible later). SGR colour sequences take no column: each column keeps
    the colours it was written with, so an overwritten line is written again with an SGR reset and
    the sequences in force before each run of columns, and ends with the colours the stream is
    left with. Linear in the length of ``text``. No ``\\r``, no change.
    """
    if "\r" not in text:
        return text
    text = text.replace("\r\n", "\n")
    if "\r" not in text:
        return text
    lines = text.split("\n")
    state: tuple[str, ...] = ()  # the SGR sequences in force (since the last reset), in order
    out: list[str] = []
    for line in lines:
        out.append(_overstrike_line(line, state) if "\r" in line else line)
        if "\x1b" in line:  # the colours the next line starts with
            for match in _SGR.finditer(line):
                state = _sgr_state(state, match.group(0))
    return "\n".join(out)


def _sgr_state(state: tuple[str, ...], sequence: str) -> tuple[str, ...]:
    """``state`` after ``sequence``: a reset (``ESC[m``, ``ESC[0m``, ``ESC[0;…m``) starts it anew."""
    if _RESET_PARAMS.match(sequence):
        return () if sequence[2:-1].strip("0") == "" else (sequence,)
    if state and state[-1] == sequence:
        return state
    return (*state[-(_SGR_STATE_MAX - 1):], sequence)


def _overstrike_line(line: str, state: tuple[str, ...]) -> str:
    """One line (no ``\\n``) with its ``\\r`` obeyed; ``state`` is the SGR in force at its start."""
    cells: list[str | None] = []  # what each column shows (``_WIDE_TAIL``: a wide character's half)
    styles: list[tuple[str, ...]] = []
    column = 0
    start_state = state

    def put(unit: str, width: int) -> None:
        nonlocal column
        end = column + width
        if len(cells) < end:
            cells.extend([_ERASED] * (end - len(cells)))
            styles.extend([state] * (end - len(styles)))
        if cells[column] is _WIDE_TAIL and column > 0:
            cells[column - 1] = _ERASED  # half of a wide character written over: the rest is blank
        if end < len(cells) and cells[end] is _WIDE_TAIL:
            cells[end] = _ERASED
        cells[column] = unit
        styles[column] = state
        if width == 2:
            cells[column + 1] = _WIDE_TAIL
            styles[column + 1] = state
        column = end

    pos = 0
    for match in [*_LINE_CONTROL.finditer(line), None]:
        end = match.start() if match is not None else len(line)
        for char in line[pos:end]:
            put(char, 2 if not char.isascii() and get_character_cell_size(char) == 2 else 1)
        if match is None:
            break
        pos = match.end()
        if match.group(1):
            column = 0
        elif match.group(2):
            state = _sgr_state(state, match.group(2))
        elif match.group(3) is not None:
            erase = match.group(3) or "0"
            if erase == "0":
                del cells[column:], styles[column:]
            else:
                stop = len(cells) if erase == "2" else min(column + 1, len(cells))
                cells[:stop] = [_ERASED] * stop
        else:
            put(match.group(0), 1)
    while cells and cells[-1] == _ERASED:
        cells.pop()  # blanks at the end: nothing to write
    parts: list[str] = []
    current = start_state
    run: list[str] = []
    for index, cell in enumerate(cells):
        if cell is _WIDE_TAIL:
            continue
        if styles[index] != current:
            parts.append("".join(run))
            run = []
            current = styles[index]
            parts.append("\x1b[0m" + "".join(current))
        run.append(cell or " ")
    parts.append("".join(run))
    if current != state:
        parts.append("\x1b[0m" + "".join(state))
    return "".join(parts)


_FLAT = re.compile(r"[ \t\n]+")


def flatten(text: str) -> str:
    """Runs of spaces, tabs and newlines as one space, trimmed; nothing else touched.

    ``" ".join(text.split())`` is not the same: ``str.split`` also splits on (and so deletes)
    ``\x0b``, ``\x0c``, ``\x1c``-``\x1f``, ``\x85``, U+2028 and U+2029.
    """
    return _FLAT.sub(" ", text).strip(" ")


LINE_WINDOW = (4, 64)
"""A one-line summary (``one_line`` here, ``widgets.plain.plain_line``: both read this one setting)
reads ``limit * 4 + 64`` characters first: a one-line label of a huge string (a title, a file
name, a failure's cause, a streamed tool input) costs what it shows, not the whole string."""

LONGEST_TOKEN = len("<U+10FFFF>")


def line_from_start(text: str, limit: int, build: Callable[[str], Line],
                    length: Callable[[Line], int]) -> Line:
    """``build(text)`` for a one-line summary cut at ``limit`` characters, from ``text``'s start
    (``LINE_WINDOW``) when that is enough. Cleaning is character by character (a joiner reads the
    one before), so the start's line is the whole's but at its very end: a blank dropped there,
    or (where CRLF is a line break) a CR whose LF is past the window, a token where the whole has
    a blank. Enough of it (``length``) past the cut, and the cut is the same; else (blanks,
    mostly) the whole is read."""
    factor, extra = LINE_WINDOW
    window = limit * factor + extra
    if len(text) > window:
        line = build(text[:window])
        if length(line) > limit + LONGEST_TOKEN:
            return line
    return build(text)


def _visible_line(text: str) -> str:
    """``text`` made visible, on one line: its whitespace runs (any ``str.split`` takes, unlike
    ``flatten``) as one space, trimmed."""
    return " ".join(clean_text(text).split())


LINE_BREAK = "⏎"
"""A command's line break on one line (``one_line``'s and ``plain_line``'s ``breaks``)."""


def _visible_lines(text: str) -> str:
    """``_visible_line`` of each line of ``text`` that has anything on it, `` ⏎ `` between them
    (cleaned once: its lines hold nothing more to clean)."""
    flat = (" ".join(line.split()) for line in clean_text(text).split("\n"))
    return f" {LINE_BREAK} ".join(line for line in flat if line)


def one_line(text: str, limit: int = 120, *, breaks: bool = False) -> str:
    """A visible single-line summary, whitespace collapsed, ellipsised to ``limit`` characters.
    ``breaks`` (a command): each line break is `` ⏎ ``, so two commands never read as one."""
    flat = line_from_start(text, limit, _visible_lines if breaks else _visible_line, len)
    if len(flat) <= limit:
        return flat
    cut = flat[: max(0, limit - 1)]
    partial = re.search(r"<(?:U(?:\+[0-9A-F]{0,5})?)?$", cut)  # never half a <U+XXXX> token
    if partial is not None:
        cut = cut[: partial.start()]
    elif cut.endswith("\\") and flat[len(cut)] in _BACKSLASH_CHARS:
        cut = cut[:-1]  # nor half a \r token (a backslash typed before an "r" goes with it)
    return cut + "…"
