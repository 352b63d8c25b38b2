"""An expected figure read in the unit its passages state it in: a case that expects "5 days"
where its passage says "5 werkdagen" means the passage's five working days, and an answer
that says "5 working days" states it.

Working days stay their own unit everywhere else: "within 10 working days" never meets a
passage's 10 days, nor "10 days" a passage's 10 working days.
"""

from __future__ import annotations

from collections.abc import Iterable

from evals.checks.values import Figure, parse_figures


def as_passages_state(want: Figure, passages: Iterable[str]) -> list[Figure]:
    """`want`, and the same number of working days when it is in calendar days, some passage
    states that many working days and none that many calendar days."""
    if (want.kind, want.unit) != ("duration", "day"):
        return [want]
    stated = [f for text in passages for f in parse_figures(text)]
    if any(f.same(want) for f in stated):
        return [want]
    working = [
        f
        for f in stated
        if (f.kind, f.unit) == ("duration", "working-day") and f.value == want.value
    ]
    return [want, *working[:1]]
