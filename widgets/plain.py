"""Provides the one way server and user text reaches the screen: ``plain`` and its siblings.

Server text is data. Textual parses a ``str`` as markup almost everywhere (``Static``, ``Label``,
``Button``, ``Option``, tree labels, tabs, collapsible titles, palette hits, ``notify``), so a
path like ``[/b]-x.txt`` crashes octui and ``[@click=screen.reply("always")]`` becomes a button.
And a ``Content`` built straight from server text still lets ``ESC`` through to the terminal.
The rules, checked on every module of ``tui/`` and ``widgets/`` by
``tests/unit/test_text_sinks.py`` (an AST walk):

1. A widget, option, tree label, tab, button, title or palette hit is given ``Content`` (or rich
   ``Text`` where Textual wants one) or a string literal without ``[``; never another ``str``.
2. ``Content``/``Text`` is built from a non-literal string only by ``plain``/``plain_line``/
   ``plain_rich`` here, or from text ``tui.text.sanitize`` already made visible (``clean_text``,
   ``one_line``). Hidden characters become visible tokens (``␛``, ``\\r``, ``<U+202E>``),
   styled ``HIDDEN_STYLE`` so they differ from the same characters typed literally.
3. Toasts go through ``toast`` (``markup=False``, text made visible).

``decode_runs`` is the inverse of ``plain``: it turns what is shown back into the exact string.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

from rich.cells import get_character_cell_size
from rich.style import Style as RichStyle
from rich.text import Text
from textual.content import Content
from textual.notifications import SeverityLevel
from textual.style import Style

from tui.text.sanitize import (
    LINE_BREAK,
    clean_text,
    decode_tokens,
    line_from_start,
    one_line,
    overstrike,
    visible_runs,
)

if TYPE_CHECKING:
    from textual.app import App
    from textual.fuzzy import Matcher
    from textual.widget import Widget

__all__ = [
    "HIDDEN_STYLE", "as_markup_arg", "content_runs", "decode_runs", "ellipsize", "highlight_match",
    "palette_help", "plain", "plain_ansi", "plain_cut", "plain_line", "plain_rich", "toast",
]

HIDDEN_STYLE = "reverse $text-warning"
"""How a token for a hidden character looks (reverse video: it never looks like typed text)."""
HIDDEN_RICH_STYLE = RichStyle(reverse=True)
_SPACES = re.compile(r"\s+")
_ONE_TOKEN = re.compile(r"<U\+[0-9A-F]+>|\\.|.")


def plain(text: str | Content | None, style: str = "", *, strict: bool = False) -> Content:
    """``text`` shown literally: never markup, every hidden character a styled visible token.

    ``strict`` (commands, file names, diffs, anything approved) also shows tabs, joiners,
    variation selectors and non-ASCII spaces as tokens, and keeps every ``\r``: what is shown
    decodes back to exactly ``text`` (``decode_runs(content_runs(...))``). In prose a ``\r\n``
    is a line break. ``Content`` is returned as it is.
    """
    if isinstance(text, Content):
        return text
    if not text:
        return Content("")
    if not strict and "\r\n" in text:
        text = text.replace("\r\n", "\n")  # in prose a CRLF is a line break, as in clean_text
    runs = visible_runs(text, strict=strict)
    if len(runs) == 1 and not runs[0][1]:
        return Content.styled(text, style) if style else Content(text)
    return Content.assemble(*((piece, HIDDEN_STYLE) if token else (piece, style) for piece, token in runs))


CUT_AT = 20_000
"""Where ``plain_cut`` cuts: past this, one string would wedge a dialog (Textual wraps it whole)."""


def plain_cut(text: str, limit: int = CUT_AT, style: str = "", *, strict: bool = False) -> Content:
    """``plain(text)``, cut after ``limit`` characters with a note saying how much is not shown."""
    if len(text) <= limit:
        return plain(text, style, strict=strict)
    return Content.assemble(plain(text[:limit], style, strict=strict),
                            (f" … {len(text) - limit:,} more characters not shown", "bold $text-error"))


def plain_line(text: str | None, limit: int = 120, style: str = "", *, strict: bool = False,
               breaks: bool = False) -> Content:
    """``plain`` on one line: whitespace runs collapsed, cut to ``limit`` characters with ``…``.

    A token is never cut in half. ``breaks`` (a command): each line break (and any blank lines
    with it) is a ``⏎`` token, so ``echo a⏎rm -rf x`` never reads as one harmless ``echo``.
    """
    if not text:
        return Content("")
    pieces = line_from_start(text, limit, lambda part: _broken_pieces(part, strict) if breaks
                             else _line_pieces(part, strict), _pieces_length)
    if _pieces_length(pieces) > limit:
        pieces = _cut(pieces, max(0, limit - 1)) + [("…", False)]
    return Content.assemble(*((piece, HIDDEN_STYLE if token else style) for piece, token in pieces if piece))


def _pieces_length(pieces: list[tuple[str, bool]]) -> int:
    return sum(len(piece) for piece, _ in pieces)


def _line_pieces(text: str, strict: bool) -> list[tuple[str, bool]]:
    """``text``'s visible runs on one line: blanks collapsed, none at either end. Outside ``strict``
    a CRLF is a line break, as ``clean_text`` (and so ``one_line``) reads it."""
    if not strict and "\r\n" in text:
        text = text.replace("\r\n", "\n")
    runs = visible_runs(text, strict=strict)
    pieces: list[tuple[str, bool]] = []
    for index, (piece, token) in enumerate(runs):
        if not token:
            piece = _SPACES.sub(" ", piece)
            piece = piece.lstrip() if index == 0 else piece
            piece = piece.rstrip() if index == len(runs) - 1 else piece
        pieces.append((piece, token))
    return pieces


def _broken_pieces(text: str, strict: bool) -> list[tuple[str, bool]]:
    """``_line_pieces`` of each line of ``text`` that has anything on it, a ``⏎`` token between
    them (``plain_line``'s ``breaks``)."""
    pieces: list[tuple[str, bool]] = []
    for line in text.split("\n"):
        line_pieces = [piece for piece in _line_pieces(line, strict) if piece[0]]
        if not line_pieces:
            continue
        if pieces:
            pieces += [(" ", False), (LINE_BREAK, True), (" ", False)]
        pieces += line_pieces
    return pieces


def _cut(pieces: list[tuple[str, bool]], budget: int) -> list[tuple[str, bool]]:
    """The first ``budget`` characters of ``pieces``; a token run is cut at a token boundary."""
    out: list[tuple[str, bool]] = []
    for piece, token in pieces:
        if len(piece) <= budget:
            out.append((piece, token))
            budget -= len(piece)
            continue
        if not token:
            out.append((piece[:budget], False))
        else:
            kept = ""
            for match in _ONE_TOKEN.finditer(piece):
                if len(kept) + len(match.group(0)) > budget:
                    break
                kept += match.group(0)
            out.append((kept, True))
        break
    return out


def ellipsize(content: Content, head: int, tail: int = 0, style: str = "") -> Content:
    """``content``'s first ``head`` and last ``tail`` characters joined by ``…`` (in ``style``),
    or ``content`` itself when it is no longer. A cut that falls inside a token moves to the
    token's edge (the kept part gets shorter): no token is ever shown in half. With no ``tail``
    the kept start loses its trailing blanks, as a line cut at its end does."""
    length = len(content.plain)
    if head + tail >= length:
        return content
    start = content[:_token_edge(content, max(0, head), forward=False)]
    if not tail:
        return Content.assemble(start.rstrip(), ("…", style))
    return Content.assemble(start, ("…", style), content[_token_edge(content, length - tail, forward=True):])


def chars_in_cells(text: str, cells: int, *, from_end: bool = False) -> int:
    """How many characters of ``text`` (from its start, or its end) fit in ``cells`` cells: a
    wide character (CJK, most emoji) takes two, a combining mark none."""
    used = count = 0
    for char in reversed(text) if from_end else text:
        used += get_character_cell_size(char)
        if used > cells:
            break
        count += 1
    return count


def _token_edge(content: Content, index: int, *, forward: bool) -> int:
    """``index``, or the nearest edge of the token it falls inside (its end if ``forward``)."""
    for span in content.spans:
        if span.start < index < span.end and _is_hidden_style(span.style):
            for match in _ONE_TOKEN.finditer(content.plain, span.start, span.end):
                if match.start() < index < match.end():
                    return match.end() if forward else match.start()
    return index


def plain_rich(text: str | None, style: str | RichStyle = "") -> Text:
    """``plain`` for the few places Textual wants a rich ``Text`` (tree labels)."""
    out = Text(style=style, end="")
    for piece, token in visible_runs((text or "").expandtabs(4)):  # rich Text would keep the tab raw
        out.append(piece, HIDDEN_RICH_STYLE if token else None)
    return out


_SGR = re.compile(r"\x1b\[[0-9;:]*m")


def plain_ansi(text: str) -> Content:
    """Terminal output: carriage returns obeyed as a terminal does (``overstrike``: a progress bar
    reads as its last frame), well-formed 7-bit SGR colours are rendered as colours, every other
    escape byte and hidden character is a styled visible token (``keep_sgr``, with the tokens
    marked)."""
    text = overstrike(text)
    ansi: list[str] = []
    marks: list[tuple[int, int]] = []
    offset = pos = 0
    for match in [*_SGR.finditer(text), None]:
        end = match.start() if match is not None else len(text)
        for piece, token in visible_runs(text[pos:end]):
            if token:
                marks.append((offset, offset + len(piece)))
            ansi.append(piece)
            offset += len(piece)
        if match is not None:
            ansi.append(match.group(0))
            pos = match.end()
    rich_text = Text.from_ansi("".join(ansi), end="")
    if len(rich_text.plain) >= (marks[-1][1] if marks else 0):
        for start, stop in marks:
            rich_text.stylize(HIDDEN_RICH_STYLE, start, stop)
    return Content.from_rich_text(rich_text)


TOAST_CHARS = 2_000
"""The longest toast message shown whole."""


def toast(
    target: App[Any] | Widget,
    message: str | Content,
    *,
    title: str = "",
    severity: SeverityLevel = "information",
    timeout: float | None = None,
) -> None:
    """``notify`` with markup off and the text made visible: the only way octui shows a toast.

    A toast stays on screen for seconds: a message past ``TOAST_CHARS`` is cut, and says so.
    """
    text = message.plain if isinstance(message, Content) else clean_text(message)
    if len(text) > TOAST_CHARS:
        text = f"{text[:TOAST_CHARS]} … ({len(text) - TOAST_CHARS:,} more characters)"
    if timeout is None:
        target.notify(text, title=one_line(title, 80), severity=severity, markup=False)
    else:
        target.notify(text, title=one_line(title, 80), severity=severity, timeout=timeout, markup=False)


def highlight_match(matcher: Matcher, candidate: str) -> Content:
    """``plain(candidate)`` with the fuzzy match styled, like ``Matcher.highlight`` (which parses
    ``candidate`` as markup)."""
    content = plain(candidate)
    shown = content.plain
    score, offsets = matcher.fuzzy_search.match(matcher.query, shown)
    for offset in offsets if score else ():
        if not shown[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


def as_markup_arg(content: Content) -> str:
    """``content`` for a Textual argument typed ``str`` that is parsed with ``Content.from_markup``
    or ``Content.from_text`` (collapsible titles, palette help): both return a ``Content``
    unchanged, so nothing is parsed (``tests/unit/test_text_sinks.py`` checks they still do)."""
    return cast(str, content)


def palette_help(text: str) -> str:
    """Help text for a command-palette ``Hit`` (``Hit.help`` is shown with ``from_markup``)."""
    return as_markup_arg(plain(text))


# -- the inverse ------------------------------------------------------------------------------


def _is_hidden_style(style: object) -> bool:
    if isinstance(style, str):
        return style == HIDDEN_STYLE
    if isinstance(style, Style):
        return bool(style.reverse)
    if isinstance(style, RichStyle):
        return bool(style.reverse)
    return False


def content_runs(content: Content) -> list[tuple[str, bool]]:
    """``(piece, is_token)`` runs of ``content``, telling tokens by their ``HIDDEN_STYLE`` span."""
    plain_text = content.plain
    flags = [False] * len(plain_text)
    for span in content.spans:
        if _is_hidden_style(span.style):
            for index in range(max(0, span.start), min(len(plain_text), span.end)):
                flags[index] = True
    runs: list[tuple[str, bool]] = []
    for char, flag in zip(plain_text, flags, strict=True):
        if runs and runs[-1][1] == flag:
            runs[-1] = (runs[-1][0] + char, flag)
        else:
            runs.append((char, flag))
    return runs


def decode_runs(runs: Iterable[tuple[str, bool]]) -> str:
    """What the screen shows, back to the exact source text: tokens decoded, the rest literal.

    ``runs`` are ``(text, is_token)`` pairs, from ``content_runs`` or from rendered segments
    (``is_token``: the segment's style is reverse video).
    """
    out: list[str] = []
    pending = ""
    for text, token in runs:
        if token:
            pending += text
            continue
        if pending:
            out.append(decode_tokens(pending))
            pending = ""
        out.append(text)
    if pending:
        out.append(decode_tokens(pending))
    return "".join(out)
