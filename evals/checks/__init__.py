"""Checks: CheckResult, the `@check` registry, the built-in deterministic checks, grading.

Owns what a check is and which checks a case gets. Imports only `evals.suite`, `evals.reply`
and `evals.errors`. A suite's own `checks.py` uses the names exported here:
`from evals.checks import CheckInput, check, failed, passed`.
"""

from evals.checks import (  # noqa: F401 - registers the built-ins
    answer,
    citations,
    figures,
    forbidden_claims,
    grounding,
    register,
)
from evals.checks.base import (
    REGISTRY,
    CheckFn,
    CheckInput,
    CheckResult,
    CheckSpec,
    Status,
    check,
    errored,
    failed,
    is_refusal,
    passed,
    ratio,
    skipped,
    undecided,
)
from evals.checks.text import cited_refs, contains_phrase, normalise

__all__ = [
    "REGISTRY",
    "CheckFn",
    "CheckInput",
    "CheckResult",
    "CheckSpec",
    "Status",
    "check",
    "cited_refs",
    "contains_phrase",
    "errored",
    "failed",
    "is_refusal",
    "normalise",
    "passed",
    "ratio",
    "skipped",
    "undecided",
]
