"""Rendering one markdown piece: what reaches the screen is inert, however it was spelled."""

from __future__ import annotations

from rich.console import Console

from widgets.transcript.markdown_chunk import render_markdown

WIDTH = 72
CONSOLE = Console(width=WIDTH, color_system="truecolor", force_terminal=True, legacy_windows=False)


def test_hidden_characters_spelled_as_entities_are_shown_as_tokens() -> None:
    text = "a &#x202e;b&rlm;c &#x2066;d &#8238;e &#x200b;f\n\n# H &#x202e;\n\n| &#x202e; |\n|---|\n| x |\n"
    shown = "".join(chunk for line in render_markdown(CONSOLE, text, WIDTH) for chunk, _ in line)
    assert not any(ch in shown for ch in "\u202e\u200f\u2066\u200b")  # markdown-it decoded them
    assert shown.count("<U+202E>") == 4 and "<U+200F>" in shown and "<U+200B>" in shown
    assert "Tom & Jerry ©" in "".join(c for line in render_markdown(CONSOLE, "Tom &amp; Jerry &copy;", WIDTH)
                                      for c, _ in line)  # entities of visible characters read as before
