"""Pairing two run files case by case: what changed, what was left out, and the paired figures."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from evals.compare import stats
from evals.compare.headers import HeaderField, RunInfo, check_pairable, header_fields, run_info
from evals.errors import InputError, Problem
from evals.run.files import RunFile

FAIL_ON = ("regression", "significant", "never")
CHANGE_ORDER = {"broken": 0, "DOWN": 1, "fixed": 2, "up": 3, "same": 4}
STATUSES = ("pass", "fail", "error")
TOL = stats.TIE_TOLERANCE


@dataclass
class SideCase:
    """One case in one run, over its epochs: error epochs are counted, never scored."""

    n_epochs: int
    n_scored: int
    n_pass: int
    score: float | None
    failed_checks: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def pass_rate(self) -> float | None:
        return self.n_pass / self.n_scored if self.n_scored else None

    @property
    def passed(self) -> bool:
        """Passing means passing in more than half the scored epochs (all of one)."""
        return bool(self.n_scored) and 2 * self.n_pass > self.n_scored


@dataclass
class CaseDiff:
    """A paired case: same id and same case sha in both runs, scored in both."""

    id: str
    question: str
    category: str | None
    cluster: str | None
    a: SideCase
    b: SideCase
    change: str

    @property
    def score_diff(self) -> float:
        return (self.b.score or 0.0) - (self.a.score or 0.0)

    @property
    def rate_diff(self) -> float:
        return (self.b.pass_rate or 0.0) - (self.a.pass_rate or 0.0)


@dataclass
class Unpaired:
    """A case left out of the paired arithmetic, and why."""

    id: str
    question: str
    reason: str


@dataclass
class CheckRate:
    """One check's pass/fail/error counts over the paired cases' scored rows, A and B."""

    name: str
    a_pass: int = 0
    a_n: int = 0
    a_error: int = 0
    b_pass: int = 0
    b_n: int = 0
    b_error: int = 0

    @property
    def rate_a(self) -> float | None:
        return self.a_pass / self.a_n if self.a_n else None

    @property
    def rate_b(self) -> float | None:
        return self.b_pass / self.b_n if self.b_n else None


@dataclass
class PairedStats:
    """The paired figures over the cases scored in both runs."""

    n_paired: int
    passed_a: int
    passed_b: int
    rate_a: float | None
    rate_b: float | None
    score_a: float | None
    score_b: float | None
    mcnemar: stats.McNemar
    sign: stats.SignTest
    rate_ci: stats.BootstrapCI | None
    score_ci: stats.BootstrapCI | None
    rate_clustered: stats.ClusteredSE | None
    score_clustered: stats.ClusteredSE | None
    mde_rate: float | None
    mde_score: float | None
    alpha: float
    power: float
    seed: int
    resamples: int


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
    checks: list[CheckRate]
    stats: PairedStats
    fail_on: str = "regression"

    def counts(self) -> dict[str, int]:
        found = Counter(c.change for c in self.cases)
        return {k: found.get(k, 0) for k in CHANGE_ORDER}

    def verdict(self) -> str | None:
        """Why this diff fails under `fail_on`, or None when it passes."""
        if self.fail_on == "regression":
            n = self.counts()
            if n["broken"] or n["DOWN"]:
                return f"regression: {n['broken']} case(s) broken, {n['DOWN']} score(s) down"
            return None
        if self.fail_on == "significant":
            s, alpha = self.stats, self.stats.alpha
            mc, sign = s.mcnemar, s.sign
            if mc.p_value is not None and mc.b > mc.c and mc.p_value < alpha:
                return f"significant regression: McNemar p = {mc.p_value:.4g} < {alpha} (b={mc.b}, c={mc.c})"
            if sign.p_value is not None and sign.n_down > sign.n_up and sign.p_value < alpha:
                return (
                    f"significant regression: sign test on scores p = {sign.p_value:.4g} < {alpha}"
                )
        return None


def row_problems(run: RunFile) -> list[Problem]:
    """Rows the pairing cannot read, each named by its position among the case rows."""
    out = []
    for i, row in enumerate(run.rows, 1):
        where = f"case row {i}"
        if not isinstance(row.get("case"), str) or not row["case"]:
            out.append(Problem(str(run.path), where, "missing case id"))
        elif row.get("status") not in STATUSES:
            out.append(
                Problem(
                    str(run.path), where, f"status {row.get('status')!r} is not pass|fail|error"
                )
            )
        elif not isinstance(row.get("case_sha"), str):
            out.append(Problem(str(run.path), where, "missing case_sha"))
        elif not isinstance(row.get("epoch", 0), int | None):
            out.append(Problem(str(run.path), where, f"epoch {row['epoch']!r} is not an integer"))
        elif row["status"] != "error" and not isinstance(row.get("score"), int | float):
            out.append(Problem(str(run.path), where, "a pass/fail row needs a numeric score"))
    return out


def _by_case(run: RunFile) -> dict[str, list[dict[str, Any]]]:
    """Rows grouped by case id; a repeated (case, epoch) keeps its last row (a resumed run)."""
    latest: dict[tuple[str, int], dict[str, Any]] = {}
    for row in run.rows:
        latest[(row["case"], int(row.get("epoch") or 0))] = row
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for (case_id, _), row in latest.items():
        out[case_id].append(row)
    return out


def side_case(rows: list[dict[str, Any]]) -> SideCase:
    """One case's rows in one run, summed over epochs."""
    if len(rows) == 1:  # the common case, kept fast for large runs
        r = rows[0]
        if r["status"] == "error":
            return SideCase(1, 0, 0, None, [], [str(r.get("error") or "error")])
        failed_one = list(r.get("failed_checks") or [])
        return SideCase(1, 1, int(r["status"] == "pass"), float(r["score"]), failed_one, [])
    scored = [r for r in rows if r["status"] != "error"]
    failed: Counter[str] = Counter()
    for r in scored:
        failed.update(r.get("failed_checks") or [])
    return SideCase(
        n_epochs=len(rows),
        n_scored=len(scored),
        n_pass=sum(1 for r in scored if r["status"] == "pass"),
        score=stats.mean([float(r["score"]) for r in scored]) if scored else None,
        failed_checks=[name for name, _ in failed.most_common()],
        errors=sorted({str(r.get("error") or "error") for r in rows if r["status"] == "error"}),
    )


def classify(a: SideCase, b: SideCase) -> str:
    """fixed / broken when the pass verdict flips; else up / DOWN / same by pass rate, then score."""
    if a.passed != b.passed:
        return "fixed" if b.passed else "broken"
    rate = (b.pass_rate or 0.0) - (a.pass_rate or 0.0)
    primary = rate if abs(rate) > TOL else (b.score or 0.0) - (a.score or 0.0)
    if primary > TOL:
        return "up"
    if primary < -TOL:
        return "DOWN"
    return "same"


def _first(rows: list[dict[str, Any]], key: str) -> Any:
    for r in rows:
        value = r.get(key)
        if value is not None:
            return value
    return None


def _check_rates(pairs: list[tuple[list[dict], list[dict]]]) -> list[CheckRate]:
    """Each check's pass/fail/error counts over the paired cases' scored rows."""
    tallies: tuple[Counter, Counter] = (Counter(), Counter())
    for sides in pairs:
        for tally, rows in zip(tallies, sides, strict=True):
            for row in rows:
                if row["status"] != "error":
                    tally.update(
                        (name, res.get("status")) for name, res in (row.get("checks") or {}).items()
                    )
    ta, tb = tallies
    out = []
    for name in sorted({name for name, _ in ta} | {name for name, _ in tb}):
        out.append(
            CheckRate(
                name,
                a_pass=ta[(name, "pass")],
                a_n=ta[(name, "pass")] + ta[(name, "fail")],
                a_error=ta[(name, "error")],
                b_pass=tb[(name, "pass")],
                b_n=tb[(name, "pass")] + tb[(name, "fail")],
                b_error=tb[(name, "error")],
            )
        )
    return out


def paired_stats(
    cases: list[CaseDiff], *, alpha: float, power: float, seed: int, resamples: int
) -> PairedStats:
    """McNemar on the pass verdicts, bootstrap CIs, sign test, clustered SE and MDE."""
    n = len(cases)
    b = sum(1 for c in cases if c.a.passed and not c.b.passed)
    c_ = sum(1 for c in cases if not c.a.passed and c.b.passed)
    # Rounded to 1e-9 (scores carry 6 decimals) so float noise does not split equal values.
    rate_d = [round(c.rate_diff, 9) for c in cases]
    score_d = [round(c.score_diff, 9) for c in cases]
    boot = {"resamples": resamples, "seed": seed}
    has_clusters = any(c.cluster for c in cases)
    keys = [c.cluster or f"\0{c.id}" for c in cases]  # an unclustered case is its own cluster
    # McNemar tests the pass verdicts (majority over epochs), so its power sets the MDE.
    mde_rate = stats.mde_paired_binary(n, (b + c_) / n, alpha, power) if n else None
    return PairedStats(
        n_paired=n,
        passed_a=sum(1 for c in cases if c.a.passed),
        passed_b=sum(1 for c in cases if c.b.passed),
        rate_a=stats.mean([c.a.pass_rate or 0.0 for c in cases]) if n else None,
        rate_b=stats.mean([c.b.pass_rate or 0.0 for c in cases]) if n else None,
        score_a=stats.mean([c.a.score or 0.0 for c in cases]) if n else None,
        score_b=stats.mean([c.b.score or 0.0 for c in cases]) if n else None,
        mcnemar=stats.mcnemar_exact(b, c_),
        sign=stats.sign_test(score_d),
        rate_ci=stats.paired_bootstrap_ci(rate_d, **boot) if n else None,
        score_ci=stats.paired_bootstrap_ci(score_d, **boot) if n else None,
        rate_clustered=stats.clustered_se(rate_d, keys) if has_clusters else None,
        score_clustered=stats.clustered_se(score_d, keys) if has_clusters else None,
        mde_rate=mde_rate,
        mde_score=stats.mde_mean(n, stats.sample_sd(score_d), alpha, power),
        alpha=alpha,
        power=power,
        seed=seed,
        resamples=resamples,
    )


def compare_runs(
    a: RunFile,
    b: RunFile,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    fail_on: str = "regression",
    seed: int = stats.DEFAULT_SEED,
    resamples: int = stats.DEFAULT_RESAMPLES,
) -> Comparison:
    """Pair run A (before) with run B (after) by case id. Raises InputError when they cannot be."""
    if fail_on not in FAIL_ON:
        raise InputError(f"--fail-on must be one of {', '.join(FAIL_ON)}, not {fail_on!r}")
    if not 0.0 < alpha < 1.0:
        raise InputError(f"--alpha must be between 0 and 1, not {alpha}")
    check_pairable(a, b)
    problems = row_problems(a) + (row_problems(b) if b.path != a.path else [])
    if problems:
        raise InputError(problems)
    rows_a, rows_b = _by_case(a), _by_case(b)
    if rows_a and rows_b and not set(rows_a) & set(rows_b):
        raise InputError(f"no case in common between {a.path} and {b.path}: not runs of one suite")
    cases: list[CaseDiff] = []
    changed, errored, pairs = [], [], []
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
        sa, sb = side_case(ra), side_case(rb)
        if not sa.n_scored or not sb.n_scored:
            side = " and ".join(s for s, sc in (("A", sa), ("B", sb)) if not sc.n_scored)
            msg = "; ".join(sa.errors + sb.errors)[:200]
            errored.append(Unpaired(case_id, question, f"error in {side}: {msg}"))
            continue
        cluster = _first(ra, "cluster") or _first(rb, "cluster")
        category = _first(rb, "category") or _first(ra, "category")
        cases.append(CaseDiff(case_id, question, category, cluster, sa, sb, classify(sa, sb)))
        pairs.append((ra, rb))
    only = [
        [
            Unpaired(i, str(_first(rows[i], "question") or ""), f"only in {side}")
            for i in sorted(ids)
        ]
        for side, rows, ids in (
            ("A", rows_a, set(rows_a) - set(rows_b)),
            ("B", rows_b, set(rows_b) - set(rows_a)),
        )
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
        checks=_check_rates(pairs),
        stats=paired_stats(cases, alpha=alpha, power=power, seed=seed, resamples=resamples),
        fail_on=fail_on,
    )
