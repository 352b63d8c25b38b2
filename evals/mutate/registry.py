"""What an operator is: the Variant it makes, the `@operator` registry, and its bounds.

Each operator is `(case, answer, ctx) -> list[Variant]` and returns nothing when it does not
apply; a variant it could not make is never a survivor. `mutant` operators make answers that
must fail; `invariant` operators make answers that mean the same and must still pass.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from evals.mutate.answer import Answer, CaseContext
from evals.suite.case import Case

Kind = Literal["mutant", "invariant"]
# How many variants one operator makes from one answer at most: enough to cover the facts,
# few enough that a 1,000-case suite stays fast.
MAX_PER_OPERATOR = 4


@dataclass(frozen=True)
class Variant:
    """One altered answer and how it was made."""

    operator: str
    text: str
    note: str
    abstained: bool | None = None


Operator = Callable[[Case, Answer, CaseContext], list[Variant]]


class NotApplicable(Exception):
    """An operator cannot make a variant of this answer, and says why (shown as a note)."""


@dataclass(frozen=True)
class OperatorSpec:
    id: str
    fn: Operator
    kind: Kind
    summary: str


OPERATORS: dict[str, OperatorSpec] = {}


def operator(op_id: str, kind: Kind, summary: str) -> Callable[[Operator], Operator]:
    """Register an operator under a stable id (the id `mutation_exempt` entries name)."""

    def register(fn: Operator) -> Operator:
        OPERATORS[op_id] = OperatorSpec(op_id, fn, kind, summary)
        return fn

    return register
