"""The ``octui`` command line against the real server: ``octui export`` and start-up exit codes.

``tui.app.cli.main`` runs in-process with ``OPENCODE_SERVER_PASSWORD`` from the environment and no
user config. The TUI itself and a local server must never start here: both are replaced by stubs
that fail the test if reached.
"""

from __future__ import annotations

import json
import socket
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.fake_llm import FakeLLM
from tests.e2e.server import EventRecorder, RealServer
from tui.app import cli
from tui.app.app import OctuiApp

pytestmark = pytest.mark.e2e


def _sid(session_id: str) -> Any:
    return lambda data: data.get("sessionID") == session_id


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, live_server: RealServer) -> RealServer:
    """Env for ``tui.app.cli.main``: the server's password, no user config, and no TUI may start."""
    monkeypatch.setenv("OPENCODE_SERVER_PASSWORD", live_server.password)
    monkeypatch.delenv("OPENCODE_SERVER_USERNAME", raising=False)
    monkeypatch.setenv("OCTUI_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.setenv("OCTUI_STATE_DIR", str(tmp_path / "state"))

    def no_tui(self: OctuiApp, *args: Any, **kwargs: Any) -> None:
        raise AssertionError("the TUI must not start in this test")

    class NoLocalServer:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise AssertionError("a local server must not start in this test")

    monkeypatch.setattr(OctuiApp, "run", no_tui)
    monkeypatch.setattr(cli, "LocalServer", NoLocalServer)
    return live_server


def test_export_markdown_and_json_match_the_session(
    cli_env: RealServer, fake_llm: FakeLLM, events: EventRecorder, capsys: pytest.CaptureFixture[str]
) -> None:
    server = cli_env
    name = f"export-{uuid.uuid4().hex[:8]}"
    reasoning = "Thinking about what to export."
    answer = f"Exported answer {name}."
    tag = fake_llm.add_scenario(name, [{"reasoning": reasoning, "text": answer}])
    sid = server.create_session()["id"]
    prompt = f"Export me. {tag}"
    server.prompt(sid, prompt)
    events.wait_for(server.wire.ev("step.ended"), _sid(sid))
    if server.wire.v2:  # 2.x titles the session after its first step: export must see that title
        events.wait_for("session.renamed", _sid(sid), timeout=20)
    server.wait_idle(sid)
    with server.client() as http:
        title = http.get(f"/api/session/{sid}").json()["data"]["title"]
        raw = http.get(f"/api/session/{sid}/message", params={"order": "asc"}).json()["data"]

    assert cli.main(["export", sid, "--url", server.url, "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    exported = json.loads(out)
    assert exported["id"] == sid and exported["title"] == title
    assert [m["id"] for m in exported["messages"]] == [m["id"] for m in raw]
    user, assistant = exported["messages"]
    assert user["role"] == "user" and user["text"] == prompt
    assert assistant["role"] == "assistant" and assistant["finish"] == "stop"
    parts = [(p["type"], p["text"]) for p in assistant["parts"]]
    assert parts == [("reasoning", reasoning), ("text", answer)]
    assert exported["model"] is not None and "fake-model" in exported["model"]

    assert cli.main(["export", sid, "--url", server.url, "--format", "markdown"]) == 0
    markdown, err = capsys.readouterr()
    assert err == ""
    assert title in markdown and prompt in markdown and answer in markdown
    assert markdown.index(prompt) < markdown.index(answer)

    # The global --url before the subcommand must reach export too (argparse sub-parser defaults).
    assert cli.main(["--url", server.url, "export", sid, "--format", "json"]) == 0
    again, _ = capsys.readouterr()
    assert json.loads(again) == exported


def test_cli_wrong_password_exits_4_without_leaking_it(
    cli_env: RealServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = f"wrong-{uuid.uuid4().hex}"
    monkeypatch.setenv("OPENCODE_SERVER_PASSWORD", wrong)
    assert cli.main(["--url", cli_env.url]) == 4
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("octui: ")
    assert wrong not in err and cli_env.password not in err
    assert "Traceback" not in err
    # The server really did refuse that password.
    assert httpx.get(f"{cli_env.url}/api/health", auth=("opencode", wrong), timeout=5).status_code == 401


def test_cli_unreachable_url_exits_3(cli_env: RealServer, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert cli.main(["--url", f"http://127.0.0.1:{port}"]) == 3
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("octui: ") and "Traceback" not in err
    assert cli_env.password not in err
