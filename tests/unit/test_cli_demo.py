"""``octui --demo --demo-generation NAME``: which generation the built-in server speaks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tui.app import cli
from tui.app.app import OctuiApp
from tui.demo.generation import DemoGeneration


@pytest.fixture
def ran(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[OctuiApp]:
    apps: list[OctuiApp] = []

    def fake_run(self: OctuiApp, *args: Any, **kwargs: Any) -> int:
        apps.append(self)
        return 0

    monkeypatch.setattr(OctuiApp, "run", fake_run)
    monkeypatch.setattr(cli, "_stop_local_server_on_signals", lambda app: None)
    monkeypatch.setenv("OCTUI_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.setenv("OCTUI_STATE_DIR", str(tmp_path / "state"))
    return apps


@pytest.mark.parametrize(("argv", "generation"), [
    (["--demo"], DemoGeneration.V2),
    (["--demo", "--demo-generation", "v2"], DemoGeneration.V2),
    (["--demo", "--demo-generation", "2.0-preview"], DemoGeneration.PREVIEW),
])
def test_demo_generation_flag(ran: list[OctuiApp], argv: list[str], generation: DemoGeneration) -> None:
    assert cli.main(argv) == 0
    (app,) = ran
    assert app.demo is not None and app.demo.generation is generation
    assert app.spec.transport is app.demo.transport


def test_demo_generation_without_demo_is_a_usage_error(ran: list[OctuiApp],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["--demo-generation", "2.0-preview"])
    assert info.value.code == 2 and "--demo-generation needs --demo" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["--demo", "--demo-generation", "1.9"])
    assert ran == []


def test_each_demo_run_has_session_ids_of_its_own(ran: list[OctuiApp]) -> None:
    """Settings and drafts are kept per session id: a second run must not get the first's (QA:
    "full access" set in one demo run was on in the next, and its shell ran without asking)."""
    assert cli.main(["--demo"]) == 0
    assert cli.main(["--demo"]) == 0
    first, second = (app.demo.create_session(title="t")["id"] for app in ran if app.demo is not None)
    assert first != second
    assert first.startswith("ses_") and second.startswith("ses_")
