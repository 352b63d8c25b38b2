"""A date the answer computes from the customer's own: a contract that started on
1 January 2026 with a 3-year term ends on 1 January 2029. The inputs are the ticket's (its
turns and context), so the date needs no citation, as the ticket's own figures need none."""

from __future__ import annotations

import calendar
from collections.abc import Sequence

from evals.checks.values import Figure

_MONTHS_IN = {"year": 12, "month": 1}


def _plus_months(date: tuple[int, int, int], months: int) -> tuple[int, int, int]:
    y, m, d = date
    total = y * 12 + (m - 1) + months
    y2, m2 = divmod(total, 12)
    return y2, m2 + 1, min(d, calendar.monthrange(y2, m2 + 1)[1])


def date_from_given(fig: Figure, given: Sequence[Figure]) -> bool:
    """Whether a dated figure is one of the customer's dates moved on by one of their terms
    in years or months (a start date and the contract's length)."""
    if fig.kind != "date" or not isinstance(fig.value, tuple) or fig.value[0] is None:
        return False
    dates = [g.value for g in given if g.kind == "date" and isinstance(g.value, tuple)]
    terms = [
        int(g.value) * _MONTHS_IN[g.unit]  # type: ignore[call-overload]
        for g in given
        if g.kind == "duration" and g.unit in _MONTHS_IN
    ]
    return any(
        d[0] is not None and _plus_months(d, k) == fig.value  # type: ignore[arg-type]
        for d in dates
        for k in terms
    )
