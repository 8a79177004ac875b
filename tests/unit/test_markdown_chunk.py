"""Rendering one markdown piece: what reaches the screen is inert, however it was spelled."""

from __future__ import annotations

from rich.console import Console

from widgets.transcript.markdown_chunk import render_markdown
from widgets.transcript.rendered_line import line_text

WIDTH = 72
CONSOLE = Console(width=WIDTH, color_system="truecolor", force_terminal=True, legacy_windows=False)


def test_hidden_characters_spelled_as_entities_are_shown_as_tokens() -> None:
    text = "a &#x202e;b&rlm;c &#x2066;d &#8238;e &#x200b;f\n\n# H &#x202e;\n\n| &#x202e; |\n|---|\n| x |\n"
    shown = "".join(chunk for line in render_markdown(CONSOLE, text, WIDTH) for chunk, _ in line)
    assert not any(ch in shown for ch in "\u202e\u200f\u2066\u200b")  # markdown-it decoded them
    assert shown.count("<U+202E>") == 4 and "<U+200F>" in shown and "<U+200B>" in shown
    assert "Tom & Jerry ©" in "".join(c for line in render_markdown(CONSOLE, "Tom &amp; Jerry &copy;", WIDTH)
                                      for c, _ in line)  # entities of visible characters read as before


def _shown(text: str) -> str:
    return "\n".join("".join(chunk for chunk, _ in line) for line in render_markdown(CONSOLE, text, WIDTH))


def test_deeply_nested_blocks_lose_no_text() -> None:
    # markdown-it stops parsing at its nesting limit and drops the rest without a word: eleven
    # nested list levels took the paragraph after them, 21 quote levels the quoted word.
    lists = "".join("  " * level + f"- level{level}\n" for level in range(12)) + "\nThe paragraph after.\n"
    assert "level11" in _shown(lists) and "The paragraph after." in _shown(lists)
    quotes = "> " * 21 + "quoted\n\nAfter the quote.\n"
    assert "quoted" in _shown(quotes) and "After the quote." in _shown(quotes)
    deeper = "> " * 60 + "deep\n\nAfter.\n"  # past the raised limit: shown as plain text
    assert "deep" in _shown(deeper) and "After." in _shown(deeper)


def test_html_is_shown_as_text() -> None:
    # Rich draws nothing for HTML: "Vec<String>" read "Vec", and a <details> block vanished.
    assert "Vec<String> and Option<T>" in _shown("Use Vec<String> and Option<T> here.")
    details = _shown("<details>\n<summary>More</summary>\nrm -rf / is run\n</details>\n")
    assert "rm -rf / is run" in details and "<details>" in details
    assert "press </kbd> now" in _shown("press </kbd> now")  # no tag is taken for one


def test_an_autolinks_escapes_are_shown_as_tokens() -> None:
    shown = _shown("<http://a.example/%1B%5B31m> and <http://a.example/%E2%80%AEgpj.exe>")
    assert "\x1b" not in shown and "\u202e" not in shown  # markdown-it decodes the link's text
    assert "␛" in shown and "<U+202E>" in shown


def test_a_piece_too_deep_for_the_width_keeps_its_first_line() -> None:
    from widgets.transcript.markdown_chunk import render_piece
    from widgets.transcript.markdown_seal import Piece

    source = "".join("  " * level + f"- item{level}\n" for level in range(12))
    piece = Piece(source, source, trim_top=1)  # a list piece that continues the one above
    shown = "\n".join("".join(chunk for chunk, _ in line) for line in render_piece(CONSOLE, piece, 24))
    assert "item0" in shown and "item11" in shown


def test_a_link_whose_text_is_its_target_is_drawn_once() -> None:
    """QA: ``<https://example.org>`` read "https://example.org (https://example.org)". A link
    whose text differs from its target still shows the target (a label never hides where it
    goes), also when they differ only by encoding."""
    console = Console(width=80, color_system="truecolor", force_terminal=True)

    def shown(markdown: str) -> str:
        return " ".join(line_text(line).rstrip() for line in render_markdown(console, markdown, 80))

    assert shown("see <https://example.org> now") == "see https://example.org now"
    assert shown("a [https://x.org](https://x.org) b") == "a https://x.org b"
    assert shown("<me@x.org>") == "me@x.org"
    assert shown("[docs](https://x.org/d)") == "docs (https://x.org/d)"
    assert shown("[https://x.org](https://evil.example)") == "https://x.org (https://evil.example)"
    assert shown("<https://例子.org/a>") == "https://例子.org/a (https://xn--fsqu00a.org/a)"
