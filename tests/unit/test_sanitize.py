"""``tui.text.sanitize``: server text must be inert before it reaches the terminal."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.text.sanitize import (
    clean_text,
    decode_tokens,
    describe_hidden,
    drop_sgr,
    hidden_characters,
    keep_sgr,
    one_line,
    reveal,
    visible_runs,
)

FORBIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
SGR = re.compile(r"\x1b\[[0-9;:]*m")
BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
        "\u200e", "\u200f", "\u061c"]

CASES = [
    # (name, raw, clean_text result): nothing is deleted, every hidden character is a token
    ("osc0 title bel", "a\x1b]0;evil title\x07b", "a␛]0;evil title␇b"),
    ("osc0 title st", "a\x1b]0;evil title\x1b\\b", "a␛]0;evil title␛\\b"),
    ("osc8 hyperlink", "see \x1b]8;;https://evil.example\x1b\\here\x1b]8;;\x1b\\ now",
     "see ␛]8;;https://evil.example␛\\here␛]8;;␛\\ now"),
    ("osc52 clipboard", "x\x1b]52;c;cm0gLXJmIH4=\x07y", "x␛]52;c;cm0gLXJmIH4=␇y"),
    ("osc unterminated", "safe\x1b]0;never ends", "safe␛]0;never ends"),
    ("csi cursor up", "a\x1b[5Ab", "a␛[5Ab"),
    ("csi clear screen", "a\x1b[2J\x1b[Hb", "a␛[2J␛[Hb"),
    ("csi private mode", "a\x1b[?1049hb", "a␛[?1049hb"),
    ("dcs", "a\x1bP1$r0m\x1b\\b", "a␛P1$r0m␛\\b"),
    ("apc", "a\x1b_Gf=100;AAAA\x1b\\b", "a␛_Gf=100;AAAA␛\\b"),
    ("pm", "a\x1b^private\x1b\\b", "a␛^private␛\\b"),
    ("sos", "a\x1bXstart\x1b\\b", "a␛Xstart␛\\b"),
    ("two-byte reset", "a\x1bcb", "a␛cb"),
    ("c1 csi", "a\x9b2Jb", "a<U+009B>2Jb"),
    ("c1 osc no terminator", "echo harmless \x9d; touch HIDDEN", "echo harmless <U+009D>; touch HIDDEN"),
    ("c1 st", "a\x9d0;t\x9cb", "a<U+009D>0;t<U+009C>b"),
    ("c0 controls", "a\x00b\x07c\x08d\x7fe", "a␀b␇c␈d␡e"),
    ("hidden command after ESC ]", "echo harmless \x1b]; touch HIDDEN \x07",
     "echo harmless ␛]; touch HIDDEN ␇"),
    ("carriage return overwrite", "touch X\recho benign", "touch X\\recho benign"),
    ("progress is not collapsed", "10%\r50%\r100%", "10%\\r50%\\r100%"),
    ("keeps newline and tab", "a\n\tb", "a\n\tb"),
    ("crlf is newline", "one\r\ntwo\r\n", "one\ntwo\n"),
    ("zero width", "a\u200bb\u2060c\ufeffd", "a<U+200B>b<U+2060>c<U+FEFF>d"),
    ("line separator", "a\u2028b\u2029c", "a<U+2028>b<U+2029>c"),
    ("lone surrogate", "a\ud800b", "a<U+D800>b"),
    ("tag characters", "a\U000e0041b", "a<U+E0041>b"),
    ("emoji joiners kept in prose", "👨\u200d👩 ❤\ufe0f", "👨\u200d👩 ❤\ufe0f"),
    ("a joiner joins only after what it can join", "👨\u200d👩 ❤\ufe0f\u200d🔥 क्\u200dष 日\u200d\u200d日",
     "👨\u200d👩 ❤\ufe0f\u200d🔥 क्\u200dष 日\u200d<U+200D>日"),
    ("a joiner after ascii, a blank or nothing is shown", "\u200d日 a\u200db \u200d日 \u200c\u200dx **\u200d",
     "<U+200D>日 a<U+200D>b <U+200D>日 \u200c<U+200D>x **<U+200D>"),
    ("sgr shown too", "\x1b[1;31mred\x1b[0m", "␛[1;31mred␛[0m"),
]


@pytest.mark.parametrize(("raw", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_clean_text(raw: str, expected: str) -> None:
    assert clean_text(raw) == expected


@pytest.mark.parametrize("char", BIDI, ids=[f"U+{ord(c):04X}" for c in BIDI])
def test_bidi_controls_are_shown_not_obeyed(char: str) -> None:
    raw = f"rm -rf {char}/ tsoh"
    out = clean_text(raw)
    assert char not in out
    assert f"<U+{ord(char):04X}>" in out
    assert keep_sgr(raw) == out


def test_rlo_rendered_visibly() -> None:
    assert clean_text("ok\u202egnp.exe") == "ok<U+202E>gnp.exe"


def test_strict_shows_tabs_joiners_and_odd_spaces() -> None:
    raw = "a\tb\u00a0c\u200dd\ufe0fe\u3164f\r\n"
    assert reveal(raw, strict=True) == "a\\tb<U+00A0>c<U+200D>d<U+FE0F>e<U+3164>f\\r\n"
    assert reveal(raw) == "a\tb\u00a0c<U+200D>d\ufe0fe\u3164f\\r\n"  # (a joiner after ASCII joins nothing)


def test_a_joiner_that_joins_nothing_is_a_token_in_every_reading() -> None:
    raw = "日\u200d\u200d日 👨\u200d👩"
    assert visible_runs(raw) == [("日\u200d", False), ("<U+200D>", True), ("日 👨\u200d👩", False)]
    assert hidden_characters(raw, strict=False) == ["\u200d"]
    assert hidden_characters("👨\u200d👩", strict=False) == []


def test_keep_sgr_keeps_colours_and_shows_the_rest() -> None:
    raw = "\x1b[1;31mred\x1b[0m \x1b[38;2;255;0;0mrgb\x1b[m\x1b[2J\x1b]0;t\x07\x1b[5A"
    assert keep_sgr(raw) == "\x1b[1;31mred\x1b[0m \x1b[38;2;255;0;0mrgb\x1b[m␛[2J␛]0;t␇␛[5A"


def test_keep_sgr_shows_8bit_and_private_sgr_like() -> None:
    assert keep_sgr("\x9b32mok\x9b0m") == "<U+009B>32mok<U+009B>0m"
    assert keep_sgr("\x1b[>4;2m\x1b[?1m x") == "␛[>4;2m␛[?1m x"


def test_keep_sgr_broken_csi_before_sgr() -> None:
    assert keep_sgr("\x1b[\x1b[31mred") == "␛[\x1b[31mred"


def test_keep_sgr_shows_carriage_returns() -> None:
    assert keep_sgr("\x1b[32m10%\r\x1b[32m100%\x1b[0m") == "\x1b[32m10%\\r\x1b[32m100%\x1b[0m"


def test_drop_sgr_drops_colours_and_shows_the_rest() -> None:
    raw = ("\x1b[1;31mred\x1b[0m \x1b[38:5:1mx\x1b[m \x1b]8;;https://e.example/\x1b\\l\x1b]8;;\x1b\\"
           " \x1b[2J\x1b[H \u202eabc\u202c \x9b31m\r\n\x1b[>4;2m\x1b[\x1b[31mend")
    assert drop_sgr(raw) == ("red x ␛]8;;https://e.example/␛\\l␛]8;;␛\\ ␛[2J␛[H <U+202E>abc<U+202C>"
                             " <U+009B>31m\n␛[>4;2m␛[end")
    assert drop_sgr("a\tb\x07\r\n") == clean_text("a\tb\x07\r\n") == "a\tb␇\n"


def test_drop_sgr_cleans_each_piece_as_keep_sgr_does() -> None:
    """A dropped sequence does not join what it stood between: a joiner after it joins nothing."""
    raw = "👨\x1b[31m\u200d👩"
    assert drop_sgr(raw) == "👨<U+200D>👩" == keep_sgr(raw).replace("\x1b[31m", "")


def test_one_line() -> None:
    assert one_line("a\n  b\x1b[2J\tc") == "a b␛[2J c"
    long = one_line("x" * 300, limit=10)
    assert len(long) == 10 and long.endswith("…")


def test_one_line_never_cuts_a_token() -> None:
    assert one_line("abcdefg\u202e", limit=10) == "abcdefg…"
    assert one_line("ab\u202ecd", limit=12) == "ab<U+202E>cd"
    assert one_line("ab\u202ecdef", limit=12) == "ab<U+202E>c…"


def test_empty() -> None:
    assert clean_text("") == "" and keep_sgr("") == "" and drop_sgr("") == "" and reveal("") == ""


def test_describe_hidden() -> None:
    assert describe_hidden("\x1b") == "␛ escape"
    assert describe_hidden("\u202e") == "<U+202E> right-to-left override"
    assert describe_hidden("\x9d") == "<U+009D> C1 control"
    assert hidden_characters("a\x1bb\x1b\u202e") == ["\x1b", "\u202e"]


# --- properties --------------------------------------------------------------------------------

ESCAPEY = st.sampled_from([
    "\x1b", "[", "]", "P", "_", "^", "X", "\\", "\x07",
    "\x9b", "\x9c", "\x9d", "\x90", "\x9e", "\x9f", "\x98",
    ";", ":", "0", "1", "38", "m", "H", "J", "?", ">", " ", "\r", "\n", "\t", "\x00", "\x7f", "\x85", "a",
    "\u202e", "\u2066", "é", "漢",
])
NASTY_TEXT = st.one_of(
    st.text(),
    st.lists(st.one_of(ESCAPEY, st.text(max_size=3)), max_size=40).map("".join),
)


@settings(max_examples=400, deadline=None)
@given(NASTY_TEXT)
def test_clean_text_output_is_inert(text: str) -> None:
    out = clean_text(text)
    assert not FORBIDDEN.search(out), repr(out)
    assert "\x1b" not in out
    assert not any(c in out for c in BIDI)


@settings(max_examples=400, deadline=None)
@given(NASTY_TEXT)
def test_clean_text_is_idempotent(text: str) -> None:
    once = clean_text(text)
    assert clean_text(once) == once


@settings(max_examples=400, deadline=None)
@given(NASTY_TEXT)
def test_keep_sgr_output_has_escapes_only_in_sgr(text: str) -> None:
    out = keep_sgr(text)
    rest = SGR.sub("", out)
    assert "\x1b" not in rest, repr(out)
    assert not FORBIDDEN.search(rest), repr(out)
    assert not any(c in out for c in BIDI)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Zl", "Zp"))))
def test_clean_text_leaves_plain_text_alone(text: str) -> None:
    assert clean_text(text) == text
    assert keep_sgr(text) == text


@settings(max_examples=500, deadline=None)
@given(NASTY_TEXT, st.booleans())
def test_visible_runs_decode_back_exactly(text: str, strict: bool) -> None:
    runs = visible_runs(text, strict=strict)
    assert "".join(decode_tokens(p) if token else p for p, token in runs) == text
    assert "".join(p for p, _ in runs) == reveal(text, strict=strict)
    for piece, _ in runs:  # nothing hidden is left in what is shown
        assert not hidden_characters(piece, strict=strict), repr(piece)


def test_the_format_characters_known_by_version_are_the_ones_unicode_has() -> None:
    """``_FORMAT_RANGES`` stands in for reading every code point at import: each version's ranges
    are what ``_format_chars`` reads, and the running version's are the ones in use."""
    import unicodedata

    import tui.text.sanitize as sanitize

    scanned = sanitize._format_chars()  # (a scan of 135k code points: once)
    assert sanitize._FORMAT == scanned
    ranges = sanitize._FORMAT_RANGES.get(unicodedata.unidata_version)
    if ranges is not None:  # the table's other versions need their own Python to be read
        assert [c for first, last in ranges for c in range(first, last + 1)] == scanned


def test_escaped_json_obeys_nothing_and_reads_back_exactly() -> None:
    import json

    from tui.text.sanitize import escape_hidden_json

    data = {"a\u202eb": ["\x1b[2J", "\x7f\x85\u200b\ufeff", "tag \U000e0041", "lone \ud800", "日本 ok\n\t"]}
    text = escape_hidden_json(json.dumps(data, indent=2, ensure_ascii=False))
    assert hidden_characters(text.replace("\n", ""), strict=True) == []
    assert "日本 ok" in text  # readable text stays as itself
    assert json.loads(text) == data
