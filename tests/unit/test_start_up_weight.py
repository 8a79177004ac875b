"""What the app loads at start, and what it leaves for later (memory is a budget of issue #19).

Screens a session may never open are imported when first opened (``tui/screens/__init__.py``),
and the wire models build their validators on first use (``tui.protocol.models.Wire``). Both are
checked in a fresh interpreter that imports the app as the ``octui`` command does.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

ON_DEMAND = [
    "tui.screens.help", "tui.screens.ask_router", "tui.screens.permission", "tui.screens.question",
    "tui.screens.form", "tui.screens.inbox", "tui.screens.model_picker", "tui.screens.agent_picker",
    "tui.screens.revert", "widgets.asks.form_field", "textual.widgets._data_table",
    "textual.widgets._selection_list",
]
"""Modules only a screen opened on demand needs."""

PROBE = """
import json, sys
import tui.app.cli, tui.app.app
from tui.protocol.models import Wire

def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)

report = {
    "loaded": sorted(m for m in json.loads(sys.argv[1]) if m in sys.modules),
    "models": len(set(subclasses(Wire))),
    "built": sorted({m.__name__ for m in subclasses(Wire) if m.__pydantic_complete__}),
}
from tui.protocol.events import parse_event
good = parse_event({"type": "session.renamed", "data": {"sessionID": "ses_1", "title": "Plan"}})
report["after_first_event"] = sorted({m.__name__ for m in subclasses(Wire) if m.__pydantic_complete__})
bad = parse_event({"type": "session.renamed", "data": {"sessionID": "ses_1", "title": 7}})
report["payloads"] = [type(good.payload).__name__, getattr(good.payload, "title", None),
                     type(bad.payload).__name__]
from widgets.subagents.subagent_tree import SubagentTree
SubagentTree()
report["emoji_table_after_tree"] = "rich._emoji_codes" in sys.modules
from textual.widgets import Tree
Tree("plain")  # control: a str label is read as markup, which loads the table
report["emoji_table_after_str_label"] = "rich._emoji_codes" in sys.modules
print(json.dumps(report))
"""


def _probe() -> dict[str, object]:
    result = subprocess.run([sys.executable, "-c", PROBE, json.dumps(ON_DEMAND)],
                            cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    report: dict[str, object] = json.loads(result.stdout.strip().splitlines()[-1])
    return report


@pytest.fixture(scope="module")
def start_up() -> dict[str, object]:
    return _probe()


def test_the_app_starts_without_the_screens_it_opens_on_demand(start_up: dict[str, object]) -> None:
    assert start_up["loaded"] == []


def test_no_wire_model_is_built_at_start(start_up: dict[str, object]) -> None:
    assert isinstance(start_up["models"], int) and start_up["models"] > 50  # the probe saw them all
    assert start_up["built"] == []


def test_the_on_demand_modules_are_real_and_load_the_screens() -> None:
    """Control: each name is a module of this environment, and the screens really bring them."""
    code = ("import sys; import tui.screens.help, tui.screens.ask_router, tui.screens.inbox, "
            "tui.screens.model_picker, tui.screens.agent_picker, tui.screens.revert; "
            f"print(sorted(set({ON_DEMAND!r}) - set(sys.modules)))")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_an_event_model_is_built_when_its_first_event_arrives(start_up: dict[str, object]) -> None:
    assert start_up["after_first_event"] == ["SessionRenamed"]
    # Validated by its own model once built: a good event is read, a wrong type is refused.
    assert start_up["payloads"] == ["SessionRenamed", "Plan", "Unknown"]


def test_the_subagent_tree_does_not_load_richs_emoji_table(start_up: dict[str, object]) -> None:
    """~0.8 MB for a markup reading of the empty root label (Tree reads a str label as markup)."""
    assert start_up["emoji_table_after_tree"] is False
    assert start_up["emoji_table_after_str_label"] is True  # control: the probe sees the table load


def test_every_wire_model_builds() -> None:
    """Models are built on first use: one that cannot be built (an annotation naming nothing)
    would fail on the first frame of its kind, so each is built here."""
    import tui.protocol.events  # noqa: F401  (the payload models: every kind's, and the rest)
    from tui.protocol.models import Wire

    def subclasses(cls: type[Wire]) -> list[type[Wire]]:
        return [deeper for sub in cls.__subclasses__() for deeper in (sub, *subclasses(sub))]

    models = set(subclasses(Wire))
    assert len(models) > 50
    for model in models:
        model.model_rebuild(force=True)  # raises if a field's type cannot be resolved
        assert model.__pydantic_complete__, model
