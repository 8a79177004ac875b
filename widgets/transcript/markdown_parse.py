"""The one markdown parser every rendered piece of an answer goes through.

What ``rich.markdown.Markdown`` builds each time, with two changes, so that no server text goes
unseen:

* HTML is text. Rich draws nothing for an HTML block or tag: "Vec<String>" read "Vec", and a
  <details> block vanished whole (and an unpaired </kbd> once crashed the render);
* blocks may nest deeper: markdown-it stops parsing at that depth and drops the rest of the
  text without a word (CommonMark's preset says 20, which eleven nested list levels reach).
  Deeper than this, or nested deeper than the width leaves room for (Rich then draws nothing
  of it), a piece is shown as plain text (``markdown_chunk``).

Rich builds a new parser for every ``Markdown`` (≈ 0.5 ms, as much as rendering a short piece);
this one is shared.

A link reference definition (``[label]: url``) holds for the whole answer, wherever it stands,
as Rich parses a whole text at once. An answer is rendered in pieces, so the pieces are parsed
with the definitions of the whole answer known so far (``references``; ``piece_lines`` gathers
them with ``definitions``, block by block, and renders again the pieces a new one changes).
"""

from __future__ import annotations

from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import normalizeReference
from markdown_it.token import Token
from rich.syntax import Syntax, SyntaxTheme

from tui.text.sanitize import reveal

MAX_NESTING = 40
CODE_THEME = "monokai"  # Rich's own default, for code blocks (inline code has no lexer)
CODE_SYNTAX_THEME: SyntaxTheme = Syntax.get_theme(CODE_THEME)  # one for every code block: its styles
# are looked up once (Syntax given the name builds the theme again, with an empty cache, per block)
PARSER = (MarkdownIt(options_update={"maxNesting": MAX_NESTING, "html": False})
          .enable("strikethrough").enable("table"))
# The same block structure without inline parsing: all it takes to find the definitions.
_BLOCKS = (MarkdownIt(options_update={"maxNesting": MAX_NESTING, "html": False})
           .enable("strikethrough").enable("table").disable("inline"))
References = dict[str, dict[str, Any]]
"""Link reference definitions by normalized label (markdown-it's ``env["references"]``)."""


def reveal_decoded(tokens: list[Token]) -> list[Token]:
    """Hidden characters that markdown-it decodes after ``clean_text`` ran on the source made
    visible tokens, as typed ones are: an entity (``&#x202e;``, ``&rlm;``) or an autolink's
    percent-escapes (``<http://a/%1B%5B31m>``) would put a raw bidi override or escape on the
    screen. (Link targets are not drawn, nor titles and fence info strings.)"""
    stack = [child for block in tokens for child in block.children or ()]
    while stack:
        token = stack.pop()
        if token.type == "text":
            token.content = reveal(token.content)
        if token.children:
            stack.extend(token.children)  # an image's alt text
    return tokens


def parse(markup: str, references: References | None = None) -> list[Token]:
    """``markup`` (already made inert with ``clean_text``) as the tokens Rich draws, its links
    resolved with ``references`` too (the answer's definitions outside it; the first of a label
    in the answer holds, as it would in the whole text)."""
    env: dict[str, Any] = {"references": dict(references)} if references else {}
    return _unlinked_urls(reveal_decoded(PARSER.parse(markup, env)))


def _unlinked_urls(tokens: list[Token]) -> list[Token]:
    """A link whose text is its target (``<https://x.org>``, ``[https://x.org](https://x.org)``)
    as that text alone: Rich draws a link as its text and its target in brackets (octui keeps
    terminal hyperlinks off, so a label never hides where it goes), and such a link read
    ``https://x.org (https://x.org)`` (QA). A target that differs from its text, if only by its
    percent-escapes, is still drawn."""
    for block in tokens:
        children = block.children
        if not children or not any(child.type == "link_open" for child in children):
            continue
        kept: list[Token] = []
        index = 0
        while index < len(children):
            token = children[index]
            if (token.type == "link_open" and index + 2 < len(children)
                    and children[index + 1].type == "text" and children[index + 2].type == "link_close"
                    and str(token.attrs.get("href", "")) in (children[index + 1].content,
                                                             f"mailto:{children[index + 1].content}")):
                kept.append(children[index + 1])
                index += 3
                continue
            kept.append(token)
            index += 1
        block.children = kept
    return tokens


def definitions(markup: str) -> References:
    """The link reference definitions in ``markup`` (made inert), the first of each label."""
    env: dict[str, Any] = {}
    _BLOCKS.parse(markup, env)
    return {label: {"href": ref["href"], "title": ref["title"]}
            for label, ref in env.get("references", {}).items()}


def draws_nothing(markup: str) -> bool:
    """Whether ``markup`` has no block Rich would draw (blank lines, link reference definitions)."""
    return not _BLOCKS.parse(markup)


def label_key(text: str) -> str:
    """``text`` as a label is matched (whitespace runs as one space, case folded): a label of
    ``definitions`` is in the key of a text that may use it."""
    return normalizeReference(text)
