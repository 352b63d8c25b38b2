"""Mutation operators: every family registered in a fixed order, and all of them run on one
good answer.

The order of the imports below is the order operators run and are reported in: the mutants
(facts, citations, abstention, names), then the invariants.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Importing a family registers its operators; kept out of import sorting, as order matters.
# isort: off
from evals.mutate import wrong_facts  # noqa: F401
from evals.mutate import wrong_citations  # noqa: F401
from evals.mutate import wrong_abstention  # noqa: F401
from evals.mutate import wrong_names  # noqa: F401
from evals.mutate import rewordings  # noqa: F401

# isort: on
from evals.mutate.answer import Answer, CaseContext
from evals.mutate.registry import OPERATORS, NotApplicable, Variant
from evals.suite.case import Case

__all__ = ["OPERATORS", "AnswerVariants", "invariant_ids", "make_variants", "mutant_ids"]


def mutant_ids() -> list[str]:
    """Operators whose variants every check set should catch."""
    return [k for k, v in OPERATORS.items() if v.kind == "mutant"]


def invariant_ids() -> list[str]:
    """Operators whose variants should still pass (harmless rewordings)."""
    return [k for k, v in OPERATORS.items() if v.kind == "invariant"]


@dataclass
class AnswerVariants:
    """Every operator's variants for one good answer; an empty list means not applicable."""

    by_operator: dict[str, list[Variant]] = field(default_factory=dict)
    #: Operators that did not apply and said why.
    skipped: dict[str, str] = field(default_factory=dict)


def make_variants(case: Case, answer: str, ctx: CaseContext) -> AnswerVariants:
    """Run every operator on one good answer; a variant identical to the answer is dropped."""
    ans = Answer(answer, ctx)
    out = AnswerVariants()
    for op_id, spec in OPERATORS.items():
        try:
            variants = [v for v in spec.fn(case, ans, ctx) if v.text != answer]
        except NotApplicable as why:
            variants = []
            out.skipped[op_id] = str(why)
        out.by_operator[op_id] = variants
    return out
