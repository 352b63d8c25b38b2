"""Pairing two run files without holding them: what `invoke diff` runs.

Each run file is read row by row; each row, cut to what a comparison reads, goes to sorted
chunk files in a temporary folder (`run/ordered.py`, as `invoke merge` does), and the rows of
both runs come back together in case order, one case at a time. Of each case what is kept
is what the figures need: its two outcomes for the gate in columns (`compare/columns.py`),
its per-check rates (a byte each while they are 0 or 1), a few counts; and, in full, only the cases a report lists
(changed, flaky, errored, in review, in one run only), or every case when the report lists
every case (`--all`, JSON).

The figures, the verdict and the listing are those of `pairing.compare_runs` over the same
files, which `tests/test_streamed.py` holds it to.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.compare.breakdown import (
    CheckTally,
    ClusterTally,
    category_changes,
)
from evals.compare.columns import Ids, Keys, OutcomeColumns, Patched, scored_cases
from evals.compare.errorrate import count_errors
from evals.compare.gate import decide
from evals.compare.headers import RunInfo, check_pairable, header_fields, run_info
from evals.compare.pairing import (
    MISSING_WHY,
    RATE,
    SCORE,
    CaseDiff,
    Comparison,
    Unpaired,
    _first,
    _may_pass,
    _outcomes,
    _refs,
    _text,
    check_options,
)
from evals.compare.safe import shown_case_id
from evals.compare.sides import SideCase, classify, latest_epochs, row_problem, side_case
from evals.compare.tallies import EpochTally, PairedTally
from evals.errors import InputError, Problem
from evals.run.files import RunFile, read_run
from evals.run.ordered import Spill, spill_folder
from evals.run.slim import UNCOMPARED, UNREAD

#: Bytes of row lines sorted in memory at a time: a diff holds a chunk while it reads, and
#: 1 MB (about 2,000 rows of the generated suite) costs a few MB; 4 MB (merge's) cost 8 MB.
CHUNK_BYTES = 1 << 20


@dataclass
class RowCounts:
    """What `run_info` counts over a run's rows, counted as they pass."""

    n_rows: int = 0
    n_error: int = 0
    n_review: int = 0
    epochs: int = 1
    problems: list[Problem] = field(default_factory=list)


def compared_fields(row: dict[str, Any]) -> dict[str, Any]:
    """A row cut to what a comparison reads (as `run/slim.py` keeps it): no answer, no
    provider report, each check's status and score only."""
    out: dict[str, Any] = {}
    for k, v in row.items():
        if k in UNCOMPARED or k in UNREAD:
            continue
        if k == "checks" and isinstance(v, dict):
            v = {n: {"status": r["status"], "score": r.get("score")} for n, r in v.items()}
        out[k] = v
    return out


def spill_run(path: Path, spill: Spill, source: int) -> tuple[RunFile, RowCounts]:
    """Read one run file (every record checked as `read_run` does), each readable row to
    `spill` under `source`, none kept; its header and summary, and its rows' counts."""
    counts = RowCounts()

    def keep(row: dict[str, Any]) -> None:
        counts.n_rows += 1
        status = row.get("status")
        counts.n_error += status == "error"
        counts.n_review += status == "review"
        why = row_problem(row)
        if why is not None:
            counts.problems.append(Problem(str(path), f"case row {counts.n_rows}", why))
            return
        counts.epochs = max(counts.epochs, int(row.get("epoch") or 0) + 1)
        # Epoch 0 for all: the merge keeps a case's rows in file order, as the pairing reads them.
        line = json.dumps(compared_fields(row))
        spill.add(row["case"], 0, source, counts.n_rows, "", line)  # the sha is in the line

    return read_run(path, keep=keep), counts


def _info(run: RunFile, counts: RowCounts) -> RunInfo:
    return dataclasses.replace(
        run_info(run),
        n_rows=counts.n_rows,
        n_error_rows=counts.n_error,
        n_review_rows=counts.n_review,
        epochs=counts.epochs,
    )


def joined(
    spill: Spill,
) -> Iterator[tuple[str, Sequence[dict[str, Any]], Sequence[dict[str, Any]]]]:
    """(case id, its rows in A, its rows in B) in case order; a repeated epoch keeps its last row."""
    case: str | None = None
    sides: tuple[list[dict[str, Any]], list[dict[str, Any]]] = ([], [])
    for row in spill.rows():
        if row.case != case:
            if case is not None:
                yield case, latest_epochs(sides[0]), latest_epochs(sides[1])
            case, sides = row.case, ([], [])
        sides[row.source].append(json.loads(row.line))
    if case is not None:
        yield case, latest_epochs(sides[0]), latest_epochs(sides[1])


class Pairing:
    """The cases of two runs, given one at a time in case order, kept as the figures need."""

    def __init__(self, keep_all: bool) -> None:
        self.keep_all = keep_all
        self.keys, self.ids = Keys(), Ids()
        self.rates = OutcomeColumns(self.keys, self.ids)
        self.scores = OutcomeColumns(self.keys, self.ids)
        self.missing_rates = OutcomeColumns(self.keys, self.ids)
        self.missing_scores = OutcomeColumns(self.keys, self.ids)
        # The figures with errored epochs as undecided differ only at the errored cases.
        self.rates_e, self.scores_e = Patched(self.rates), Patched(self.scores)
        self.cases: list[CaseDiff] = []
        self.changed: list[Unpaired] = []
        self.errored: list[Unpaired] = []
        self.in_review: list[Unpaired] = []
        self.only_a: list[Unpaired] = []
        self.only_b: list[Unpaired] = []
        self.error_flags: Counter[tuple[bool, bool, bool, bool]] = Counter()
        self.changes: Counter[str] = Counter()
        self.steady_same = 0
        self.n_common = 0
        self.shared: dict[tuple[Any, ...], SideCase] = {}
        self.paired = PairedTally()
        self.checks = CheckTally()
        self.clusters = ClusterTally()
        self.epochs = EpochTally(self.ids)

    def add(self, case_id: str, ra: Sequence[dict[str, Any]], rb: Sequence[dict[str, Any]]) -> None:
        """One case's rows in A and in B (either may be empty: the case is in one run only)."""
        if not rb:
            self._only_a(case_id, ra)
        elif not ra:
            self.only_b.append(Unpaired(case_id, str(_first(rb, "question") or ""), "only in B"))
        else:
            self._common(case_id, ra, rb)

    def _common(
        self, case_id: str, ra: Sequence[dict[str, Any]], rb: Sequence[dict[str, Any]]
    ) -> None:
        self.n_common += 1
        question = str(_first(rb, "question") or _first(ra, "question") or "")
        shas_a, shas_b = {r["case_sha"] for r in ra}, {r["case_sha"] for r in rb}
        if shas_a != shas_b or len(shas_a) > 1:
            why = f"case file changed: sha {'/'.join(sorted(s[:12] for s in shas_a))} → "
            why += "/".join(sorted(s[:12] for s in shas_b))
            self.changed.append(Unpaired(case_id, question, why))
            return
        sa, sb = side_case(ra, self.shared), side_case(rb, self.shared)  # type: ignore[arg-type]
        cluster = _interned(_text(_first(ra, "cluster") or _first(rb, "cluster")))  # type: ignore[arg-type]
        category = _interned(_text(_first(rb, "category") or _first(ra, "category")))  # type: ignore[arg-type]
        self.error_flags[(sa.n_error > 0, sb.n_error > 0, _may_pass(sa), _may_pass(sb))] += 1
        shown = shown_case_id(case_id)
        outcomes = _outcomes(shown, sa, sb, cluster, category)
        at, id_number = len(self.rates), -1
        if outcomes is not None:
            id_number = self.ids.add(shown)
            self.rates.append(outcomes[0], id_number)
            self.scores.append(outcomes[1], id_number)
        if sa.n_error or sb.n_error or outcomes is None:
            both = _outcomes(shown, sa, sb, cluster, category, keep_errors=True)
            assert both is not None
            self.rates_e.put(at, both[0], outcomes is not None)
            self.scores_e.put(at, both[1], outcomes is not None)
        if not sa.n_scored or not sb.n_scored:
            msg = "; ".join(sa.errors + sb.errors)[:200]
            side = " and ".join(s for s, sc in (("A", sa), ("B", sb)) if not sc.n_scored)
            if outcomes is None:
                why = f"error in {side} (left out; counted by the error-rate test): {msg}"
                self.errored.append(Unpaired(case_id, question, why))
            else:
                why = f"in review in {side} (undecided: read both ways by the gate): {msg}"
                self.in_review.append(Unpaired(case_id, question, why))
            return
        flaky = sa.flaky or sb.flaky
        c = CaseDiff(case_id, question, category, cluster, sa, sb, classify(sa, sb), flaky)
        self.changes[c.change] += 1
        self.steady_same += c.change == "same" and not flaky
        if self.keep_all or flaky or c.change != "same":
            self.cases.append(c)
        self.paired.add(sa, sb)
        self.checks.add(ra, rb, cluster)
        self.clusters.add(cluster, _refs(ra))  # type: ignore[arg-type]
        self.epochs.add(id_number, sa.passes, sb.passes, flaky)  # paired: it has outcomes

    def _only_a(self, case_id: str, ra: Sequence[dict[str, Any]]) -> None:
        self.only_a.append(Unpaired(case_id, str(_first(ra, "question") or ""), MISSING_WHY))  # type: ignore[arg-type]
        # A case B never ran could have gone either way: read like an error in B, never as
        # nothing (as `compare_runs` does; these come after every case of both runs).
        sa = side_case(ra)
        if not sa.gate_epochs()[0]:
            return
        nothing = [None] * len(sa.passes)
        sb = SideCase(len(nothing), 0, 0, None, [], ["missing from B"], nothing, list(nothing))
        cluster = _interned(_text(_first(ra, "cluster")))  # type: ignore[arg-type]
        category = _interned(_text(_first(ra, "category")))  # type: ignore[arg-type]
        shown = shown_case_id(case_id)
        outcomes = _outcomes(shown, sa, sb, cluster, category)
        assert outcomes is not None  # B's epochs are all undecided, none errored
        id_number = self.ids.add(shown)
        self.missing_rates.append(dataclasses.replace(outcomes[0], missing=True), id_number)
        self.missing_scores.append(dataclasses.replace(outcomes[1], missing=True), id_number)


def _interned(value: str | None) -> str | None:
    return None if value is None else sys.intern(value)


def stream_compare(
    path_a: Path,
    path_b: Path,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    fail_on: str = "significant",
    margin: float = 0.05,
    keep_all: bool = False,
) -> Comparison:
    """`pairing.compare_runs` of two run files, read as streams. `keep_all`: keep every
    paired case for the listing (`--all`, JSON), else only those a report lists."""
    check_options(fail_on, alpha, margin, power)
    with spill_folder() as tmp:
        spill = Spill(Path(tmp), CHUNK_BYTES)
        run_a, counts_a = spill_run(path_a, spill, 0)
        run_b, counts_b = spill_run(path_b, spill, 1)
        check_pairable(run_a, run_b)
        problems = counts_a.problems + (counts_b.problems if run_b.path != run_a.path else [])
        if problems:
            raise InputError(problems)
        p = Pairing(keep_all)
        for case_id, ra, rb in joined(spill):
            p.add(case_id, ra, rb)
    if counts_a.n_rows and counts_b.n_rows and not p.n_common:
        raise InputError(
            f"no case in common between {run_a.path} and {run_b.path}: not runs of one suite"
        )
    return _comparison(p, run_a, run_b, counts_a, counts_b, alpha, power, fail_on, margin)


def _comparison(
    p: Pairing,
    run_a: RunFile,
    run_b: RunFile,
    counts_a: RowCounts,
    counts_b: RowCounts,
    alpha: float,
    power: float,
    fail_on: str,
    margin: float,
) -> Comparison:
    p.rates.extend(p.missing_rates)
    p.scores.extend(p.missing_scores)
    # The tables beside the gate first, their tallies let go: the gate's own working lists
    # then meet only the outcome columns.
    checks, p.checks = p.checks.changes(alpha), CheckTally()
    clusters, epochs = p.clusters.info(), p.epochs.info()
    p.clusters, p.epochs = ClusterTally(), EpochTally(p.ids)
    has_errors = bool(p.rates_e.patches)
    decision = decide(
        {RATE: p.rates, SCORE: p.scores},
        fail_on,
        alpha=alpha,
        margin=margin,
        power=power,
        errors=count_errors(f for f, n in p.error_flags.items() for _ in range(n)),
        with_errors={
            RATE: p.rates_e if has_errors else p.rates,
            SCORE: p.scores_e if has_errors else p.scores,
        },
    )
    return Comparison(
        a=_info(run_a, counts_a),
        b=_info(run_b, counts_b),
        header=header_fields(run_a.header, run_b.header),
        cases=p.cases,
        changed=p.changed,
        only_a=p.only_a,
        only_b=p.only_b,
        errored=p.errored,
        checks=checks,
        categories=category_changes(scored_cases(p.rates), scored_cases(p.scores), alpha),
        stats=p.paired.stats(alpha, power, margin),
        decision=decision,
        clusters=clusters,
        epochs=epochs,
        fail_on=fail_on,
        in_review=p.in_review,
        change_counts=dict(p.changes),
        n_steady_same=p.steady_same,
    )
