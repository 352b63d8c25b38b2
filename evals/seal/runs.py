"""`invoke run --sealed`: run the held-out pile, keep only opaque rows, print only aggregates."""

from __future__ import annotations

import dataclasses
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.compare.stats import mcnemar_exact
from evals.errors import InputError
from evals.numfmt import pct
from evals.providers.completion import plain_model_id
from evals.run.files import parse_record, read_run, run_headers
from evals.run.plan import RunPlan
from evals.run.runner import exit_code, run
from evals.seal.budget import Reservation, check_budget_left, finish, reserve, trusted_ledger
from evals.seal.ledger import LedgerUnwritten, sealed_run_files
from evals.seal.manifest import Pile, open_pile, pile_exists
from evals.seal.sealing import load_key
from evals.suite.folder import Suite

Z95 = 1.959963984540054
WITHHELD = "withheld: sealed run"
CHECK_ERROR = "a check errored (detail withheld: sealed run)"
OTHER_MODEL = "withheld: not the pinned model (sealed run)"
# A provider failure's reason in a sealed row is the runner's own (a kind such as "HTTP 401"
# plus a fixed phrase); anything else is withheld, whatever produced it.
_OWN_REASON = re.compile(r"^[A-Za-z0-9 ._:()-]{1,160}$")
# Row fields that carry no case text; everything else is dropped from a sealed row.
_KEEP = (
    "kind",
    "run_id",
    "epoch",
    "model",
    "prompt_sha",
    "status",
    "score",
    "failed_checks",
    "category",
    "abstained",
    "latency_ms",
    "usage",
    "cost_usd",
    "cached",
)


# --- arithmetic -------------------------------------------------------------------------


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval for k successes in n trials; None when n is 0."""
    if n <= 0:
        return None
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_gap(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float, float] | None:
    """p1 - p2 with Newcombe's hybrid Wilson 95% interval (two independent samples)."""
    w1, w2 = wilson(k1, n1), wilson(k2, n2)
    if w1 is None or w2 is None:
        return None
    p1, p2 = k1 / n1, k2 / n2
    d = p1 - p2
    lo = d - math.sqrt((p1 - w1[0]) ** 2 + (w2[1] - p2) ** 2)
    hi = d + math.sqrt((w1[1] - p1) ** 2 + (p2 - w2[0]) ** 2)
    return d, lo, hi


# --- rows -------------------------------------------------------------------------------


def make_row_filter(pile: Pile) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A row filter that keeps statuses and scores under opaque, pairable ids, and no text."""

    def strip(row: dict[str, Any]) -> dict[str, Any]:
        out = {k: row.get(k) for k in _KEEP}
        if "review_checks" in row:  # check names only; a provider failure's row has none
            out["review_checks"] = row["review_checks"]
        out["case"] = pile.keys.opaque(pile.pile_id, "id\0" + row["case"])[:24]
        out["case_sha"] = pile.keys.opaque(pile.pile_id, "sha\0" + row["case_sha"])
        # Check details can quote the answer or the expected phrases: only verdicts stay.
        out["checks"] = {
            name: {"status": r["status"], "score": r["score"], "detail": WITHHELD}
            for name, r in (row.get("checks") or {}).items()
        }
        for k in ("cluster", "question", "draft", "retrieved", "cited"):
            out[k] = None
        out["error"] = _sealed_error(row)
        # The endpoint names the model it used; a name other than the pinned one is its text.
        resolved = row.get("resolved_model")
        if resolved is not None and not plain_model_id(row["model"], resolved):
            resolved = OTHER_MODEL
        out["resolved_model"] = resolved
        out["sealed"] = True
        return out

    return strip


def _sealed_error(row: dict[str, Any]) -> str | None:
    """The reason a sealed row may keep: a provider failure's kind (the runner withholds its
    message in sealed runs); a check's error detail can quote the answer, so it never stays."""
    if row["status"] != "error":
        return None
    error = row.get("error") or ""
    if row.get("checks"):
        return CHECK_ERROR
    return error if _OWN_REASON.match(error) else WITHHELD


# --- what a run is compared with ------------------------------------------------------------


def _counts(rows: list[dict[str, Any]]) -> tuple[int, int]:
    passed = sum(1 for r in rows if r["status"] == "pass")
    return passed, passed + sum(1 for r in rows if r["status"] == "fail")


@dataclass(frozen=True)
class Paired:
    run_id: str
    n_pairs: int
    fixed: int
    broke: int
    p_value: float | None
    before: tuple[int, int]


def pair_with_previous(
    runs_dir: Path, pile: Pile, rows: list[dict[str, Any]], run_id: str
) -> Paired | None:
    """The paired comparison with the last sealed run of the same pile (same digest)."""
    prev = [
        (h, p)
        for h, p in sealed_run_files(runs_dir, pile.pile_id)
        if h.get("run_id") != run_id and h["sealed"].get("digest") == pile.digest
    ]
    if not prev:
        return None
    header, path = prev[-1]
    old_rows = read_run(path).rows
    before = {(r["case"], r.get("epoch", 0)): r["status"] for r in old_rows}
    fixed = broke = n = 0
    for r in rows:
        b = before.get((r["case"], r.get("epoch", 0)))
        if b not in ("pass", "fail") or r["status"] not in ("pass", "fail"):
            continue
        n += 1
        fixed += b == "fail" and r["status"] == "pass"
        broke += b == "pass" and r["status"] == "fail"
    test = mcnemar_exact(broke, fixed)
    return Paired(header["run_id"], n, fixed, broke, test.p_value, _counts(old_rows))


def _complete(path: Path) -> bool:
    """True when the run file ends with a summary of a completed run."""
    try:
        last = path.read_text("utf-8").rstrip("\n").rsplit("\n", 1)[-1]
        rec = parse_record(last)
    except (OSError, ValueError):  # UnicodeDecodeError is a ValueError
        return False
    return isinstance(rec, dict) and rec.get("kind") == "summary" and bool(rec.get("completed"))


def latest_visible(
    runs_dir: Path, model: str, prompt_sha: str, suite: str | None = None
) -> tuple[dict[str, Any], Path] | None:
    """The latest complete non-sealed run of the same model and suite; the same prompt wins."""
    found = []
    for header, path in run_headers(runs_dir):
        if header.get("sealed") or header.get("model") != model:
            continue
        if suite is not None and not _same_suite(header.get("suite"), suite):
            continue
        if _complete(path):
            same = header.get("prompt_sha") == prompt_sha
            found.append((same, header.get("created") or "", path, header))
    if not found:
        return None
    _, _, path, header = max(found, key=lambda t: (t[0], t[1], t[2].name))
    return header, path


def _same_suite(a: str | None, b: str) -> bool:
    """Runs of another suite say nothing about this pile's overfitting gap."""
    return a is not None and Path(a).resolve() == Path(b).resolve()


def not_in_pile(rows: list[dict[str, Any]], pile: Pile) -> tuple[list[dict[str, Any]], int]:
    """The visible rows of cases that are not in the pile now, and how many were left out.

    A visible run from before the seal still holds the now-sealed cases; counting them would
    compare the pile partly with itself. A case matches by id or by content."""
    ids = {c.id for c in pile.cases}
    shas = {c.sha for c in pile.cases}
    kept = [r for r in rows if r.get("case") not in ids and r.get("case_sha") not in shas]
    return kept, len(rows) - len(kept)


def gap_line(runs_dir: Path, pile: Pile, header: dict[str, Any], k: int, n: int) -> str:
    """The overfitting gap: the latest visible run's pass rate, over the cases that are not
    sealed now, minus the pile's; or why there is none."""
    visible = latest_visible(runs_dir, header["model"], header["prompt_sha"], header.get("suite"))
    if visible is None:
        return "gap: no visible-suite run of this model to compare with (run `invoke run` first)"
    vh, vpath = visible
    rows, left_out = not_in_pile(read_run(vpath).rows, pile)
    vk, vn = _counts(rows)
    same = "same prompt" if vh.get("prompt_sha") == header["prompt_sha"] else "OTHER prompt"
    # No case ids: how many were left out is all a sealed run may say about them.
    without = f"; {left_out} row(s) of now-sealed cases left out" if left_out else ""
    if not rows:
        return (
            f"gap: cannot compare: every row of visible run {vh['run_id']} is a case in the pile "
            "now; run the visible suite (`invoke run`) to get one"
        )
    gap = newcombe_gap(vk, vn, k, n)
    if gap is None:
        return f"gap: n/a (visible run {vh['run_id']}{without}, or this run, has no scored case)"
    d, lo, hi = gap
    return (
        f"gap: visible {pct(vk / vn)} ({vk}/{vn}, run {vh['run_id']}, {same}{without}) minus "
        f"sealed {pct(k / n)} = {d * 100:+.1f} pp [95% CI {lo * 100:+.1f} to {hi * 100:+.1f}]; "
        "a large positive gap means the prompt fits the visible cases better than new ones"
    )


def _print_aggregates(pile: Pile, result: Any, used: int, forced: bool, runs_dir: Path) -> None:
    rows, summary, header = result.rows, result.summary, result.header
    k, n = _counts(rows)
    errors = summary["counts"]["error"]
    review = summary["counts"].get("review", 0)
    # Cases in review are neither scored nor errors: counted beside them.
    errors_s = f"{errors} error" + (f", {review} in review" if review else "")
    ci = wilson(k, n)
    print(
        f"sealed pile {pile.pile_id} (digest {pile.digest[:12]}, {pile.manifest['n']} case(s)); "
        f"model {header['model']}; prompt {header['prompt_sha'][:7]}"
    )
    ci_s = "n/a" if ci is None else f"[95% CI {pct(ci[0])} to {pct(ci[1])}]"
    print(
        f"pass rate: {pct(k / n if n else None)} {ci_s}; {k}/{n} scored of {len(rows)} ({errors_s})"
    )
    print("checks (pass rate over scored):")
    for name, r in summary["checks"].items():
        print(
            f"  {name:<24} {pct(r['rate']):>7}  ({r['pass']}/{r['n_scored']} of {r['n_total']}; {r['error']} error"
            + (f", {r['review']} in review)" if r.get("review") else ")")
        )
    paired = pair_with_previous(runs_dir, pile, rows, header["run_id"])
    if paired is None:
        print("paired: no earlier sealed run of this pile to compare with")
    else:
        p = "n/a" if paired.p_value is None else f"{paired.p_value:.3f}"
        bk, bn = paired.before
        print(
            f"paired with {paired.run_id}: {pct(bk / bn if bn else None)} -> {pct(k / n if n else None)}; "
            f"{paired.n_pairs} pairs, {paired.fixed} fixed, {paired.broke} broke, McNemar exact p={p}"
        )
    print(gap_line(runs_dir, pile, header, k, n))
    budget = pile.manifest["budget"]
    print(
        f"budget: {used} of {budget} sealed run(s) used"
        + (" (forced past the budget)" if forced else "")
    )
    print(f"run file: {result.path}")


# --- the run ----------------------------------------------------------------------------


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
    k, n = _counts(result.rows)
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
    _print_aggregates(pile, result, slot.used, slot.forced, plan.runs_dir)
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
