"""No import circle in ``tui/`` and ``widgets/``, and the screens and widgets never import the app.

The graph has an edge for every import that runs when a module is imported: statements at module
level and in class bodies, in ``try``/``if`` blocks too, but not under ``if TYPE_CHECKING:`` and not
inside functions (those run later). ``from pkg import name`` points at ``pkg.name`` when that is a
module, else at ``pkg``; every package ``__init__`` on the way is an edge as well, since importing a
module runs them (except the importing module's own packages: Python runs those before it). A cycle
anywhere fails, with its path in the message.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("tui", "widgets")


def module_files() -> dict[str, Path]:
    """Dotted module name -> file, for every module of ``PACKAGES``."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _runtime_imports(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Imports that run when the module is imported (not in functions, not for the type checker)."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                yield from _runtime_imports(node.body)
            yield from _runtime_imports(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _runtime_imports(block)
        elif isinstance(node, (ast.With, ast.ClassDef)):
            yield from _runtime_imports(node.body)


def _all_imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import of a module, functions included, except those under ``if TYPE_CHECKING:``."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            skipped |= {id(inner) for stmt in node.body for inner in ast.walk(stmt)}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in skipped:
            yield node


def _targets(module: str, node: ast.Import | ast.ImportFrom, known: set[str], is_package: bool) -> set[str]:
    names: list[str] = []
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            anchor = module.split(".") if is_package else module.split(".")[:-1]
            anchor = anchor[: len(anchor) - (node.level - 1)]
            base = ".".join([*anchor, base] if base else anchor)
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
    targets: set[str] = set()
    for name in names:
        parts = name.split(".")
        for end in range(1, len(parts) + 1):  # the module and every package on the way
            prefix = ".".join(parts[:end])
            # A module's own packages are initialised before it, whatever it imports: no edge.
            if prefix in known and prefix != module and not module.startswith(prefix + "."):
                targets.add(prefix)
    return targets


def import_graph(runtime_only: bool = True) -> dict[str, set[str]]:
    files = module_files()
    known = set(files)
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        nodes = _runtime_imports(tree.body) if runtime_only else _all_imports(tree)
        is_package = path.name == "__init__.py"
        graph[module] = set().union(*(_targets(module, n, known, is_package) for n in nodes))
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path (first node repeated at the end), or ``None``."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return None


def test_the_detector_finds_a_cycle_and_accepts_a_tree() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_graph_sees_module_level_imports_only() -> None:
    graph = import_graph()
    assert "tui.screens.main" in graph["tui.app.app"]  # the app imports its screen at module level
    assert "tui.app.app" not in graph["tui.screens.main"]  # the screen names the app for types only


def test_no_import_cycle_in_tui_and_widgets() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_cycle_held_by_deferred_imports_either() -> None:
    """An import moved into a function to dodge a circle still counts: the circle is there."""
    cycle = find_cycle(import_graph(runtime_only=False))
    assert cycle is None, "import cycle through a deferred import: " + " -> ".join(cycle or [])


def test_screens_and_widgets_never_import_the_app_module() -> None:
    """Not at module level, not deferred in a function: ``tui.app.host.octui_app`` gives the app."""
    offenders = sorted(module for module, targets in import_graph(runtime_only=False).items()
                       if module.startswith(("tui.screens", "widgets")) and "tui.app.app" in targets)
    assert offenders == []
