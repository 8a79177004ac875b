"""Composer completion, slash commands, mentions, pickers, palette, help, editor and themes.

Pilot tests of the real ``OctuiApp`` over the in-process demo server; requests are recorded at
the httpx transport, so the tests check what went over the wire.
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual import events
from textual.pilot import Pilot

from tests.snapshots.main_app import MainApp, make_demo, settle, wait_connected
from tests.unit.test_bounded_read import within
from tui.app.palette import palette_actions
from tui.client.http import OpenCodeClient
from tui.demo import DemoServer, assistant, text, user
from tui.protocol.models import AgentInfo, ModelInfo, ModelRef
from tui.screens.agent_picker import AgentPicker
from tui.screens.help import HelpScreen
from tui.screens.model_picker import ModelPicker, model_entries
from tui.session.commands import Catalog, run_command, switchable_agents
from tui.storage.config import load_config
from tui.storage.saved_state import SavedState
from widgets.composer.completion import CompletionMenu
from widgets.composer.composer import Composer
from widgets.composer.external_editor import edit_text, editor_command


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Config and state files in a temp dir: tests never touch the user's files."""
    monkeypatch.setenv("OCTUI_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("OCTUI_STATE_DIR", str(tmp_path / "state"))
    return tmp_path


class Recorder(httpx.AsyncBaseTransport):
    """Passes requests to the demo server and keeps (method, path, json body) of each."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.requests: list[tuple[str, str, Any]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        self.requests.append((request.method, request.url.path, body))
        return await self.inner.handle_async_request(request)

    def posts(self, suffix: str) -> list[Any]:
        return [b for m, p, b in self.requests if m == "POST" and p.endswith(suffix)]


def recorded_app(demo: DemoServer | None = None, session_id: str | None = None) -> tuple[MainApp, Recorder]:
    app = MainApp(demo, session_id=session_id)
    recorder = Recorder(app.server.transport)
    app.spec.transport = recorder
    return app, recorder


@contextmanager
def seeded() -> Iterator[tuple[DemoServer, str]]:
    """A demo server with one finished session, opened by the app."""
    demo = make_demo()
    info = demo.seed_session("Work", [user("hi"), assistant(text("hello"))])
    yield demo, info["id"]


async def type_text(pilot: Pilot[Any], text: str) -> None:
    for ch in text:
        await pilot.press("space" if ch == " " else ch)
    await pilot.pause(0.15)
    await pilot.pause()


def composer(app: MainApp) -> Composer:
    return app.screen_main().query_one(Composer)


def menu_labels(app: MainApp) -> list[str]:
    menu = app.screen_main().query_one(CompletionMenu)
    return [item.value for item in menu.items] if menu.display else []


# ---------------------------------------------------------------------------- slash commands

async def test_slash_completion_lists_server_and_local_commands_then_runs_the_command() -> None:
    with seeded() as (demo, sid):
        app, recorder = recorded_app(demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            await type_text(pilot, "/")
            labels = menu_labels(app)
            assert labels[:2] == ["init", "review"]
            assert {"model", "agent", "help"} <= set(labels)
            await type_text(pilot, "rev")
            assert menu_labels(app)[0] == "review"
            await pilot.press("tab")
            assert composer(app).text == "/review "
            assert menu_labels(app) == []
            await type_text(pilot, "src")
            await pilot.press("enter")
            await settle(pilot)
    assert recorder.posts("/command") == [{"command": "review", "arguments": "src", "delivery": "steer"}]
    assert recorder.posts("/prompt") == []
    admitted = [e for e in demo.emitted if e["type"] == "session.inbox.enqueued"]
    assert admitted[-1]["data"]["item"]["payload"]["text"] == "Review the current changes. src"


async def test_enter_typed_ahead_never_takes_a_choice_made_for_older_text() -> None:
    """QA: "/", a pause, then "model zzz" and Enter in one terminal read made "/init model zzz":
    Enter took the menu's first choice for "/", before the menu was made again for the text
    typed ahead of it. It now runs what was typed (an unknown model: refused, draft kept)."""
    with seeded() as (demo, sid):
        app, recorder = recorded_app(demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            await type_text(pilot, "/")
            assert menu_labels(app)[0] == "init"
            for key in [*"model", "space", *"zzz", "enter"]:  # one read: posted at once
                app.post_message(events.Key(key, " " if key == "space" else key if len(key) == 1 else None))
            await settle(pilot)
            assert composer(app).text == "/model zzz"
    assert recorder.posts("/command") == [] and recorder.posts("/prompt") == []


async def test_escape_closes_the_menu_without_interrupting_and_unknown_slash_is_a_prompt() -> None:
    with seeded() as (demo, sid):
        app, recorder = recorded_app(demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            await type_text(pilot, "/in")
            assert menu_labels(app)[0] == "init"
            await pilot.press("escape")
            assert menu_labels(app) == []
            assert composer(app).text == "/in"
            composer(app).text = ""
            await type_text(pilot, "/nosuch")
            assert menu_labels(app) == []
            await pilot.press("enter")
            await settle(pilot)
    assert recorder.posts("/command") == []
    assert [b["text"] for b in recorder.posts("/prompt")] == ["/nosuch"]
    assert recorder.posts("/interrupt") == []


async def test_local_slash_command_opens_the_help_screen() -> None:
    app, _ = recorded_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_connected(pilot)
        await type_text(pilot, "/help")
        await pilot.press("escape")  # close the menu, keep the text
        await pilot.press("enter")
        await pilot.pause(0.1)
        assert isinstance(app.screen, HelpScreen)
        assert composer(app).text == ""


async def test_a_slash_command_typed_in_full_runs_on_the_first_enter() -> None:
    """The menu still showed it, and Enter only completed what was complete already: "/export"
    took a second Enter, and text typed on went to the model as a prompt (QA). A partial name
    is still completed by Enter."""
    app, _ = recorded_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_connected(pilot)
        await type_text(pilot, "/hel")
        assert menu_labels(app)[0] == "help"
        await pilot.press("enter")  # partial: completed, not run
        await pilot.pause(0.1)
        assert composer(app).text == "/help " and not isinstance(app.screen, HelpScreen)
        composer(app).text = ""
        await type_text(pilot, "/help")
        assert menu_labels(app)[0] == "help"
        await pilot.press("enter")
        await pilot.pause(0.1)
        assert isinstance(app.screen, HelpScreen)
        assert composer(app).text == ""


async def test_a_server_command_typed_in_full_is_completed_for_its_arguments() -> None:
    """Sent bare, a server command or skill is a model's turn (paid, not taken back): Enter on
    "/review" typed in full still completes it, for the arguments."""
    with seeded() as (demo, sid):
        app, recorder = recorded_app(demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            await type_text(pilot, "/review")
            assert menu_labels(app)[0] == "review"
            await pilot.press("enter")
            await pilot.pause(0.1)
            assert composer(app).text == "/review "
    assert recorder.posts("/command") == [] and recorder.posts("/prompt") == []


async def test_run_command_on_preview_server_sends_a_slash_prompt() -> None:
    sent: list[tuple[str, Any]] = []

    class Fake(OpenCodeClient):
        async def prompt(self, session_id: str, text: str, delivery: Any = "steer", files: Any = None,
                         agents: Any = None, message_id: str | None = None,
                         skills: Any = None) -> dict[str, Any]:
            sent.append((text, files))
            return {}

    from tui.protocol.dialect import Dialect

    client = Fake("http://x.invalid")
    client.dialect = Dialect.PREVIEW
    await run_command(client, "ses_1", "review", "src")
    await run_command(client, "ses_1", "init")
    assert sent == [("/review src", None), ("/init", None)]
    await client.aclose()


# ---------------------------------------------------------------------------- @ mentions

async def test_mention_completion_attaches_the_file_with_its_span() -> None:
    with seeded() as (demo, sid):
        app, recorder = recorded_app(demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            await type_text(pilot, "look at @gre")
            assert menu_labels(app) == ["src/greet.py", "tests/test_greet.py"]
            await pilot.press("enter")  # accepts the highlighted file, does not send
            assert composer(app).text == "look at @src/greet.py "
            await type_text(pilot, "and @someone")
            assert menu_labels(app) == []
            await pilot.press("enter")
            await settle(pilot)
    finds = [p for m, p, _ in recorder.requests if p == "/api/fs/find"]
    assert finds
    body = recorder.posts("/prompt")[-1]
    assert body["text"] == "look at @src/greet.py and @someone"
    assert body["files"] == [{"uri": "file:///home/demo/project/src/greet.py", "name": "src/greet.py",
                              "mention": {"start": 8, "end": 21, "text": "@src/greet.py"}}]


async def test_accepting_a_directory_keeps_completing_below_it() -> None:
    app, _ = recorded_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_connected(pilot)
        await type_text(pilot, "@sr")
        assert menu_labels(app)[0] == "src"
        await pilot.press("tab")
        await pilot.pause(0.2)
        assert composer(app).text == "@src"
        assert composer(app).mentioned == set()
        assert "src/greet.py" in menu_labels(app)


async def test_large_paste_arrives_whole_with_normalised_line_breaks() -> None:
    from textual import events

    app, _ = recorded_app()
    text = "\r\n".join(f"line {i}" for i in range(3000))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_connected(pilot)
        box = composer(app)
        box.post_message(events.Paste(text))
        await pilot.pause(0.2)
        assert box.text == text.replace("\r\n", "\n")
        assert box.document.line_count == 3000


# ---------------------------------------------------------------------------- pickers

async def test_model_picker_switches_only_when_changed_and_remembers_recent() -> None:
    with seeded() as (demo, sid):
        app, recorder = recorded_app(demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            await pilot.press("ctrl+k")
            await pilot.pause(0.2)
            picker = app.screen
            assert isinstance(picker, ModelPicker)
            # The session's model heads the list (then every model, it too).
            assert [e.value.id for e in picker.shown] == ["scripted", "scripted", "scripted-mini"]
            assert picker.shown[0].current
            await pilot.press("enter")  # the current one: nothing to send
            await pilot.pause(0.2)
            assert recorder.posts("/model") == []
            await pilot.press("ctrl+k")
            await pilot.pause(0.2)
            await type_text(pilot, "mini")
            await pilot.press("enter")
            await settle(pilot)
            info = app.store.session(sid).info
            assert info is not None and info.model is not None and info.model.id == "scripted-mini"
    assert recorder.posts("/model") == [{"model": {"id": "scripted-mini", "providerID": "demo"}}]
    assert [m.id for m in SavedState().recent_models()] == ["scripted-mini", "scripted"]


async def test_agent_picker_offers_primary_agents_and_switches() -> None:
    with seeded() as (demo, sid):
        app, recorder = recorded_app(demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            await pilot.press("ctrl+l")
            await pilot.pause(0.2)
            picker = app.screen
            assert isinstance(picker, AgentPicker)
            assert [e.value for e in picker.shown] == ["build", "plan"]
            await pilot.press("down", "enter")
            await settle(pilot)
    assert recorder.posts("/agent") == [{"agent": "plan"}]


async def test_model_chosen_on_home_applies_to_the_next_session() -> None:
    app, recorder = recorded_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_connected(pilot)
        await pilot.press("ctrl+k")
        await pilot.pause(0.2)
        await type_text(pilot, "mini")
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert recorder.posts("/model") == []
        await type_text(pilot, "hi")
        await pilot.press("enter")
        await settle(pilot)
    assert recorder.posts("/model") == [{"model": {"id": "scripted-mini", "providerID": "demo"}}]
    order = [p for m, p, _ in recorder.requests if m == "POST"]
    assert order.index(next(p for p in order if p.endswith("/model"))) < \
        order.index(next(p for p in order if p.endswith("/prompt")))


def test_model_entries_recent_first_variants_and_disabled() -> None:
    models = [ModelInfo(id="a", providerID="p", name="A", variants=[{"id": "high"}, {"id": "default"}]),
              ModelInfo(id="b", providerID="p", name="B", enabled=False),
              ModelInfo(id="c", providerID="q", name="C")]
    rows = model_entries(models, [ModelRef(id="c", providerID="q"), ModelRef(id="gone", providerID="p")],
                         current=ModelRef(id="a", providerID="p", variant="high"))
    # The current model heads the list (QA: it came last, under thirty others).
    assert [(r.group, r.label) for r in rows] == [("Recent", "A · high"), ("Recent", "C"),
                                                  ("All models", "A"), ("All models", "A · high"),
                                                  ("All models", "C")]
    assert [r.current for r in rows] == [True, False, False, True, False]


def test_the_current_model_comes_first_even_when_recent() -> None:
    models = [ModelInfo(id="a", providerID="p", name="A"), ModelInfo(id="c", providerID="q", name="C")]
    rows = model_entries(models, [ModelRef(id="c", providerID="q"), ModelRef(id="a", providerID="p")],
                         current=ModelRef(id="a", providerID="p"))
    shown = [(r.group, r.label, r.current) for r in rows]
    assert shown[:2] == [("Recent", "A", True), ("Recent", "C", False)]


def test_model_entries_put_deprecated_models_last() -> None:
    models = [ModelInfo(id="old", providerID="p", name="Old", status="deprecated"),
              ModelInfo(id="new", providerID="p", name="New"),
              ModelInfo(id="beta", providerID="q", name="Beta", status="beta")]
    rows = model_entries(models)
    assert [(r.group, r.label) for r in rows] == [("All models", "New"), ("All models", "Beta"),
                                                  ("Deprecated", "Old")]


def test_switchable_agents() -> None:
    agents = [AgentInfo(id="a", mode="primary"), AgentInfo(id="b", mode="subagent"),
              AgentInfo(id="c", mode="all"), AgentInfo(id="d", mode="primary", hidden=True)]
    assert [a.id for a in switchable_agents(agents)] == ["a", "c"]
    assert [a.id for a in switchable_agents(agents, include_subagents=True)] == ["a", "b", "c"]


class SlowCatalogClient:
    """Answers an empty model list until ``ready`` is set."""

    def __init__(self) -> None:
        self.ready = False
        self.calls = 0

    async def models(self, directory: str | None = None) -> list[ModelInfo]:
        self.calls += 1
        return [ModelInfo(id="m")] if self.ready else []


async def test_catalog_waits_while_empty_and_refetches_at_once_on_an_event() -> None:
    import asyncio

    fake = SlowCatalogClient()
    catalog = Catalog(fake, wait_s=20, poll_s=5)  # type: ignore[arg-type]
    waiter = asyncio.create_task(catalog.wait_models())
    await asyncio.sleep(0.05)
    assert not waiter.done() and fake.calls == 1
    fake.ready = True
    catalog.changed("catalog.updated")
    models = await asyncio.wait_for(waiter, 1)  # far sooner than the 5 s poll
    assert [m.id for m in models] == ["m"]
    assert await catalog.get("models") == models and fake.calls == 2  # cached
    assert catalog.changed("agent.updated") == {"agents"}
    await catalog.get("models")
    assert fake.calls == 2
    catalog.changed("catalog.updated")
    await catalog.get("models")
    assert fake.calls == 3


async def test_catalog_gives_up_after_the_wait() -> None:
    fake = SlowCatalogClient()
    catalog = Catalog(fake, wait_s=0.2, poll_s=0.05)  # type: ignore[arg-type]
    assert await catalog.wait_models() == []
    assert fake.calls >= 3


# ---------------------------------------------------------------------------- palette and help

async def test_palette_lists_every_bound_action_and_runs_one() -> None:
    app, _ = recorded_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_connected(pilot)
        main = app.screen_main()
        actions = {a.action for a in palette_actions([main, app])}
        bound = {b.action for _, b in main._bindings}
        assert bound <= actions
        assert {"pick_model", "pick_agent", "help", "edit_in_editor", "new_session", "sessions",
                "inbox", "toggle_reasoning", "toggle_tree", "interrupt", "slash_commands"} <= actions
        await pilot.press("ctrl+p")
        await pilot.pause(0.2)
        await type_text(pilot, "Agent")
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert isinstance(app.screen, AgentPicker)


async def test_help_screen_lists_every_binding_of_the_screen_and_composer() -> None:
    app, _ = recorded_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_connected(pilot)
        main = app.screen_main()
        await pilot.press("f1")
        await pilot.pause(0.1)
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        actions = {(r.section, r.action) for r in help_screen.rows}
        for _, binding in main._bindings:
            assert ("Session screen", binding.action) in actions
        # A prompt key the app or the screen takes first (a priority binding) never reaches the
        # prompt: it is not listed under it (F1 listed "f6 Select line", "^k Delete to line end").
        taken = {key for key, binding in [*app._bindings, *main._bindings] if binding.priority}
        assert {"f6", "f7", "ctrl+e", "ctrl+k"} <= taken
        composer_keys = {(r.action, key) for r in help_screen.rows if r.section == "Composer"
                         for key in r.keys.split(", ")}
        for key, binding in composer(app)._bindings:
            shown = app.get_key_display(binding)
            assert ((binding.action, shown) in composer_keys) is (key not in taken), (key, binding.action)
        keys = {r.action: r.keys for r in help_screen.rows if r.section == "Session screen"}
        assert keys["pick_model"] == "^k"
        assert keys["pick_agent"] == "^l"
        await pilot.press("escape")
        assert app.screen is main


# ---------------------------------------------------------------------------- editor and themes

def fake_editor(tmp_path: Path, body: str) -> list[str]:
    script = tmp_path / "editor.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        path = sys.argv[1]
        old = open(path, encoding="utf-8").read()
        open(path, "w", encoding="utf-8").write(old + {body!r})
    """))
    return [sys.executable, str(script)]


def test_edit_text_round_trip_and_failure(tmp_path: Path) -> None:
    assert edit_text("draft", fake_editor(tmp_path, " edited\n")) == "draft edited\n"
    with pytest.raises(RuntimeError):
        edit_text("x", [sys.executable, "-c", "raise SystemExit(3)"])
    # What the editor leaves behind is read bounded: not UTF-8 is an error, a FIFO never blocks.
    latin1 = [sys.executable, "-c", "import sys; open(sys.argv[1], 'wb').write(b'caf\\xe9')"]
    with pytest.raises(RuntimeError, match="not UTF-8"):
        edit_text("x", latin1)
    fifo = [sys.executable, "-c", "import os, sys; os.unlink(sys.argv[1]); os.mkfifo(sys.argv[1])"]
    with pytest.raises(OSError, match="named pipe"):
        within(5.0, lambda: edit_text("x", fifo))
    assert editor_command({"EDITOR": "code --wait"}) == ["code", "--wait"]
    assert editor_command({"VISUAL": "nvim", "EDITOR": "nano"}) == ["nvim"]
    assert editor_command({}) == ["vi"]


async def test_ctrl_e_edits_the_draft_in_the_editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    command = fake_editor(tmp_path, " from the editor\n")
    monkeypatch.setenv("VISUAL", " ".join(command))
    suspended: list[bool] = []

    @contextmanager
    def suspend(self: Any) -> Iterator[None]:  # headless tests have no terminal to hand over
        suspended.append(True)
        yield

    monkeypatch.setattr(MainApp, "suspend", suspend)
    app, _ = recorded_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_connected(pilot)
        composer(app).text = "hello"
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert composer(app).text == "hello from the editor"
    assert suspended == [True]


async def test_theme_change_is_saved_to_the_config_file(isolated: Path) -> None:
    (isolated / "config.toml").write_text('theme = "nord"\n')
    app, _ = recorded_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_connected(pilot)
        assert app.theme == "nord"
        app.theme = "gruvbox"
        await pilot.pause()
    assert load_config(isolated / "config.toml").theme == "gruvbox"


@pytest.mark.parametrize(("limit", "shown"), [
    (262_144, "262k"), (1_048_576, "1M"), (128_000, "128k"), (131_072, "131k"), (204_800, "205k"),
    (262_100, "262k"), (1_000_000, "1M"), (1_500_000, "1.5M"), (2_097_152, "2.1M"), (999_999, "1M"),
    (8_192, "8k"), (999, "999"), (0, "0"),
])
def test_context_sizes_are_rounded_as_people_say_them(limit: float, shown: str) -> None:
    from tui.screens.model_picker import humane_count

    assert humane_count(limit) == shown


def test_model_rows_show_the_rounded_context() -> None:
    from tui.protocol.models import ModelInfo, ModelLimit
    from tui.screens.model_picker import model_entries

    rows = model_entries([ModelInfo(id="k2", providerID="moonshot", limit=ModelLimit(context=262_144)),
                          ModelInfo(id="g", providerID="google", limit=ModelLimit(context=1_048_576))])
    assert [r.detail for r in rows] == ["moonshot/k2  262k ctx", "google/g  1M ctx"]


async def test_help_and_palette_use_the_same_labels_and_none_twice() -> None:
    """F1 listed 'Help quit' and a lower-case 'palette'; the palette had 'Keys' and 'Keys (help)'."""
    from textual.command import CommandPalette

    from tui.app.palette import action_label

    app, _ = recorded_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_connected(pilot)
        main = app.screen_main()
        await pilot.press("f1")
        await pilot.pause(0.2)
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        descriptions = [r.description for r in help_screen.rows]
        for row in help_screen.rows:  # sentence case, never a bare action name
            assert row.description[:1].isupper(), row
            assert row.description.split()[0] not in ("Help", "palette") or row.action == "help", row
        assert "Help quit" not in descriptions and "palette" not in descriptions
        assert "Focus Next" not in descriptions and "Focus next" in descriptions
        for section in {r.section for r in help_screen.rows}:
            words = [r.description for r in help_screen.rows if r.section == section]
            assert len(words) == len(set(words)), (section, words)
        await pilot.press("escape")
        await pilot.pause(0.1)

        palette_names = [a.name for a in palette_actions([main, app])]
        system = [c.title for c in app.get_system_commands(main)]
        every = palette_names + system
        assert len(every) == len(set(every)), sorted(every)
        assert "Keys" not in every and "Help: every key" in palette_names
        labels = {(r.action, r.description) for r in help_screen.rows}
        for _, binding in main._bindings:  # the palette says what the help screen says
            assert (binding.action, action_label(binding)) in labels

        await pilot.press("ctrl+p")
        await pilot.pause(0.3)
        assert isinstance(app.screen, CommandPalette)
        await type_text(pilot, "key")
        await pilot.pause(0.3)
        from textual.widgets import OptionList

        found = app.screen.query_one("CommandList", OptionList)
        for _ in range(100):  # the palette searches in a worker
            if found.option_count:
                break
            await pilot.pause(0.05)
        await pilot.pause(0.3)
        shown = [str(found.get_option_at_index(i).prompt) for i in range(found.option_count)]
        assert any("Help: every key" in text for text in shown), shown
        assert not any(text.startswith("Keys") for text in shown), shown


# ---------------------------------------------------------------------------- /model NAME, /agent NAME

@pytest.mark.parametrize(("command", "toast"), [
    ("/model bogus", "unknown model 'bogus' — Ctrl+K lists the models"),
    ("/agent bogus", "unknown agent 'bogus' — Ctrl+L lists the agents"),
    ("/agent explore", "unknown agent 'explore' — Ctrl+L lists the agents"),  # a subagent: not switchable
    ("/model demo/scripted#turbo", "unknown model 'demo/scripted#turbo' — Ctrl+K lists the models"),
])
async def test_unknown_names_are_refused_and_the_draft_stays(command: str, toast: str) -> None:
    with seeded() as (demo, sid):
        app, recorder = recorded_app(demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            composer(app).text = command
            await pilot.press("enter")
            await settle(pilot)
            assert [n.message for n in app._notifications] == [toast]
            assert composer(app).text == command
            assert recorder.posts("/prompt") == [] and recorder.posts("/model") == [] \
                and recorder.posts("/agent") == []


@pytest.mark.parametrize(("command", "route", "body"), [
    ("/model demo/scripted-mini", "/model", {"model": {"id": "scripted-mini", "providerID": "demo"}}),
    ("/model Scripted demo (mini)", "/model", {"model": {"id": "scripted-mini", "providerID": "demo"}}),
    ("/model scripted-mini", "/model", {"model": {"id": "scripted-mini", "providerID": "demo"}}),
    ("/agent PLAN", "/agent", {"agent": "plan"}),
])
async def test_known_names_switch_without_a_prompt(command: str, route: str, body: Any) -> None:
    with seeded() as (demo, sid):
        app, recorder = recorded_app(demo, sid)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_connected(pilot)
            composer(app).text = command
            await pilot.press("enter")
            await settle(pilot)
            assert recorder.posts(route) == [body]
            assert recorder.posts("/prompt") == []
            assert composer(app).text == ""


def test_find_model_needs_one_match() -> None:
    from tui.protocol.models import ModelInfo
    from tui.session.commands import find_model

    models = [ModelInfo(id="gpt", providerID="openai", name="GPT", variants=[{"id": "high"}]),
              ModelInfo(id="gpt", providerID="azure", name="GPT (Azure)"),
              ModelInfo(id="off", providerID="x", enabled=False)]
    assert find_model(models, "gpt") == (None, ["openai/gpt", "azure/gpt"])
    ref, _ = find_model(models, "OpenAI/GPT#high")
    assert ref is not None and (ref.providerID, ref.id, ref.variant) == ("openai", "gpt", "high")
    assert find_model(models, "gpt (azure)")[0] is not None
    assert find_model(models, "x/off") == (None, [])


async def test_help_in_a_tiny_terminal_still_shows_keys() -> None:
    """At 30x8 the help showed its title and the last line of its hint, wrapped over three rows,
    and no key at all (QA)."""
    app, _ = recorded_app()
    async with app.run_test(size=(30, 8)) as pilot:
        await wait_connected(pilot)
        await pilot.press("f1")
        await pilot.pause(0.1)
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        table = help_screen.query_one("#help-table")
        assert table.region.height >= 3  # its header and two keys at least
        hint = help_screen.query_one("#help-hint")
        assert hint.region.height == 1
