"""Terminal injection: the real ``octui`` binary, under a pty, against a fake server (1.18 wire shapes)
whose every string is hostile: text, reasoning, tool input/output/errors, file names, titles, error
messages and a pending permission. Every byte octui writes to the terminal is captured; none of the
hostile escape sequences may reach it, bidi overrides are shown as ``<U+202E>``, and the password
appears neither in the output nor in the state dir. A baseline run with benign strings tells what
Textual itself emits (scroll regions, its own OSC/DCS queries), so only the difference is judged.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
OCTUI = Path(sys.executable).parent / "octui"
PASSWORD = "pw-Sekr1t-9f3a7c"
SID = "ses_evil0000000000000000001"
END = "ENDMARK"

HOSTILE = {
    "osc0": "\x1b]0;PWNED-TITLE\x07",
    "osc2": "\x1b]2;PWNED-TITLE2\x1b\\",
    "osc8": "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "osc52": "\x1b]52;c;cHduZWQ=\x07",
    "clear": "\x1b[2J\x1b[3J\x1b[H",
    "cursor": "\x1b[10;10H\x1b[A\x1b[s\x1b[u",
    "region": "\x1b[3;7r",
    "altscreen": "\x1b[?1049l",
    "dsr": "\x1b[6n",
    "dcs": "\x1bP+q544e\x1b\\",
    "apc": "\x1b_APCPAYLOAD\x1b\\",
    "c1csi": "\x9b31m",
    "c1osc": "\x9d0;C1TITLE\x9c",
    "bidi": "\u202eevil-bidi\u202c",
}
# The hostile bytes that must never reach the terminal (regexes on the decoded output).
FORBIDDEN = {
    "osc0": r"\x1b\]0;PWNED", "osc2": r"\x1b\]2;PWNED", "osc8": r"\x1b\]8;;http://evil",
    "osc52": r"\x1b\]52;", "dcs": r"\x1bP\+q", "apc": r"\x1b_APC", "c1": r"[\x80-\x9f]",
    "bidi": "[\u202a-\u202e\u2066-\u2069]", "region": r"\x1b\[3;7r", "dsr": r"\x1b\[6n",
    "altscreen-off": r"\x1b\[\?1049l",
}


def evil(label: str, benign: bool) -> str:
    """A string with every hostile sequence between readable words."""
    if benign:
        return f"{label} plain words"
    return f"{label} " + " ".join(f"{name}<{seq}>" for name, seq in HOSTILE.items()) + " done"


def fixtures(benign: bool) -> dict[str, Any]:
    title = evil("TITLE", benign)
    session = {"id": SID, "title": title, "slug": "x", "projectID": "p", "directory": "/tmp",
               "version": "1.18.33", "time": {"created": 1796210185782, "updated": 1796210185782}}
    tool_ok = {"type": "tool", "id": "call_1", "name": "bash", "provider": {"executed": False},
               "state": {"status": "completed", "input": {"command": evil("CMD", benign),
                                                          "description": evil("DESC", benign)},
                         "structured": {"exit": 0},
                         "content": [{"type": "text", "text": evil("OUT", benign)}]},
               "time": {"created": 1, "ran": 2, "completed": 3}}
    tool_file = {"type": "tool", "id": "call_2", "name": "write", "provider": {"executed": False},
                 "state": {"status": "error", "input": {"filePath": "/tmp/" + evil("FILE", benign),
                                                        "content": evil("BODY", benign)},
                           "structured": {}, "content": [], "error": {"type": "unknown",
                                                                      "message": evil("TOOLERR", benign)}},
                 "time": {"created": 1, "ran": 2, "completed": 3}}
    messages = [
        {"id": "msg_1", "time": {"created": 1}, "type": "user", "text": evil("USER", benign)},
        {"id": "msg_2", "time": {"created": 2, "completed": 3}, "type": "assistant", "agent": "build",
         "model": {"id": "fake-model", "providerID": "mock"},
         "content": [{"type": "reasoning", "id": "reasoning-0", "text": evil("REASON", benign)},
                     {"type": "text", "id": "text-0", "text": evil("TEXT", benign)}, tool_ok, tool_file],
         "finish": "error", "error": {"type": "provider", "message": evil("ERRMSG", benign)},
         "cost": 0, "tokens": {"input": 1, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}}},
        {"id": "msg_3", "time": {"created": 4, "completed": 5}, "type": "assistant", "agent": "build",
         "model": {"id": "fake-model", "providerID": "mock"},
         "content": [{"type": "text", "id": "text-0", "text": f"{evil('LAST', benign)} {END}"}],
         "finish": "stop", "cost": 0,
         "tokens": {"input": 1, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}}},
    ]
    permission = {"id": "per_evil1", "sessionID": SID, "action": "bash", "resources": [evil("PERM", benign)],
                  "save": [evil("SAVE", benign)],
                  "source": {"type": "tool", "messageID": "msg_2", "callID": "call_9"}}
    live = {"id": "evt_live1", "type": "session.next.text.delta",
            "data": {"timestamp": 1, "sessionID": SID, "assistantMessageID": "msg_3", "textID": "text-0",
                     "delta": evil(" DELTA", benign)}}
    return {"session": session, "messages": messages, "permission": permission, "live": live}


class Handler(BaseHTTPRequestHandler):
    data: dict[str, Any] = {}
    seen_auth: list[str] = []

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def _json(self, body: Any, status: int = 200) -> None:
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:  # noqa: N802
        self.seen_auth.append(self.headers.get("authorization", ""))
        path = self.path.split("?", 1)[0]
        d = self.data
        if path == "/api/event":
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            connected = {"id": "evt_0", "type": "server.connected", "data": {}}
            for frame in (connected, d["live"]):
                self.wfile.write(b"data: " + json.dumps(frame).encode() + b"\n\n")
            self.wfile.flush()
            for _ in range(300):  # bounded: about 30 s of an open stream
                time.sleep(0.1)
                try:
                    self.wfile.write(b": heartbeat\n\n")
                    self.wfile.flush()
                except OSError:
                    return
            return
        routes: dict[str, Any] = {
            "/api/health": {"healthy": True},
            "/api/session/active": {"data": {}},
            "/api/permission/request": {"data": [d["permission"]]},
            "/api/question/request": {"data": []},
            "/api/model": {"data": []},
            f"/api/session/{SID}": {"data": d["session"]},
            f"/api/session/{SID}/message": {"data": list(reversed(d["messages"])), "cursor": {}},
            "/api/session": {"data": [d["session"]], "cursor": {}},
        }
        if path in routes:
            self._json(routes[path])
        else:
            self._json({"message": f"no route {path} " + evil("404", not d.get("hostile"))}, 404)

    def do_POST(self) -> None:  # noqa: N802
        self._json({"message": evil("POSTERR", not self.data.get("hostile"))}, 500)


@pytest.fixture
def fake_server() -> Iterator[tuple[str, type[Handler]]]:
    handler = type("H", (Handler,), {"data": {}, "seen_auth": []})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", handler
    finally:
        httpd.shutdown()
        httpd.server_close()


def run_octui(url: str, state: Path, timeout: float = 40.0, size: tuple[int, int] = (140, 45)) -> bytes:
    """Run ``octui --url URL --session SID`` under a pty (``size``: columns, lines); return every
    byte it wrote."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENCODE_", "OCTUI_"))}
    env.update({"OPENCODE_SERVER_PASSWORD": PASSWORD, "OCTUI_STATE_DIR": str(state),
                "OCTUI_CONFIG": str(state / "config.toml"), "TERM": "xterm-256color",
                "COLUMNS": str(size[0]), "LINES": str(size[1]), "HOME": str(state)})
    state.mkdir(parents=True, exist_ok=True)
    pid, fd = pty.fork()
    if pid == 0:  # child: never return into pytest
        try:
            os.chdir(state)
            os.execve(str(OCTUI), [str(OCTUI), "--url", url, "--session", SID], env)
        finally:
            os._exit(127)
    out = bytearray()
    deadline = time.monotonic() + timeout
    quit_sent = 0.0
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
            if not quit_sent and END.encode() in out:
                time.sleep(1.0)  # let the live delta and the dialog render
                quit_sent = time.monotonic()
                os.write(fd, b"\x11")  # ctrl+q
            if quit_sent and time.monotonic() - quit_sent > 8:
                break
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                pid = 0
                break
    finally:
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        os.close(fd)
    if os.environ.get("OCTUI_DUMP"):
        Path(os.environ["OCTUI_DUMP"]).write_bytes(bytes(out))
    assert END.encode() in out, f"octui never showed the transcript:\n{out[-3000:]!r}"
    return bytes(out)


def sequences(text: str) -> dict[str, set[str]]:
    """The control sequences in ``text``, by family. Scroll margins (DECSTBM) are not among them:
    octui's frame writer sets its own wherever a band scrolled, which differs with the content;
    the hostile payload's exact margins are in FORBIDDEN."""
    return {
        "osc": set(re.findall(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)", text)),
        "dcs": set(re.findall(r"\x1bP[^\x1b]*\x1b\\", text)),
        "apc": set(re.findall(r"\x1b_[^\x1b]*\x1b\\", text)),
    }


@pytest.mark.skipif(not OCTUI.exists(), reason="octui is not installed in this venv")
def test_hostile_server_strings_never_reach_the_terminal(
    fake_server: tuple[str, type[Handler]], tmp_path: Path
) -> None:
    url, handler = fake_server
    handler.data.update(fixtures(benign=True), hostile=False)
    # Tall enough for the transcript beside the dialog, which shows every escape as a token
    # (and a warning line) and so takes more lines than the benign one.
    size = (140, 70)
    baseline = run_octui(url, tmp_path / "base", size=size).decode("utf-8", "replace")
    handler.data.update(fixtures(benign=False), hostile=True)
    hostile = run_octui(url, tmp_path / "evil", size=size).decode("utf-8", "replace")

    # the hostile content was really rendered (visible words around the escapes)
    # reasoning and completed tool output start collapsed; everything else is on screen
    for label in ("TITLE", "USER", "TEXT", "ERRMSG", "LAST", "PERM", "CMD", "FILE", "BODY", "TOOLERR"):
        assert label in hostile, f"{label} text not on screen"
    for name, pattern in FORBIDDEN.items():
        if re.search(pattern, baseline):
            continue  # Textual emits this itself; judged by the family comparison below
        assert not re.search(pattern, hostile), f"{name} reached the terminal"
    base, evil_seqs = sequences(baseline), sequences(hostile)
    for family, found in evil_seqs.items():
        assert found <= base[family], f"new {family} sequences: {sorted(found - base[family])!r}"
    assert "<U+202E>" in hostile, "bidi overrides are shown visibly"


@pytest.mark.skipif(not OCTUI.exists(), reason="octui is not installed in this venv")
def test_password_never_shown_logged_or_stored(
    fake_server: tuple[str, type[Handler]], tmp_path: Path
) -> None:
    url, handler = fake_server
    handler.data.update(fixtures(benign=True), hostile=False)
    state = tmp_path / "state"
    out = run_octui(url, state)
    assert any(a.startswith("Basic ") for a in handler.seen_auth), "the password was used (Basic auth)"
    assert PASSWORD.encode() not in out
    for path in state.rglob("*"):
        if path.is_file():
            assert PASSWORD.encode() not in path.read_bytes(), f"password stored in {path.name}"
