"""Pairing two run files case by case: what changed, what was left out, and the gate's decision."""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from evals.compare.breakdown import (
    CheckChange,
    ClusterInfo,
    EpochInfo,
    GroupChange,
    category_changes,
    check_changes,
    cluster_info,
    epoch_info,
)
from evals.compare.epochs import CaseOutcome, case_from_epochs
from evals.compare.errorrate import count_errors
from evals.compare.gate import ALIASES, MODES, Decision, decide
from evals.compare.headers import HeaderField, RunInfo, check_pairable, header_fields, run_info
from evals.compare.intervals import TIE_TOLERANCE, mean
from evals.compare.safe import shown_case_id
from evals.compare.sides import (
    SideCase,
    by_case,
    classify,
    row_problems,
    side_case,
)
from evals.errors import InputError
from evals.run.files import RunFile

FAIL_ON = (*MODES, *ALIASES)
DEFAULT_FAIL_ON = "significant"
DEFAULT_MARGIN = 0.05
CHANGE_ORDER = {"broken": 0, "DOWN": 1, "fixed": 2, "up": 3, "same": 4}
TOL = TIE_TOLERANCE
RATE, SCORE = "pass rate", "mean score"
MISSING_WHY = "only in A (missing from B: undecided in B, read both ways by the gate)"


@dataclass(slots=True)
class CaseDiff:
    """A paired case: same id and same case sha in both runs, scored in both."""

    id: str
    question: str
    category: str | None
    cluster: str | None
    a: SideCase
    b: SideCase
    change: str
    flaky: bool = False  # its outcome varied within run A or run B

    @property
    def shown_id(self) -> str:
        return shown_case_id(self.id)

    @property
    def score_diff(self) -> float:
        return (self.b.score or 0.0) - (self.a.score or 0.0)

    @property
    def rate_diff(self) -> float:
        return (self.b.pass_rate or 0.0) - (self.a.pass_rate or 0.0)


@dataclass(slots=True)
class Unpaired:
    """A case left out of the paired figures (or, errored on one side, read both ways), and why."""

    id: str
    question: str
    reason: str

    @property
    def shown_id(self) -> str:
        return shown_case_id(self.id)


@dataclass
class PairedStats:
    """The plain figures over the cases scored in both runs (the tests are in the decision)."""

    n_paired: int
    rate_a: float | None
    rate_b: float | None
    score_a: float | None
    score_b: float | None
    passed_a: int  # cases that passed every scored attempt
    passed_b: int
    n_up: int  # cases whose score went up / down / stayed
    n_down: int
    n_ties: int
    alpha: float
    power: float
    margin: float


@dataclass
class Comparison:
    """Everything a renderer needs to show the diff of run A against run B."""

    a: RunInfo
    b: RunInfo
    header: list[HeaderField]
    cases: list[CaseDiff]
    changed: list[Unpaired]
    only_a: list[Unpaired]
    only_b: list[Unpaired]
    errored: list[Unpaired]
    checks: list[CheckChange]
    categories: list[GroupChange]
    stats: PairedStats
    decision: Decision
    clusters: ClusterInfo
    epochs: EpochInfo
    fail_on: str = DEFAULT_FAIL_ON  # as given; `decision.mode` is the mode it names
    #: Cases not scored in a run because a check left them for review (read both ways).
    in_review: list[Unpaired] = field(default_factory=list)
    #: Set when `cases` holds only the cases a report lists (changed or flaky: a streamed
    #: diff), so the counts of every paired case are kept apart: change -> cases.
    change_counts: dict[str, int] | None = None
    #: Unchanged, steady cases among those: what "N unchanged case(s) not shown" counts.
    n_steady_same: int | None = None

    def headline(self) -> str:
        """The plain count first: "6 worse, 0 better, 29 same", then what was not compared."""
        n = self.counts()
        worse, better = n["broken"] + n["DOWN"], n["fixed"] + n["up"]
        text = f"{worse} worse, {better} better, {n['same']} same"
        rest = [
            f"{len(group)} {what}"
            for group, what in (
                (self.in_review, "in review"),
                (self.errored, "errored"),
                (self.only_a, "missing from B"),
                (self.only_b, "only in B"),
                (self.changed, "changed"),
            )
            if group
        ]
        return text + (f" ({', '.join(rest)}: not paired)" if rest else "")

    def counts(self) -> dict[str, int]:
        found = self.change_counts or Counter(c.change for c in self.cases)
        return {k: found.get(k, 0) for k in CHANGE_ORDER}

    def steady_same(self) -> int:
        """Paired cases that did not change and are not flaky (the ones a listing leaves out)."""
        if self.n_steady_same is not None:
            return self.n_steady_same
        return sum(1 for c in self.cases if c.change == "same" and not c.flaky)

    @property
    def deprecated(self) -> str | None:
        """A one-line note when --fail-on named a mode by its old name."""
        if self.fail_on in ALIASES:
            new = ALIASES[self.fail_on]
            return f"--fail-on {self.fail_on} is the old name of --fail-on {new}; use {new}"
        return None


def _first(rows: list[dict[str, Any]], key: str) -> Any:
    for r in rows:
        value = r.get(key)
        if value is not None:
            return value
    return None


def _refs(rows: list[dict[str, Any]]) -> list[str]:
    """The refs a case's rows retrieved (strings only: a run file is input)."""
    refs = _first(rows, "retrieved")
    return [r for r in refs if isinstance(r, str)] if isinstance(refs, list) else []


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _outcomes(
    shown: str,
    a: SideCase,
    b: SideCase,
    cluster: str | None,
    category: str | None,
    keep_errors: bool = False,
) -> tuple[CaseOutcome, CaseOutcome] | None:
    """The case's pass-rate and score outcomes for the gate: errored attempts left out
    (`keep_errors`: kept as None, like review attempts, which are undecided). None when a
    run has no attempt left."""
    flaky = a.flaky or b.flaky
    if a.n_epochs == a.n_scored == 1 and b.n_epochs == b.n_scored == 1:  # fast, common path
        return (
            CaseOutcome(shown, a.passes[0], b.passes[0], cluster, category),
            CaseOutcome(shown, a.scores[0], b.scores[0], cluster, category),
        )
    if keep_errors:
        (pa, sa), (pb, sb) = (a.passes, a.scores), (b.passes, b.scores)
    else:
        (pa, sa), (pb, sb) = a.gate_epochs(), b.gate_epochs()
    if not pa or not pb:
        return None
    return (
        case_from_epochs(shown, pa, pb, cluster, category, flaky=flaky),
        case_from_epochs(shown, sa, sb, cluster, category, flaky=flaky),
    )


def _may_pass(side: SideCase) -> bool:
    """Some attempt passed, or none was scored (undecided: it might have)."""
    return side.n_pass > 0 or side.n_scored == 0


def paired_stats(cases: list[CaseDiff], alpha: float, power: float, margin: float) -> PairedStats:
    """Pass rates and mean scores of A and B over the paired cases, and the score moves."""
    n = len(cases)
    score_d = [c.score_diff for c in cases]
    return PairedStats(
        n_paired=n,
        rate_a=mean([c.a.pass_rate or 0.0 for c in cases]) if n else None,
        rate_b=mean([c.b.pass_rate or 0.0 for c in cases]) if n else None,
        score_a=mean([c.a.score or 0.0 for c in cases]) if n else None,
        score_b=mean([c.b.score or 0.0 for c in cases]) if n else None,
        passed_a=sum(1 for c in cases if c.a.n_pass == c.a.n_scored),
        passed_b=sum(1 for c in cases if c.b.n_pass == c.b.n_scored),
        n_up=sum(1 for d in score_d if d > TOL),
        n_down=sum(1 for d in score_d if d < -TOL),
        n_ties=sum(1 for d in score_d if abs(d) <= TOL),
        alpha=alpha,
        power=power,
        margin=margin,
    )


def check_options(fail_on: str, alpha: float, margin: float, power: float) -> None:
    """Refuse gate settings that make no sense, naming the flag."""
    if fail_on not in FAIL_ON:
        raise InputError(f"--fail-on must be one of {', '.join(FAIL_ON)}, not {fail_on!r}")
    if not 0.0 < alpha < 0.5:
        raise InputError(f"--alpha must be above 0 and below 0.5, not {alpha}")
    if not 0.0 <= margin < 1.0:
        raise InputError(
            f"--margin must be at least 0 and below 1 (in pass-rate units: 0.05 is 5 points), "
            f"not {margin}"
        )
    if not 0.0 < power < 1.0:
        raise InputError(f"power must be between 0 and 1, not {power}")


def compare_runs(
    a: RunFile,
    b: RunFile,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    fail_on: str = DEFAULT_FAIL_ON,
    margin: float = DEFAULT_MARGIN,
) -> Comparison:
    """Pair run A (before) with run B (after) by case id. Raises InputError when they cannot be."""
    check_options(fail_on, alpha, margin, power)
    check_pairable(a, b)
    problems = row_problems(a) + (row_problems(b) if b.path != a.path else [])
    if problems:
        raise InputError(problems)
    rows_a, rows_b = by_case(a), by_case(b)
    if rows_a and rows_b and not set(rows_a) & set(rows_b):
        raise InputError(f"no case in common between {a.path} and {b.path}: not runs of one suite")
    cases: list[CaseDiff] = []
    shared: dict[tuple[Any, ...], SideCase] = {}
    shared_flags: dict[tuple[bool, bool, bool, bool], tuple[bool, bool, bool, bool]] = {}
    changed, errored, in_review, pairs = [], [], [], []
    error_flags: list[tuple[bool, bool, bool, bool]] = []
    rates: list[CaseOutcome] = []
    scores: list[CaseOutcome] = []
    # The same with errored epochs as undecided: read only when B errors more than A.
    rates_e: list[CaseOutcome] = []
    scores_e: list[CaseOutcome] = []
    for case_id in sorted(set(rows_a) & set(rows_b)):
        ra, rb = rows_a[case_id], rows_b[case_id]
        question = str(_first(rb, "question") or _first(ra, "question") or "")
        shas_a, shas_b = {r["case_sha"] for r in ra}, {r["case_sha"] for r in rb}
        if shas_a != shas_b or len(shas_a) > 1:
            why = f"case file changed: sha {'/'.join(sorted(s[:12] for s in shas_a))} → "
            changed.append(
                Unpaired(case_id, question, why + "/".join(sorted(s[:12] for s in shas_b)))
            )
            continue
        sa, sb = side_case(ra, shared), side_case(rb, shared)
        # Keys from the file become dict keys and table cells: plain strings, whatever they were.
        cluster = _text(_first(ra, "cluster") or _first(rb, "cluster"))
        category = _text(_first(rb, "category") or _first(ra, "category"))
        flags = (sa.n_error > 0, sb.n_error > 0, _may_pass(sa), _may_pass(sb))
        error_flags.append(shared_flags.setdefault(flags, flags))  # 16 tuples, not one a case
        outcomes = _outcomes(shown_case_id(case_id), sa, sb, cluster, category)
        if outcomes is not None:
            rates.append(outcomes[0])
            scores.append(outcomes[1])
        if sa.n_error or sb.n_error or outcomes is None:
            both = _outcomes(shown_case_id(case_id), sa, sb, cluster, category, keep_errors=True)
            assert both is not None
            rates_e.append(both[0])
            scores_e.append(both[1])
        else:
            rates_e.append(outcomes[0])
            scores_e.append(outcomes[1])
        if not sa.n_scored or not sb.n_scored:
            msg = "; ".join(sa.errors + sb.errors)[:200]
            if outcomes is None:
                side = " and ".join(s for s, sc in (("A", sa), ("B", sb)) if not sc.n_scored)
                why = f"error in {side} (left out; counted by the error-rate test): {msg}"
                errored.append(Unpaired(case_id, question, why))
            else:
                side = " and ".join(s for s, sc in (("A", sa), ("B", sb)) if not sc.n_scored)
                why = f"in review in {side} (undecided: read both ways by the gate): {msg}"
                in_review.append(Unpaired(case_id, question, why))
            continue
        flaky = sa.flaky or sb.flaky
        cases.append(
            CaseDiff(case_id, question, category, cluster, sa, sb, classify(sa, sb), flaky)
        )
        pairs.append((ra, rb))
    only = [
        [Unpaired(i, str(_first(rows[i], "question") or ""), why) for i in sorted(ids)]
        for why, rows, ids in (
            (MISSING_WHY, rows_a, set(rows_a) - set(rows_b)),
            ("only in B", rows_b, set(rows_b) - set(rows_a)),
        )
    ]
    for u in only[0]:
        # A case B never ran (a killed run, a spent budget, a dropped case) could have gone
        # either way: the gate reads it like an error in B, never as nothing.
        ra = rows_a[u.id]
        sa = side_case(ra)
        if not sa.gate_epochs()[0]:
            continue  # errored in A and absent from B: nothing left to read either side
        nothing = [None] * len(sa.passes)
        sb = SideCase(len(nothing), 0, 0, None, [], ["missing from B"], nothing, list(nothing))
        cluster, category = _text(_first(ra, "cluster")), _text(_first(ra, "category"))
        outcomes = _outcomes(shown_case_id(u.id), sa, sb, cluster, category)
        assert outcomes is not None  # B's epochs are all undecided, none errored
        for figure, outcome in ((rates, outcomes[0]), (scores, outcomes[1])):
            figure.append(dataclasses.replace(outcome, missing=True))
        rates_e.append(rates[-1])
        scores_e.append(scores[-1])
    decision = decide(
        {RATE: rates, SCORE: scores},
        fail_on,
        alpha=alpha,
        margin=margin,
        power=power,
        errors=count_errors(error_flags),
        with_errors={RATE: rates_e, SCORE: scores_e},
    )
    scored = [
        [c for c in figure if c.a is not None and c.b is not None] for figure in (rates, scores)
    ]
    return Comparison(
        a=run_info(a),
        b=run_info(b),
        header=header_fields(a.header, b.header),
        cases=cases,
        changed=changed,
        only_a=only[0],
        only_b=only[1],
        errored=errored,
        checks=check_changes(pairs, [c.cluster for c in cases], alpha),
        categories=category_changes(*scored, alpha),
        stats=paired_stats(cases, alpha, power, margin),
        decision=decision,
        clusters=cluster_info([c.cluster for c in cases], [_refs(ra) for ra, _ in pairs]),
        epochs=epoch_info(
            [c.shown_id for c in cases],
            [c.a.passes for c in cases],
            [c.b.passes for c in cases],
            [c.flaky for c in cases],
        ),
        fail_on=fail_on,
        in_review=in_review,
    )
