"""A row as a comparison reads it: what `invoke diff` keeps of 100,000 rows."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

#: What a comparison of two runs never reads of a row: the answer and what the provider
#: reported about it, and each check's prose (its status and score stay).
UNCOMPARED = ("draft", "cited", "latency_ms", "usage", "resolved_model", "abstained", "cost_usd")


def slimmer() -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A row as a comparison reads it: UNCOMPARED left out, check details dropped, and what
    rows repeat (case ids, shas, statuses, the model; whole sets of check results, lists of
    refs) kept once, shared between the rows that hold it. 100,000 rows read whole took
    19 KB each. The rows it gives are read, never changed."""
    shared: dict[Any, Any] = {}

    def once(key: Any, value: Any) -> Any:
        return shared.setdefault(key, value)

    def slim(row: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in row.items():
            if k in UNCOMPARED:
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
        return out

    return slim
