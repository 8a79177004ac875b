"""Daily-driver assists against the real ``opencode serve``: model/agent pickers, ``@`` mentions, ``/``.

Each test drives octui with keys (headless ``App.run_test``) and checks what reached the server
(its events and message history) and the fake LLM (the request body), not only the screen.

Findings on 1.18.33 that shape these tests:

* ``/api/model`` lists the configured ``mock`` provider plus the built-in ``opencode`` free models.
* ``/api/fs/find`` answers ``[]`` for a query with an underscore (``notes_``), while ``notes``
  finds ``notes_x.md``; the mention file here therefore has no underscore in what is typed.
* A prompt ``files`` entry (``file://`` URI) is accepted and stored as an attachment, but 1.18
  passes it to the provider as a media part; the OpenAI-compatible provider refuses text media
  (``OpenAI Chat does not support media type text/plain``), so the turn ends in an error and no
  LLM request is made. The test pins that honest behaviour.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from tests.e2e.app_driver import AppDriver, running_app
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.server import EventRecorder, RealServer
from tui.protocol.models import AgentInfo
from tui.screens.agent_picker import AgentPicker
from tui.screens.main import HOME_TEXT, MainScreen
from tui.screens.model_picker import ModelPicker
from tui.session.commands import switchable_agents
from widgets.composer.completion import CompletionMenu
from widgets.composer.composer import Composer
from widgets.composer.local_commands import LOCAL_COMMANDS

pytestmark = pytest.mark.e2e


@pytest.fixture(autouse=True)
def isolated_octui_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pickers remember recent models in the state store: keep it out of the user's files."""
    monkeypatch.setenv("OCTUI_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("OCTUI_STATE_DIR", str(tmp_path / "state"))


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


async def _get(server: RealServer, path: str, **params: Any) -> Any:
    """``GET path`` over raw HTTP (off the app's event loop); returns ``data``."""

    def get() -> Any:
        with server.client() as http:
            where = server.wire.location_params(str(server.project_dir))
            response = http.get(path, params={**where, **params})
            response.raise_for_status()
            return response.json()["data"]

    return await asyncio.to_thread(get)


async def _server_messages(server: RealServer, session_id: str) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = await _get(server, f"/api/session/{session_id}/message", order="asc")
    return data


def _switches(events: EventRecorder, session_id: str, what: str) -> list[dict[str, Any]]:
    """The session's ``{what}`` switch events (1.18 ``session.next.{what}.switched``, 2.x
    ``session.{what}.selected``)."""
    kind = events.server.wire.ev(f"{what}.switched")
    return events.of_type(kind, lambda data: data.get("sessionID") == session_id)


async def _pick(driver: AppDriver, key: str, kind: type[Any], query: str) -> Any:
    """Open a picker with ``key``, filter it with ``query``; returns the picker (not yet chosen)."""
    await driver.pilot.press(key)
    picker = await driver.wait_for_screen(kind)
    await driver.pilot.pause()
    picker.query_one(Input).value = query
    await driver.wait_until(lambda: picker.shown and picker.query_one(Input).value == query,
                            f"the picker filtered by {query!r}")
    await driver.pilot.pause()
    return picker


def _menu_values(driver: AppDriver, answering: tuple[str, str] | None = None) -> list[str]:
    """The open completion menu's values (only once it answers ``answering`` = (kind, query))."""
    menu = driver.main.query_one(CompletionMenu)
    if not menu.is_open or (answering is not None and menu.context_key != answering):
        return []
    return [item.value for item in menu.items]


# --------------------------------------------------------------------------------------------
# Model and agent pickers
# --------------------------------------------------------------------------------------------


async def test_model_picker_lists_server_models_switches_once_and_the_llm_gets_that_model(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder
) -> None:
    name = unique("daily-model")
    answer = f"Answered by the picked model ({name})."
    tag = fake_llm.add_scenario(name, [{"text": answer}])
    sid = live_server.create_session()["id"]
    served = [m for m in await _get(live_server, "/api/model") if m.get("enabled", True)]

    async with running_app(live_server, session_id=sid) as driver:
        picker = await _pick(driver, "ctrl+k", ModelPicker, "fake-model")
        listed = {(e.value.providerID, e.value.id) for e in picker.entries if e.group != "Recent"}
        assert listed == {(m["providerID"], m["id"]) for m in served}  # the list is the server's
        # ... those it marks deprecated last, under their own heading (QA: thirty of them first)
        deprecated = {(m["providerID"], m["id"]) for m in served if m.get("status") == "deprecated"}
        last = {(e.value.providerID, e.value.id) for e in picker.entries if e.group == "Deprecated"}
        assert last == deprecated
        assert ("mock", "fake-model") in listed
        if not live_server.wire.v2:  # 1.18 adds its built-in free models; 2.x lists the configured one
            assert len(listed) > 1
        chosen = picker.shown[0].value
        assert (chosen.providerID, chosen.id, chosen.variant) == ("mock", "fake-model", None)
        await driver.pilot.press("enter")
        await driver.wait_for_screen(MainScreen)
        await driver.wait_until(lambda: _switches(events, sid, "model"), "the model switch event")
        await driver.wait_until(
            lambda: (info := driver.state.info) is not None and info.model is not None
            and info.model.id == "fake-model",
            "octui to know the session's model",
        )

        # The model already in use: the picker marks it current and choosing it sends nothing.
        picker = await _pick(driver, "ctrl+k", ModelPicker, "fake-model")
        assert picker.shown[0].current
        await driver.pilot.press("enter")
        await driver.wait_for_screen(MainScreen)

        await driver.type_prompt(f"Which model are you? {tag}")
        await driver.wait_for_text(answer)
        request = fake_llm.wait_for_requests(name, 1, timeout=5)[0]["body"]
        assert request["model"] == "fake-model"
        assert len(_switches(events, sid, "model")) == 1

    history = await _server_messages(live_server, sid)
    assert [m["type"] for m in history].count("model-switched") == 1
    assistant = next(m for m in history if m["type"] == "assistant")
    assert (assistant["model"]["providerID"], assistant["model"]["id"]) == ("mock", "fake-model")


async def test_agent_picker_lists_primary_agents_and_plan_answers_the_next_prompt(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder
) -> None:
    name = unique("daily-agent")
    answer = f"The plan agent answers ({name})."
    tag = fake_llm.add_scenario(name, [{"text": answer}])
    sid = live_server.create_session()["id"]
    w = live_server.wire
    raw_agents = await _get(live_server, "/api/agent")
    agents = [AgentInfo.model_validate(a) for a in raw_agents]
    prompts = {a["id"]: str(a.get("system") or "") for a in raw_agents}
    if not w.v2:
        assert prompts["build"]  # 1.18.33: build has its own system prompt, plan has none
    else:
        assert not prompts["build"]  # 2.x: neither has one (traces-2.0 rest_probes /api/agent)
    expected = [a.id or a.name for a in switchable_agents(agents)]
    assert {"build", "plan"} <= set(expected)

    async with running_app(live_server, session_id=sid) as driver:
        await driver.pilot.press("ctrl+l")
        picker = await driver.wait_for_screen(AgentPicker)
        await driver.pilot.pause()
        assert [e.value for e in picker.entries] == expected  # primary, non-hidden, server order
        hidden_or_sub = {a.id for a in agents if a.hidden or a.mode not in ("primary", "all")}
        assert hidden_or_sub.isdisjoint(e.value for e in picker.entries)
        picker.query_one(Input).value = "plan"
        await driver.wait_until(lambda: picker.shown and picker.shown[0].value == "plan", "plan first")
        await driver.pilot.press("enter")
        await driver.wait_for_screen(MainScreen)
        switched = await driver.wait_until(lambda: _switches(events, sid, "agent"), "the agent switch event")
        assert switched[0]["data"].get("agent") == "plan"
        await driver.wait_until(lambda: driver.main.current_agent() == "plan", "octui to know the agent")

        await driver.type_prompt(f"Plan something. {tag}")
        await driver.wait_for_text(answer)
        await driver.wait_until(
            lambda: any(m.role == "assistant" and m.agent == "plan" and m.finish == "stop"
                        for m in driver.messages()),
            "an assistant message by plan",
        )
        request = fake_llm.wait_for_requests(name, 1, timeout=5)[0]["body"]
        system = " ".join(str(m.get("content")) for m in request["messages"] if m.get("role") == "system")
        if prompts["build"]:
            assert prompts["build"] not in system  # the request was not made as the build agent
        if prompts["plan"]:
            assert prompts["plan"] in system
        if w.v2:  # 2.x names the step's agent (TRACES.md: step.started {agent})
            started = events.of_type(w.ev("step.started"), lambda d: d.get("sessionID") == sid)
            assert started and {e["data"]["agent"] for e in started} == {"plan"}

    history = await _server_messages(live_server, sid)
    assert [m.get("agent") for m in history if m["type"] == "agent-switched"] == ["plan"]
    assert [m.get("agent") for m in history if m["type"] == "assistant"] == ["plan"]


# --------------------------------------------------------------------------------------------
# @ file mentions
# --------------------------------------------------------------------------------------------


async def test_at_mention_completes_from_the_server_and_sends_the_file_where_it_can(
    live_server: RealServer, fake_llm: FakeLLM
) -> None:
    stem = f"dailynotes{uuid.uuid4().hex[:8]}"  # no underscore: 1.18's fs/find misses "notes_"
    filename = f"{stem}.md"
    path = live_server.project_dir / filename
    path.write_text(f"Known content of {stem}.\n", encoding="utf-8")
    name = unique("daily-mention")
    tag = fake_llm.add_scenario(name, [{"text": f"Read it ({name})."}])
    sid = live_server.create_session()["id"]
    try:
        async with running_app(live_server, session_id=sid) as driver:
            composer = driver.main.query_one(Composer)
            composer.focus()
            await driver.pilot.press("@", *stem[:12])
            values = await driver.wait_until(
                lambda: _menu_values(driver, ("mention", stem[:12])), "the @ menu for the typed query"
            )
            assert filename in values
            found = [f["path"] for f in await _get(live_server, "/api/fs/find", query=stem[:12], limit=20)]
            assert values == found  # the menu is the server's answer
            await driver.pilot.press("tab")
            await driver.wait_until(lambda: composer.text.startswith(f"@{filename}"), "the mention accepted")
            assert composer.mentioned == {filename}
            composer.insert(f"summarise {tag}")
            await driver.pilot.pause()
            text = composer.text
            assert text == f"@{filename} summarise {tag}"
            text_files = driver.app.session.client.dialect.caps.text_files  # (found by behaviour)
            await driver.pilot.press("enter")
            await driver.wait_until(lambda: composer.text == "", "the prompt to be sent")
            sent = await driver.wait_until(
                lambda: next((m for m in driver.messages() if m.role == "assistant" and m.finish), None),
                "the turn to end",
            )

        history = await _server_messages(live_server, sid)
        user = next(m for m in history if m["type"] == "user")
        assert user["text"] == text
        w = live_server.wire
        requests = fake_llm.requests_for(name)
        if text_files:
            assert [(f["name"], w.attachment_uri(f)) for f in user["files"]] == [(filename, path.as_uri())]
            assert user["files"][0]["mime"] == "text/markdown"
            if requests:  # a server that inlines text attachments: the content reaches the model
                assert f"Known content of {stem}." in str(requests[-1]["body"]["messages"])
        else:
            # 1.18.33 hands a text attachment to the provider as media, which refuses text/*, and
            # every later turn of the session fails too: the mention stays text, the turn works,
            # and the model is told the path (its tools read the file).
            assert not user.get("files")
            assert sent.error is None, sent.error
            assert requests and f"@{filename}" in str(requests[-1]["body"]["messages"])
    finally:
        path.unlink(missing_ok=True)


# --------------------------------------------------------------------------------------------
# / commands
# --------------------------------------------------------------------------------------------


async def test_slash_completion_lists_server_and_local_commands_and_new_goes_home(
    live_server: RealServer,
) -> None:
    sid = live_server.create_session()["id"]
    server_commands = [c["name"] for c in await _get(live_server, "/api/command")]
    skills = [s["name"] for s in await _get(live_server, "/api/skill") if s["name"] not in server_commands]

    async with running_app(live_server, session_id=sid) as driver:
        composer = driver.main.query_one(Composer)
        composer.focus()
        await driver.pilot.press("/")
        values = await driver.wait_until(lambda: _menu_values(driver, ("slash", "")), "the / menu")
        assert values[: len(server_commands)] == server_commands  # server commands first
        assert values[len(server_commands): len(server_commands) + len(skills)] == skills  # then skills
        local = [n for n in LOCAL_COMMANDS if n not in server_commands and n not in skills]
        assert values[len(server_commands) + len(skills):] == local
        assert {"model", "new", "agent"} <= set(values)

        await driver.pilot.press(*"new")
        await driver.wait_until(lambda: _menu_values(driver)[:1] == ["new"], "/new first")
        await driver.pilot.press("escape")
        await driver.wait_until(lambda: not _menu_values(driver), "the menu to close")
        assert composer.text == "/new"
        await driver.pilot.press("enter")
        await driver.wait_until(lambda: driver.session_id is None, "the home state")
        await driver.wait_for_text(HOME_TEXT.splitlines()[0])
        assert composer.text == ""
        assert isinstance(driver.app.screen, MainScreen)

    history = await _server_messages(live_server, sid)
    assert history == []  # /new is octui's: nothing was sent to the session
