"""Pygments lexers that stop making progress on some text, and what is done then.

A lexer whose rule matches nothing and leaves its state as it was gives empty tokens for ever:
Pygments' MCSchema lexer does so on ``<!-- a`` (an answer's fence tagged ``mcschema``, or an
edit of a ``.mcschema`` file, hung the event loop). Every tokenization of an answer's code goes
through ``progressing``: past ``STUCK_AFTER`` empty tokens in a row it raises ``LexerStuck``, and
the code is then drawn as plain text (``code_rows.code_tokens``), and no cut is made in it
(``markdown_seal``). A diff's sides are coloured by Textual's ``highlight``, which tokenizes on
its own: ``makes_progress`` is asked first (``tools/diff_view``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

from pygments.lexer import Lexer

STUCK_AFTER = 256  # empty tokens in a row (a lexer that makes progress gives one or two at most)
TokenT = TypeVar("TokenT", bound=tuple[Any, ...])


class LexerStuck(Exception):
    """The lexer gave ``STUCK_AFTER`` empty tokens in a row: it makes no progress."""


def progressing(tokens: Iterable[TokenT]) -> Iterator[TokenT]:
    """``tokens`` (their text last) as they come, until the lexer makes no progress."""
    empty = 0
    for token in tokens:
        if token[-1]:
            empty = 0
        else:
            empty += 1
            if empty > STUCK_AFTER:
                raise LexerStuck
        yield token


def makes_progress(lexer: Lexer, text: str) -> bool:
    """Whether ``lexer`` tokenizes ``text`` to its end (tokenized once, and thrown away)."""
    try:
        for _ in progressing(lexer.get_tokens_unprocessed(text)):
            pass
    except LexerStuck:
        return False
    return True
