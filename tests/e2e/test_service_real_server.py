"""octui finds the real OpenCode background service (``opencode serve --service``) and attaches.

Only a server that can register as the user's background service has this (its ``serve --help``
offers ``--service``, a 2.x server); with any other ``opencode`` the test says so and skips. The
service runs with an isolated HOME and XDG tree, registers itself in ``$XDG_STATE_HOME/opencode/``,
and octui's discovery, ``octui`` start-up and ``octui export`` must find it there: the very
process the registration names, healthy, its password kept out of every output.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.fake_llm import FakeLLM
from tests.e2e.server import READY_TIMEOUT, ConfigShape, make_workspace
from tui.app import cli
from tui.app.app import ConnectSpec, OctuiApp
from tui.client.service import candidate_files, discover, read_registration

pytestmark = pytest.mark.e2e


def _offers_service(binary: Path, env: dict[str, str]) -> bool:
    try:
        done = subprocess.run([str(binary), "serve", "--help"], env=env, capture_output=True, timeout=60,
                              stdin=subprocess.DEVNULL, start_new_session=True)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return b"--service" in done.stdout + done.stderr


def _kill(pid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


@pytest.fixture
def service(opencode_bin: Path, fake_llm: FakeLLM, tmp_path: Path) -> Iterator[tuple[dict[str, str], Path]]:
    """A running background service in its own XDG tree: (its env, its registration file)."""
    project, env = make_workspace(tmp_path, fake_llm.base_url, ConfigShape.V2)
    env.pop("OPENCODE_SERVER_PASSWORD", None)  # the service keeps its own password
    if not _offers_service(opencode_bin, env):
        pytest.skip("this opencode cannot run as a background service (no `serve --service`)")
    log = (tmp_path / "service.log").open("wb")
    proc = subprocess.Popen([str(opencode_bin), "serve", "--service"], cwd=project, env=env,
                            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    registered: Path | None = None
    other_pid: int | None = None
    try:
        deadline = time.monotonic() + READY_TIMEOUT
        while registered is None:
            assert proc.poll() is None, f"the service exited with {proc.returncode}:\n" + \
                (tmp_path / "service.log").read_text(errors="replace")[-2000:]
            assert time.monotonic() < deadline, "the service never registered itself"
            found = asyncio.run(discover(env))
            if found.service is not None:
                registered = found.service.registration.path
                other_pid = found.service.registration.pid
            else:
                time.sleep(0.5)
        yield env, registered
    finally:
        _kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            _kill(proc.pid, signal.SIGKILL)
            proc.wait(5)
        if other_pid is not None and other_pid != proc.pid:  # a service process it started itself
            _kill(other_pid, signal.SIGTERM)
        log.close()


def test_discovery_finds_the_registered_service(service: tuple[dict[str, str], Path]) -> None:
    env, path = service
    assert path.parent == Path(env["XDG_STATE_HOME"]) / "opencode"
    assert path in candidate_files(env)
    info = path.stat()
    assert stat.S_IMODE(info.st_mode) == 0o600 and info.st_uid == os.geteuid()  # as the docs say
    registration = read_registration(path)
    assert registration is not None and registration.password
    with httpx.Client(auth=("opencode", registration.password), timeout=10) as http:
        health = http.get(f"{registration.url}/api/health").json()
    assert health["healthy"] is True and health["pid"] == registration.pid
    assert registration.version in (None, health["version"])


def test_plain_octui_attaches_to_it_and_export_reads_its_sessions(
    service: tuple[dict[str, str], Path], fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    env, path = service
    registration = read_registration(path)
    assert registration is not None and registration.password
    for key in ("XDG_STATE_HOME", "HOME"):
        monkeypatch.setenv(key, env[key])
    monkeypatch.delenv("OPENCODE_SERVER_PASSWORD", raising=False)
    monkeypatch.setenv("OCTUI_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.setenv("OCTUI_STATE_DIR", str(tmp_path / "octui-state"))
    specs: list[ConnectSpec] = []

    def fake_run(self: OctuiApp, *args: Any, **kwargs: Any) -> int:
        specs.append(self.spec)
        return 0

    class NoLocalServer:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise AssertionError("the service is registered: no private server may start")

    monkeypatch.setattr(OctuiApp, "run", fake_run)
    monkeypatch.setattr(cli, "LocalServer", NoLocalServer)
    monkeypatch.setattr(cli, "_stop_local_server_on_signals", lambda app: None)
    assert cli.main([]) == 0
    (spec,) = specs
    assert spec.origin == "service" and spec.url == registration.url and not spec.start_local

    # A session made on the service is the user's session: export finds it without --url.
    name = "service-export"
    tag = fake_llm.add_scenario(name, [{"text": "Answered by the service."}])
    auth = ("opencode", registration.password)
    with httpx.Client(base_url=registration.url, auth=auth, timeout=10) as http:
        sid = http.post("/api/session", json={}).json()["data"]["id"]
        assert http.post(f"/api/session/{sid}/prompt", json={"text": f"Hello. {tag}"}).status_code == 200
        deadline = time.monotonic() + 60
        while http.get("/api/session/active").json()["data"].get(sid):
            assert time.monotonic() < deadline, "the service's turn never ended"
            time.sleep(0.2)
    assert cli.main(["export", sid, "--format", "json"]) == 0
    out, err = capsys.readouterr()
    exported = json.loads(out)
    assert exported["id"] == sid
    assert "Answered by the service." in json.dumps(exported)
    assert registration.password not in out + err
