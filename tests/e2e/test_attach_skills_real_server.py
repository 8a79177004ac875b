"""Skills in the ``/`` completion and local file attachments, against the real ``opencode serve``.

What 1.18.33 does (checked live; these tests pin it):

* ``GET /api/skill`` lists skills without an ``id`` (the name is the key) and without ``slash``;
  the built-in ``customize-opencode`` is always there. Skills added to the project after the
  server started are not listed until it restarts, so the tests use the built-in one.
* There is no ``POST /api/session/{id}/skill`` and the prompt body has no ``skills``: a ``/skill``
  draft goes as text. The model is offered a ``skill`` tool, and calling it returns the skill's
  content (``<skill_content name=…>``), which is how a skill reaches the model on 1.18.
* A prompt ``files`` entry with a ``data:image/png`` URL is stored with ``mime: image/png`` and
  reaches an OpenAI-compatible model as an ``image_url`` part, even though the model is configured
  with ``attachment: false``. A ``data:text/markdown`` file ends the turn before any LLM request
  with "OpenAI Chat does not support media type text/markdown", and every later turn of the
  session too: octui (its ``text_files`` capability, told by behaviour) does not attach one there.

What a 2.x server does instead (traces-2.0): skills carry an ``id`` (the built-in one lives at
``/builtin/…``), a bare ``/skill`` is ``POST /api/session/{id}/skill``, answered by
``session.skill.activated {id, name, text}`` (the skill's ``content``), and the model's next
request gets that text as a user message (TRACES.md 5). Its stored attachments are
``{data, mime, source, name}``. How it passes an image or a text file to this text-only model was
not recorded: those tests accept either outcome a server may choose, each with its own checks.
"""

from __future__ import annotations

import asyncio
import base64
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.app_driver import AppDriver, running_app
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.server import EventRecorder, RealServer
from widgets.composer.attachment_bar import AttachmentBar
from widgets.composer.attachment_chip import AttachmentChip
from widgets.composer.completion import CompletionMenu
from widgets.composer.composer import Composer

pytestmark = pytest.mark.e2e

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ"
                       "/pLvAAAAAElFTkSuQmCC")
BUILTIN_SKILL = "customize-opencode"


@pytest.fixture(autouse=True)
def isolated_octui_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OCTUI_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("OCTUI_STATE_DIR", str(tmp_path / "state"))


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


async def _get(server: RealServer, path: str, **params: Any) -> Any:
    def get() -> Any:
        with server.client() as http:
            where = server.wire.location_params(str(server.project_dir))
            response = http.get(path, params={**where, **params})
            response.raise_for_status()
            return response.json()["data"]

    return await asyncio.to_thread(get)


def _menu(driver: AppDriver, answering: tuple[str, str]) -> list[tuple[str, str]]:
    menu = driver.main.query_one(CompletionMenu)
    if not menu.is_open or menu.context_key != answering:
        return []
    return [(item.value, item.tag) for item in menu.items]


def _chips(driver: AppDriver) -> list[str]:
    bar = driver.main.query_one(AttachmentBar)
    return [chip.key for chip in bar.query(AttachmentChip)] if bar.display else []


async def _attach(driver: AppDriver, name: str) -> None:
    composer = driver.main.query_one(Composer)
    composer.text = f"/attach {name}"
    await driver.pilot.press("enter")
    await driver.wait_until(lambda: any(k.endswith("/" + name) for k in _chips(driver)), f"the {name} chip")


def _stored(server: RealServer, file: dict[str, Any]) -> tuple[str, str, str]:
    """(name, mime, content as a data URL) of a stored user attachment, either generation."""
    if server.wire.v2:  # {data: base64, mime, source, name}
        uri = server.wire.attachment_uri(file) or f"data:{file['mime']};base64,{file['data']}"
        return file.get("name", ""), file["mime"], uri
    return file["name"], file["mime"], file["uri"]


async def test_skills_are_listed_marked_and_reach_the_model_through_its_skill_tool(
    live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder
) -> None:
    if live_server.wire.v2:
        await _skill_activation_on_2x(live_server, fake_llm, events)
        return
    name = unique("skill")
    tag = fake_llm.add_scenario(name, [
        {"tool_calls": [{"name": "skill", "arguments": {"name": BUILTIN_SKILL}}]},
        {"text": f"Skill loaded ({name})."},
    ])
    listed = await _get(live_server, "/api/skill")
    assert all("id" not in s and "slash" not in s for s in listed)  # 1.18: name is the key
    names = [s["name"] for s in listed]
    assert BUILTIN_SKILL in names
    commands = [c["name"] for c in await _get(live_server, "/api/command")]
    sid = live_server.create_session()["id"]

    async with running_app(live_server, session_id=sid) as driver:
        composer = driver.main.query_one(Composer)
        composer.focus()
        await driver.pilot.press("/")
        items = await driver.wait_until(lambda: _menu(driver, ("slash", "")), "the / menu")
        assert items[: len(commands)] == [(c, "") for c in commands]
        skills = [(n, "skill") for n in names if n not in commands]
        assert items[len(commands): len(commands) + len(skills)] == skills  # after commands, marked
        await driver.pilot.press(*"customize-o")
        top = [(BUILTIN_SKILL, "skill")]
        await driver.wait_until(lambda: _menu(driver, ("slash", "customize-o"))[:1] == top, "skill first")
        await driver.pilot.press("tab")
        assert composer.text == f"/{BUILTIN_SKILL} "
        composer.insert(f"check my config {tag}")
        await driver.pilot.press("enter")
        await driver.wait_for_text(f"Skill loaded ({name}).", timeout=20)

    first, second = fake_llm.wait_for_requests(name, 2, timeout=10)
    user = [m for m in first["body"]["messages"] if m["role"] == "user"][-1]
    assert user["content"] == f"/{BUILTIN_SKILL} check my config {tag}"  # sent as typed on 1.18
    tool_result = second["body"]["messages"][-1]
    assert tool_result["role"] == "tool"
    assert f'<skill_content name="{BUILTIN_SKILL}">' in tool_result["content"]


async def _skill_activation_on_2x(live_server: RealServer, fake_llm: FakeLLM, events: EventRecorder) -> None:
    """2.x: the / menu lists the server's skills after its commands; a bare /skill activates it."""
    listed = await _get(live_server, "/api/skill")
    assert listed and all(s.get("id") for s in listed)  # 2.x: every skill has an id
    builtin = next(s for s in listed if str(s.get("location", "")).startswith("/builtin/"))
    commands = [c["name"] for c in await _get(live_server, "/api/command")]
    names = [s["name"] for s in listed if s.get("slash") is not False and s["name"] not in commands]
    name = unique("skill")
    tag = fake_llm.add_scenario(name, [{"text": f"Ready ({name})."}, {"text": f"Skill applied ({name})."}])
    sid = live_server.create_session()["id"]

    async with running_app(live_server, session_id=sid) as driver:
        await driver.type_prompt(f"Get ready. {tag}")
        await driver.wait_for_text(f"Ready ({name}).", timeout=30)
        await driver.wait_until(lambda: not driver.state.busy, "the first turn to end", timeout=30)
        composer = driver.main.query_one(Composer)
        composer.focus()
        await driver.pilot.press("/")
        items = await driver.wait_until(lambda: _menu(driver, ("slash", "")), "the / menu")
        assert items[: len(commands)] == [(c, "") for c in commands]
        assert items[len(commands): len(commands) + len(names)] == [(n, "skill") for n in names]
        query = builtin["name"][:5]
        await driver.pilot.press(*query)
        await driver.wait_until(lambda: _menu(driver, ("slash", query))[:1] == [(builtin["name"], "skill")],
                                "the built-in skill first")
        await driver.pilot.press("tab")
        assert composer.text == f"/{builtin['name']} "
        await driver.pilot.press("enter")  # bare: activate it
        await driver.wait_for_text(f"Skill applied ({name}).", timeout=30)

    sid_only = lambda d: d.get("sessionID") == sid  # noqa: E731
    (activated,) = events.of_type("session.skill.activated", sid_only)
    assert activated["data"]["id"] == builtin["id"] and activated["data"]["text"] == builtin["content"]
    first, second = fake_llm.wait_for_requests(name, 2, timeout=10)
    users = [m for m in second["body"]["messages"] if m["role"] == "user"]
    assert users[-1]["content"] == builtin["content"]  # the skill reached the model (TRACES.md 5)


async def test_an_attached_image_reaches_the_model_inline(
    live_server: RealServer, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    name = unique("attach-image")
    tag = fake_llm.add_scenario(name, [{"text": f"A red dot ({name})."}])
    (tmp_path / "dot.png").write_bytes(PNG)
    sid = live_server.create_session()["id"]

    async with running_app(live_server, session_id=sid) as driver:
        driver.main.composer.attach_base = str(tmp_path)
        await _attach(driver, "dot.png")
        composer = driver.main.query_one(Composer)
        composer.text = f"What is in the picture? {tag}"
        await driver.pilot.press("enter")
        ended = await driver.wait_until(
            lambda: next((m for m in driver.messages() if m.role == "assistant" and (m.error or m.finish)),
                         None),
            "the turn to end", timeout=20)
        assert _chips(driver) == []  # sent: the chip row is empty again
        if live_server.wire.v2 and not fake_llm.requests_for(name):
            # A 2.x server may refuse an image for this text-only model (the 2.x config gives it
            # input ["text"]) before calling it: then octui must say why, and the file stays stored.
            assert ended.error is not None and ended.error.message.strip()
            await driver.wait_for_text(ended.error.message.splitlines()[0][:40])
        else:
            await driver.wait_for_text(f"A red dot ({name}).", timeout=20)

    data_uri = "data:image/png;base64," + base64.b64encode(PNG).decode()
    if not live_server.wire.v2 or fake_llm.requests_for(name):
        (request,) = fake_llm.wait_for_requests(name, 1, timeout=5)
        user = [m for m in request["body"]["messages"] if m["role"] == "user"][-1]
        assert {"type": "image_url", "image_url": {"url": data_uri}} in user["content"]
    history = await _get(live_server, f"/api/session/{sid}/message", order="asc")
    (stored,) = [m for m in history if m["type"] == "user"]
    assert [_stored(live_server, f) for f in stored["files"]] == [("dot.png", "image/png", data_uri)]


async def test_an_attached_text_file_reaches_the_model_or_is_refused_before_it_breaks_the_session(
    live_server: RealServer, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    name = unique("attach-text")
    tag = fake_llm.add_scenario(name, [{"text": f"Never sent ({name})."}])
    (tmp_path / "notes.md").write_text("# Notes\n\nremember the milk\n", encoding="utf-8")
    sid = live_server.create_session()["id"]

    async with running_app(live_server, session_id=sid) as driver:
        caps = driver.app.session.caps
        assert caps is not None
        driver.main.composer.attach_base = str(tmp_path)
        composer = driver.main.query_one(Composer)
        if not caps.text_files:
            # 1.18.33 hands a text file to the provider as media: refused, and every later turn
            # of the session fails on it. octui does not attach it, and says how to share it.
            composer.text = "/attach notes.md"
            await driver.pilot.press("enter")
            await driver.wait_until(
                lambda: any("Not attached" in str(n.message) for n in driver.app._notifications),
                "the refusal")
            assert _chips(driver) == [] and "@notes.md" in next(
                str(n.message) for n in driver.app._notifications if "Not attached" in str(n.message))
            return
        await _attach(driver, "notes.md")
        composer.text = f"Summarise the notes {tag}"
        await driver.pilot.press("enter")
        ended = await driver.wait_until(
            lambda: next((m for m in driver.messages() if m.role == "assistant" and (m.error or m.finish)),
                         None),
            "the turn to end", timeout=20)
        if fake_llm.requests_for(name):  # a server that inlines text files: the model reads them
            assert "remember the milk" in json.dumps(fake_llm.requests_for(name)[0]["body"]["messages"])
            await driver.wait_for_text(f"Never sent ({name}).")
        else:  # refused before the model, as it may be: octui says why
            assert ended.error is not None and ended.error.message.strip()
            await driver.wait_for_text(ended.error.message.splitlines()[0][:40])

    history = await _get(live_server, f"/api/session/{sid}/message", order="asc")
    (stored,) = [m for m in history if m["type"] == "user"]
    text = base64.b64encode(b"# Notes\n\nremember the milk\n").decode()
    assert [_stored(live_server, f) for f in stored["files"]] == [
        ("notes.md", "text/markdown", f"data:text/markdown;base64,{text}")]
