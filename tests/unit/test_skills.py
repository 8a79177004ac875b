"""Skills: listed in the ``/`` completion (marked), invoked the way each dialect allows, refetched
on ``skill.updated``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import respx

from tests.snapshots.main_app import settle, wait_connected
from tests.unit.test_pickers import composer, recorded_app, seeded, type_text
from tui.client.http import OpenCodeClient
from tui.protocol.models import SkillInfo
from tui.session.commands import Catalog, run_skill, send_input, slash_skills
from widgets.composer.completion import CompletionMenu

BASE = "http://127.0.0.1:4096"
SID = "ses_1"


@pytest.fixture
def router() -> Iterator[respx.MockRouter]:
    with respx.mock(base_url=BASE, assert_all_called=False) as mock:
        mock.post(f"/api/session/{SID}/prompt").respond(200, json={"data": {"id": "msg_1"}})
        mock.post(f"/api/session/{SID}/command").respond(200, json={"data": {"id": "msg_2"}})
        mock.post(f"/api/session/{SID}/skill").respond(204)
        yield mock


async def client(router: respx.MockRouter, health: dict[str, Any]) -> OpenCodeClient:
    router.get("/api/health").respond(200, json=health)
    c = OpenCodeClient(BASE)
    await c.connect()
    return c


@pytest.fixture
async def v2(router: respx.MockRouter) -> AsyncIterator[OpenCodeClient]:
    c = await client(router, {"healthy": True, "version": "2", "pid": 1})
    yield c
    await c.aclose()


@pytest.fixture
async def preview(router: respx.MockRouter) -> AsyncIterator[OpenCodeClient]:
    c = await client(router, {"healthy": True})
    yield c
    await c.aclose()


def sent(router: respx.MockRouter, suffix: str) -> list[Any]:
    import json

    return [json.loads(c.request.content) for c in router.calls if c.request.url.path.endswith(suffix)]


async def test_bare_skill_is_activated_with_the_skill_route(router: respx.MockRouter,
                                                             v2: OpenCodeClient) -> None:
    assert await run_skill(v2, SID, "skl_1", "changelog") == {}
    assert sent(router, "/skill") == [{"skill": "skl_1"}]
    assert sent(router, "/prompt") == []


async def test_skill_with_arguments_is_a_prompt_carrying_the_skill(router: respx.MockRouter,
                                                                    v2: OpenCodeClient) -> None:
    await run_skill(v2, SID, "skl_1", "changelög", "for v2", delivery="queue",
                    files=[{"uri": "data:image/png;base64,AA==", "name": "a.png"}])
    (body,) = sent(router, "/prompt")
    assert body == {"text": "/changelög for v2", "delivery": "queue",
                    "files": [{"uri": "data:image/png;base64,AA==", "name": "a.png"}],
                    "skills": [{"id": "skl_1", "mention": {"start": 0, "end": 10, "text": "/changelög"}}]}
    assert sent(router, "/skill") == []


async def test_on_1_18_a_skill_goes_as_text(router: respx.MockRouter, preview: OpenCodeClient) -> None:
    await run_skill(preview, SID, "greeter", "greeter")
    await run_skill(preview, SID, "greeter", "greeter", "hi")
    assert [b["prompt"] for b in sent(router, "/prompt")] == [{"text": "/greeter"}, {"text": "/greeter hi"}]
    assert sent(router, "/skill") == []


async def test_send_input_prefers_a_command_then_a_skill(router: respx.MockRouter,
                                                         v2: OpenCodeClient) -> None:
    skills = {"review": "skl_review", "notes": "skl_notes"}
    await send_input(v2, SID, "/review x", directory="/p", commands=["review"], skills=skills)
    await send_input(v2, SID, "/notes", directory="/p", commands=["review"], skills=skills)
    await send_input(v2, SID, "/notes see @a.py", directory="/p", skills=skills, mentioned={"a.py"})
    await send_input(v2, SID, "/other", directory="/p", skills=skills)
    assert [b["command"] for b in sent(router, "/command")] == ["review"]
    assert sent(router, "/skill") == [{"skill": "skl_notes"}]
    with_args, plain = sent(router, "/prompt")
    assert with_args["skills"] == [{"id": "skl_notes", "mention": {"start": 0, "end": 6, "text": "/notes"}}]
    assert with_args["files"] == [{"uri": "file:///p/a.py", "name": "a.py",
                                   "mention": {"start": 11, "end": 16, "text": "@a.py"}}]
    assert plain == {"text": "/other", "delivery": "steer"}


def test_slash_skills_and_refetch_kinds() -> None:
    skills = [SkillInfo(id="a", name="a"), SkillInfo(id="b", name="b", slash=False), SkillInfo(name="c"),
              SkillInfo(id="d")]
    assert [s.key for s in slash_skills(skills)] == ["a", "c"]
    catalog = Catalog(None)  # type: ignore[arg-type]
    assert catalog.changed("skill.updated") == {"skills"}
    assert catalog.changed("command.updated") == {"commands"}
    assert catalog.changed("catalog.updated") == {"models", "agents", "commands", "skills"}


async def test_1_18_skill_list_has_no_id(router: respx.MockRouter, preview: OpenCodeClient) -> None:
    router.get("/api/skill").respond(200, json={"location": {}, "data": [
        {"name": "greeter", "description": "Greets.", "location": "/p/SKILL.md", "content": "x"}]})
    (skill,) = await preview.skills("/p")
    assert (skill.key, skill.name, skill.description, skill.slash) == ("greeter", "greeter", "Greets.", None)


# ---------------------------------------------------------------------------- in the app


def menu_items(app: Any) -> list[tuple[str, str]]:
    menu = app.screen_main().query_one(CompletionMenu)
    return [(i.value, i.tag) for i in menu.items] if menu.display else []


async def test_completion_marks_skills_and_enter_activates_one() -> None:
    with seeded() as (demo, sid):
        app, recorder = recorded_app(demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            await type_text(pilot, "/")
            items = menu_items(app)
            assert items[:4] == [("init", ""), ("review", ""), ("changelog", "skill"),
                                 ("release-notes", "skill")]
            assert ("style-guide", "skill") not in items  # slash: false
            assert ("model", "") in items
            await type_text(pilot, "chan")
            await pilot.press("tab")
            assert composer(app).text == "/changelog "
            await pilot.press("enter")
            await settle(pilot)
            state = app.store.session(sid)
            assert [m.role for m in state.messages.values()][-2:] == ["skill", "assistant"]
            assert list(state.messages.values())[-2].text == "changelog"
    assert recorder.posts("/skill") == [{"skill": "changelog"}]
    assert recorder.posts("/prompt") == []


async def test_skill_updated_refetches_the_skill_list() -> None:
    with seeded() as (demo, sid):
        app, recorder = recorded_app(demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            await type_text(pilot, "/")
            await pilot.press("escape")
            composer(app).text = ""
            gets = [p for m, p, _ in recorder.requests if m == "GET" and p == "/api/skill"]
            assert len(gets) == 1
            await type_text(pilot, "/")  # cached: no second GET
            await pilot.press("escape")
            composer(app).text = ""
            demo.emit("skill.updated", {})
            await settle(pilot)
            await type_text(pilot, "/")
            gets = [p for m, p, _ in recorder.requests if m == "GET" and p == "/api/skill"]
            assert len(gets) == 2
