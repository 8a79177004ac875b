"""``tui.sanitize``: server text must be inert before it reaches the terminal."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.sanitize import clean_text, collapse_carriage_returns, keep_sgr, one_line

FORBIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
SGR = re.compile(r"\x1b\[[0-9;:]*m")
BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
        "\u200e", "\u200f", "\u061c"]

CASES = [
    # (name, raw, clean_text result)
    ("osc0 title bel", "a\x1b]0;evil title\x07b", "ab"),
    ("osc0 title st", "a\x1b]0;evil title\x1b\\b", "ab"),
    ("osc8 hyperlink", "see \x1b]8;;https://evil.example\x1b\\here\x1b]8;;\x1b\\ now", "see here now"),
    ("osc52 clipboard", "x\x1b]52;c;cm0gLXJmIH4=\x07y", "xy"),
    ("osc unterminated", "safe\x1b]0;never ends", "safe"),
    ("csi cursor up", "a\x1b[5Ab", "ab"),
    ("csi cursor position", "a\x1b[12;40Hb", "ab"),
    ("csi clear screen", "a\x1b[2J\x1b[Hb", "ab"),
    ("csi clear line", "a\x1b[2Kb", "ab"),
    ("csi scroll region", "a\x1b[1;24rb", "ab"),
    ("csi scroll up", "a\x1b[3Sb", "ab"),
    ("csi private mode", "a\x1b[?1049hb\x1b[?25l", "ab"),
    ("dcs", "a\x1bP1$r0m\x1b\\b", "ab"),
    ("apc", "a\x1b_Gf=100;AAAA\x1b\\b", "ab"),
    ("pm", "a\x1b^private\x1b\\b", "ab"),
    ("sos", "a\x1bXstart of string\x1b\\b", "ab"),
    ("two-byte reset", "a\x1bcb", "ab"),
    ("save restore cursor", "a\x1b7b\x1b8", "ab"),
    ("reverse index", "a\x1bMb", "ab"),
    ("c1 csi", "a\x9b2Jb", "ab"),
    ("c1 osc st", "a\x9d0;title\x9cb", "ab"),
    ("c1 dcs", "a\x90qpayload\x9cb", "ab"),
    ("c1 apc", "a\x9fapp\x9cb", "ab"),
    ("c1 pm", "a\x9eprivacy\x9cb", "ab"),
    ("c1 sos", "a\x98s\x9cb", "ab"),
    ("c1 lone", "a\x85b\x8d", "ab"),
    ("c0 controls", "a\x00b\x07c\x08d\x7fe", "abcde"),
    ("keeps newline and tab", "a\n\tb", "a\n\tb"),
    ("progress collapse", "10%\r50%\r100%\ndone", "100%\ndone"),
    ("crlf is newline", "one\r\ntwo\r\n", "one\ntwo\n"),
    ("trailing cr", "step 3/3\r", "step 3/3"),
    ("sgr removed", "\x1b[1;31mred\x1b[0m", "red"),
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


def test_keep_sgr_keeps_colours_only() -> None:
    raw = "\x1b[1;31mred\x1b[0m \x1b[38;2;255;0;0mrgb\x1b[m\x1b[2J\x1b]0;t\x07\x1b[5A"
    assert keep_sgr(raw) == "\x1b[1;31mred\x1b[0m \x1b[38;2;255;0;0mrgb\x1b[m"


def test_keep_sgr_drops_8bit_sgr_and_private_sgr_like() -> None:
    # 8-bit C1 CSI never reaches the terminal, not even as a colour.
    assert keep_sgr("\x9b32mok\x9b0m") == "ok"
    assert keep_sgr("\x1b[>4;2m\x1b[?1m x") == " x"  # private/intermediate forms are not SGR


def test_keep_sgr_broken_csi_before_sgr_is_dropped() -> None:
    out = keep_sgr("\x1b[\x1b[31mred")
    assert out == "\x1b[31mred"


def test_keep_sgr_collapses_progress() -> None:
    assert keep_sgr("\x1b[32m10%\r\x1b[32m100%\x1b[0m") == "\x1b[32m100%\x1b[0m"


def test_collapse_carriage_returns() -> None:
    assert collapse_carriage_returns("a\rb\nc\r\nd") == "b\nc\nd"
    assert collapse_carriage_returns("plain") == "plain"
    assert collapse_carriage_returns("\r\r") == ""


def test_one_line() -> None:
    assert one_line("a\n  b\x1b[2J\tc") == "a b c"
    long = one_line("x" * 300, limit=10)
    assert len(long) == 10 and long.endswith("…")


def test_empty() -> None:
    assert clean_text("") == "" and keep_sgr("") == ""


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
@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters=BIDI)))
def test_clean_text_leaves_plain_text_alone(text: str) -> None:
    assert clean_text(text) == text
    assert keep_sgr(text) == text
