"""The hostile corpus through the real ``octui`` binary under a pty: what the terminal receives.

A fake server (1.18 wire shapes, ``test_terminal_injection.Handler``) serves a session whose user
messages hold the markup, control, C1 and Unicode families of ``hostile_corpus`` (several strings
per message, each line tagged ``Mnnn``), and a pending bash permission whose command holds the
escape, bidi, invisible and combined families (each line tagged ``Lnnn``). The screen is big enough
(200x250) for every tagged line to be drawn. Every byte octui writes is captured; compared with a
run on benign text (what Textual emits itself):

* no hostile escape reaches the terminal: no new OSC/DCS/APC string, no C1 byte, no bidi control;
* nothing is hidden: every tagged line is drawn, and the hidden characters appear as tokens.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.security import hostile_corpus as corpus
from tests.security.test_terminal_injection import END, OCTUI, SID, Handler, fixtures, run_octui, sequences

SIZE = (200, 250)
PER_MESSAGE = 30
SKIP = {"many lines", "long word", "empty", "space", "only newline", "tag with newline", "newlines",
        "crlf", "line separator", "paragraph separator", "vertical tab", "form feed", "c0 0b", "c0 0c",
        "c0 0d", "c1 85", "next line c1"}
"""Strings with line breaks of their own (kept out so one tag is one line); the widget tests
cover them."""

MESSAGE_FAMILIES = {**corpus.MARKUP, **corpus.CONTROLS, **corpus.UNICODE}
COMMAND_FAMILIES = {**corpus.ESCAPES, **corpus.BIDI, **corpus.INVISIBLE, **corpus.COMBINED}


def _lines(family: dict[str, str], tag: str, benign: bool) -> list[str]:
    texts = [text for name, text in family.items() if name not in SKIP]
    return [f"{tag}{index:03d} " + ("plain words" if benign else text) for index, text in enumerate(texts)]


def corpus_data(benign: bool, with_permission: bool) -> dict[str, Any]:
    data = fixtures(benign=True)  # session, stream and the last assistant message (END)
    user_lines = _lines(MESSAGE_FAMILIES, "M", benign)
    users = [{"id": f"msg_u{i:03d}", "time": {"created": 10 + i}, "type": "user",
              "text": "\n".join(user_lines[i:i + PER_MESSAGE])}
             for i in range(0, len(user_lines), PER_MESSAGE)]
    last = {"id": "msg_end", "time": {"created": 9000, "completed": 9001}, "type": "assistant",
            "agent": "build", "model": {"id": "fake-model", "providerID": "mock"},
            "content": [{"type": "text", "id": "text-0", "text": f"done {END}"}], "finish": "stop", "cost": 0,
            "tokens": {"input": 1, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}}}
    data["messages"] = [*users, last]
    command = "\n".join(_lines(COMMAND_FAMILIES, "L", benign))
    data["permission"] = {"id": "per_corpus", "sessionID": SID, "action": "bash", "resources": [command],
                          "save": ["echo *"],
                          "source": {"type": "tool", "messageID": "msg_end", "callID": "c"}}
    data["permissions"] = [data["permission"]] if with_permission else []
    data["live"] = {"id": "evt_live1", "type": "session.next.text.delta",
                    "data": {"timestamp": 1, "sessionID": SID, "assistantMessageID": "msg_end",
                             "textID": "text-0", "delta": " ."}}
    data["hostile"] = not benign
    return data


class CorpusHandler(Handler):
    def do_GET(self) -> None:  # noqa: N802
        if self.path.split("?", 1)[0] == "/api/permission/request":
            self.seen_auth.append(self.headers.get("authorization", ""))
            self._json({"data": self.data["permissions"]})
            return
        super().do_GET()


@pytest.fixture
def corpus_server() -> Iterator[tuple[str, type[CorpusHandler]]]:
    handler = type("H", (CorpusHandler,), {"data": {}, "seen_auth": []})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", handler
    finally:
        httpd.shutdown()
        httpd.server_close()


FORBIDDEN = {
    "c1": r"[\x80-\x9f]", "bidi": "[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]",
    "osc title": r"\x1b\][02];PWNED", "osc hyperlink": r"\x1b\]8;;https://evil",
    "osc clipboard": r"\x1b\]52;",
    "osc notify": r"\x1b\]777;notify;t;b", "dcs": r"\x1bP\+q544e", "apc": r"\x1b_G", "pm": r"\x1b\^private",
    "sos": r"\x1bXstart", "region": r"\x1b\[3;7r", "dsr": r"\x1b\[6n", "alt screen off": r"\x1b\[\?1049l",
    "tmux": r"\x1bPtmux;",
}


def _check(baseline: str, hostile: str, tag: str, count: int) -> None:
    for name, pattern in FORBIDDEN.items():
        if re.search(pattern, baseline):
            continue  # Textual's own (judged by the family comparison below)
        assert not re.search(pattern, hostile), f"{name} reached the terminal"
    base, found = sequences(baseline), sequences(hostile)
    for family, seqs in found.items():
        assert seqs <= base[family], f"new {family} sequences: {sorted(seqs - base[family])!r}"
    missing = [f"{tag}{i:03d}" for i in range(count) if f"{tag}{i:03d} " not in hostile]
    assert not missing, f"tagged lines never drawn: {missing}"


@pytest.mark.skipif(not OCTUI.exists(), reason="octui is not installed in this venv")
def test_hostile_corpus_never_reaches_the_terminal(
    corpus_server: tuple[str, type[CorpusHandler]], tmp_path: Path
) -> None:
    url, handler = corpus_server
    handler.data.update(corpus_data(benign=True, with_permission=True))
    baseline = run_octui(url, tmp_path / "base", size=SIZE).decode("utf-8", "replace")
    assert "L000 plain words" in baseline

    # The transcript: markup, every C0/C1 control, Unicode oddities, in user messages.
    handler.data.update(corpus_data(benign=False, with_permission=False))
    transcript = run_octui(url, tmp_path / "messages", size=SIZE).decode("utf-8", "replace")
    _check(baseline, transcript, "M", len(_lines(MESSAGE_FAMILIES, "M", True)))
    for literal in ("[/b]-x.txt", "ls build/[abc] app/[id]", "awk -F'[/:]' '{print $1}' /etc/hostname",
                    '[@click=screen.reply("always")]X[/]', "[link=https://evil.example/]click me[/link]",
                    "<U+0086>", "<U+009B>", "␀", "␡"):
        assert literal in transcript, f"{literal!r} not shown literally"

    # The approval dialog: every escape family, bidi and invisible characters, in the command.
    handler.data.update(corpus_data(benign=False, with_permission=True))
    dialog = run_octui(url, tmp_path / "dialog", size=SIZE).decode("utf-8", "replace")
    _check(baseline, dialog, "L", len(_lines(COMMAND_FAMILIES, "L", True)))
    assert "Hidden or control characters" in dialog
    for token in ("␛", "␇", "<U+009D>", "<U+202E>", "<U+200B>", "<U+FEFF>", "<U+E0041>"):
        assert token in dialog, f"{token} not shown"
