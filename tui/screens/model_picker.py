"""Provides ``ModelPicker`` (and the shared ``PickerScreen``): choose a model from the live catalog.

The screens never talk HTTP: the caller passes the catalog (``ModelInfo`` list), the recent
models and the current one, and gets the chosen ``ModelRef`` (or ``None``) back from ``dismiss``.
Keys: type to filter (fuzzy), ↑/↓ move, Enter chooses, Esc closes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tui.protocol.models import ModelInfo, ModelRef
from tui.session.mentions import fuzzy_filter
from tui.text.sanitize import one_line
from widgets.plain import plain, plain_line

__all__ = ["ModelPicker", "PickerEntry", "PickerScreen", "humane_count", "model_entries"]

T = TypeVar("T")


@dataclass(frozen=True)
class PickerEntry(Generic[T]):
    """One row: ``search`` is what the filter matches; ``group`` heads a section."""

    value: T
    label: str
    detail: str = ""
    group: str = ""
    current: bool = False

    @property
    def search(self) -> str:
        return f"{self.label} {self.detail}"


class PickerScreen(ModalScreen[T | None], Generic[T]):
    """A filterable list in a dialog; dismisses with the chosen value or ``None``."""

    DEFAULT_CLASSES = "picker"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", show=False),
        Binding("down", "move(1)", "Next", show=False),
        Binding("up", "move(-1)", "Previous", show=False),
        Binding("pagedown", "move(8)", "Page down", show=False),
        Binding("pageup", "move(-8)", "Page up", show=False),
    ]

    def __init__(self, title: str, entries: Sequence[PickerEntry[T]] | None, *,
                 empty: str = "Nothing to choose", loading: str = "◌ Loading…",
                 hint: str = "type to filter · ↑↓ move · Enter choose · Esc close") -> None:
        super().__init__()
        self.title_text = title
        self.fetching = entries is None
        """True until ``set_entries``: the list is still being fetched (the dialog says so)."""
        self.entries = list(entries or ())
        self.shown: list[PickerEntry[T]] = []
        self.empty = empty
        self.loading_text = loading
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static(plain(self.title_text, "bold"), id="picker-title")
            yield Input(placeholder="Filter…", id="picker-filter", compact=True)
            yield OptionList(id="picker-list", compact=True)
            yield Static(plain(self.hint), id="picker-hint")

    def on_mount(self) -> None:
        self._fill("")
        self.query_one(Input).focus()

    def set_entries(self, entries: Sequence[PickerEntry[T]]) -> None:
        """The list has arrived: show it (filtered by whatever was typed meanwhile)."""
        self.fetching = False
        self.entries = list(entries)
        if self.is_mounted:
            self._fill(self.query_one(Input).value)

    @on(Input.Changed, "#picker-filter")
    def _filter(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def _fill(self, query: str) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        if query.strip():
            self.shown = fuzzy_filter(query.strip(), self.entries, key=lambda e: e.search)
            grouped = False
        else:
            self.shown = list(self.entries)
            grouped = True
        rows: list[Option | None] = []
        group = None
        for index, entry in enumerate(self.shown):
            if grouped and entry.group and entry.group != group:
                group = entry.group
                rows.append(Option(plain_line(group, 80, "bold $foreground-muted"), disabled=True,
                                   id=f"group-{index}"))
            rows.append(Option(self._row(entry), id=str(index)))
        if not self.shown:
            placeholder = self.loading_text if self.fetching else self.empty
            rows.append(Option(plain(placeholder, "$foreground-muted"), disabled=True))
        options.add_options(rows)
        current = next((i for i, e in enumerate(self.shown) if e.current), 0) if grouped else 0
        self._highlight(current)

    def _highlight(self, index: int) -> None:
        options = self.query_one(OptionList)
        if not self.shown:
            return
        index = max(0, min(index, len(self.shown) - 1))
        options.highlighted = options.get_option_index(str(index))

    @staticmethod
    def _row(entry: PickerEntry[Any]) -> Content:
        mark = "● " if entry.current else "  "
        parts: list[Any] = [(mark, "$success"), (one_line(entry.label, 60), "bold")]
        if entry.detail:
            parts += ["  ", (one_line(entry.detail, 80), "$foreground-muted")]
        return Content.assemble(*parts)

    def _selected_index(self) -> int | None:
        option = self.query_one(OptionList).highlighted_option
        if option is None or option.id is None or option.id.startswith("group-"):
            return None
        return int(option.id)

    def action_move(self, step: int) -> None:
        index = self._selected_index()
        self._highlight((index if index is not None else -1) + step)

    @on(Input.Submitted, "#picker-filter")
    def _submit(self) -> None:
        self._choose()

    @on(OptionList.OptionSelected, "#picker-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self._choose()

    def _choose(self) -> None:
        index = self._selected_index()
        if index is not None:
            self.dismiss(self.shown[index].value)

    def action_close(self) -> None:
        self.dismiss(None)


def humane_count(value: float) -> str:
    """A context size as people say it: ``262144`` -> ``262k``, ``1048576`` -> ``1M``,
    ``1_500_000`` -> ``1.5M``, ``128000`` -> ``128k``, ``999`` -> ``999``."""
    if not math.isfinite(value):
        return "?"
    if value >= 999_500:
        millions = round(value / 1_000_000, 1)
        return f"{millions:g}M"
    if value >= 1000:
        return f"{round(value / 1000):g}k"
    return f"{round(value):g}"


def _context(limit: float) -> str:
    return f"{humane_count(limit)} ctx" if limit > 0 else ""


def _variants(model: ModelInfo) -> list[str]:
    names: list[str] = []
    for raw in model.variants:
        name = raw.get("id") if isinstance(raw, dict) else raw
        if isinstance(name, str) and name and name != "default":
            names.append(name)
    return names


def _same(a: ModelRef | None, b: ModelRef) -> bool:
    return a is not None and a.id == b.id and a.providerID == b.providerID and \
        (a.variant or None) == (b.variant or None)


def model_entries(models: Sequence[ModelInfo], recent: Sequence[ModelRef] = (),
                  current: ModelRef | None = None) -> list[PickerEntry[ModelRef]]:
    """Rows for the model picker: the current model, the recent ones, then every enabled model
    and its variants, those the server marks deprecated last (QA: the model in use came last,
    under some thirty deprecated ones)."""
    usable = [m for m in models if m.enabled]
    by_key = {(m.providerID, m.id): m for m in usable}
    entries: list[PickerEntry[ModelRef]] = []
    if current is not None:  # first (the session's model, picked here or not)
        recent = [current, *(ref for ref in recent if not _same(current, ref))]

    def entry(model: ModelInfo, variant: str | None, group: str) -> PickerEntry[ModelRef]:
        ref = ModelRef(id=model.id, providerID=model.providerID, variant=variant)
        name = model.name or model.id
        label = f"{name} · {variant}" if variant else name
        detail = "  ".join(x for x in (f"{model.providerID}/{model.id}", _context(model.limit.context),
                                       model.status if model.status not in (None, "active") else "") if x)
        return PickerEntry(ref, label, detail, group, _same(current, ref))

    for ref in recent:
        model = by_key.get((ref.providerID, ref.id))
        if model is not None:
            entries.append(entry(model, ref.variant if ref.variant in _variants(model) else None, "Recent"))
    for group, deprecated in (("All models", False), ("Deprecated", True)):
        for model in usable:
            if (model.status == "deprecated") is deprecated:
                entries.append(entry(model, None, group))
                entries.extend(entry(model, v, group) for v in _variants(model))
    return entries


class ModelPicker(PickerScreen[ModelRef]):
    """Choose a model; dismisses with a ``ModelRef`` (with ``variant`` for a variant row)."""

    def __init__(self, models: Sequence[ModelInfo] | None, recent: Sequence[ModelRef] = (),
                 current: ModelRef | None = None) -> None:
        """``models`` None: the catalog is still loading; ``set_models`` fills the list."""
        super().__init__("Switch model",
                         None if models is None else model_entries(models, recent, current),
                         empty="No models available — is a provider configured?",
                         loading="◌ Loading the model list…")
        self._recent = list(recent)
        self._current_model = current

    def set_models(self, models: Sequence[ModelInfo]) -> None:
        self.set_entries(model_entries(models, self._recent, self._current_model))
