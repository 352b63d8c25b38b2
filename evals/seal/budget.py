"""The pile's query budget: trusting the ledger, reserving a run's slot, recording its outcome."""

from __future__ import annotations

import secrets
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.errors import InputError, Problem
from evals.run.files import iso_z
from evals.seal.history import HistoryCheck, check_history
from evals.seal.ledger import (
    FINISHED,
    RESERVED,
    append_ledger,
    budget_used,
    ledger_count,
    ledger_lock,
    ledger_path,
    ledger_problems,
)
from evals.seal.manifest import Pile, pile_exists, read_manifest
from evals.suite.folder import Suite, sealed_link_problems


def ledger_history(suite: Suite) -> HistoryCheck:
    """The pile's ledger against its git history, for `invoke validate` (no key needed);
    nothing to say when there is no readable pile."""
    if not pile_exists(suite) or sealed_link_problems(suite):
        return HistoryCheck()
    manifest, _ = read_manifest(suite)
    if manifest is None:
        return HistoryCheck()  # the manifest's own problems are reported already
    return check_history(ledger_path(suite), manifest["pile_id"])


def trusted_ledger(suite: Suite, pile: Pile) -> None:
    """Refuse a ledger whose chain is broken or whose committed entries were taken away;
    print a note when git cannot vouch for it."""
    bad = ledger_problems(suite)
    history = check_history(ledger_path(suite), pile.pile_id)
    if history.unverifiable and not bad:
        raise InputError(history.problems)  # nothing to restore: git has to run first
    bad += history.problems
    if bad:
        # An altered ledger is a tampered pile: the runs it counts can no longer be trusted.
        where = bad[0].path
        hint = f"refused: restore the ledger from git (`git checkout -- {where}`) to run the pile"
        raise InputError([*bad, Problem(where, "", hint)])
    if history.note:
        print(history.note, file=sys.stderr)


def _spent(suite: Suite, pile: Pile, runs_dir: Path, force: bool) -> int:
    """Runs spent so far; refuses when none is left and the run is not forced."""
    used = budget_used(suite, pile.pile_id, runs_dir)
    budget = pile.manifest["budget"]
    if used >= budget and not force:
        raise InputError(
            f"sealed pile {pile.pile_id}: budget spent ({used} of {budget} runs); every run leaks "
            "a little of the pile. Rotate it (`invoke unseal`, then `invoke seal` fresh cases), "
            "or pass --force to run anyway (recorded as forced)"
        )
    return used


def check_budget_left(suite: Suite, pile: Pile, runs_dir: Path, force: bool) -> int:
    """Runs spent so far (a first look, before anything is built); refuses when none is left."""
    used = _spent(suite, pile, runs_dir, force)
    in_ledger = ledger_count(suite, pile.pile_id)
    if in_ledger < used:
        # Lines cut from the end keep the chain intact; the run files still count them.
        print(
            f"warning: {used - in_ledger} sealed run(s) of this pile are in runs/ but not in the "
            "ledger (lines removed, or a run was killed before it could record itself); "
            "they still count against the budget",
            file=sys.stderr,
        )
    return used


@dataclass(frozen=True)
class Reservation:
    """A run's place in the budget: its slot, its number among the pile's runs, and whether
    it went past the budget."""

    slot: str
    used: int
    forced: bool
    entry: dict[str, Any]


def reserve(
    suite: Suite, pile: Pile, runs_dir: Path, force: bool, entry: dict[str, Any]
) -> Reservation:
    """Check the budget and append the run's `reserved` line, both under the ledger lock,
    so two runs started at once cannot both take the last slot."""
    with ledger_lock(suite):
        bad = ledger_problems(suite)  # another run may have appended since the first look
        if bad:
            raise InputError(bad)
        used = _spent(suite, pile, runs_dir, force)
        forced = used >= pile.manifest["budget"]
        slot = secrets.token_hex(16)
        full = {**entry, "date": iso_z(), "forced": forced, "phase": RESERVED, "slot": slot}
        append_ledger(suite, full)
    return Reservation(slot, used + 1, forced, full)


def finish(suite: Suite, reservation: Reservation, outcome: dict[str, Any]) -> None:
    """Append the run's `finished` line, paired with its reservation by the slot."""
    with ledger_lock(suite):
        append_ledger(suite, {**reservation.entry, **outcome, "date": iso_z(), "phase": FINISHED})
