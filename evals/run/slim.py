"""A row as a comparison reads it: what `invoke diff` keeps of 100,000 rows."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

#: What a comparison of two runs never reads of a row: the answer and what the provider
#: reported about it, and each check's prose (its status and score stay).
UNCOMPARED = ("draft", "cited", "latency_ms", "usage", "resolved_model", "abstained", "cost_usd")
#: What it reads of every row the header or the reader already hold, or nothing reads.
UNREAD = ("kind", "run_id", "model", "prompt_sha", "cached", "tries")
#: The fields a compared row keeps in place; any other is kept beside them.
FIELDS = (
    "case",
    "case_sha",
    "epoch",
    "status",
    "score",
    "checks",
    "failed_checks",
    "review_checks",
    "error",
    "question",
    "category",
    "cluster",
    "retrieved",
)
_INDEX = {k: i for i, k in enumerate(FIELDS)}
_ABSENT = object()


class SlimRow(Mapping[str, Any]):
    """A row as a comparison reads it, read like the dict it was: one slot per field of
    FIELDS (a dict of them took 650 bytes a row), any other field in a dict beside them."""

    __slots__ = (*(f"f_{k}" for k in FIELDS), "_extra")

    def __init__(self, values: dict[str, Any]) -> None:
        for k in FIELDS:
            object.__setattr__(self, f"f_{k}", values.pop(k, _ABSENT))
        self._extra = values or None

    def _value(self, key: str) -> Any:
        if key in _INDEX:
            return getattr(self, f"f_{key}")
        return _ABSENT if self._extra is None else self._extra.get(key, _ABSENT)

    def __getitem__(self, key: str) -> Any:
        value = self._value(key)
        if value is _ABSENT:
            raise KeyError(key)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        value = self._value(key)
        return default if value is _ABSENT else value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._value(key) is not _ABSENT

    def __iter__(self) -> Iterator[str]:
        yield from (k for k in FIELDS if getattr(self, f"f_{k}") is not _ABSENT)
        yield from self._extra or ()

    def __len__(self) -> int:
        return sum(1 for _ in self)


def slimmer() -> Callable[[dict[str, Any]], Mapping[str, Any]]:
    """A row as a comparison reads it: UNCOMPARED and UNREAD left out, check details dropped, and what
    rows repeat (case ids, shas, statuses, the model; whole sets of check results, lists of
    refs) kept once, shared between the rows that hold it. 100,000 rows read whole took
    19 KB each. The rows it gives are read, never changed."""
    shared: dict[Any, Any] = {}

    def once(key: Any, value: Any) -> Any:
        return shared.setdefault(key, value)

    def slim(row: dict[str, Any]) -> SlimRow:
        out: dict[str, Any] = {}
        for k, v in row.items():
            if k in UNCOMPARED or k in UNREAD:
                continue
            if k == "checks" and isinstance(v, dict):
                items = tuple((n, r["status"], r.get("score")) for n, r in v.items())
                v = once(
                    ("checks", items),
                    {sys.intern(n): {"status": sys.intern(st), "score": sc} for n, st, sc in items},
                )
            elif isinstance(v, list) and all(isinstance(x, str) for x in v):
                v = once(("list", k, *v), [sys.intern(x) for x in v])
            elif isinstance(v, str) and len(v) <= 100:
                v = sys.intern(v)
            out[sys.intern(k)] = v
        return SlimRow(out)

    return slim
