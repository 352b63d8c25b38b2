"""JSON value rules the compiled schema checks call: equality, dates, duplicates, type names.

JSON's rules, not Python's: `true` is not `1`, `1.0` is `1`, and a date names a real day.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$", re.ASCII)


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: `true` is not `1`, `1.0` is `1`."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if is_number(a) and is_number(b):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(json_equal, a, b))
    return type(a) is type(b) and a == b


def is_date(text: str) -> bool:
    """A `YYYY-MM-DD` string that names a real day (no 2026-02-30)."""
    if not _DATE.fullmatch(text):
        return False
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def has_duplicates(items: list[Any]) -> bool:
    """Whether two items are equal as JSON values (`1` and `true` differ, `1` and `1.0` do not)."""
    if all(type(x) is str for x in items):
        return len(set(items)) != len(items)  # the usual list (tags, check names): hashed
    return any(json_equal(a, b) for i, a in enumerate(items) for b in items[i + 1 :])


def is_number(x: Any) -> bool:
    """A JSON number: booleans are not numbers."""
    return isinstance(x, int | float) and not isinstance(x, bool)


def kind_of(value: Any) -> str:
    """The JSON type name of a parsed value, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if is_number(value):
        return "number"
    return {dict: "object", list: "array", str: "string"}.get(type(value), type(value).__name__)
