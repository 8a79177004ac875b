"""Credentials: --password-file, a clear-text warning for remote http, user-only state files."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest

from tui import cli
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
    from tui.config import Config, save_config

    path = tmp_path / "cfg" / "config.toml"
    save_config(Config(), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
