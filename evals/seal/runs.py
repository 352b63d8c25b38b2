"""`invoke run --sealed`: run the held-out pile, keep only opaque rows, print only aggregates."""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.errors import InputError
from evals.run.plan import RunPlan
from evals.run.runner import exit_code, run
from evals.seal.aggregates import print_aggregates
from evals.seal.budget import Reservation, check_budget_left, finish, reserve, trusted_ledger
from evals.seal.ledger import LedgerUnwritten
from evals.seal.manifest import Pile, open_pile, pile_exists
from evals.seal.rates import scored_counts, wilson
from evals.seal.rows import make_row_filter
from evals.seal.sealing import load_key
from evals.suite.folder import Suite


@dataclass(frozen=True)
class SealedRun:
    """An opened, verified pile with budget left: what it gives a run plan, and its ledger state.

    `used` and `forced` are a first look; the run's reservation settles them under the lock.
    """

    suite: Suite
    pile: Pile
    used: int
    forced: bool
    #: --force: run even when the budget is spent.
    force: bool = False

    def sealed_header(self, used: int, forced: bool) -> dict[str, Any]:
        """The run header's `sealed` record."""
        pile = self.pile
        return {
            "pile_id": pile.pile_id,
            "digest": pile.digest,
            "n": pile.manifest["n"],
            "budget": pile.manifest["budget"],
            "budget_used": used,
            "forced": forced,
        }

    def plan_fields(self) -> dict[str, Any]:
        """The RunPlan fields a sealed run sets: its cases, its header and its row filter."""
        pile = self.pile
        return {
            "cases": pile.cases,
            "header_extra": {
                # The pile digest stands for the suite: runs of different piles never pair.
                "suite_digest": pile.digest,
                "sealed": self.sealed_header(self.used, self.forced),
            },
            "row_filter": make_row_filter(pile),
            # A provider's message could quote the prompt, and so a sealed case.
            "withhold_provider_text": True,
            # The answer cache would hold questions and answers in clear text.
            "use_cache": False,
        }


def open_sealed(suite: Suite, key_file: str | None, force: bool, runs_dir: Path) -> SealedRun:
    """Verify the pile and its ledger (chain and git history) and take a first look at the
    budget; nothing is run or written."""
    if not pile_exists(suite):
        raise InputError(f"{suite.sealed_dir}: no sealed pile (`invoke seal` makes one)")
    pile = open_pile(suite, load_key(suite, key_file))
    trusted_ledger(suite, pile)
    used = check_budget_left(suite, pile, runs_dir, force)
    budget = pile.manifest["budget"]
    return SealedRun(suite=suite, pile=pile, used=used + 1, forced=used >= budget, force=force)


def run_sealed(sealed: SealedRun, plan: RunPlan) -> int:
    """Reserve the run's budget slot, run the plan built from `sealed.plan_fields()`, record
    its outcome in the ledger, print aggregates only."""
    suite, pile = sealed.suite, sealed.pile
    entry: dict[str, Any] = {
        "pile_id": pile.pile_id,
        "digest": pile.digest,
        "run_id": None,
        "model": plan.provider.model,
        "prompt_sha": suite.prompt_sha(),
        "pass_rate": None,
        "ci95": None,
        "n_scored": 0,
        "n_total": 0,
        "errors": 0,
        "completed": False,
    }
    try:
        slot = reserve(suite, pile, plan.runs_dir, sealed.force, entry)
    except LedgerUnwritten as exc:
        print(
            f"{exc}; the run's reservation was not recorded, so nothing was run and the ledger "
            "is as it was: free the space, then run again",
            file=sys.stderr,
        )
        return 3
    header = {**plan.header_extra, "sealed": sealed.sealed_header(slot.used, slot.forced)}
    plan = dataclasses.replace(plan, header_extra=header)
    try:
        result = run(plan)
    except BaseException as exc:
        _record_outcome(suite, slot, {}, None)
        if isinstance(exc, KeyboardInterrupt | InputError):
            raise
        # The message could quote a sealed case, so only its type is shown.
        print(f"sealed run failed: {type(exc).__name__} (details withheld)", file=sys.stderr)
        return 3
    k, n = scored_counts(result.rows)
    ci = wilson(k, n)
    recorded = _record_outcome(
        suite,
        slot,
        {
            "run_id": result.header["run_id"],
            "pass_rate": round(k / n, 6) if n else None,
            "ci95": [round(ci[0], 6), round(ci[1], 6)] if ci else None,
            "n_scored": n,
            "n_total": len(result.rows),
            "errors": result.summary["counts"]["error"],
            "review": result.summary["counts"].get("review", 0),
            "completed": bool(result.summary.get("completed")),
        },
        result.path,
    )
    print_aggregates(pile, result, slot.used, slot.forced, plan.runs_dir)
    return exit_code(result.summary) if recorded else 3


def _record_outcome(
    suite: Suite, slot: Reservation, outcome: dict[str, Any], run_file: Path | None
) -> bool:
    """Append the run's `finished` line; False, having said what was not recorded, when the
    ledger cannot take it (its reservation is there, so the run still counts)."""
    try:
        finish(suite, slot, outcome)
    except LedgerUnwritten as exc:
        what = f"the outcome of run {run_file.name}" if run_file else "the run's outcome"
        print(
            f"{exc}; {what} was not recorded in the ledger (the ledger is whole, and its "
            "reservation still counts the run against the budget)",
            file=sys.stderr,
        )
        return False
    return True
