"""Config ``[keys]`` -> Textual keymap: names, warnings, and a real remap in a running app."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Static

from tui.app.app import keymap_classes
from tui.app.keymap import (
    PREFIX,
    action_name,
    apply_keymap,
    build_keymap,
    configurable_actions,
)


def test_action_name() -> None:
    assert action_name("sessions") == "sessions"
    assert action_name("go('parent')") == "go_parent"
    assert action_name("app.quit") == "app_quit"


def test_build_keymap_prefixes_and_warns() -> None:
    keymap, warnings = build_keymap({"sessions": "ctrl+o, f2", "nope": "x", "undo": " , "},
                                    {"sessions": "ctrl+s", "undo": "f4"})
    assert keymap == {PREFIX + "sessions": "ctrl+o,f2"}
    assert any(w.startswith("keys.nope: no such action") for w in warnings)
    assert "keys.undo: empty key" in warnings


class KeyScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f5", "hit('copy')", "Copy", id="octui.hit_copy"),
        Binding("ctrl+s", "hit('sessions')", "Sessions", id="octui.hit_sessions"),
        Binding("f8", "hit('redo')", "Redo", id="octui.hit_redo"),
        Binding("f1", "hit('help')", "Help"),  # no id: not configurable
    ]

    def compose(self) -> ComposeResult:
        yield Static("keys")

    def action_hit(self, what: str) -> None:
        self.app.hits.append(what)  # type: ignore[attr-defined]


class KeyApp(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+q", "quit", "Quit", id="octui.quit")]

    def __init__(self, keys: dict[str, str]) -> None:
        super().__init__()
        self.keys = keys
        self.hits: list[str] = []
        self.warnings: list[str] = []

    async def on_mount(self) -> None:
        self.warnings = apply_keymap(self, self.keys, [KeyApp, KeyScreen])
        await self.push_screen(KeyScreen())


def test_bindings_with_ids_are_listed() -> None:
    assert configurable_actions([KeyScreen]) == {"hit_copy": "f5", "hit_sessions": "ctrl+s", "hit_redo": "f8"}


async def test_remapped_key_runs_the_action_and_the_old_key_does_not() -> None:
    app = KeyApp({"hit_copy": "f12", "hit_redo": "ctrl+r,f9", "bogus": "x"})
    async with app.run_test() as pilot:
        await pilot.press("f5")
        await pilot.press("f12")
        await pilot.press("f9")
        await pilot.press("ctrl+s")  # untouched binding still works
        await pilot.pause()
        assert app.hits == ["copy", "redo", "sessions"]
        assert len(app.warnings) == 1 and app.warnings[0].startswith("keys.bogus")


async def test_app_level_binding_can_be_remapped() -> None:
    app = KeyApp({"quit": "f10"})
    async with app.run_test() as pilot:
        await pilot.press("f10")
        await pilot.pause()
        assert app.return_code == 0 and not app.is_running


def test_octui_classes_have_configurable_actions() -> None:
    actions: dict[str, Any] = {}
    classes = keymap_classes()
    actions = configurable_actions(classes)
    for name in ("sessions", "new_session", "interrupt", "undo", "redo", "copy_last_answer",
                 "copy_transcript", "export", "revert_panel", "go_parent", "quit"):
        assert name in actions, name


def test_every_octui_binding_has_the_id_its_action_names() -> None:
    """The config names an action by its binding id (``octui.`` + ``action_name``): a binding
    without one, or with another, could not be rebound by the name the README gives."""
    for cls in keymap_classes():
        for binding in cls.__dict__.get("BINDINGS", []):
            assert isinstance(binding, Binding), (cls.__name__, binding)
            assert binding.id == PREFIX + action_name(binding.action), (cls.__name__, binding)
