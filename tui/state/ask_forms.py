"""Provides the pure form logic: ``when`` visibility, defaults, validation and the answer body.

No Textual. Editors hold raw values (``FormValues``); this module decides what is shown, what is
wrong and what is sent. ``tui.state.asks`` re-exports the public names.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from typing import Any
from urllib.parse import urlparse

from tui.protocol.models import FormField, FormInfo
from tui.text.sanitize import one_line

FormValues = dict[str, Any]
"""Raw editor values by key: str for string/number/integer, bool, list[str] for multiselect."""


def initial_values(form: FormInfo) -> FormValues:
    """Editor values before the user touches anything (defaults; booleans start False)."""
    values: FormValues = {}
    for f in form.fields:
        if f.type == "external":
            continue
        if f.type == "boolean":
            values[f.key] = bool(f.default) if f.default is not None else False
        elif f.type == "multiselect":
            values[f.key] = [str(v) for v in f.default] if isinstance(f.default, list) else []
        elif f.default is not None:
            values[f.key] = str(f.default) if not isinstance(f.default, bool) else str(f.default).lower()
        else:
            values[f.key] = ""
    return values


def _typed(f: FormField, raw: Any) -> Any:
    """The wire value for a raw editor value (None when empty or not convertible)."""
    if raw is None:
        return None
    if f.type == "boolean":
        return bool(raw)
    if f.type == "multiselect":
        return [str(v) for v in raw] if isinstance(raw, list) else None
    text = str(raw).strip()
    if not text:
        return None
    if f.type in ("number", "integer"):
        try:
            number = float(text)
        except ValueError:
            return None
        if not math.isfinite(number):  # "inf", "nan", 400 digits: no JSON number holds them
            return None
        if f.type == "integer":
            return int(number) if number.is_integer() else None
        return int(number) if number.is_integer() and "." not in text and "e" not in text.lower() \
            else number
    return text


def _matches(cond_value: Any, actual: Any) -> bool:
    if actual is None:
        return cond_value is None or cond_value == "" or cond_value == []
    if isinstance(actual, list) and not isinstance(cond_value, list):
        return any(_matches(cond_value, item) for item in actual)
    if isinstance(actual, bool) or isinstance(cond_value, bool):
        return str(actual).lower() == str(cond_value).lower()
    if isinstance(actual, int | float) and isinstance(cond_value, int | float):
        return float(actual) == float(cond_value)
    return bool(actual == cond_value) or str(actual) == str(cond_value)


def visible_keys(form: FormInfo, values: FormValues) -> set[str]:
    """Keys of the fields to show.

    Every ``when`` condition must hold (AND). A condition on a field that is itself hidden fails
    whatever its op, so chains collapse; an unanswered field equals ``None``/``""``/``[]``.
    Cycles count as hidden.
    """
    by_key = {f.key: f for f in form.fields}
    typed = {k: _typed(by_key[k], v) for k, v in values.items() if k in by_key}
    memo: dict[str, bool] = {}

    def shown(key: str, path: frozenset[str]) -> bool:
        if key in memo:
            return memo[key]
        if key in path:
            return False
        result = True
        for cond in by_key[key].when or []:
            if cond.key in by_key and not shown(cond.key, path | {key}):
                result = False
                break
            if (cond.op == "neq") == _matches(cond.value, typed.get(cond.key)):
                result = False
                break
        memo[key] = result
        return result

    return {f.key for f in form.fields if shown(f.key, frozenset())}


_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def _format_error(fmt: str, text: str) -> str | None:
    if fmt == "email" and not _EMAIL.match(text):
        return "Enter an email address"
    if fmt == "uri":
        parts = urlparse(text)
        if not parts.scheme or not (parts.netloc or parts.path):
            return "Enter a URI such as https://example.com"
    if fmt == "date":
        try:
            _dt.date.fromisoformat(text)
        except ValueError:
            return "Enter a date as YYYY-MM-DD"
    if fmt == "date-time":
        try:
            _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return "Enter a date-time as YYYY-MM-DDTHH:MM:SS"
    return None


def _option_values(f: FormField) -> list[str]:
    return [o.value for o in f.options or []]


def validate_field(f: FormField, raw: Any) -> str | None:
    """One message for the first rule ``raw`` breaks, or None."""
    if f.type == "external":
        return None
    value = _typed(f, raw)
    empty = value is None or value == []
    if empty:
        if f.type in ("number", "integer") and raw not in (None, "") and str(raw).strip():
            return "Enter a whole number" if f.type == "integer" else "Enter a number"
        return "Required" if f.required else None
    if f.type in ("number", "integer"):
        if f.minimum is not None and value < f.minimum:
            return f"Must be at least {_num(f.minimum)}"
        if f.maximum is not None and value > f.maximum:
            return f"Must be at most {_num(f.maximum)}"
        return None
    if f.type == "multiselect":
        count = len(value)
        if f.minItems is not None and count < f.minItems:
            return f"Pick at least {f.minItems}"
        if f.maxItems is not None and count > f.maxItems:
            return f"Pick at most {f.maxItems}"
        if f.options and not f.custom:
            unknown = [v for v in value if v not in _option_values(f)]
            if unknown:
                return f"Not an option: {one_line(unknown[0], 40)}"
        return None
    if f.type == "string":
        text = str(value)
        if f.options and not f.custom and text not in _option_values(f):
            return "Pick one of the options"
        if f.minLength is not None and len(text) < f.minLength:
            return f"At least {f.minLength} characters"
        if f.maxLength is not None and len(text) > f.maxLength:
            return f"At most {f.maxLength} characters"
        if f.pattern:
            try:
                if not re.search(f.pattern, text):
                    return "Does not match the expected pattern"
            except re.error:
                pass
        if f.format:
            return _format_error(f.format, text)
    return None


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def validate_form(form: FormInfo, values: FormValues) -> dict[str, str]:
    """Error message by key, for visible fields only."""
    shown = visible_keys(form, values)
    errors: dict[str, str] = {}
    for f in form.fields:
        if f.key in shown and (message := validate_field(f, values.get(f.key))):
            errors[f.key] = message
    return errors


def form_answer_body(form: FormInfo, values: FormValues) -> dict[str, Any]:
    """The ``{answer}`` body: visible, non-empty fields with wire types."""
    shown = visible_keys(form, values)
    answer: dict[str, Any] = {}
    for f in form.fields:
        if f.type == "external" or f.key not in shown:
            continue
        value = _typed(f, values.get(f.key))
        if value is None or (value == [] and not f.required):
            continue
        answer[f.key] = value
    return answer
