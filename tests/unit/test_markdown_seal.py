"""Sealing a streamed markdown text into pieces: nothing lost, and rendered like the whole text."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from widgets.transcript import markdown_seal
from widgets.transcript.markdown_chunk import (
    estimate_height,
    placeholder_lines,
    render_markdown,
    render_piece,
)
from widgets.transcript.markdown_seal import (
    FENCE_LOOKAHEAD,
    FENCE_PIECE,
    FENCE_RETRY,
    FENCE_SPAN,
    LIMIT_PIECE,
    MAX_PIECE,
    SENTINEL,
    Piece,
    Sealer,
    _decided,
    _table_running_on,
    find_cut,
)
from widgets.transcript.piece_lines import first_of_each, piece_definitions

WIDTH = 72
CONSOLE = Console(width=WIDTH, color_system="truecolor", force_terminal=True, legacy_windows=False)


def stream(text: str, chunk: int, sealer: Sealer | None = None) -> tuple[list[Piece], Sealer]:
    """Feed ``text`` ``chunk`` characters at a time, then as final; the pieces in order."""
    sealer = sealer or Sealer()
    pieces: list[Piece] = []
    for end in range(chunk, len(text) + chunk, chunk):
        pieces += sealer.feed(text[:end])
    pieces += sealer.feed(text, final=True)
    return pieces, sealer


# Both renders give the same lines for the same text (the table caches they read change only how
# fast): the streaming tests draw the same prefix for several chunk sizes and limits, and the same
# sealed pieces at every frame after them, so each is drawn once.
@functools.lru_cache(maxsize=4096)
def piece_lines(piece: Piece, references: tuple[tuple[str, str, str], ...] = ()) -> tuple[object, ...]:
    found = {label: {"href": href, "title": title} for label, href, title in references}
    return tuple(render_piece(CONSOLE, piece, WIDTH, found))


@functools.lru_cache(maxsize=4096)
def _whole_lines(text: str) -> tuple[object, ...]:
    return tuple(render_markdown(CONSOLE, text, WIDTH))


def whole_lines(text: str) -> list[object]:
    return list(_whole_lines(text))


def rendered(pieces: list[Piece]) -> list[object]:
    """The pieces' lines, each rendered with the link reference definitions of them all (as
    ``PieceLines`` renders them)."""
    found = first_of_each(piece_definitions(piece) for piece in pieces)
    references = tuple(sorted((label, ref["href"], ref["title"]) for label, ref in found.items()))
    return [line for piece in pieces for line in piece_lines(piece, references)]


def assert_renders_like_whole(text: str, chunk: int) -> list[Piece]:
    pieces, _ = stream(text, chunk)
    assert "".join(piece.source for piece in pieces) == text
    assert rendered(pieces) == render_markdown(CONSOLE, text, WIDTH)
    return pieces


PYTHON = "".join(
    f'def handler_{i}(request: Request) -> Response:\n'
    f'    """Handle request {i}.\n\n'
    f'    Docstrings span lines; a cut inside one would change colours.\n    """\n'
    f'    value = request.get("key_{i}")  # comment {i}\n'
    f'    return Response(value * {i})\n\n'
    for i in range(40)
)


def test_a_long_fence_is_cut_and_renders_like_the_unsplit_fence() -> None:
    text = f"Intro paragraph.\n\n```python\n{PYTHON}```\n\nAfter the code.\n"
    pieces = assert_renders_like_whole(text, 37)
    reopened = [piece for piece in pieces if piece.markdown.startswith("```python\n") and piece.trim_top]
    assert len(reopened) >= 3  # the fence really was cut, more than once
    # A few lines each: a cut waits for the docstring it falls in to end (tried again further on).
    assert max(len(piece.source) for piece in pieces) < 2 * (FENCE_PIECE + FENCE_RETRY)


def test_a_fence_is_never_cut_inside_a_docstring() -> None:
    text = f"```python\n{PYTHON}```\n"
    pieces, _ = stream(text, 50)
    assert len(pieces) > 3
    consumed = ""
    for piece in pieces[:-1]:
        consumed += piece.source
        assert consumed.count('"""') % 2 == 0, consumed[-200:]  # every docstring opened is closed


def test_a_fence_cut_is_tokenized_only_where_it_may_be_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tokenizing a fence to check a cut is the costly part of sealing: a fence is tokenized only
    where a cut in it is made (not when a cut comes after it), and in a long string (no cut
    anywhere) tries come FENCE_RETRY apart, not on every delta."""
    tries: list[int] = []
    checked = markdown_seal._plain_state_cut

    def counting(*args: Any) -> int | None:
        tries.append(1)
        return checked(*args)

    monkeypatch.setattr(markdown_seal, "_plain_state_cut", counting)
    code = "".join(f"value_{i} = compute({i}, name='a name')  # a comment\n" for i in range(8))
    fences = "".join(f"Paragraph {n}.\n\n```python\n{code}```\n\n" for n in range(60))
    pieces = Sealer().feed(fences, final=True)
    assert len(code) > FENCE_PIECE and len(pieces) > 10
    assert len(tries) == sum(1 for piece in pieces if piece.trim_bottom) > 0  # each one for a cut made

    string = '```python\ntext = """\n' + "a line of a long string\n" * 400 + '"""\n```\n'
    tries.clear()
    pieces, _ = stream(string, 20)
    # Not once per chunk or more (500 of them; 1,085 tries before): a few (one or two in each
    # window the sealer looks through, larger and larger) every FENCE_RETRY characters.
    assert len(tries) < 6 * (len(string) // FENCE_RETRY)
    assert not any(piece.trim_bottom for piece in pieces)  # never cut inside the string

    # A long string with code after it: the code is cut as it comes (once the string, longer
    # than the sealer's first window, is done), not held up to the forced cut.
    text = string[:-4] + "".join(f"y{i} = {i}\n" for i in range(1000)) + "```\n"
    pieces = assert_renders_like_whole(text, 40)
    assert len(pieces[0].source) < len(string) + 100  # the string, and a line or two after it
    assert max(len(piece.source) for piece in pieces[1:]) < LIMIT_PIECE


def _tokenized_while_sealing(monkeypatch: pytest.MonkeyPatch, text: str) -> tuple[list[Piece], int]:
    """The pieces of ``text`` sealed at once, and how many characters were tokenized for it."""
    tokenized: list[int] = []
    line_tokens = markdown_seal.token_lines

    def counting(tokens: Iterable[tuple[Any, str]]) -> list[list[tuple[Any, str]]]:
        listed = list(tokens)
        tokenized.append(sum(len(value) for _kind, value in listed))
        return line_tokens(listed)

    monkeypatch.setattr(markdown_seal, "token_lines", counting)
    monkeypatch.setattr(markdown_seal, "_LEXED", None)
    markdown_seal._line_tokens.cache_clear()
    pieces = Sealer().feed(text, final=True)
    return pieces, sum(tokenized)


def test_a_long_fence_that_came_at_once_is_tokenized_a_few_times_over_not_per_window(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A burst (or a reload) brings a long fence at once. With a lexer whose state is not read
    (C's), each cut in it is checked over the lines up to FENCE_LOOKAHEAD past it, not over the
    sealer's whole window (that tokenized a code answer 7 times over), and the lines after a cut,
    tokenized alone to check it, are not tokenized again in context to check the next cut (the
    same text)."""
    code = "".join(f"    value_{i} = compute({i}, name_{i});  /* a comment */\n" for i in range(500))
    text = f"```c\n{code}```\n"
    assert markdown_seal._text_start_rules(markdown_seal.markdown_lexer("c")) is None  # (the comparison)
    pieces, tokenized = _tokenized_while_sealing(monkeypatch, text)
    assert len(pieces) > len(text) // LIMIT_PIECE  # cut all along
    # The first span in context, then for each cut the span after it, alone (a margin line more
    # each time): not the span in context again, nor to the end of the window.
    assert tokenized <= (FENCE_SPAN + 100) * (len(pieces) + 1), (tokenized, len(text))
    assert tokenized < 5 * len(text), (tokenized, len(text))  # (7.2 times before)
    assert rendered(pieces) == render_markdown(CONSOLE, text, WIDTH)


def test_a_long_fence_cut_where_the_lexer_state_is_read_is_tokenized_about_twice(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Python's lexer (like most) is a ``RegexLexer`` whose state is read at each line start: a
    cut needs no second tokenization, and one tokenization of the sealer's window checks the
    cuts of several pieces. The same cuts as the comparison makes, for half the tokenizing."""
    code = "".join(f"    value_{i} = compute({i}, name='x{i}')  # a comment\n" for i in range(500))
    text = f"```python\n{code}```\n"
    pieces, tokenized = _tokenized_while_sealing(monkeypatch, text)
    assert len(pieces) > len(text) // LIMIT_PIECE
    assert tokenized < 2.5 * len(text), (tokenized, len(text))  # (3.96 times with the comparison)
    assert rendered(pieces) == render_markdown(CONSOLE, text, WIDTH)

    monkeypatch.setattr(markdown_seal, "_text_start_rules", lambda lexer: None)  # the comparison instead
    compared, tokenized_before = _tokenized_while_sealing(monkeypatch, text)
    assert [piece.source for piece in compared] == [piece.source for piece in pieces]
    assert tokenized_before > 1.5 * tokenized


def _goes_on_alone(language: str, code: str) -> list[bool]:
    lexer = markdown_seal.markdown_lexer(language)
    at_start = markdown_seal._text_start_rules(lexer)
    assert lexer is not None and at_start is not None, language
    lexed = markdown_seal._lexed(lexer, code)
    assert lexed is not None
    return [markdown_seal._resyncs(lexed, row, at_start) for row in range(len(lexed.starts))]


def test_the_lexer_state_is_read_at_each_line_start() -> None:
    """A line goes on alone as in context at plain statements, indented or not (most lexers'
    blanks token takes the newline before the indent in: the state is read past it), and in Rust,
    whose root state moves on at once; not inside a docstring, nor inside bash's ``$( … )`` (whose
    lines are tokenized alike alone until its closing line: the comparison needed
    FENCE_LOOKAHEAD for it)."""
    assert _goes_on_alone("python", 'a = 1\ns = """doc\nstill doc\n"""\nb = 2\n') == [
        True, True, False, False, True]
    assert _goes_on_alone("bash", "echo a\nx=$(\necho b\n)\necho c\n") == [True, True, False, False, True]
    assert _goes_on_alone("javascript", "class A {\n  m() {\n    return 1;\n  }\n}\n") == [True] * 5
    assert _goes_on_alone("rust", "fn a() {}\nfn b() {\n    let x = 1;\n}\n") == [True] * 4
    raw = 'let s = r#"raw\nstill raw\n"#;\nlet t = 1;\n'
    assert _goes_on_alone("rust", raw) == [True, False, False, True]


@pytest.mark.parametrize("language, line", [
    ("javascript", "    this.value_{i} = compute({i}, {{ name: 'x{i}' }});\n"),
    ("rust", "        let value_{i} = compute({i}, \"x{i}\");\n"),
    ("kotlin", "        val value{i} = compute({i}, \"x{i}\")\n"),
    ("bash", "  echo \"value {i}\" | tr a-z A-Z\n"),
])
def test_indented_code_is_cut_all_along_as_it_streams(language: str, line: str) -> None:
    """Indented lines of most languages, and every line of Rust, start in a state other than
    the root one; they are cut where the line alone reaches the same state (an early version
    read only the root one: a 17 KB Rust fence was sealed in 2 pieces, forced at ~8 KB)."""
    # (a "//" comment takes its line's newline into its token: no cut after such a line)
    note = "  # a note\n" if language == "bash" else "    // a note\n"
    body = "".join(line.format(i=i) + (note if i % 4 == 0 else "") for i in range(300))
    text = f"```{language}\n{body}```\n"
    pieces = assert_renders_like_whole(text, 41)
    assert len(pieces) > len(text) // LIMIT_PIECE
    assert max(len(piece.source) for piece in pieces) < 2 * LIMIT_PIECE


def test_which_lexers_are_read_by_their_state() -> None:
    """A ``RegexLexer`` whose rules read nothing before a line, with no callback of its own: yes
    (Python's one-character lookbehinds, ``(?<!\\.)``, see the newline either way; ``bygroups``
    and ``using`` read their match). A lexer that overrides the loop (C, JSON), reads two
    characters back, or calls its own code: no. The Pygments names this relies on are checked
    here (a canary: if they change, every fence is checked by the comparison, slower, still right;
    or, for the frame's locals, ``test_the_lexer_state_is_read_at_each_line_start`` fails)."""
    from pygments.lexer import RegexLexer, bygroups, this, using
    from pygments.token import Name, Text

    assert {"pos", "statestack"} <= set(RegexLexer.get_tokens_unprocessed.__code__.co_varnames)
    assert re._parser.parse(r"[\w$]", 0).getwidth() == (1, 1)  # type: ignore[attr-defined]
    for language in ("python", "bash", "javascript", "go", "rust", "java", "kotlin"):
        assert markdown_seal._text_start_rules(markdown_seal.markdown_lexer(language)) is not None, language
    for language in ("c", "json", "html"):
        assert markdown_seal._text_start_rules(markdown_seal.markdown_lexer(language)) is None, language
    shebang = markdown_seal._text_start_rules(markdown_seal.markdown_lexer("python"))
    assert shebang and all(pattern.match("#!/usr/bin/env python\n") for pattern in shebang)

    class WideLookbehind(RegexLexer):
        tokens = {"root": [(r"(?<=ab)c", Name), (r"\s+|\w", Text)]}

    def own(lexer: object, match: re.Match[str]) -> Iterable[tuple[int, Any, str]]:
        yield match.start(), Name, match.group()

    class OwnCallback(RegexLexer):
        tokens = {"root": [(r"\w+", own), (r"\s+", Text)]}

    class Groups(RegexLexer):
        tokens = {"root": [(r"(\w+)(\s*)", bygroups(Name, Text)), (r"\((.*?)\)", using(this)),
                           (r"\s+", Text)]}

    assert markdown_seal._read_start_rules(WideLookbehind(stripnl=False)) is None
    assert markdown_seal._read_start_rules(OwnCallback(stripnl=False)) is None
    assert markdown_seal._read_start_rules(Groups(stripnl=False)) == ()


def test_a_shebang_line_is_not_cut_before() -> None:
    """Alone, a line starting ``#!`` is read as the script's first line (Python's and bash's
    ``\\A#!`` rules); in context it is a comment: a cut right before it would colour it otherwise."""
    python = markdown_seal.markdown_lexer("python")
    shebang = markdown_seal._text_start_rules(python)
    assert python is not None and shebang is not None
    lexed = markdown_seal._lexed(python, "a = 1\n#!/usr/bin/env python\nb = 2\n")
    assert lexed is not None
    assert markdown_seal._resyncs(lexed, 1, ()) and not markdown_seal._resyncs(lexed, 1, shebang)
    end = len(lexed.text)
    assert markdown_seal._cut_in(lexed, 0, shebang, 0, [0], end, to_close=True, to_end=True) is None
    assert markdown_seal._cut_in(lexed, 0, (), 0, [0], end, to_close=True, to_end=True) == 0
    code = "".join(f"x_{i} = {i}\n" + ("#!/usr/bin/env python\n" if i % 9 == 0 else "") for i in range(400))
    assert_renders_like_whole(f"```python\n{code}```\n", 97)


def test_a_late_fence_cut_is_checked_as_far_as_an_early_one() -> None:
    """When no cut passes near LIMIT_PIECE (a string over the first candidates), later ones are
    tried: one the window's end leaves less than FENCE_LOOKAHEAD after is not taken there (the
    sealer reads a larger window), so it is not cut inside a ``$( … )`` that closes past it."""
    text = ("```bash\necho 'start\n" + "in string line\n" * 80 + "end'\n" + "echo a\n" * 296
            + "x=$(\n" + "echo b\n" * 214 + ")\n" + "echo d\n" * 150 + "```\n")
    pieces = Sealer().feed(text, final=True)
    assert "".join(piece.source for piece in pieces) == text
    assert rendered(pieces) == render_markdown(CONSOLE, text, WIDTH)


def test_a_line_after_a_newline_no_rule_matched_is_not_read_as_a_root_line() -> None:
    """When no rule matches at a newline, Pygments resets the state to the root one and then
    yields the newline: the frame says "root" there though no match was made (Pawn, after a string
    ending in a backslash). The line alone starts with a real match: not the same run."""
    assert _goes_on_alone("pawn", 'x = "a\\\n\nfoo(1);\n')[1] is False


def test_the_line_before_a_cut_must_end_alike_alone() -> None:
    """Nix reads a name as an attribute when a ``=`` follows, on the next line too: the piece that
    ends before that line would draw the name otherwise."""
    text = ("```nix\n" + "".join(f"a{i} = {i};\n" for i in range(80)) + "config\n= { x = 1; };\n"
            + "".join(f"b{i} = {i};\n" for i in range(300)) + "```\n")
    pieces = Sealer().feed(text, final=True)
    assert len(pieces) > 3
    assert rendered(pieces) == render_markdown(CONSOLE, text, WIDTH)


def test_start_rules_are_kept_per_lexer_not_per_id() -> None:
    """``markdown_lexer`` keeps 64 lexers: one it dropped is freed, and its ``id`` may be given to
    another. The rules are kept with the lexer itself: checked over every lexer Pygments has, each
    against its own rules read afresh (keyed by ``id``, 48 of 400 got another lexer's)."""
    from pygments.lexers import get_all_lexers

    names = [aliases[0] for _name, aliases, *_rest in get_all_lexers() if aliases][:400]
    wrong = []
    for name in names:
        lexer = markdown_seal.markdown_lexer(name)
        if lexer is None:
            continue
        kept = markdown_seal._text_start_rules(lexer)
        try:
            fresh = markdown_seal._read_start_rules(lexer)
        except (AttributeError, TypeError, ValueError):
            fresh = None
        if (kept is None) != (fresh is None):
            wrong.append(name)
    assert not wrong


def test_tilde_fences_and_unknown_languages_are_cut_too() -> None:
    body = "".join(f"line {i} of some output that is not code at all\n" for i in range(200))
    for opener in ("~~~", "```no-such-language", "````text"):
        closer = opener.rstrip("abcdefghijklmnopqrstuvwxyz-")
        assert_renders_like_whole(f"{opener}\n{body}{closer}\n", 61)


def test_an_indented_fence_is_not_cut() -> None:
    body = "".join(f"    x = {i}\n" for i in range(300))
    text = f"- item\n\n  ```python\n{body}  ```\n"
    pieces = assert_renders_like_whole(text, 64)
    assert not any(piece.trim_bottom for piece in pieces)


def test_a_long_bullet_list_is_cut_between_items() -> None:
    text = "Intro.\n\n" + "".join(
        f"- item {i} with **bold**, `code` and enough words to wrap on a narrow screen\n"
        + ("  - a nested item\n" if i % 7 == 0 else "") for i in range(120)) + "\nAfter.\n"
    pieces = assert_renders_like_whole(text, 29)
    assert len(pieces) > 10


def numbered(count: int, start: int = 1, marker: str = "{n}.", every: int = 0) -> str:
    """A numbered list of ``count`` items written ``marker`` (``{n}`` is the item's number), a
    nested bullet and an indented code line under every ``every``-th."""
    items = []
    for n in range(start, start + count):
        words = "with **bold**, `code` and words that wrap on a narrow screen"
        items.append(f"{marker.format(n=n)} step {n} {words}\n")
        if every and n % every == 0:
            indent = " " * len(marker.format(n=n) + " ")
            items.append(f"{indent}- a nested bullet\n\n{indent}      indented code in the item\n")
    return "".join(items)


@pytest.mark.parametrize("text", [
    "Intro.\n\n" + numbered(40) + "\nAfter.\n",
    "Intro.\n\n" + numbered(40, marker="1.") + "\nAfter.\n",  # every item written "1."
    "Intro.\n\n" + numbered(30, start=7, marker="{n})") + "\nAfter.\n",
    numbered(25, start=0, every=4),
    "Intro.\n\n" + numbered(130, marker="1."),  # past 99: its numbers take three digits
])
def test_a_long_numbered_list_is_cut_between_items_from_its_tenth_number(text: str) -> None:
    pieces = assert_renders_like_whole(text, 29)
    start = int(re.search(r"^(\d+)[.)] ", text, re.M).group(1))  # type: ignore[union-attr]
    before = 0  # items in the pieces before
    continued = 0
    for piece in pieces:
        if piece.trim_top == 1 and piece.source[:1].isdecimal():  # goes on with the list's number
            assert piece.number == start + before and piece.markdown == piece.source
            continued += 1
        before += len(re.findall(r"^\d+[.)] ", piece.source, re.M))
    assert continued > 3
    assert max(len(piece.source) for piece in pieces) < 10 * 120  # none holds the whole list


def test_a_numbered_list_is_cut_only_where_it_is_certainly_one_list() -> None:
    long = " and words" * 12
    ten = numbered(10)
    assert find_cut(ten + "11. next" + long) is not None
    # Before its tenth number, Rich sizes the numbers by the last one: a cut would move them.
    assert find_cut(numbered(8) + "9. next" + long, minimum=20) is None
    for interrupted in ("a lazy line of the item\n", "10.\n", "- a bullet\n", "10) another delimiter\n",
                        "10.\ttabbed\n", "\n  under-indented after a blank line\n"):
        cut = find_cut(ten + interrupted + "11. next" + long, minimum=20)
        blank = len(interrupted) - len(interrupted.lstrip("\n"))
        assert cut is None or cut.end <= len(ten) + blank, interrupted
    # A list that starts under a paragraph must start at 1 (else its lines are the paragraph's).
    assert find_cut("Para.\n" + numbered(12, start=3) + long, minimum=20) is None
    assert find_cut("Para.\n" + numbered(12) + long, minimum=20) is not None
    # Two lists with blank lines between them are one (loose) list, the second numbered on.
    cut = find_cut("Para.\n" + numbered(12) + "\n\n" + numbered(3, marker="1.") + long, 20, 10_000)
    assert cut is not None and cut.number == 15
    # Not after an item indented (up to 3): its list is not followed.
    assert find_cut("Para.\n\n 5. indented\n\n" + numbered(12) + long, minimum=20) is None
    assert find_cut("Para.\n\n" + numbered(12, start=3) + long, minimum=20) is not None


WORDS = " with enough words to pass the minimum piece size" * 3
NINE_ITEMS = "".join(f"{n}. item {n}\n" for n in range(1, 10))


@pytest.mark.parametrize("text", [
    # A line less indented than an item's text is not always a lazy line of it: after a heading,
    # code, a setext heading or a table, it ends the list; "11." then goes on its paragraph.
    NINE_ITEMS + "10. # Heading\n  text\n11. b" + WORDS + "\n12. c\n",
    NINE_ITEMS + "10.      indented code\n  text\n11. b" + WORDS + "\n12. c\n",
    NINE_ITEMS + "10. x\n    ---\n  lazy\n11. b" + WORDS + "\n12. c\n",
    NINE_ITEMS + "10. | a | b |\n    |---|---|\n  lazy\n11. b" + WORDS + "\n12. c\n",
    "-   # Heading" + WORDS + "\n  text\n- b" + WORDS + "\n- c\n",  # the same with bullets
    # An item's fence left open: the next item at the margin ends it (and its fence).
    "".join(f"{n}. Step {n}: do the thing number {n} as described.\n" for n in range(1, 8))
    + "8. Configure:\n   ```yaml\n   key: value\n9. Restart the service.\n   ```\n10. Check the logs.\n"
    + "11. Done, with a few more words here.\n12. Really done.\n",
    NINE_ITEMS + "   ```\n10. j\n   ```\n11. k\n12. l" + WORDS + "\n13. m\n",
    # An item's fence closed: the list goes on, and is cut.
    "".join(f"{n}. Step {n}:\n   ```sh\n   run {n}\n   ```\n" for n in range(1, 16)),
])
def test_a_list_is_cut_only_where_its_items_are_certain(text: str) -> None:
    """Counter-examples a review found: each was cut where markdown-it ends the list."""
    assert_renders_like_whole(text, 7)
    assert_streams_like_whole(text, 13, 20)


def steps(count: int, marker: str = "{n}.", indent: int | None = None, start: int = 1) -> str:
    """A loose list, as answers write step-by-step instructions: each item a title, a paragraph
    and a fence, indented ``indent`` spaces (None: as far as the item's text, so all in it)."""
    items = []
    for n in range(start, start + count):
        head = marker.format(n=n) + " "
        pad = " " * (len(head) if indent is None else indent)
        items.append(f"{head}**Step {n}**: configure the thing\n\n{pad}Then run the command, which"
                     f" prints a few lines and exits.\n\n{pad}```sh\n{pad}run --step {n}\n{pad}```\n\n")
    return "".join(items)


@pytest.mark.parametrize("text", [
    steps(30, marker="-"),
    steps(30, marker="*", indent=4),
    steps(30),
    steps(30, marker="{n})"),
    # Indented 3 as the first items are: from "10." on, the paragraph and the fence are not in the
    # item (its text starts at 4) but after a list of one item; "11." starts another list.
    "Intro.\n\n" + steps(30, indent=3),
    steps(12, start=95),  # numbers of two and three digits
], ids=["bullets", "bullets-indented-4", "numbered", "numbered-paren", "numbered-indented-3", "95-106"])
def test_a_loose_list_is_cut_between_items(text: str) -> None:
    """A list whose items have paragraphs or code of their own (a blank line between items) is
    cut between items, as a tight one is: its tail is an item or two, not the whole list."""
    pieces = assert_renders_like_whole(text, 29)
    if not text.startswith(("1.", "1)", "Intro")):
        assert max(len(piece.source) for piece in pieces) < 3 * 150  # one item is ~140
    else:  # before its tenth number a numbered list is not cut (see NUMBERED_FROM)
        assert max(len(piece.source) for piece in pieces[1:]) < 3 * 150
    assert_streams_like_whole(text[:2500], 37, 100)


@pytest.mark.parametrize("text", [
    # After a blank line, a line indented less than the item's text but more than the margin: a
    # paragraph at the top level (the list ended), whatever comes after it.
    steps(12, indent=2) + "   lazy?\n11. next\n",
    steps(12) + "  - a bullet under the list\n\n13. a new list\n",
    # A fence indented less than the item's text ends the list, blank line or not.
    steps(11) + "12. item\n  ```\n  code\n\n13. still code\n  ```\n\n14. a new list\n",
    steps(11) + "```\nmargin fence\n```\n12. not cut before: no blank line\n\n13. new\n",
    steps(11) + "12. item\n```x`y is no fence: a lazy line\n\n13. the same list\n",
    # A fence under an item not followed (here: after a heading) is not known to be the item's.
    "# Title\n" + steps(11, start=5) + "12. x\n\n  ```\n  code\n  ```\n\n13. y\n",
], ids=["paragraph-indented-3", "bullet-indented-2", "fence-indented-2", "margin-fence", "no-fence",
        "after-heading"])
def test_the_end_of_a_loose_list_is_known_or_not_cut(text: str) -> None:
    assert_renders_like_whole(text, 11)
    assert_streams_like_whole(text, 17, 40)


def test_a_quote_that_ends_in_a_rule_loses_no_line() -> None:
    """Rich puts no blank line above a quote whose last block is a rule: the rest of a quote cut
    in pieces drops the blank line above it only if there is one. (The pieces before it drew
    the blank line above the quote: a known difference, see the module's docstring.)"""
    paragraph = "> A paragraph of the quote that is long enough to be sealed on its own.\n>\n"
    text = paragraph * 3 + "> ***\n"
    pieces, _ = stream(text, 3)
    whole = render_markdown(CONSOLE, text, WIDTH)
    lines = rendered(pieces)
    assert not line_text(lines[0]).strip() and lines[1:] == whole  # the blank line above, then all


def quote(count: int, blocks: str = "") -> str:
    """A block quote of ``count`` paragraphs (two lines each), ``blocks`` after each of them."""
    return "".join(f"> Paragraph {n} of the quote, with **bold** words and `code` in it,\n"
                   f"> and a second line that goes on for a while.\n>\n{blocks}" for n in range(count))


@pytest.mark.parametrize("text", [
    quote(20) + "\nAfter the quote.\n",
    "Intro.\n\n" + quote(12, "> - an item\n> - another\n>\n"),
    quote(12, "> ```sh\n> run --step\n>\n> Text in the code, not a paragraph\n> ```\n>\n"),
    quote(12, "> > a nested quote\n>\n"),
    quote(12, "> | a | b |\n> |---|---|\n> | 1 | 2 |\n>\n"),
    "".join(f"> **Note {n}**: a paragraph that starts in bold, as notes do, and goes on.\n>\n"
            "> - an item of the note\n> - another item of it\n>\n" for n in range(12)),
], ids=["paragraphs", "lists", "fences", "nested", "tables", "bold-notes"])
def test_a_long_quote_is_cut_between_its_blocks(text: str) -> None:
    """A block quote is cut at its blank lines before a paragraph of it: the tail is the last
    paragraph or two of the quote, not the whole quote (each block is ~110 to ~170 long)."""
    pieces = assert_renders_like_whole(text, 29)
    assert len(pieces) >= 8 and max(len(piece.source) for piece in pieces[1:]) < 3 * 170
    assert_streams_like_whole(text[:1800], 37, 100)


@pytest.mark.parametrize("text", [
    "> p\n>\n> ```\n> code\n>\n> Text in code\n> ```\n>\n> After the code.\n>\n> More\n",
    # A fence in an item of the quote "closed" by a line less indented: that line ends the item
    # and opens a fence of its own in the quote.
    "> - item\n>   ```\n> ```\n> code\n>\n> Text in code\n> ```\n>\n> tail\n",
    "> > inner\n>\n> outer para\n>\n> > inner2\n>\n> Outer again\n",
    ">\ttab\n>\n> Text\n>\n> Text2\n",
    "> p\n>\n>\t```\n>\n> Text\n> ```\n>\n> T\n",
    "Para\n>\n> q\n>\n> r\n",  # a quote that starts by interrupting a paragraph
    "- item\n> quote\n>\n> more\n",  # (not lazy: the quote ends the list)
    "> p1\nlazy line\n>\n> p2\n>\n> p3\n",
    "> p1\n>\n> Setext\n> ---\n>\n> p3\n",
    "> 1. a\n>\n> Text\n>\n> 2. b\n>\n> Text\n",
    "> p\n>\n>     indented code\n>\n>     more code\n>\n> Text\n",
    "> p\r\n>\r\n> Text\r\n>\r\n> More\r\n",
    "> p\n> \n> Text\n>  \n>  indented\n>\n> Last\n",
    "> [x]: http://example.com\n>\n> Use [x]\n>\n> More [x]\n",
    # From a review: a marker after spaces is a line of the quote (its fence goes on); a rule as
    # the block before a cut or as the next one (Rich puts no blank line above a quote whose last
    # block is a rule); a definition or an image right after a cut draws no line of its own; a
    # quote that has drawn nothing yet; a quote after a fence.
    " > ```\n" + "> code\n>\n" * 20 + "> Text in code\n> ```\n",
    "> ```\n > code\n" + "> code\n>\n" * 20 + "> Text in code\n> ```\n",
    ">```\n >\n>>\n>\n>n",
    "> p\n>\n> ___\n>\n> More.\n",
    "> - - -\n>\n> y\n",
    "> " + "word " * 30 + "\n>\n> [x]: http://e.com\n\nAfter.\n",
    "> " + "word " * 30 + "\n>\n> ![diagram](http://x/y.png)\n>\n> The end of the quote.\n",
    ">\n>\n>\n> Text\n",
    "> a\n```\ncode\n```\n>\n> Text\n>\n> More\n",
    ">e\n>\n>d\n```\nne\ni",  # the rest of a quote, then a fence cut in two
], ids=["fence", "item-fence", "nested", "tab", "tab-fence", "interrupting", "after-item", "lazy",
        "setext", "numbered", "indented-code", "crlf", "indented-paragraph", "definition",
        "marker-after-spaces", "marker-after-spaces-inside", "marker-after-spaces-short", "rule-next",
        "rule-before", "definition-after-cut", "image-after-cut", "nothing-drawn", "after-fence",
        "fence-after-rest"])
def test_a_quote_is_cut_only_where_its_blocks_are_plain(text: str) -> None:
    assert_renders_like_whole(text, 3)
    for chunk in (1, 2, 5):
        for minimum in (1, 3, 20):
            assert_streams_like_whole(text, chunk, minimum)


@pytest.mark.parametrize("text", [
    # A bullet in a fence whose closing line is indented as an item's text: no item of a list.
    "Example:\n\n```markdown\n" + "".join(f"- point {n} of the example list\n" for n in range(3))
    + "\n  ```\n\n- real item one\n- real item two\n",
    "```\n- a\n\n   ```\n\n- b\n- c\n",
    # A link reference definition: the pieces after it would render its uses as plain text.
    "- a point with a link reference defined under it, and more words to pass a hundred\n\n"
    "  [x]: http://example.com\n\n- see [x] for details\n- c\n",
    "10. a\n\n    [x]: http://u\n\n11. b [x]\n12. c\n",
    "Para.\n\n[x]: http://u\n\nUse [x] here.\n",
    "> [x]: http://u\n\nUse [x] here and more words to make a piece.\n\nAnd [x] again.\n",
    # A bullet alone on its line (its text on the next one) is an item: no block cut before it.
    "- a\n\n-\n  b\n\n- c\n",
    # A second review: a label going on on the next line; a fence in an item ended by a line
    # indented less (a heredoc at the margin): markdown-it then opens a fence of its own there.
    "Intro paragraph with enough words to pass the minimum of a piece, which is one hundred.\n\n"
    "[foo\nbar]: http://u\n\nUse [foo bar] here.\n",
    "1. Create the file:\n   ```bash\n   cat > f <<EOF\n[section]\nkey=value\nEOF\n   ```\n\n"
    "Then run the command to see the result of it all.\n\nAnd another paragraph.\n\n2. next\n",
    "- a\n  ```\n  code\nx\n  ```\n- b\n- c\n" + "- more items to cut\n" * 12,
], ids=["fence-of-bullets", "fence-of-bullets-short", "definition-in-item", "definition-in-numbered",
        "definition", "definition-in-quote", "bare-bullet", "definition-on-two-lines", "heredoc-in-item",
        "margin-line-in-item-fence"])
def test_what_a_review_found_renders_like_the_whole(text: str) -> None:
    assert_renders_like_whole(text, 7)
    for chunk, minimum in ((3, 1), (5, 20)):
        assert_streams_like_whole(text, chunk, minimum)


def test_a_definition_does_not_stop_the_cuts_and_holds_for_the_whole_answer() -> None:
    """What markdown-it reads as text ("[INFO]: server started", "**[Note]:**", a label then
    words) is cut as any text is; so is text after a real definition, and its uses render as
    links before it and after it, each piece with the definitions of all of them."""
    chatty = "".join(f"[INFO]: step {n} started with some words\n\n**[Note]:** careful {n}.\n\n"
                     f"[User]: and a reply {n}\n\n" for n in range(40))
    pieces = assert_renders_like_whole(chatty, 29)
    assert max(len(piece.source) for piece in pieces) < 400
    defined = "Intro words, see [wip].\n\n[wip]: notes\n\n" + chatty + "See [wip].\n"
    pieces = assert_renders_like_whole(defined, 29)
    assert max(len(piece.source) for piece in pieces) < 400  # cut after the definition too
    drawn = "\n".join(line_text(line) for line in rendered(pieces))
    assert drawn.count("wip (notes)") == 2 and "[wip]" not in drawn


def test_a_numbered_list_reaching_ten_gives_each_number_its_own_width() -> None:
    def gutters(text: str) -> list[int]:
        lines = ["".join(t for t, _s in line) for line in render_markdown(CONSOLE, text, WIDTH)]
        return [len(line) - len(line.lstrip(" 0123456789.")) for line in lines if "step" in line]

    assert set(gutters(numbered(5))) == {4}  # " 1. ", sized as Rich sizes a short list
    assert set(gutters(numbered(9))) == {5}  # as Rich: sized by ten
    hundred = gutters(numbered(120))
    assert set(hundred[:99]) == {5} and set(hundred[99:]) == {6}  # Rich: all 6, moved when 99 came


def test_a_numbered_item_shows_the_delimiter_written() -> None:
    """Rich draws "1 Read the file": a bare digit beside OpenCode's TUI's "1." (daily use)."""
    def firsts(text: str) -> list[str]:
        lines = ["".join(t for t, _s in line) for line in render_markdown(CONSOLE, text, WIDTH)]
        return [line.split()[0] for line in lines if line.strip()]

    assert firsts("1. Read the file\n2. Edit it\n") == ["1.", "2."]
    assert firsts("3) Run the tests\n4) Commit\n") == ["3)", "4)"]  # as written, from its start


def test_blocks_of_every_kind_render_like_the_whole() -> None:
    section = (
        "## Heading\n\nA paragraph with *emphasis* and a [link](http://example.com).\n\n"
        "| col a | col b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n"
        "1. first\n2. second\n\n> quoted\n> text\n\n---\n\n"
        "Paragraph right before a list:\n- a\n- b\n\n* other marker\n\n"
    )
    assert_renders_like_whole(section * 12, 23)


def test_nothing_is_cut_before_the_start_of_the_line_after_the_boundary_settles_it() -> None:
    text = "x" * 200 + "\n\n"
    assert find_cut(text) is None  # the next line could still be an indented continuation
    assert find_cut(text + "next\n") is not None
    # Still streaming: cut as soon as its start rules out an indent, a list item or a rule, so a
    # heading or a finished code block leaves the re-rendered tail when the paragraph after it starts.
    for settled in ("n", "Next words", "- item", "* a", "# Title", "```py", "**Bold**", "-dash", "2024 was",
                    "12.", "\xa0"):
        assert _decided(settled), settled
        assert find_cut(text + settled) == find_cut(text + settled + "\n"), settled
    for unsettled in (" ", "\t", "-", "- ", "- -", "* *", "1", "12", "+"):
        assert not _decided(unsettled), unsettled
        assert find_cut(text + unsettled) is None, unsettled
    fence = "```python\n" + "x = 1\n" * 60
    assert find_cut(fence + "y = 2") == find_cut(fence)  # a code line could be the fence's closing line


def assert_streams_like_whole(text: str, chunk: int, minimum: int) -> None:
    """Every frame (the sealed pieces and the tail) renders as the text so far does, and the end too."""
    sealer = Sealer(minimum=minimum, limit=minimum * 4, fence_minimum=minimum)
    pieces: list[Piece] = []
    for end in range(chunk, len(text) + chunk, chunk):
        pieces += sealer.feed(text[:end])
        frame = rendered([*pieces, sealer.tail(text[:end])])
        assert frame == whole_lines(text[:end]), repr(text[:end])
    pieces += sealer.feed(text, final=True)
    assert rendered(pieces) == whole_lines(text)


TWELVE = "".join(f"{n}. item {n}\n" for n in range(1, 13))
TRICKY = [
    "Before.\n\n- - -\n- item one\n- item two\n\n",  # a rule of dashes is not one of the items
    "Before.\r\n\r\n- - -\r\n- item one\r\n- item two\r\n",  # the same with CRLF
    "---\r\n\r\n# Title\r\n\r\n> a quote\r\n",  # no cut after a rule (CRLF), none inside the quote
    "Some paragraph text.\n\xa0\nSome paragraph text.\n\x0c\nMore text.\n",  # not blank lines to markdown
    "Foo\n- \nBar\n* \n",  # a setext heading; an empty item does not interrupt a paragraph
    "Foo\n- \n- item\n",  # a setext heading, then a list: not one list
    # HTML is text (markdown_chunk): a fence after a line starting with a tag opens (the sealer
    # once took such lines for HTML blocks and cut inside the fence: code showed as prose).
    "<span>x</span>\n<pre>\na\n\nb\n</pre>\n\nAfter.\n",
    "Intro.\n\n<path> is the file to read:\n```python\ndef f():\n    return 1\n\nprint(f())\n```\n\nDone.\n",
    "A paragraph\n<br>\n```\ncode\n\nmore code\n```\n\nDone.\n",
    "<!-- one line -->\n```\ncode\n\nmore code\n```\n\nDone.\n",
    "<div>\n```\nnot a fence\n\nAfter the div.\n",  # HTML is text: a fence after it opens
    "Title\n===\n<custom>\n```\ncode\n\nmore code\n```\n\nDone.\n",
    "```\ncode\n```\xa0\nstill code\n\nmore\n```\n\nDone.\n",  # a no-break space: no closing line
    "Text\n\n<a b=\x85\x85>\n```\ncode\n\nmore\n```\n",  # a control character is a token to both
    # A fence in a list item "closed" by a line indented less than the item's text: that line
    # ends the item and opens a fence of its own, which runs to the end.
    "- item\n\n   ```\n ```\n" + "".join(f"code {i}\n" for i in range(20)) + "\n# heading\n\n**bold** text\n",
    # Numbered lists: lines a list item cannot start (lazy, empty item, another delimiter, a
    # tab) and the tenth number, where the numbers' width changes.
    TWELVE[:TWELVE.index("9.")] + "lazy\n9. nine\n10.\n11. x\n12) y\n13. z\n14.\tt\n15. w\n",
    # Under "12." a line indented 3 is not in the item: a bullet there starts a list of its own.
    TWELVE + "   - not nested\n\n         code\n13. new list\n14. x\n",
    TWELVE + "   lazy text\n13. same list\n14. x\n15. y\n",
]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_boundaries_render_like_the_whole_in_every_frame(text: str) -> None:
    for minimum in (1, 3, 20):
        for chunk in (1, 2, 5):
            assert_streams_like_whole(text, chunk, minimum)


def test_a_list_item_after_a_blank_line_is_not_cut_off() -> None:
    text = "- " + "a" * 200 + "\n\n- second item of a loose list\n- third\n"
    cut = find_cut(text)
    assert cut is None or not text[:cut.end].endswith("\n\n")


def test_the_authoritative_text_seals_into_bounded_pieces_in_one_go() -> None:
    text = "".join(f"Paragraph {i}. " + "words " * 30 + "\n\n" for i in range(300))
    pieces = Sealer().feed(text, final=True)
    assert "".join(piece.source for piece in pieces) == text
    assert len(pieces) > 50 and max(len(piece.source) for piece in pieces) < 1000


# ----------------------------------------------------------------------------- properties
BLOCKS = st.sampled_from([
    "Plain paragraph text that goes on for a while.",
    "Two lines\nof one paragraph.",
    "# Title",
    "- item one\n- item two",
    "- loose item\n\n- another",
    "1. one\n2. two",
    "```python\ndef f(x):\n    '''doc\n    string'''\n    return x\n```",
    "```\nplain code\n\nwith a blank line\n```",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "> a quote",
    "---",
    "    indented code",
    "",
    "Setext title\n====",
    "* * *",
    "> - quoted item\n> - another",
    "9. nine\n10. ten",
    "- item\n\n  ```js\n  let x = `a\n  b`;\n  ```",
    "~~~\ntilde fence\n~~~",
    "Hard break  \nnext line",
    "<div>html</div>",
    "\n![image](http://example.com/x.png)",  # alone: inside a list Rich hoists it (see markdown_seal)
    "Text right before a table:\n| a |\n|---|\n| 1 |",
    "+ plus item\n+ another",
    "- - -",
    "-dash that starts a paragraph",
    "10) ten",
    "\tTabbed code",
    "  - indented item",
    "- item\n  continued",
    "".join(f"1. item {n}\n" for n in range(12)),  # cut from its tenth number on
    "".join(f"{n}) item {n}\n   more of it\n" for n in range(5, 16)),
    "".join(f"{n}. loose item\n\n" for n in range(11)),
    "".join(f"{n}. item\n\n   para {n}\n\n   ```\n   code\n   ```\n\n" for n in range(8, 12)),
    "- item\n\n  para\n\n      indented code\n\n- next\n\n  ```\n  code\n  ```",
    "10. item\n\n  ```\n  not the item's\n  ```\n\n11. a list of its own",
    "> a quoted paragraph\n>\n> Another one\n>\n> - an item\n>\n> And a third",
    "> ```\n> quoted code\n>\n> Text in it\n> ```\n>\n> After it",
    # Link reference definitions (for the whole answer, wherever they stand) and their uses
    "[x]: http://example.com/x",
    "See [x], [the y][y] and [Y].",
    "[y]:\n  /y 'a title'",
    "> [q]: /q\n>\n> Quoted [q] and [x]",
    "- [i]: /i\n- use [i] and [x]",
    "[x]: /second-x-is-not-used",
])


@st.composite
def documents(draw: st.DrawFn) -> str:
    blocks = draw(st.lists(BLOCKS, min_size=1, max_size=14))
    separators = draw(st.lists(st.sampled_from(["\n\n", "\n", "\n\n\n"]), min_size=len(blocks),
                               max_size=len(blocks)))
    text = "".join(block + sep for block, sep in zip(blocks, separators, strict=True))
    return text.replace("\n", "\r\n") if draw(st.booleans()) else text  # CRLF reads as LF


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab `~-*#>|\n\t1.")), max_size=600),
       st.integers(min_value=1, max_value=80), st.integers(min_value=1, max_value=120))
def test_pieces_and_tail_always_reproduce_the_text(text: str, chunk: int, minimum: int) -> None:
    sealer = Sealer(minimum=minimum, limit=minimum * 3, fence_minimum=minimum)
    pieces: list[Piece] = []
    for end in range(chunk, len(text) + chunk, chunk):
        pieces += sealer.feed(text[:end])
        assert "".join(piece.source for piece in pieces) + text[sealer.consumed:end] == text[:end]
        assert sealer.tail(text[:end]).source == text[sealer.consumed:end]
    pieces += sealer.feed(text, final=True)
    assert "".join(piece.source for piece in pieces) == text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.integers(min_value=3, max_value=90), st.integers(min_value=1, max_value=60))
def test_sealed_pieces_render_exactly_like_the_whole_text(text: str, chunk: int, minimum: int) -> None:
    pieces, _ = stream(text, chunk, Sealer(minimum=minimum, limit=minimum * 4, fence_minimum=minimum))
    assert "".join(piece.source for piece in pieces) == text
    assert rendered(pieces) == render_markdown(CONSOLE, text, WIDTH)
    assert_streams_like_whole(text, chunk, minimum)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "b ", "\n", "\t", "\x1b[31m", "\x1b]0;t\x07", "\r", "é"]),
                max_size=120).map("".join), st.booleans(), st.integers(min_value=1, max_value=120))
def test_a_placeholder_is_as_tall_as_the_estimate_and_inert(source: str, sentinel: bool, width: int) -> None:
    piece = Piece(source, ("x\n\n" if sentinel else "") + source, 1 if sentinel else 0)
    lines = placeholder_lines(piece, width)
    assert len(lines) == estimate_height(piece, width)
    assert not any(ch in line for line in lines for ch in "\x1b\t\r\x07")


# ----------------------------------------------------------------------- forced cuts (huge text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab `~-*#>|\n\t1.")), max_size=600),
       st.integers(min_value=1, max_value=80), st.integers(min_value=2, max_value=60))
def test_no_piece_nor_tail_outgrows_max_piece(text: str, chunk: int, max_piece: int) -> None:
    sealer = Sealer(minimum=10, limit=30, fence_minimum=10, max_piece=max_piece)
    pieces: list[Piece] = []
    for end in range(chunk, len(text) + chunk, chunk):
        pieces += sealer.feed(text[:end])
        assert "".join(piece.source for piece in pieces) + text[sealer.consumed:end] == text[:end]
        assert len(text[:end]) - sealer.consumed <= max_piece, "the tail is bounded too"
    pieces += sealer.feed(text, final=True)
    assert "".join(piece.source for piece in pieces) == text
    assert all(len(piece.source) <= max_piece for piece in pieces)
    for piece in pieces:
        render_piece(CONSOLE, piece, WIDTH)  # every piece still renders


def test_a_line_of_a_megabyte_is_cut_into_bounded_pieces() -> None:
    text = "Intro.\n\n" + "word " * 200_000 + "\n\nAfter.\n"
    pieces, sealer = stream(text, 65_536)
    assert "".join(piece.source for piece in pieces) == text
    assert max(len(piece.source) for piece in pieces) <= MAX_PIECE
    assert len(pieces) > len(text) // MAX_PIECE
    forced = [piece for piece in pieces if piece.trim_top == 0 and not piece.markdown.startswith("x\n\n")]
    assert len(forced) > 10, "continuations render as they are, with nothing dropped"
    spaces = "".join(line_text(line) for line in render_piece(CONSOLE, pieces[5], WIDTH))
    assert "word word" in spaces


def test_a_huge_line_in_a_fence_is_cut_with_the_fence_closed_and_reopened() -> None:
    text = "```json\n" + '{"k": 1}, ' * 10_000 + "\n```\n\nDone.\n"
    pieces, _ = stream(text, 4096)
    assert "".join(piece.source for piece in pieces) == text
    reopened = [piece for piece in pieces[1:-1] if piece.markdown.startswith("```json\n")]
    assert len(reopened) >= len(pieces) - 3
    assert all(piece.markdown.endswith("```\n") for piece in pieces[:-2])


def test_a_table_is_cut_from_the_short_text_above_it_so_its_tail_is_the_table_alone() -> None:
    """Pieces are not cut below MIN_PIECE, except before a table: "Here are the results:" above
    it would keep the whole table in the tail, parsed whole on every frame, not row by row."""
    from widgets.transcript.markdown_table import streamed_table

    table = "| name | value |\n|---|---|\n" + "".join(f"| row {n} | {n} |\n" for n in range(30))
    text = "Here are the results:\n\n" + table
    sealer = Sealer()
    for end in range(40, len(text), 9):
        sealer.feed(text[:end])
    assert sealer.consumed == len("Here are the results:\n\n")
    tail = sealer.tail(text)
    assert tail.markdown == SENTINEL + table and streamed_table(tail.markdown) is not None
    pieces, _ = stream(text + "\nAfter.\n", 9)
    assert rendered(pieces) == render_markdown(CONSOLE, text + "\nAfter.\n", WIDTH)
    # Not before a line that only has a pipe in it (no table starts there): the intro stays
    # with what follows. After a link reference definition too (its cells are drawn with it).
    words = "and more words on a line " * 4 + "\n"
    assert [piece.source for piece in Sealer().feed("Intro line:\n\n" + table + words)] == ["Intro line:\n\n"]
    assert Sealer().feed("Intro line:\n\na | b is not a table\n" + words) == []
    defined = "[foo]: http://x\n\n" + table.replace("| 3 |", "| [foo] |") + words
    assert [piece.source for piece in Sealer().feed(defined)] == ["[foo]: http://x\n\n"]
    pieces, _ = stream(defined, 9)
    assert rendered(pieces) == render_markdown(CONSOLE, defined, WIDTH)
    assert "foo (http://x)" in "".join(line_text(line) for line in rendered(pieces))


def test_a_table_longer_than_a_piece_goes_on_as_a_table_with_its_header_again() -> None:
    head = "| file | lines | note |\n|---|--:|---|\n"
    text = "Files:\n\n" + head + "".join(f"| src/module_{n}.py | {n} | a **note** |\n" for n in range(900))
    text += "\nDone.\n"
    pieces, _ = stream(text, 4096)
    assert "".join(piece.source for piece in pieces) == text
    tables = [piece for piece in pieces if "module_" in piece.source]
    assert len(tables) >= 3 and all(len(piece.source) <= MAX_PIECE for piece in pieces)
    for piece in tables[1:]:
        assert piece.markdown.startswith(head) and piece.trim_top == 1
        shown = [line_text(line) for line in render_piece(CONSOLE, piece, WIDTH)]
        assert "file" in shown[1] and "─" in shown[2]  # the header again, then its rule
        assert not any("|" in line for line in shown), "its rows are a table, not lines of pipes"
        first_row = piece.source.split("\n", 1)[0].split("|")[1].strip()
        assert first_row in shown[3]
    # Where the rows do not go on after the cut (no row starts the rest), or the text does not
    # end in a table, the cut is a plain forced one.
    rows = head + "| a | 1 | b |\n"
    assert _table_running_on(rows, "| c | 2 | d |\n") == head
    crlf = head.replace("\n", "\r\n")
    assert _table_running_on(rows.replace("\n", "\r\n"), "| c | 2 | d |\r\n") == crlf  # CRLF lines too
    assert _table_running_on(rows.replace("| a |", "| a\r |"), "| c |") is None  # a lone \r breaks a line
    assert _table_running_on(rows, "\nDone.") is None and _table_running_on(rows, "c | 2 | d\n") is None
    assert _table_running_on(rows + "\nAfter.\n", "| c |") is None
    quoted = "".join(f"> {line}\n" for line in rows.splitlines())
    assert _table_running_on(quoted, "| c |") is None  # a table in a quote: not re-opened at the top


def line_text(line: object) -> str:
    return "".join(text for text, _style in line)  # type: ignore[attr-defined]


def test_a_fence_is_not_cut_inside_a_state_that_shows_only_where_it_closes() -> None:
    """A lexer state that changes nothing until it closes (bash's ``$( … )``: every line inside
    tokenizes alone as in context) shows only at its closing line. An answer that has come
    whole (a reload, a burst) is not cut inside it when that line is within FENCE_LOOKAHEAD of
    the cut: 120 lines on here, ~1,000 characters (a bound of 24 lines after the cut, tried for
    speed, cut it)."""
    text = "```bash\nx=$(\n" + "".join(f"echo {i:02}\n" for i in range(122)) + ")\n```\n"
    pieces = assert_renders_like_whole(text, len(text))
    assert len(pieces) == 1


HEREDOCS = "".join(f"cat > f{i}.txt <<EOF\nline one {i}\nline two\nEOF\necho done {i}\n" for i in range(20))
LONG_HEREDOC = ("cat > big.conf <<'END'\n" + "".join(f"key_{i} = value {i}\n" for i in range(250))
                + "END\necho written\n" + "".join(f"echo after {i}\n" for i in range(40)))


@pytest.mark.parametrize("code", [
    HEREDOCS,
    LONG_HEREDOC,  # its closing word further than FENCE_LOOKAHEAD from most lines of it
    HEREDOCS.replace("<<EOF", "<<-EOF").replace("\nEOF\n", "\n\tEOF\n"),
    "".join(f"grep x <<< \"$v{i}\"\necho {i}\n" for i in range(60)),  # here-strings: no heredoc
], ids=["short", "longer-than-the-lookahead", "dash", "here-strings"])
def test_a_fence_is_not_cut_inside_a_shell_heredoc(code: str) -> None:
    """The shell lexers read a heredoc as one string from ``<<WORD`` to the next WORD: until WORD
    comes its lines lex as code, so a piece cut inside one while it streams (or further from WORD
    than the lookahead) stayed coloured as code. The fence is still cut between them."""
    assert len(LONG_HEREDOC) > FENCE_LOOKAHEAD + 2 * LIMIT_PIECE

    def closed(text: str) -> bool:
        opened = text.count("<<EOF") + text.count("<<-EOF") + text.count("<<'END'")
        return opened == text.count("\nEOF\n") + text.count("\tEOF\n") + text.count("\nEND\n")

    assert_cut_only_where(f"```bash\n{code}```\n", (5, 41), closed)


@pytest.mark.parametrize(("before", "word"), [
    ("print ", "EOT"), ("print ", '"EOT"'), ("print ", "'EOT'"),
    ('print "Can\'t start: " . ', "EOT"),  # an odd quote before it: a heredoc to Perl's lexer
])
def test_a_fence_is_not_cut_inside_a_perl_heredoc(before: str, word: str) -> None:
    """Perl's lexer reads a heredoc with one rule too, to its word on a line of its own (a word
    inside a line closes nothing)."""
    body = "".join(f"line {i} of the text, EOT in it\n" for i in range(30))
    code = "".join(f"{before}<<{word};\n{body}EOT\nmy $y{i} = {i};\n" for i in range(3))
    assert_cut_only_where(f"```perl\n{code}```\n", (3, 17, 64),
                          lambda text: text.count(f"<<{word}") == text.count("\nEOT\n"))


def assert_cut_only_where(text: str, chunks: tuple[int, ...], closed: Callable[[str], bool],
                          whole_is_cut: bool = True) -> None:
    """Streamed ``chunks`` at a time (and whole), ``text`` renders like the whole, is cut (whole
    too, if ``whole_is_cut``), and every cut comes where ``closed`` holds for the text before it."""
    for chunk in (*chunks, len(text)):
        pieces = assert_renders_like_whole(text, chunk)
        assert len(pieces) > 1 or (chunk == len(text) and not whole_is_cut)
        consumed = ""
        for piece in pieces[:-1]:
            consumed += piece.source
            assert closed(consumed), (chunk, consumed[-80:])


COMMENT_BODY = "".join(f" * line {i} of a long comment that explains things\n" for i in range(30))


@pytest.mark.parametrize(("language", "opener", "closer"), [
    *((language, "/*", "*/") for language in ("javascript", "typescript", "java", "go", "css", "kotlin",
                                              "c")),
    ("html", "<!--", "-->"), ("xml", "<!--", "-->"), ("ruby", "=begin", "=end"), ("lua", "--[[", "]]"),
    ("lua", "--[==[", "]==]"),
])
def test_a_fence_is_not_cut_inside_a_block_comment_that_has_not_closed_yet(
        language: str, opener: str, closer: str) -> None:
    """Many lexers read a block comment with one rule: until its closer comes, its lines lex as
    code, and a piece cut inside it while it streamed stayed coloured as code. (C's lexer reads
    one with a state of its own: checked as before.)"""
    code = "".join(f"{opener}\n{COMMENT_BODY}{closer}\ncall_{i}();\n" for i in range(3))
    assert_cut_only_where(f"```{language}\n{code}```\n", (3, 64),
                          lambda text: text.count(opener) == text.count(closer))


STRING_BODY = "".join(f"line {i} of a long string: words, more words\n" for i in range(30))


@pytest.mark.parametrize(("language", "opener", "closer"), [
    ("go", "`", "`"),  # a raw string
    ("scala", '"""', '"""'),
    ("csharp", '@"', '"'),  # a verbatim string
    ("r", '"', '"'),
    ("postgresql", "$$", "$$"),  # a function's body
    ("lua", "[[", "]]"),  # a long string
    ("cpp", 'R"(', ')"'),  # a raw string
    ("csharp", '"""', '"""'),  # a raw string: the same quotes close it
    ("groovy", "$/", "/$"),  # a dollar-slashy string ("/$" starts a slashy one when read alone)
    ("cpp", 'R"sql(', ')sql"'),  # a raw string with a delimiter of its own
    ("lua", "[==[", "]==]"),  # a long string of a level
], ids=["go-raw", "scala-triple", "csharp-verbatim", "r", "postgresql-dollars", "lua-long", "cpp-raw",
        "csharp-raw", "groovy-dollar-slashy", "cpp-raw-delimited", "lua-long-level"])
def test_a_fence_is_not_cut_inside_a_string_that_has_not_closed_yet(
        language: str, opener: str, closer: str) -> None:
    """Some lexers read a string over lines with one rule, opener to closer. Until the closer
    comes the lines after the opener lex as code: a piece cut there while it streamed stayed
    coloured as code. No cut after an Error token in the piece (most such openers are one until
    they close), nor after an opener of ``ONE_RULE_BLOCKS`` that has not closed (Lua, C++, C#'s
    raw strings, Groovy)."""
    code = "".join(f"x{i} = {opener}\n{STRING_BODY}{closer}\ny{i} = {i}\n" for i in range(3))
    if language == "groovy":  # (an opener is read with the three lines before it: a "/$" among
        # them, read alone, starts a slashy string that holds the "$/" after it: not seen as open)
        code = "".join(f"x{i} = $/\n{STRING_BODY}/$\n" + "".join(f"y{i}{k} = {k}\n" for k in range(4))
                       for i in range(3))
    if language == "postgresql":
        body = "".join(f"  PERFORM step_{i}(1, 2);\n" for i in range(30))
        code = "".join(f"CREATE FUNCTION f{i}() RETURNS int AS $$\nBEGIN\n{body}END;\n$$ LANGUAGE plpgsql;\n"
                       for i in range(3))

    def closed(text: str) -> bool:
        code = text.partition("\n")[2]  # (past the fence's opening line)
        if opener == closer:
            return code.count(opener) % 2 == 0
        return code.count(opener) == code.count(closer) - code.count(opener) * opener.count(closer)  # (@")

    # (Pygments' PostgreSQL lexer reads a closed body with the lexer of its language, and no cut
    # reads alone as it does in context then: a whole answer's fence of them is not cut.)
    assert_cut_only_where(f"```{language}\n{code}```\n", (3, 64), closed,
                          whole_is_cut=language != "postgresql")


FUNCTIONS = "".join(f"def step_{i}(data):\n    return sum(x * {i} for x in data)\n\n" for i in range(60))
JSX_CARD = """export function Card{i}({{ title, items }}) {{
  return (
    <div className="card">
      <h2>{{title}}</h2>
      <button onClick={{() => setOpen(!open)}}>Toggle</button>
    </div>
  );
}}

"""


@pytest.mark.parametrize(("language", "code"), [
    ("javascript", "".join(JSX_CARD.format(i=i) for i in range(30))),  # "</h2>": Error tokens
    ("python", f"!pip install numpy pandas\n\nimport numpy as np\n\n{FUNCTIONS}"),  # "!": an Error token
    ("css", "".join(f".card-{i} {{\n  color: red;\n  &:hover {{ color: blue; }}\n}}\n\n" for i in range(80))),
    ("sql", "".join(f"SELECT id, name FROM users_{i}\nWHERE id = $1;\n\n" for i in range(80))),
], ids=["jsx-in-javascript", "python-shell-escape", "css-nesting", "sql-parameter"])
def test_error_tokens_that_open_no_string_do_not_stop_the_cuts(language: str, code: str) -> None:
    """Pygments reads many things in code that is whole as Error tokens: only one that may open
    a string (a quote, ``@"``, ``$$``) holds the cuts after it (a reviewer found these fences no
    longer cut at all, each rendered whole on every frame up to 16 KB)."""
    assert_cut_as_any_fence(language, code, 64)


def assert_cut_as_any_fence(language: str, code: str, chunk: int) -> None:
    """Streamed ``chunk`` at a time, a ``language`` fence of ``code`` renders like the whole and
    is cut into pieces no longer than twice LIMIT_PIECE (nothing held its cuts)."""
    pieces = assert_renders_like_whole(f"```{language}\n{code}```\n", chunk)
    assert max(len(piece.source) for piece in pieces) < 2 * LIMIT_PIECE


def test_a_slash_star_in_a_string_does_not_stop_the_cuts() -> None:
    """``"**/*.js"`` is no comment: the fence is cut as any other."""
    code = "".join(f"const files{i} = glob('src/**/*.js', {{ cwd: root{i} }});\n" for i in range(120))
    assert_cut_as_any_fence("javascript", code, 29)


CONFIG = "".join(f"  setting{i}: true,\n" for i in range(100))


@pytest.mark.parametrize(("language", "code"), [
    # a "*/" in one glob, a "/*" in the next: no comment opens (a tsconfig, a jest config)
    *((language, f'include: ["src/**/*.ts"],\nexclude: ["node_modules/*"],\n{CONFIG}')
      for language in ("javascript", "typescript", "json")),
    # three double quotes in a string or a comment open nothing
    ("python", f"def is_doc(line):\n    return line.strip().startswith('\"\"\"')\n\n{FUNCTIONS}"),
    ("python", f'# Docstrings use """ quotes\n{FUNCTIONS}'),
    ("csharp", 'var s = @"He said ""hi""";\n' + "".join(f"var x{i} = f({i});\n" for i in range(150))),
    ("kotlin", '// raw strings start with """\n' + "".join(f"val x{i} = f({i})\n" for i in range(150))),
], ids=["js-globs", "ts-globs", "json-globs", "python-quotes-in-a-string", "python-quotes-in-a-comment",
        "csharp-verbatim-quotes", "kotlin-quotes-in-a-comment"])
def test_what_only_looks_like_an_open_block_does_not_stop_the_cuts(language: str, code: str) -> None:
    """(A reviewer found each of these fences no longer cut at all: rendered whole on every frame.)"""
    assert_cut_as_any_fence(language, code, 64)


LINES = "".join(f"line {i} of the file with some words\n" for i in range(40))


@pytest.mark.parametrize("text", [
    # a "<<" the lexer reads as no heredoc, before a real one: a comment, a string, arithmetic
    f"```bash\n# write it with <<EOF\ncat > f <<EOF\n{LINES}EOF\necho done\n```\n",
    f"```bash\necho \"use <<EOF here\"\ncat > f <<EOF\n{LINES}EOF\necho done\n```\n",
    f"```bash\necho $(( 1 << 2 ))\ncat > f <<EOF\n{LINES}EOF\necho done\n```\n",
    # Ruby's =end closes only at a line's start
    f"```ruby\n=begin\nRun it with --mode=endless\n{LINES}=end\nputs 1\n```\n",
    # a /* in a string, then a comment that opens: only the comment holds the cuts
    f"```javascript\nconst g = 'src/**/*.js';\n{LINES}/*\n{COMMENT_BODY} */\nf();\n```\n",
    # a glob's "*/" in a string, then a comment that opens (read from after that "*/", the
    # comment looked like it was in a string)
    "```java\nvar m = fs.getPathMatcher(\"glob:**/*.java\");\n/* See \"legacy\" build: generated.\n"
    + "".join(f"   * line {i} of a long comment that explains things\n" for i in range(40))
    + " */\nf();\n```\n",
], ids=["comment", "string", "arithmetic", "ruby-end-in-a-line", "glob-then-comment",
        "glob-then-comment-java"])
def test_what_only_looks_like_an_opener_does_not_hide_the_real_one(text: str) -> None:
    for chunk in (3, 17, 29, 64, len(text)):
        assert_renders_like_whole(text, chunk)


def test_a_lexer_that_never_ends_does_not_hang_the_sealer_nor_the_render() -> None:
    """Pygments' MCSchema lexer gives empty tokens for ever on "<!-- a\\n-->": the block comment
    probe reads a bounded number of them, and a fence of such text is drawn as plain text and
    not cut (``lexer_guard``)."""
    import signal

    def stuck(*_: object) -> None:
        raise TimeoutError("the sealer hung on an mcschema fence")

    old = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(20)
    try:
        code = "".join(f'{{"key{i}": {i}, "name": "value {i}"}}\n' for i in range(60))
        assert len(Sealer().feed(f"```mcschema\n{code}```\n", final=True)) > 1
        never_ends = "```mcschema\n" + "".join(f"<!-- a {i}\n-->\n" for i in range(100)) + "```\n"
        assert_renders_like_whole(never_ends, 7)
        drawn = [line_text(line).strip() for line in render_markdown(CONSOLE, never_ends, WIDTH)]
        assert drawn[1:3] == ["<!-- a 0", "-->"]  # as it is
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
