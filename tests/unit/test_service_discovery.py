"""Finding the user's OpenCode background service: a fake service (a real HTTP server on
127.0.0.1) registered in a temporary ``$XDG_STATE_HOME/opencode/``; ``octui`` attaches to it when
it is healthy, else starts its private server; bad registry files are refused with the reason,
and the password never reaches a log, an error text or the terminal."""

from __future__ import annotations

import base64
import json
import logging
import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tui.app import cli
from tui.app.app import ConnectSpec, OctuiApp
from tui.client import service as svc
from tui.client.service import Refused, candidate_files, discover, read_registration

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes and owners")

PASSWORD = "hunter2-registry-secret-3f9c"


class FakeService:
    """``GET /api/health`` with Basic auth, like ``opencode serve --service``; what it answers is
    set per test. Every request is recorded (path and whether the auth was right)."""

    def __init__(self, password: str = PASSWORD) -> None:
        self.password = password
        self.health: dict[str, Any] = {"healthy": True, "version": "local", "pid": os.getpid()}
        self.status = 200
        self.delay = 0.0
        self.requests: list[tuple[str, bool]] = []
        self.routes: dict[str, Any] = {}  # more GET answers: path -> JSON body
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_GET(self) -> None:  # noqa: N802 - stdlib name
                expected = "Basic " + base64.b64encode(f"opencode:{owner.password}".encode()).decode()
                authorised = self.headers.get("Authorization") == expected
                owner.requests.append((self.path, authorised))
                if owner.delay:
                    time.sleep(owner.delay)
                if not authorised:
                    self.send_response(401)
                    self.send_header("www-authenticate", 'Basic realm="Secure Area"')
                    self.send_header("content-length", "0")
                    self.end_headers()
                    return
                path = self.path.split("?", 1)[0]
                found = owner.routes.get(path)
                if path == "/api/health":
                    body, status = json.dumps(owner.health).encode(), owner.status
                elif found is not None:
                    body, status = json.dumps(found).encode(), 200
                else:
                    body, status = b"", 404
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> FakeService:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


@pytest.fixture
def fake_service() -> Iterator[FakeService]:
    with FakeService() as service:
        yield service


@pytest.fixture
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$XDG_STATE_HOME`` for this test; returns the ``opencode`` registry directory in it."""
    home = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    registry = home / "opencode"
    registry.mkdir(parents=True)
    return registry


def register(directory: Path, url: str, *, name: str = "service.json", pid: int | None = None,
             version: str | None = "local", mode: int = 0o600, password: str = PASSWORD) -> Path:
    path = directory / name
    record: dict[str, Any] = {"id": "svc_test", "url": url, "pid": os.getpid() if pid is None else pid,
                              "password": password}
    if version is not None:
        record["version"] = version
    path.write_text(json.dumps(record))
    path.chmod(mode)
    return path


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(10)
    return child.pid


async def no_server(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("not reached")


# -- discovery ---------------------------------------------------------------------------------


async def test_healthy_registered_service_is_found(state_home: Path, fake_service: FakeService) -> None:
    register(state_home, fake_service.url)
    found = await discover()
    assert found.service is not None
    assert found.service.url == fake_service.url
    assert found.service.password == PASSWORD and found.service.username == "opencode"
    assert found.service.version == "local"
    assert found.notices == [] and found.skipped == []
    assert fake_service.requests == [("/api/health", True)]  # Basic auth with the file's password


async def test_unhealthy_service_is_skipped(state_home: Path, fake_service: FakeService) -> None:
    register(state_home, fake_service.url)
    fake_service.status = 503
    found = await discover()
    assert found.service is None and "HTTP 503" in found.skipped[0]
    fake_service.status = 200
    fake_service.health = {"healthy": False, "version": "local", "pid": os.getpid()}
    found = await discover()
    assert found.service is None and "not healthy" in found.skipped[0]


async def test_unreachable_service_is_skipped_within_the_timeout(state_home: Path) -> None:
    with FakeService() as gone:
        url = gone.url
    register(state_home, url)  # nobody listens there any more
    started = time.monotonic()
    found = await discover(timeout=1.0)
    assert found.service is None and "no answer" in found.skipped[0]
    assert time.monotonic() - started < 3


async def test_hanging_service_is_bounded_by_the_health_timeout(state_home: Path,
                                                                fake_service: FakeService) -> None:
    register(state_home, fake_service.url)
    fake_service.delay = 5.0
    started = time.monotonic()
    found = await discover(timeout=0.5)
    assert found.service is None
    assert time.monotonic() - started < 2.5


async def test_stale_pid_is_skipped_without_a_request(state_home: Path, fake_service: FakeService) -> None:
    register(state_home, fake_service.url, pid=dead_pid())
    found = await discover()
    assert found.service is None and "stale" in found.skipped[0]
    assert fake_service.requests == []


async def test_another_process_behind_the_url_is_a_stale_registration(state_home: Path,
                                                                      fake_service: FakeService) -> None:
    """A reused port: the server answering is not the process the file names."""
    register(state_home, fake_service.url, pid=os.getppid())
    found = await discover()
    assert found.service is None and "different process" in found.skipped[0]


async def test_version_mismatch_is_skipped(state_home: Path, fake_service: FakeService) -> None:
    register(state_home, fake_service.url, version="1.2.3")
    found = await discover()
    assert found.service is None and "version local" in found.skipped[0]


async def test_wrong_password_is_skipped_and_never_quoted(state_home: Path,
                                                           fake_service: FakeService) -> None:
    register(state_home, fake_service.url, password="not-" + PASSWORD)
    found = await discover()
    assert found.service is None and "HTTP 401" in found.skipped[0]
    assert PASSWORD not in repr(found)


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660, 0o666])
async def test_registry_others_may_read_is_refused_with_the_reason(
    state_home: Path, fake_service: FakeService, mode: int
) -> None:
    path = register(state_home, fake_service.url, mode=mode)
    found = await discover()
    assert found.service is None
    assert fake_service.requests == []  # refused before any use of its content
    (notice,) = found.notices
    assert str(path) in notice and f"{mode:04o}" in notice and "0600" in notice
    assert PASSWORD not in notice


async def test_registry_of_another_owner_is_refused(state_home: Path, fake_service: FakeService,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    register(state_home, fake_service.url)
    real = os.geteuid()
    monkeypatch.setattr(svc.os, "geteuid", lambda: real + 1)
    found = await discover()
    assert found.service is None and fake_service.requests == []
    (notice,) = found.notices
    assert f"uid {real}" in notice and "not to you" in notice


async def test_symlink_and_fifo_are_refused_without_blocking(state_home: Path, fake_service: FakeService,
                                                             tmp_path: Path) -> None:
    target = register(tmp_path, fake_service.url, name="elsewhere.json")
    (state_home / "service.json").symlink_to(target)
    os.mkfifo(state_home / "service-local.json", 0o600)
    started = time.monotonic()
    found = await discover()
    assert time.monotonic() - started < 3, "a FIFO must not block the read"
    assert found.service is None and fake_service.requests == []
    assert len(found.notices) == 2
    assert "symbolic link" in found.notices[0]
    assert "not a regular file" in found.notices[1]


async def test_bad_content_is_refused_without_quoting_it(state_home: Path) -> None:
    path = state_home / "service.json"
    path.write_text('{"url": "http://127.0.0.1:1", "password": "' + PASSWORD + '", pid: }')
    path.chmod(0o600)
    with pytest.raises(Refused) as info:
        read_registration(path)
    assert "not valid JSON" in str(info.value) and PASSWORD not in str(info.value)
    path.write_text(json.dumps({"url": f"http://opencode:{PASSWORD}@127.0.0.1:1", "pid": 5}))
    with pytest.raises(Refused, match="no usable http"):
        read_registration(path)
    path.write_text(json.dumps({"url": "http://127.0.0.1:1", "pid": "5"}))
    with pytest.raises(Refused, match="no valid pid"):
        read_registration(path)
    path.write_text("x" * (svc.MAX_FILE_BYTES + 10))
    with pytest.raises(Refused, match="too large"):
        read_registration(path)


def test_file_order(state_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """service.json (release channels), service-local.json (source build), then other channels
    newest first; unrelated files are never looked at."""
    for name, age in [("service-beta.json", 30), ("service-pr-42.json", 10), ("services.json", 0),
                      ("service-old.json.bak", 0), ("notes.txt", 0)]:
        path = state_home / name
        path.write_text("{}")
        os.utime(path, (time.time() - age, time.time() - age))
    names = [path.name for path in candidate_files()]
    assert names == ["service.json", "service-local.json", "service-pr-42.json", "service-beta.json"]
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(state_home.parent / "home"))
    default = state_home.parent / "home" / ".local" / "state" / "opencode"
    assert candidate_files()[0] == default / "service.json"


async def test_first_healthy_file_wins_and_bad_ones_are_passed_over(state_home: Path,
                                                                    fake_service: FakeService) -> None:
    register(state_home, fake_service.url, pid=dead_pid())  # service.json: stale
    register(state_home, fake_service.url, name="service-local.json")  # the source build's: healthy
    found = await discover()
    assert found.service is not None and found.service.label == "service-local.json"


# -- octui's start-up --------------------------------------------------------------------------


@pytest.fixture
def captured_spec(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[ConnectSpec]:
    """``octui`` start-up up to the app: the spec it would run with (no TUI starts)."""
    specs: list[ConnectSpec] = []

    def fake_run(self: OctuiApp, *args: Any, **kwargs: Any) -> int:
        specs.append(self.spec)
        return 0

    monkeypatch.setattr(OctuiApp, "run", fake_run)
    monkeypatch.setattr(cli, "_stop_local_server_on_signals", lambda app: None)
    monkeypatch.setenv("OCTUI_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.setenv("OCTUI_STATE_DIR", str(tmp_path / "octui-state"))
    fake_binary = tmp_path / "bin" / "opencode"
    fake_binary.parent.mkdir()
    fake_binary.write_text("#!/bin/sh\nexit 1\n")
    fake_binary.chmod(0o755)
    monkeypatch.setenv("OPENCODE_BIN", str(fake_binary))
    monkeypatch.delenv("OPENCODE_SERVER_PASSWORD", raising=False)
    return specs


def test_plain_octui_attaches_to_a_healthy_service(state_home: Path, fake_service: FakeService,
                                                   captured_spec: list[ConnectSpec]) -> None:
    register(state_home, fake_service.url)
    assert cli.main([]) == 0
    (spec,) = captured_spec
    assert spec.url == fake_service.url and spec.password == PASSWORD
    assert not spec.start_local and spec.origin == "service"


@pytest.mark.parametrize("problem", ["unhealthy", "unreachable", "stale", "none"])
def test_plain_octui_starts_its_private_server_otherwise(
    state_home: Path, fake_service: FakeService, captured_spec: list[ConnectSpec], problem: str
) -> None:
    if problem == "unhealthy":
        register(state_home, fake_service.url)
        fake_service.status = 500
    elif problem == "unreachable":
        register(state_home, "http://127.0.0.1:1")
    elif problem == "stale":
        register(state_home, fake_service.url, pid=dead_pid())
    assert cli.main([]) == 0
    (spec,) = captured_spec
    assert spec.start_local and spec.url is None and spec.password is None
    assert spec.origin == "private" and spec.notices == []


def test_standalone_never_looks_at_the_registry(state_home: Path, fake_service: FakeService,
                                                captured_spec: list[ConnectSpec]) -> None:
    register(state_home, fake_service.url)
    assert cli.main(["--standalone"]) == 0
    (spec,) = captured_spec
    assert spec.start_local and spec.origin == "private"
    assert fake_service.requests == []


def test_refused_registry_is_said_once_and_the_private_server_starts(
    state_home: Path, fake_service: FakeService, captured_spec: list[ConnectSpec],
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture,
) -> None:
    path = register(state_home, fake_service.url, mode=0o644)
    with caplog.at_level(logging.INFO, logger="octui"):
        assert cli.main([]) == 0
    (spec,) = captured_spec
    assert spec.start_local and spec.origin == "private"
    (notice,) = spec.notices  # the app shows it once, as a warning
    assert str(path) in notice and "0644" in notice
    out, err = capsys.readouterr()
    assert PASSWORD not in out + err + caplog.text + notice


@pytest.fixture
def octui_log() -> Iterator[list[str]]:
    """Every record of octui's own logger (it does not propagate: it writes octui.log)."""
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(self.format(record))

    handler = Keep(logging.DEBUG)
    logger = logging.getLogger("octui")
    logger.addHandler(handler)
    try:
        yield lines
    finally:
        logger.removeHandler(handler)


def test_password_is_never_logged_printed_or_in_argv(
    state_home: Path, fake_service: FakeService, captured_spec: list[ConnectSpec],
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture, octui_log: list[str],
) -> None:
    register(state_home, fake_service.url, name="service.json", version="other")  # skipped, logged
    register(state_home, fake_service.url, name="service-local.json")  # attached, logged
    with caplog.at_level(logging.DEBUG):
        assert cli.main([]) == 0
    (spec,) = captured_spec
    assert spec.origin == "service" and spec.password == PASSWORD
    out, err = capsys.readouterr()
    log_text = "\n".join(octui_log)
    assert "service.json" in log_text and "the file names other" in log_text  # the log says what happened
    assert "service-local.json" in log_text and fake_service.url in log_text
    assert PASSWORD not in out + err + caplog.text + log_text
    assert PASSWORD not in str(spec.url) and PASSWORD not in repr(spec.notices)
    found = cli._find_service(False)
    assert found.service is not None
    assert PASSWORD not in repr(found) and PASSWORD not in repr(found.service.registration)


def test_no_binary_and_no_service_says_both(state_home: Path, fake_service: FakeService,
                                            captured_spec: list[ConnectSpec], monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    register(state_home, fake_service.url, mode=0o666)
    monkeypatch.setenv("OPENCODE_BIN", str(tmp_path / "missing"))
    assert cli.main([]) == cli.EXIT_UNREACHABLE
    err = capsys.readouterr().err
    assert "0666" in err and "OPENCODE_BIN" in err and PASSWORD not in err
    assert captured_spec == []


def test_registry_mode_check_uses_the_real_file_mode(state_home: Path, fake_service: FakeService) -> None:
    path = register(state_home, fake_service.url)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    registration = read_registration(path)
    assert registration is not None and registration.url == fake_service.url
    assert PASSWORD not in repr(registration)


@pytest.mark.parametrize("origin", ["service", "private"])
async def test_status_line_says_which_server(origin: str) -> None:
    from tests.snapshots.main_app import SIZE, MainApp, wait_connected
    from widgets.status.status_bar import StatusBar

    app = MainApp()
    app.spec.origin = origin
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot)
        status = app.screen.query_one(StatusBar)
        for _ in range(100):  # bounded: the status refreshes once the health answer is in
            if status.info.server:
                break
            await pilot.pause(0.02)
        assert status.info.server.startswith(f"{origin} · ")
        assert f"{origin} · " in str(status.render())


SID = "ses_service0001"


def _serve_a_session(service: FakeService) -> None:
    service.routes[f"/api/session/{SID}"] = {"data": {
        "id": SID, "title": "On the service", "time": {"created": 1, "updated": 2},
        "location": {"directory": "/home/demo"}}}
    service.routes[f"/api/session/{SID}/message"] = {"data": [
        {"id": "msg_a1", "type": "assistant", "time": {"created": 2, "completed": 3}, "finish": "stop",
         "content": [{"type": "text", "text": "Answered on the service."}]},
        {"id": "msg_u1", "type": "user", "time": {"created": 1}, "text": "Hello service"}],
        "cursor": {"previous": None, "next": None}}


def test_export_reads_the_service_s_sessions_unless_standalone(
    state_home: Path, fake_service: FakeService, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import asyncio

    register(state_home, fake_service.url)
    _serve_a_session(fake_service)
    started: list[str] = []

    class PrivateServer:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            started.append("private")

        async def start(self, cwd: str) -> Any:
            raise cli.OctuiError("no private server in this test")

        async def stop(self) -> None:
            return None

    monkeypatch.setattr(cli, "LocalServer", PrivateServer)
    text = asyncio.run(cli._export_text(SID, "json", None, str(tmp_path)))
    exported = json.loads(text)
    assert exported["id"] == SID and exported["title"] == "On the service"
    assert [m["role"] for m in exported["messages"]] == ["user", "assistant"]
    assert started == [] and PASSWORD not in text
    with pytest.raises(cli.OctuiError, match="no private server"):
        asyncio.run(cli._export_text(SID, "json", None, str(tmp_path), standalone=True))
    assert started == ["private"]
    # From the command line: "export --standalone" reaches the private path too.
    monkeypatch.setenv("OCTUI_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.setenv("OCTUI_STATE_DIR", str(tmp_path / "octui-state"))
    assert cli.main(["export", SID, "--standalone"]) != 0
    assert started == ["private", "private"]
    assert cli.main(["export", SID]) == 0
    out, err = capsys.readouterr()
    assert "Answered on the service." in out and PASSWORD not in out + err
