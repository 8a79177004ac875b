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
  with "OpenAI Chat does not support media type text/markdown".
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
from tests.e2e.server import RealServer
from widgets.attachment_bar import AttachmentBar
from widgets.attachment_chip import AttachmentChip
from widgets.completion import CompletionMenu
from widgets.composer import Composer

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
            response = http.get(path, params={"directory": str(server.project_dir), **params})
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


async def test_skills_are_listed_marked_and_reach_the_model_through_its_skill_tool(
    live_server: RealServer, fake_llm: FakeLLM
) -> None:
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


async def test_an_attached_image_reaches_the_model_inline(
    live_server: RealServer, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    name = unique("attach-image")
    tag = fake_llm.add_scenario(name, [{"text": f"A red dot ({name})."}])
    (tmp_path / "dot.png").write_bytes(PNG)
    sid = live_server.create_session()["id"]

    async with running_app(live_server, session_id=sid) as driver:
        driver.main.attach_base = str(tmp_path)
        await _attach(driver, "dot.png")
        composer = driver.main.query_one(Composer)
        composer.text = f"What is in the picture? {tag}"
        await driver.pilot.press("enter")
        await driver.wait_for_text(f"A red dot ({name}).", timeout=20)
        assert _chips(driver) == []  # sent: the chip row is empty again

    data_uri = "data:image/png;base64," + base64.b64encode(PNG).decode()
    (request,) = fake_llm.wait_for_requests(name, 1, timeout=5)
    user = [m for m in request["body"]["messages"] if m["role"] == "user"][-1]
    assert {"type": "image_url", "image_url": {"url": data_uri}} in user["content"]
    history = await _get(live_server, f"/api/session/{sid}/message", order="asc")
    (stored,) = [m for m in history if m["type"] == "user"]
    assert [(f["name"], f["mime"], f["uri"]) for f in stored["files"]] == [("dot.png", "image/png", data_uri)]


async def test_an_attached_text_file_is_refused_by_the_provider_and_octui_says_so(
    live_server: RealServer, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    name = unique("attach-text")
    tag = fake_llm.add_scenario(name, [{"text": f"Never sent ({name})."}])
    (tmp_path / "notes.md").write_text("# Notes\n\nremember the milk\n", encoding="utf-8")
    sid = live_server.create_session()["id"]

    async with running_app(live_server, session_id=sid) as driver:
        driver.main.attach_base = str(tmp_path)
        await _attach(driver, "notes.md")
        driver.main.query_one(Composer).text = f"Summarise the notes {tag}"
        await driver.pilot.press("enter")
        failed = await driver.wait_until(
            lambda: next((m for m in driver.messages() if m.role == "assistant" and m.error), None),
            "the turn to fail", timeout=20)
        assert "does not support media type text/markdown" in failed.error.message  # type: ignore[union-attr]
        await driver.wait_for_text("media type text/markdown")

    assert fake_llm.requests_for(name) == []  # the server refused before calling the model
    history = await _get(live_server, f"/api/session/{sid}/message", order="asc")
    (stored,) = [m for m in history if m["type"] == "user"]
    assert [(f["name"], f["mime"]) for f in stored["files"]] == [("notes.md", "text/markdown")]
    assert json.dumps(stored).count("data:text/markdown;base64,") == 1
