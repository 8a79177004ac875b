"""A streaming paragraph's new lines without rendering it again.

The live tail of an answer is re-rendered with Rich on every frame, and most of the time it is a
paragraph that grew by a word or two: ~1 ms per frame for a 700-character paragraph, paid again
for every delta. When the new text provably cannot change how anything before it renders, only
the paragraph's last line is wrapped again here, exactly as Rich's markdown renderer wraps it.

"Provably" means all of these hold (else the caller renders the piece with Rich, as before):

* the piece ends with a top-level paragraph (checked with the markdown parser once, then carried
  over while the additions below are all it gets: they cannot end a block or start one);
* the added text is ASCII with no character that means anything to markdown (no newline, no
  emphasis, code, link, escape, entity (``&``, ``;``), HTML or quote character), and is appended
  to a source line that starts with a letter (paragraph text, whatever follows) and ends with such
  a plain character (a delimiter run, an escape or an entity can change meaning with the
  character after it), and that is the paragraph's own last line (not a link reference
  definition's, which renders nothing);
* the rendered last line starts a line of Rich's wrap at a word (it does not start with a space,
  and the line above it is not a piece of one long word folded across lines: a space in it, or
  short of the width), and ends short of the width (its padding shows the paragraph's padding
  style).

Rich wraps greedily from each line's start (``rich_divide_line``), so the lines before the
last one stay as they are; the last one's text (its cells and styles, then the source's trailing
spaces and the added text in the style of its last character, trimmed at the end as the
paragraph is) is wrapped again and padded.
``tests/unit/test_paragraph_tail.py`` checks the result against Rich's own rendering.
"""

from __future__ import annotations

import string

from rich.cells import cell_len

from tui.text.sanitize import clean_text
from widgets._textual_compat import rich_divide_line
from widgets.transcript.markdown_parse import PARSER
from widgets.transcript.markdown_seal import Piece
from widgets.transcript.rendered_line import Line

PLAIN = frozenset(string.ascii_letters + string.digits + " ,.:?/%@=$^{}-+")  # no ";": "&amp" + ";"


def ends_in_paragraph(markdown: str) -> bool:
    """Whether ``markdown`` ends with a top-level paragraph, its last line included (a link
    reference definition after a paragraph renders nothing: the paragraph before it would look
    like the last block)."""
    text = clean_text(markdown)
    tokens = PARSER.parse(text)
    if len(tokens) < 3 or tokens[-1].type != "paragraph_close":
        return False
    opening = tokens[-3]
    lines = text.count("\n") + 1
    return (opening.type == "paragraph_open" and opening.level == 0 and not opening.hidden
            and opening.map is not None and opening.map[1] == lines)


def plain_growth(old: Piece, new: Piece) -> str | None:
    """What ``new`` adds to ``old`` when it is plain text appended to a paragraph-text line (see
    the module docstring), else None. Blocks of ``old`` are those of ``new`` when it is not None."""
    if (old.trim_top != new.trim_top or old.trim_bottom or new.trim_bottom
            or len(new.markdown) <= len(old.markdown) or not new.markdown.startswith(old.markdown)):
        return None
    added = new.markdown[len(old.markdown):]
    if not PLAIN.issuperset(added):
        return None
    line = old.markdown[old.markdown.rfind("\n") + 1:]
    text = line.strip(" ")
    if not text or not ("a" <= text[0].lower() <= "z") or text[-1] not in PLAIN:
        return None
    return added


def extend_paragraph(old: Piece, old_lines: list[Line], new: Piece, width: int) -> list[Line] | None:
    """The lines of ``new``, from the lines of ``old`` (which ends in a top-level paragraph) when
    ``new`` only adds plain text to it; None when that cannot be shown to equal Rich's rendering."""
    added = plain_growth(old, new)
    if added is None or not old_lines or width < 2:
        return None
    last = old_lines[-1]
    cells = "".join(text for text, _style in last)
    content = len(cells.rstrip(" "))
    if content == 0 or content >= width or len(cells) != width or not cells.isascii():
        return None  # no padding to learn its style from, or not one cell per character
    if cells[0] == " ":
        return None  # the rest of a long word's trailing spaces, folded: not a word's start
    if len(old_lines) > 1:
        above = "".join(text for text, _style in old_lines[-2]).rstrip(" ")
        if " " not in above and cell_len(above) >= width - 1:
            return None  # a long word folded onto the last line: its start is not a word's
    styles: list[int] = []
    for text, style in last:
        styles.extend([style] * len(text))
    pad_style = styles[-1]
    del styles[content:]
    gap = len(old.markdown) - len(old.markdown.rstrip(" "))  # the source's trailing spaces
    plain = (cells[:content] + " " * gap + added).rstrip(" ")  # a paragraph's end is trimmed
    styles.extend([styles[-1]] * (len(plain) - content))
    lines: list[Line] = []
    start = 0
    for end in [*rich_divide_line(plain, width, fold=True), len(plain)]:
        text = plain[start:end]
        if len(text) > width:
            text = text[:width] if not text[width:].strip(" ") else text  # Rich's rstrip_end
        if len(text) > width:
            return None  # cannot happen with folding; never guess
        line_styles = styles[start:start + len(text)] + [pad_style] * (width - len(text))
        lines.append(_runs(text.ljust(width), line_styles))
        start = end
    return [*old_lines[:-1], *lines]


def _runs(text: str, styles: list[int]) -> Line:
    """``text`` as (text, style) runs, one per stretch of the same style."""
    runs: list[tuple[str, int]] = []
    begin = 0
    for index in range(1, len(text) + 1):
        if index == len(text) or styles[index] != styles[begin]:
            runs.append((text[begin:index], styles[begin]))
            begin = index
    return tuple(runs)
