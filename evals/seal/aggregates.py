"""What a sealed run prints: its aggregates, the pairing with the pile's last sealed run, and
the overfitting gap against the latest visible run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.compare.stats import mcnemar_exact
from evals.numfmt import pct
from evals.run.files import parse_record, read_run, run_headers
from evals.seal.ledger import sealed_run_files
from evals.seal.manifest import Pile
from evals.seal.rates import newcombe_gap, scored_counts, wilson


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
    return Paired(header["run_id"], n, fixed, broke, test.p_value, scored_counts(old_rows))


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
    vk, vn = scored_counts(rows)
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


def print_aggregates(pile: Pile, result: Any, used: int, forced: bool, runs_dir: Path) -> None:
    """Print all a sealed run may show: pass rates, the pairing, the gap and the budget."""
    rows, summary, header = result.rows, result.summary, result.header
    k, n = scored_counts(rows)
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
