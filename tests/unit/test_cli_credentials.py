"""Credentials: --password-file, a clear-text warning for remote http, user-only state files."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.unit.test_bounded_read import within
from tui.app import cli
from tui.client.errors import ServerUnreachable


@pytest.fixture
def probe(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, str | None]]:
    """Record what the start-up probe would send, then fail it so no UI starts."""
    calls: list[tuple[str, str, str | None]] = []

    async def fake(url: str, username: str, password: str | None) -> None:
        calls.append((url, username, password))
        raise ServerUnreachable(url, "test stops here")

    monkeypatch.setattr(cli, "_probe", fake)
    return calls


def test_password_file_is_read_and_never_printed(tmp_path: Path, probe: list[Any],
                                                 capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENCODE_SERVER_PASSWORD", raising=False)
    secret = tmp_path / "pw"
    secret.write_text("s3cret-from-file\n")
    code = cli.main(["--url", "http://127.0.0.1:4096", "--password-file", str(secret)])
    assert code == cli.EXIT_UNREACHABLE
    assert probe == [("http://127.0.0.1:4096", "opencode", "s3cret-from-file")]
    captured = capsys.readouterr()
    assert "s3cret" not in captured.out + captured.err


def test_unreadable_password_file_is_a_usage_error(tmp_path: Path, probe: list[Any],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["--url", "http://127.0.0.1:4096", "--password-file", str(tmp_path / "missing")])
    assert code == cli.EXIT_USAGE
    assert probe == []
    assert "cannot read --password-file" in capsys.readouterr().err


@pytest.mark.parametrize("content,password", [
    (b"pw\n", "pw"), (b"pw", "pw"), (b"pw\r\n", "pw"), (b" spaced pw \n", " spaced pw "),
    ("pässwörd\n".encode(), "pässwörd"),
])
def test_password_file_drops_one_newline_only(tmp_path: Path, probe: list[Any], content: bytes,
                                              password: str) -> None:
    secret = tmp_path / "pw"
    secret.write_bytes(content)
    code = cli.main(["--url", "http://127.0.0.1:4096", "--password-file", str(secret)])
    assert code == cli.EXIT_UNREACHABLE
    assert probe == [("http://127.0.0.1:4096", "opencode", password)]


def _bad_password_files(root: Path) -> dict[str, tuple[str, str]]:
    """name -> (path, the message expected): every kind of file that is no password file."""
    (root / "latin1").write_bytes(b"p\xe4ss\n")
    (root / "empty").write_bytes(b"")
    (root / "newline-only").write_bytes(b"\n")
    (root / "two-lines").write_bytes(b"pw\n\n")
    with (root / "huge").open("wb") as handle:
        handle.truncate(64 * 1024 * 1024)  # sparse: big by its size, costs no disk
    os.mkfifo(root / "fifo")
    (root / "dir").mkdir()
    cases = {
        "latin1": ("latin1", "is not UTF-8 text (byte 2 is invalid)"),
        "empty": ("empty", "is empty; put the password in it"),
        "newline-only": ("newline-only", "is empty; put the password in it"),
        "two-lines": ("two-lines", "holds more than one line"),
        "huge": ("huge", "is 64 MB; a password file holds one line (at most 4.0 KB)"),
        "fifo": ("fifo", "is a named pipe (FIFO) with nothing writing to it"),
        "dir": ("dir", "is a directory"),
        "missing": ("missing", "cannot read --password-file"),
    }
    found = {name: (str(root / path), message) for name, (path, message) in cases.items()}
    if os.path.exists("/dev/zero"):
        found["dev-zero"] = ("/dev/zero", "is a character device, not a regular file")
    return found


@pytest.mark.parametrize("name", ["latin1", "empty", "newline-only", "two-lines", "huge", "fifo", "dir",
                                  "missing", "dev-zero"])
def test_bad_password_files_are_one_clear_usage_error(tmp_path: Path, probe: list[Any], name: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    cases = _bad_password_files(tmp_path)
    if name not in cases:
        pytest.skip(f"{name} does not exist here")
    path, message = cases[name]
    code = within(10.0, lambda: cli.main(["--url", "http://127.0.0.1:4096", "--password-file", path]))
    assert code == cli.EXIT_USAGE
    assert probe == []
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("octui: "), err
    assert message in err
    assert "Traceback" not in err


def test_a_pipe_that_delivers_is_read(tmp_path: Path, probe: list[Any]) -> None:
    read_end, write_end = os.pipe()  # what ``--password-file <(pass show x)`` hands over
    os.write(write_end, b"from-a-pipe\n")
    os.close(write_end)
    try:
        code = cli.main(["--url", "http://127.0.0.1:4096", "--password-file", f"/dev/fd/{read_end}"])
    finally:
        os.close(read_end)
    assert code == cli.EXIT_UNREACHABLE
    assert probe == [("http://127.0.0.1:4096", "opencode", "from-a-pipe")]


@pytest.mark.parametrize("url,warned", [("http://10.1.2.3:4096", True), ("http://build.example:80", True),
                                        ("https://build.example", False), ("http://127.0.0.1:4096", False),
                                        ("http://localhost:4096", False)])
def test_cleartext_warning_only_for_remote_http(url: str, warned: bool, probe: list[Any],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    cli.main(["--url", url])
    err = capsys.readouterr().err
    assert ("not encrypted" in err) is warned
    assert err.count("not encrypted") <= 1


def test_state_dir_and_log_are_user_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         probe: list[Any]) -> None:
    import logging

    state = tmp_path / "state"
    monkeypatch.setenv("OCTUI_STATE_DIR", str(state))
    logger = logging.getLogger("octui")
    saved = list(logger.handlers)
    logger.handlers.clear()
    try:
        cli.main(["--url", "http://127.0.0.1:4096"])
        assert stat.S_IMODE(state.stat().st_mode) == 0o700
        assert stat.S_IMODE((state / "octui.log").stat().st_mode) == 0o600
    finally:
        for handler in logger.handlers:
            handler.close()
        logger.handlers[:] = saved


def test_saved_config_is_user_only(tmp_path: Path) -> None:
    from tui.storage.config import Config, save_config

    path = tmp_path / "cfg" / "config.toml"
    save_config(Config(), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_probe_thread_hands_back_failures_and_raises_bugs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The start-up probe runs in a thread while the UI loads: a server's refusal comes back as
    the error to report, anything else is raised in the main thread, not lost in the thread."""
    async def refused(url: str, username: str, password: str | None) -> None:
        raise ServerUnreachable(url, "refused")

    async def broken(url: str, username: str, password: str | None) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(cli, "_probe", refused)
    failure = cli._Probe(cli.Connection("http://127.0.0.1:9", "opencode", None)).result()
    assert isinstance(failure, ServerUnreachable)
    monkeypatch.setattr(cli, "_probe", broken)
    with pytest.raises(KeyError):
        cli._Probe(cli.Connection("http://127.0.0.1:9", "opencode", None)).result()
