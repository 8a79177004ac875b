"""Server text is data: an AST walk over every module of ``tui/`` and ``widgets/``.

The rules are in ``widgets/plain.py``. This test makes the unsafe way hard to write:

* a *sink* (``Static``, ``Label``, ``Button``, ``Option``, ``Tab``, ``Tree``, ``Collapsible``
  titles, palette ``Hit``/``DiscoveryHit``, ``notify``, ``.update``, tree-node ``add``/
  ``set_label``, ``.label``/``.tooltip``/``.border_title`` …) given a ``str`` that is not a literal
  fails (f-strings, variables, concatenations, calls returning ``str``), unless it is ``Content``/
  ``Text`` (or, where Textual renders it without markup, text already made visible);
* ``Content(...)``/``Content.styled``/``Content.assemble`` parts/``Text(...)`` built from a ``str``
  that is neither a literal nor made visible by ``tui.text.sanitize`` fail: use ``widgets.plain.plain``;
* ``Content.from_markup``/``Text.from_markup``/``markup.escape`` on anything but a literal fail;
* ``notify`` is called only by ``widgets.plain.toast``.

Types are inferred from the code itself: literals, the return annotations of every function in
``tui/`` and ``widgets/``, parameter and attribute annotations, and assignments in the enclosing
function. What cannot be inferred is "unknown": it fails where a sink needs ``Content``.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from textual.content import Content
from textual.widgets import Collapsible

from widgets.plain import as_markup_arg, palette_help, plain

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(p for top in ("tui", "widgets") for p in (ROOT / top).rglob("*.py"))

# Classes of what an expression may be.
LIT = "literal"            # a str literal without "["
BRACKET = "bracket literal"  # a str literal with "[" (markup to Textual)
NONE = "None"
NUM = "number"
SAFE = "Content"           # Content / Text / a renderable
VISIBLE = "visible str"    # a str made visible by tui.text.sanitize (or built only from such and literals)
STR = "str"                # some other str
UNKNOWN = "unknown"

VISIBLE_FUNCS = {"clean_text", "one_line", "reveal", "keep_sgr", "notification_field", "diff_text",
                 "token_for", "hidden_name", "describe_hidden"}
NUMERIC_FUNCS = {"len", "int", "float", "round", "abs", "sum", "min", "max", "format_duration",
                 "_tokens", "count", "format_age", "human_size", "format_tokens", "format_cost"}
"""Functions that format numbers (durations, sizes, ages): their text is octui's own."""
CONTENT_FACTORIES = {"plain", "plain_line", "plain_rich", "plain_cut", "plain_ansi", "Content", "Text",
                     "Strip", "Segment",
                     "as_markup_arg",
                     "palette_help"}
CONTENT_CLASSES = {"Content", "Text"}
STR_METHODS = {"strip", "lstrip", "rstrip", "lower", "upper", "title", "capitalize", "replace",
               "removeprefix", "removesuffix", "ljust", "rjust", "center", "expandtabs", "casefold"}
SAFE_TYPES = {"Content", "Text", "Visual", "RenderableType", "VisualType", "Strip", "Segment"}

STRICT_CALLS = {  # callable name -> positional index of the text argument, keyword names
    "Static": (0, ("content", "renderable")),
    "Label": (0, ("content", "renderable")),
    "Button": (0, ("label",)),
    "Option": (0, ("prompt",)),
    "Tab": (0, ("label",)),
    "TabPane": (0, ("title",)),
    "Tree": (0, ("label",)),
    "Collapsible": (None, ("title",)),
    "Hit": (1, ("match_display", "help")),
    "DiscoveryHit": (0, ("display", "help")),
    "set_label": (0, ("label",)),
    "add_leaf": (0, ("label",)),
}
STRICT_ATTRS = {"label", "tooltip", "border_title", "border_subtitle", "placeholder"}
TITLE_ATTRS = {"title", "sub_title"}  # Screen titles: Textual shows them as Content(str)
MARKUP_PARSERS = {"from_markup", "escape", "render_str", "highlight"}


@dataclass
class Project:
    """What the whole code base says about names: return and attribute annotations."""

    returns: dict[str, set[str]] = field(default_factory=dict)
    values: dict[str, set[str]] = field(default_factory=dict)
    """Functions returning a mapping: the class of its values (``dict[int, Content]`` -> Content)."""
    attrs: dict[str, set[str]] = field(default_factory=dict)


def _annotation_class(node: ast.expr | None) -> str:
    if node is None:
        return UNKNOWN
    text = ast.unparse(node).replace(" ", "")
    parts = {p.strip("'\"").split(".")[-1] for p in text.split("|")} - {"None"}
    if parts and parts <= {"str"}:
        return STR
    if parts and parts <= SAFE_TYPES | {"ContentText", "ContentType"}:
        return SAFE
    if parts and parts <= {"int", "float", "bool"}:
        return NUM
    return UNKNOWN


def _value_class(node: ast.expr | None) -> str:
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) and node.slice.elts:
        return _annotation_class(node.slice.elts[-1])
    return UNKNOWN


def _load_project(trees: list[ast.Module]) -> Project:
    project = Project()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                project.returns.setdefault(node.name, set()).add(_annotation_class(node.returns))
                project.values.setdefault(node.name, set()).add(_value_class(node.returns))
                params = {a.arg: a.annotation for a in [*node.args.args, *node.args.kwonlyargs]}
                for sub in ast.walk(node):  # self.x = param: x has the parameter's type
                    if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Name) and \
                            sub.value.id in params:
                        for target in sub.targets:
                            if isinstance(target, ast.Attribute) and ast.unparse(target.value) == "self":
                                project.attrs.setdefault(target.attr, set()).add(
                                    _annotation_class(params[sub.value.id]))
            elif isinstance(node, ast.AnnAssign):
                target = node.target
                name = target.id if isinstance(target, ast.Name) else \
                    target.attr if isinstance(target, ast.Attribute) else None
                if name:
                    project.attrs.setdefault(name, set()).add(_annotation_class(node.annotation))
    return project


@functools.cache
def project_trees() -> dict[Path, ast.Module]:
    """Every module of octui, parsed (once, when a test first needs it: not at collection, where
    each test worker would parse them all, ~2 s, whether it runs these tests or not)."""
    return {path: ast.parse(path.read_text(encoding="utf-8")) for path in MODULES}


@functools.cache
def whole_project() -> Project:
    return _load_project(list(project_trees().values()))


def _join(classes: set[str]) -> set[str]:
    return classes or {UNKNOWN}


class Scope:
    """Assignments and parameter annotations of one function (or a module)."""

    def __init__(self, node: ast.AST | None, module_consts: dict[str, set[str]],
                 module_dicts: dict[str, list[ast.expr]] | None = None) -> None:
        self.module_dicts = module_dicts or {}
        self.params: dict[str, ast.expr | None] = {}
        self.assigned: dict[str, list[ast.expr | None]] = {}
        self.module_consts = module_consts
        self.node = node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                self.params[arg.arg] = arg.annotation
            for extra in (args.vararg, args.kwarg):
                if extra is not None:
                    self.params[extra.arg] = None
            body: list[ast.AST] = list(node.body) if isinstance(node.body, list) else [node.body]
            for stmt in body:
                for sub in ast.walk(stmt):
                    self._collect(sub)

    def _collect(self, node: ast.AST) -> None:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self._bind(target, node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            cls = _annotation_class(node.annotation)
            self.assigned.setdefault(node.target.id, []).append(
                node.value if cls == UNKNOWN else ast.Constant(value=f"<{cls}>"))
            if cls != UNKNOWN:
                self.params.setdefault(f"<ann>{node.target.id}", node.annotation)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            self.assigned.setdefault(node.target.id, []).append(node.value)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            self._bind(node.target, None)
        elif isinstance(node, ast.NamedExpr):
            self._bind(node.target, node.value)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, None)

    def _bind(self, target: ast.expr, value: ast.expr | None) -> None:
        if isinstance(target, ast.Name):
            self.assigned.setdefault(target.id, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._bind(element, None)


class Classifier:
    def __init__(self, scope: Scope, project: Project, methods: dict[str, set[str]] | None = None,
                 method_values: dict[str, set[str]] | None = None) -> None:
        self.scope = scope
        self.project = project
        self.method_values = method_values or {}
        self.methods = methods or {}
        """Return classes of the enclosing class's own methods (``self.m()`` means this one)."""
        self._busy: set[str] = set()

    def of(self, node: ast.expr | None) -> set[str]:
        if node is None:
            return {UNKNOWN}
        method = getattr(self, f"_{type(node).__name__}", None)
        return _join(method(node)) if method else {UNKNOWN}

    def _Constant(self, node: ast.Constant) -> set[str]:
        value = node.value
        if isinstance(value, str):
            if value.startswith("<") and value.endswith(">") and value[1:-1] in (STR, SAFE, NUM):
                return {value[1:-1]}  # an annotated assignment (see Scope._collect)
            return {BRACKET if "[" in value else LIT}
        if value is None:
            return {NONE}
        return {NUM}

    def _JoinedStr(self, node: ast.JoinedStr) -> set[str]:
        parts: set[str] = set()
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts |= self.of(value)
            elif isinstance(value, ast.FormattedValue):
                if value.format_spec is not None or value.conversion == ord("r"):
                    parts.add(NUM)  # {n:,} {x:.0%} {name!r}: formatted, not raw text
                else:
                    parts |= self.of(value.value)
        if parts <= {LIT, NUM}:
            return {LIT}
        if parts <= {LIT, BRACKET, NUM, VISIBLE, NONE}:
            return {VISIBLE}
        return {STR}

    def _BinOp(self, node: ast.BinOp) -> set[str]:
        left, right = self.of(node.left), self.of(node.right)
        both = left | right
        if both <= {SAFE}:
            return {SAFE}
        if isinstance(node.op, ast.Mult) and left <= {LIT, BRACKET, VISIBLE, STR}:
            return left  # "-" * width: the same kind of str
        if isinstance(node.op, ast.Mod) and left & {LIT, BRACKET, VISIBLE, STR}:
            return {STR}
        if isinstance(node.op, ast.Add) and both & {LIT, BRACKET, VISIBLE, STR}:
            if both <= {LIT, BRACKET, VISIBLE, NUM}:
                return {VISIBLE} if both - {LIT, NUM} else {LIT}
            return {STR}
        if both <= {NUM}:
            return {NUM}
        return {UNKNOWN}

    def _dict_literal(self, node: ast.expr) -> ast.Dict | None:
        """``node`` if it is (a name bound only to) a dict literal."""
        if isinstance(node, ast.Dict):
            return node
        if isinstance(node, ast.Name):
            values = self.scope.assigned.get(node.id) or self.scope.module_dicts.get(node.id, [])
            if len(values) == 1 and isinstance(values[0], ast.Dict):
                return values[0]
        return None

    def _IfExp(self, node: ast.IfExp) -> set[str]:
        return self.of(node.body) | self.of(node.orelse)

    def _BoolOp(self, node: ast.BoolOp) -> set[str]:
        out: set[str] = set()
        for value in node.values:
            out |= self.of(value)
        return out

    def _Name(self, node: ast.Name) -> set[str]:
        name = node.id
        scope = self.scope
        if name in scope.params and name not in scope.assigned:
            return {_annotation_class(scope.params[name])}
        if name in scope.assigned:
            if name in self._busy:
                return set()
            self._busy.add(name)
            try:
                out: set[str] = set()
                for value in scope.assigned[name]:
                    out |= self.of(value)
                if name in scope.params:
                    out.add(_annotation_class(scope.params[name]))
                return out
            finally:
                self._busy.discard(name)
        if name in scope.module_consts:
            return scope.module_consts[name]
        return {UNKNOWN}

    def _Attribute(self, node: ast.Attribute) -> set[str]:
        if node.attr == "plain" and self.of(node.value) <= {SAFE}:
            return {STR}
        declared = self.project.attrs.get(node.attr)
        if declared and len(declared) == 1:
            return set(declared)
        return {UNKNOWN}

    def _Call(self, node: ast.Call) -> set[str]:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                func.value.id in CONTENT_CLASSES:
            return {SAFE}  # Content.assemble / styled / from_rich_text … (checked as builders)
        if name in CONTENT_FACTORIES:
            return {SAFE}
        if name in VISIBLE_FUNCS:
            return {VISIBLE}
        if name in NUMERIC_FUNCS:
            return {NUM}
        if name == "get" and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
            callee = func.value.func
            callee_name = callee.attr if isinstance(callee, ast.Attribute) else \
                callee.id if isinstance(callee, ast.Name) else ""
            values = self.project.values.get(callee_name, set())
            if isinstance(callee, ast.Attribute) and ast.unparse(callee.value) == "self" and \
                    callee_name in self.method_values:
                values = self.method_values[callee_name]
            if len(values) == 1:
                return values | {NONE}
        if name == "get" and isinstance(func, ast.Attribute):
            table = self._dict_literal(func.value)
            if table is not None:
                out: set[str] = set()
                for value in [*table.values, *node.args[1:]]:
                    out |= self.of(value)
                return out if len(node.args) > 1 else out | {NONE}
        if name in ("str", "repr", "format"):
            args = [self.of(a) for a in node.args]
            return {NUM} if args and all(a <= {NUM} for a in args) else {STR}
        if isinstance(func, ast.Attribute):
            receiver = self.of(func.value)
            if name == "join":
                if receiver <= {SAFE}:
                    return {SAFE}
                items = node.args[0] if node.args else None
                elements: set[str] = set()
                if isinstance(items, (ast.GeneratorExp, ast.ListComp)):
                    elements = self.of(items.elt)
                elif isinstance(items, ast.Name):
                    for element in list_elements(self.scope.node, items.id):
                        elements |= self.of(element)
                elif isinstance(items, (ast.List, ast.Tuple)):
                    for element in _elements(items):
                        elements |= self.of(element)
                if not elements:
                    return {STR}
                if receiver <= {LIT, BRACKET, VISIBLE} and elements <= {LIT, BRACKET, VISIBLE, NUM}:
                    return {VISIBLE}
                return {STR}
            if receiver <= {SAFE} and name not in ("plain",):
                return {SAFE}  # Content methods return Content
            if name in STR_METHODS and receiver & {LIT, BRACKET, VISIBLE, STR}:
                return {VISIBLE} if receiver <= {LIT, BRACKET, VISIBLE} else {STR}
            if name == "format" and receiver & {LIT, BRACKET}:
                return {STR}
        if isinstance(func, ast.Attribute) and ast.unparse(func.value) == "self" and name in self.methods:
            return set(self.methods[name])
        declared = self.project.returns.get(name)
        if declared and len(declared) == 1:
            return set(declared)
        return {UNKNOWN}

    def _Subscript(self, node: ast.Subscript) -> set[str]:
        table = self._dict_literal(node.value)
        if table is not None:
            out: set[str] = set()
            for value in table.values:
                out |= self.of(value)
            return out
        base = self.of(node.value)
        if base <= {LIT, BRACKET, VISIBLE, STR} and isinstance(node.slice, ast.Slice):
            return base  # a slice of a str is the same kind of str
        return {UNKNOWN}


@dataclass(frozen=True)
class Violation:
    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def _module_dicts(tree: ast.Module) -> dict[str, list[ast.expr]]:
    assigned: dict[str, list[ast.expr]] = {
        stmt.targets[0].id: [stmt.value] for stmt in tree.body
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Dict)}
    return assigned | {
        stmt.target.id: [stmt.value] for stmt in tree.body
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
        and isinstance(stmt.value, ast.Dict)}


def _module_consts(tree: ast.Module, project: Project) -> dict[str, set[str]]:
    consts: dict[str, set[str]] = {}
    scope = Scope(None, {})
    classifier = Classifier(scope, project)
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            consts[stmt.targets[0].id] = classifier.of(stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            consts[stmt.target.id] = classifier.of(stmt.value)
    return consts


def _text_arg(call: ast.Call, position: int | None, keywords: tuple[str, ...]) -> Iterator[ast.expr]:
    if position is not None and len(call.args) > position and \
            not isinstance(call.args[position], ast.Starred):
        yield call.args[position]
    for keyword in call.keywords:
        if keyword.arg in keywords:
            yield keyword.value


def _markup_off(call: ast.Call) -> bool:
    return any(k.arg == "markup" and isinstance(k.value, ast.Constant) and k.value.value is False
               for k in call.keywords)


class Checker(ast.NodeVisitor):
    def __init__(self, path: Path, tree: ast.Module, project: Project | None = None) -> None:
        self.path = path.relative_to(ROOT).as_posix()
        project = self.project = project or whole_project()
        self.consts = _module_consts(tree, project)
        self.dicts = _module_dicts(tree)
        self.violations: list[Violation] = []
        self.scopes: list[Scope] = [Scope(None, self.consts, self.dicts)]
        self.classes: list[ast.ClassDef] = []

    @property
    def classify(self) -> Classifier:
        methods: dict[str, set[str]] = {}
        values: dict[str, set[str]] = {}
        if self.classes:
            for item in self.classes[-1].body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    methods[item.name] = {_annotation_class(item.returns)}
                    values[item.name] = {_value_class(item.returns)}
        return Classifier(self.scopes[-1], self.project, methods, values)

    def _flag(self, node: ast.AST, what: str) -> None:
        self.violations.append(Violation(self.path, getattr(node, "lineno", 0), what))

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.append(node)
        self.generic_visit(node)
        self.classes.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.scopes.append(Scope(node, self.consts, self.dicts))
        self.generic_visit(node)
        self.scopes.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # noqa: N815

    def _need(self, node: ast.expr, allowed: set[str], sink: str) -> None:
        found = self.classify.of(node)
        if not found <= allowed:
            bad = sorted(found - allowed)
            self._flag(node, f"{sink} gets {'/'.join(bad)}: `{ast.unparse(node)[:70]}`")

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Subscript):  # SelectionList[str](...)
            func = func.value
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
        strict = {LIT, NONE, SAFE} | ({VISIBLE} if _markup_off(node) else set())
        if name in STRICT_CALLS and not (name == "Text" and owner):
            position, keywords = STRICT_CALLS[name]
            for arg in _text_arg(node, position, keywords):
                self._need(arg, strict, f"{name}()")
        elif name in ("Select", "SelectionList", "set_options", "add_options"):
            for arg in node.args:
                for option in _option_tuples(arg):
                    self._need(option, strict, f"{name}() option prompt")
        elif name == "notify":
            if self.path != "widgets/plain.py":
                self._flag(node, "notify() outside widgets.plain.toast: use toast() (markup off)")
        elif name == "update" and isinstance(func, ast.Attribute) and len(node.args) == 1:
            found = self.classify.of(node.args[0])
            if found & {BRACKET, VISIBLE, STR} and not _markup_off(node):
                self._flag(node, f".update() gets a str: `{ast.unparse(node.args[0])[:70]}`")
        elif name == "add" and isinstance(func, ast.Attribute) and (len(node.args) >= 2 or any(
                k.arg in ("expand", "allow_expand", "data") for k in node.keywords)):
            self._need(node.args[0], {LIT, NONE, SAFE}, "TreeNode.add()")
        elif name in MARKUP_PARSERS and owner != "re" and node.args and \
                not isinstance(node.args[0], ast.Constant) and \
                (name != "highlight" or isinstance(func, ast.Attribute)):
            self._flag(node, f"{name}() on non-literal text: server text is never markup")
        if name == "Input":  # drawn as rich Text: no markup, but controls would reach the terminal
            for arg in _text_arg(node, 0, ("value", "placeholder")):
                self._need(arg, {LIT, NONE, VISIBLE}, "Input() value/placeholder")
        self._check_builder(node, name, owner)
        self.generic_visit(node)

    def _check_builder(self, node: ast.Call, name: str, owner: str) -> None:
        """Content/Text built from raw str: must go through plain() or a visible str."""
        if self.path == "widgets/plain.py":
            return  # the one place that builds Content from raw text (after making it visible)
        allowed = {LIT, BRACKET, NONE, NUM, SAFE, VISIBLE}
        if (name in CONTENT_CLASSES and not owner) or (owner in CONTENT_CLASSES and name in ("styled",)):
            if node.args:
                self._need(node.args[0], allowed, f"{owner + '.' if owner else ''}{name}()")
        elif owner in CONTENT_CLASSES and name == "assemble":
            for arg in node.args:
                self._check_part(arg, allowed)

    def _check_part(self, arg: ast.expr, allowed: set[str]) -> None:
        if isinstance(arg, ast.IfExp):
            self._check_part(arg.body, allowed)
            self._check_part(arg.orelse, allowed)
        elif isinstance(arg, ast.Tuple) and arg.elts:
            self._need(arg.elts[0], allowed, "Content.assemble() part")
        elif isinstance(arg, ast.Starred) and isinstance(arg.value, ast.Name):
            for part in self._parts_of(arg.value.id):
                self._check_part(part, allowed)
        elif isinstance(arg, ast.Starred):
            return  # a generator of parts: its elements are checked where they are built
        else:
            self._need(arg, allowed, "Content.assemble() part")

    def _parts_of(self, name: str) -> Iterator[ast.expr]:
        yield from list_elements(self.scopes[-1].node, name)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            if isinstance(target, ast.Attribute):
                self._check_attr(target, node.value)
        self.generic_visit(node)

    def _check_attr(self, target: ast.Attribute, value: ast.expr) -> None:
        attr = target.attr
        collapsible = any("Collapsible" in ast.unparse(base) for cls in self.classes for base in cls.bases)
        widget = ast.unparse(target.value) in ("self", "self.app", "self.screen", "app", "screen")
        if attr in STRICT_ATTRS or (attr == "title" and collapsible):
            self._need(value, {LIT, NONE, SAFE}, f".{attr} =")
        elif attr in TITLE_ATTRS and widget:
            self._need(value, {LIT, NONE, SAFE, VISIBLE}, f".{attr} =")


def _option_tuples(arg: ast.expr) -> Iterator[ast.expr]:
    """The prompt (first element) of each ``(prompt, value, …)`` tuple in a list of options."""
    if isinstance(arg, ast.Starred):
        arg = arg.value
    elements: list[ast.expr] = []
    if isinstance(arg, (ast.List, ast.Tuple)):
        elements = list(_elements(arg))
    elif isinstance(arg, (ast.ListComp, ast.GeneratorExp)):
        elements = [arg.elt]
    for element in elements:
        if isinstance(element, ast.Tuple) and element.elts:
            yield element.elts[0]


def list_elements(function: ast.AST | None, name: str) -> Iterator[ast.expr]:
    """Elements put into the list ``name`` in ``function`` (assigned, appended, extended)."""
    if function is None:
        return
    for sub in ast.walk(function):
        if isinstance(sub, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in sub.targets):
            yield from _elements(sub.value)
        elif isinstance(sub, (ast.AnnAssign, ast.AugAssign)) and isinstance(sub.target, ast.Name) and \
                sub.target.id == name and sub.value is not None:
            yield from _elements(sub.value)
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and \
                isinstance(sub.func.value, ast.Name) and sub.func.value.id == name:
            if sub.func.attr in ("append", "insert") and sub.args:
                yield sub.args[-1]
            elif sub.func.attr == "extend" and sub.args:
                yield from _elements(sub.args[0])


def _elements(value: ast.expr) -> Iterator[ast.expr]:
    if isinstance(value, (ast.List, ast.Tuple)):
        for element in value.elts:
            yield element.value if isinstance(element, ast.Starred) else element
    elif isinstance(value, ast.BinOp):
        yield from _elements(value.left)
        yield from _elements(value.right)


def all_violations() -> list[Violation]:
    found: list[Violation] = []
    for path, tree in project_trees().items():
        checker = Checker(path, tree)
        checker.visit(tree)
        found += checker.violations
    return found


def test_server_text_never_reaches_a_markup_sink() -> None:
    violations = all_violations()
    assert not violations, "server text reaches the screen unsafely:\n" + "\n".join(map(str, violations))


# -- the checker itself must catch each unsafe form ---------------------------------------------

UNSAFE = {
    "f-string in Static": "def f(t: str):\n    return Static(f'x {t}')",
    "variable in Label": "def f(t: str):\n    return Label(t)",
    "concatenation in Option": "def f(t: str):\n    return Option('> ' + t)",
    "str helper in Button": "def g() -> str: ...\ndef f():\n    return Button(g())",
    "bracket literal in Static": "Static('Allow [o]')",
    "notify": "def f(app, t):\n    app.notify(t)",
    "update with f-string": "def f(w, t: str):\n    w.update(f'{t}!')",
    "tree node add": "def f(node, t: str):\n    node.add(t, data=1)",
    "set_label": "def f(node, t: str):\n    node.set_label(t)",
    "label attribute": "def f(b, t: str):\n    b.label = t",
    "raw str into Content": "def f(t: str):\n    return Content(t)",
    "raw str into Content.assemble": "def f(t: str):\n    return Content.assemble(('x', 'bold'), t)",
    "raw str into Content.styled": "def f(t: str):\n    return Content.styled(t, 'bold')",
    "from_markup": "def f(t):\n    return Content.from_markup(t)",
    "escape": "def f(t):\n    return escape(t)",
    "fuzzy highlight": "def f(m, t):\n    return m.highlight(t)",
    "raw sub_title": "def f(self, t: str):\n    self.sub_title = t",
    "raw str into Text": "def f(t: str):\n    return Text(t)",
    "visible str without markup off": "def f(t: str):\n    return Static(one_line(t))",
    "Select option prompt": "def f(names: list[str]):\n    return Select([(n, n) for n in names])",
    "SelectionList prompt": "def f(t: str):\n    return SelectionList[str](*[(t + '!', 1, False)])",
    "raw Input value": "def f(t: str):\n    return Input(t)",
    "raw Input placeholder": "def f(t: str):\n    return Input(placeholder=t)",
}
SAFE_FORMS = {
    "plain": "def f(t: str):\n    return Static(plain(t))",
    "Content of visible": "def f(t: str):\n    return Static(Content(one_line(t)))",
    "markup off with visible text": "def f(t: str):\n    return Static(clean_text(t), markup=False)",
    "literal": "Static('Sessions')",
    "Content-returning helper": "def g() -> Content: ...\ndef f():\n    return Static(g())",
    "variable bound to Content": "def f(t: str):\n    c = plain(t)\n    return Label(c)",
    "assemble of visible": "def f(t: str):\n    return Content.assemble(('x', 'b'), one_line(t))",
    "update with Content": "def f(w, t: str):\n    w.update(plain(t))",
    "sub_title visible": "def f(self, t: str):\n    self.sub_title = one_line(t)",
    "f-string of numbers": "def f(n: int):\n    return Content(f'{n:,} lines')",
}


def _check_source(source: str) -> list[Violation]:
    tree = ast.parse(source)
    checker = Checker(ROOT / "tui" / "example.py", tree, _load_project([tree]))
    checker.visit(tree)
    return checker.violations


@pytest.mark.parametrize("source", UNSAFE.values(), ids=UNSAFE.keys())
def test_checker_catches(source: str) -> None:
    assert _check_source(source), "the checker missed an unsafe form"


@pytest.mark.parametrize("source", SAFE_FORMS.values(), ids=SAFE_FORMS.keys())
def test_checker_allows(source: str) -> None:
    assert not _check_source(source)


def test_textual_keeps_content_given_as_markup() -> None:
    """``as_markup_arg`` relies on ``Content.from_markup``/``from_text`` returning a Content as it
    is (collapsible titles, palette help): if a Textual upgrade changes that, this fails."""
    help_text = palette_help("[b]x[/b] \x1b]8;;u\x07")
    assert Content.from_markup(help_text) is help_text
    assert Content.from_text(help_text) is help_text
    assert Content.from_markup(help_text).plain == "[b]x[/b] ␛]8;;u␇"
    title = as_markup_arg(plain("[/b]-x.txt"))
    assert Collapsible(title=title).title is title
