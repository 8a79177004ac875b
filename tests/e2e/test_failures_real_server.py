"""A first prompt with no provider reachable, against the real ``opencode serve``.

The server's only provider (``mock``) points at a closed port. 1.18.33 then ends the turn with
``step.failed{error:{type:"unknown", message:"HTTP transport failed"}}`` after a ``step.started``
that names the model. octui must say which model and provider failed, the cause as the server
gave it and the fix, and write the same to its log.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.app_driver import running_app
from tests.e2e.fixtures import free_port
from tests.e2e.server import MODEL_ID, MODEL_PROVIDER, RealServer, make_workspace
from tui.text.failures import FIX

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def offline_server(opencode_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealServer]:
    """A real server whose provider URL is a port nothing listens on."""
    root = tmp_path_factory.mktemp("opencode-offline")
    project, env = make_workspace(root, f"http://127.0.0.1:{free_port()}/v1")
    server = RealServer(opencode_bin, project, env, root / "opencode.log")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def isolated_octui_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OCTUI_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("OCTUI_STATE_DIR", str(tmp_path / "state"))


async def test_unreachable_provider_names_model_cause_and_fix(
    offline_server: RealServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="octui")
    async with running_app(offline_server) as driver:
        await driver.type_prompt("hello")
        failed = await driver.wait_for_message(lambda m: m.error is not None, "the failed turn", 20)
        assert failed.error is not None
        assert (failed.error.type, failed.error.message) == ("unknown", "HTTP transport failed")
        headline = f"✗ model {MODEL_ID} (provider {MODEL_PROVIDER}) failed: HTTP transport failed"
        screen = await driver.wait_for_text(headline)
        assert "Fix: Ctrl+K picks another model" in screen
        assert FIX.startswith("Fix: Ctrl+K")
    logged = [r.getMessage() for r in caplog.records if r.name == "octui" and "turn failed" in r.getMessage()]
    assert logged == [f"turn failed in {failed.session_id}: model {MODEL_ID} (provider {MODEL_PROVIDER}): "
                      "HTTP transport failed [type unknown]"]


async def test_slash_model_and_agent_are_checked_against_the_live_catalog(live_server: RealServer) -> None:
    """1.18.33 accepts any model or agent (204) and then does nothing at the next prompt: octui
    must refuse a name the catalog lacks, send nothing, and keep the draft."""
    session = live_server.create_session()
    async with running_app(live_server, session_id=session["id"]) as driver:
        from widgets.composer.composer import Composer

        composer = driver.main.query_one(Composer)
        for draft, toast in [("/model bogus", "unknown model 'bogus' — Ctrl+K lists the models"),
                             ("/agent bogus", "unknown agent 'bogus' — Ctrl+L lists the agents")]:
            composer.text = draft
            await driver.pilot.press("enter")
            await driver.wait_until(lambda t=toast: t in [n.message for n in driver.app._notifications],
                                    f"the toast {toast!r}", 15)
            assert composer.text == draft
        composer.text = "/agent plan"
        await driver.pilot.press("enter")
        await driver.wait_until(lambda: driver.state.info is not None and driver.state.info.agent == "plan",
                                "the agent switch", 15)
        assert composer.text == ""
    with live_server.client() as http:
        messages = http.get(f"/api/session/{session['id']}/message").json()["data"]
    assert [m["type"] for m in messages] == ["agent-switched"]  # no prompt, no bogus switch
    assert messages[0]["agent"] == "plan"
