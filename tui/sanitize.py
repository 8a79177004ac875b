"""Make server text inert before it can reach the terminal.

Server text is data. Escape sequences in it (OSC title/hyperlink/clipboard, cursor movement,
screen clears, DCS/APC/PM strings, C1 controls) must never be written raw. Textual renders text
through its own segments, but we still strip them so nothing odd leaks into copies, exports or
widths, and so bidi overrides cannot disguise a command in an approval dialog.
"""

from __future__ import annotations

import re

# ESC-introduced sequences: CSI (with SGR captured separately), OSC/DCS/APC/PM/SOS strings,
# and two-byte escapes. 8-bit C1 forms (\x9b CSI, \x9d OSC, \x90 DCS ...) are handled too.
_STRING_SEQ = re.compile(r"(?:\x1b[\]P_^X]|[\x9d\x90\x9f\x9e\x98]).*?(?:\x07|\x1b\\|\x9c|$)", re.S)
_CSI = re.compile(r"(?:\x1b\[|\x9b)([0-?]*)([ -/]*)([@-~])")
_TWO_BYTE = re.compile(r"\x1b[ -/]*[0-~]?")
_C0_C1 = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f]")
# Bidi controls can reorder what a reader sees; show them, never obey them.
_BIDI = re.compile(r"[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


def _visible_bidi(match: re.Match[str]) -> str:
    return f"<U+{ord(match.group(0)):04X}>"


def clean_text(text: str) -> str:
    """Plain text with every escape sequence and control character removed.

    Keeps ``\\n`` and ``\\t``; turns a lone ``\\r`` into a line overwrite (last segment wins) so
    progress lines collapse instead of leaking carriage returns.
    """
    if not text:
        return ""
    text = _STRING_SEQ.sub("", text)
    text = _CSI.sub("", text)
    text = _TWO_BYTE.sub("", text)
    text = collapse_carriage_returns(text)
    text = _C0_C1.sub("", text)
    return _BIDI.sub(_visible_bidi, text)


def keep_sgr(text: str) -> str:
    """Like ``clean_text`` but keeps SGR colour sequences (``ESC [ … m``) for our own renderer."""
    if not text:
        return ""
    text = _STRING_SEQ.sub("", text)

    def csi(match: re.Match[str]) -> str:
        params, inter, final = match.groups()
        # Only 7-bit SGR survives; an 8-bit C1 CSI is dropped entirely.
        seven_bit = match.group(0).startswith("\x1b[")
        if seven_bit and final == "m" and not inter and re.fullmatch(r"[0-9;:]*", params):
            return "\x1b[" + params + "m"
        return ""

    text = _CSI.sub(csi, text)
    # Protect the SGR we kept from the two-byte and control passes.
    parts = re.split(r"(\x1b\[[0-9;:]*m)", text)
    out = []
    for index, part in enumerate(parts):
        if index % 2:  # odd items are the captured SGR sequences; even ones are the text between
            out.append(part)
        else:
            part = _TWO_BYTE.sub("", part)
            part = _C0_C1.sub(lambda m: "" if m.group(0) != "\r" else "\r", part)
            out.append(_BIDI.sub(_visible_bidi, part))
    return collapse_carriage_returns("".join(out))


def collapse_carriage_returns(text: str) -> str:
    """``"10%\\r100%"`` -> ``"100%"`` per line; ``\\r\\n`` is a plain newline."""
    if "\r" not in text:
        return text
    lines = text.replace("\r\n", "\n").split("\n")
    return "\n".join(_last_overwrite(line) for line in lines)


def _last_overwrite(line: str) -> str:
    if "\r" not in line:
        return line
    segments = [s for s in line.split("\r") if s]
    return segments[-1] if segments else ""


def one_line(text: str, limit: int = 120) -> str:
    """A clean single-line summary, ellipsised to ``limit`` characters."""
    flat = " ".join(clean_text(text).split())
    return flat if len(flat) <= limit else flat[: max(0, limit - 1)] + "…"
