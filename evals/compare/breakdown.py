"""The diff's figures beside the gate: per-check and per-category changes, clusters and epochs.

Pure functions over plain values (no run files, no flags). Every change carries its paired
interval at level 1 - alpha and a one-sided p that B is worse, Holm-adjusted over the rows
of its table, so a table of ten checks does not hand out ten chances of a false alarm.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evals.compare.columns import KeyColumn, Keys, Values
from evals.compare.epochs import (
    CaseOutcome,
    EpochSplit,
    PairedEpochSplit,
    epoch_variance_split,
    paired_epoch_split,
)
from evals.compare.intervals import Interval, effect_interval, holm, mean


@dataclass
class CheckChange:
    """One check: pass/fail/error counts over the paired cases' scored rows, and its change."""

    name: str
    a_pass: int = 0
    a_n: int = 0
    a_error: int = 0
    b_pass: int = 0
    b_n: int = 0
    b_error: int = 0
    n_cases: int = 0  # paired cases where the check was scored in both runs
    a_review: int = 0  # rows where the check could not decide: counted apart from errors
    b_review: int = 0
    change: Interval | None = None  # per-case pass rate of the check, B - A
    p_holm: float | None = None  # one-sided p that B is worse, Holm over the checks

    @property
    def rate_a(self) -> float | None:
        return self.a_pass / self.a_n if self.a_n else None

    @property
    def rate_b(self) -> float | None:
        return self.b_pass / self.b_n if self.b_n else None


@dataclass
class GroupChange:
    """One category: its paired cases' pass rate and mean score in A and B, and the changes."""

    name: str
    n: int
    rate_a: float
    rate_b: float
    score_a: float
    score_b: float
    rate: Interval | None  # None: no test is possible (the category is one cluster)
    score: Interval | None
    rate_p_holm: float | None
    score_p_holm: float | None
    n_clusters: int | None = None  # clusters within the category, when the suite has keys

    @property
    def testable(self) -> bool:
        return self.rate is not None


@dataclass
class ClusterInfo:
    """Where the cluster keys come from and how many clusters the figures used."""

    n_cases: int
    n_keyed: int  # cases with a cluster key (the `cluster` field of their rows)
    n_clusters: int  # distinct keys, each key-less case counting as its own cluster
    n_sharing: int = 0  # key-less cases that retrieved a document another key-less case did

    @property
    def used(self) -> bool:
        """The intervals and tests are cluster-robust (G - 1 df)."""
        return self.n_keyed > 0 and self.n_clusters >= 2


@dataclass
class EpochInfo:
    """What the epochs show: the most attempts per case, flaky cases, the variance split."""

    epochs_a: int
    epochs_b: int
    known: bool  # some case was attempted at least twice in one run: flakiness can be seen
    flaky: list[str]  # shown ids of the cases whose outcome varied within a run
    split_a: EpochSplit | None  # pass outcomes of run A (with repeats only)
    split_b: EpochSplit | None
    paired: PairedEpochSplit | None  # the change in pass rate


def _keys(clusters: Sequence[str | None]) -> list[str | None] | None:
    return list(clusters) if any(g is not None for g in clusters) else None


def _interval(
    a: Sequence[float], b: Sequence[float], clusters: Sequence[str | None], alpha: float
) -> Interval:
    return effect_interval(a, b, _keys(clusters), alpha)


def _check_rates(rows: list[dict[str, Any]], tally: dict[str, list[int]]) -> dict[str, float]:
    """One case's per-check pass rate over its scored rows in one run; counts into `tally`
    ([pass, fail, error, review] per check). A check that errored or could not decide is
    counted, never scored, and the two are counted apart."""
    seen: dict[str, list[int]] = {}
    for row in rows:
        if row["status"] in ("error", "review"):
            continue
        checks = row.get("checks")
        for name, res in checks.items() if isinstance(checks, dict) else ():
            status = res.get("status") if isinstance(res, dict) else None
            counts = tally.get(name)
            if counts is None:
                counts = tally[name] = [0, 0, 0, 0]
            if status == "pass" or status == "fail":
                passed = status == "pass"
                counts[0 if passed else 1] += 1
                both = seen.get(name)
                if both is None:
                    seen[name] = [int(passed), 1]
                else:
                    both[0] += passed
                    both[1] += 1
            elif status == "error":  # not scored
                counts[2] += 1
            elif status == "review":  # not scored, and not an error: undecided
                counts[3] += 1
    return {name: k / n for name, (k, n) in seen.items()}


class CheckTally:
    """`check_changes` one paired case at a time, holding no row: the counts, each check's
    per-case rates (a byte each while they are 0 or 1) and, once a check has skipped a case,
    the numbers of the cases it was scored in; the cases' cluster keys once, as integers."""

    def __init__(self) -> None:
        self.tally_a: dict[str, list[int]] = {}
        self.tally_b: dict[str, list[int]] = {}
        self.clusters = KeyColumn(Keys())
        #: Per check: rates in A, in B, and the cases they are of (None: cases 0, 1, 2, ...).
        self.per_case: dict[str, tuple[Values, Values, list[array[int] | None]]] = {}

    def add(
        self,
        rows_a: Sequence[dict[str, Any]],
        rows_b: Sequence[dict[str, Any]],
        cluster: str | None,
    ) -> None:
        """One paired case's rows in A and in B, and its cluster key."""
        case = len(self.clusters)
        self.clusters.append(cluster)
        rates_a = _check_rates(rows_a, self.tally_a)  # type: ignore[arg-type]
        rates_b = _check_rates(rows_b, self.tally_b)  # type: ignore[arg-type]
        for name, ra in rates_a.items():
            rb = rates_b.get(name)
            if rb is None:
                continue
            entry = self.per_case.get(name)
            if entry is None:
                entry = self.per_case[name] = (Values(), Values(), [None])
            a, b, cases = entry
            if cases[0] is None and len(a) != case:  # the first case it skipped
                cases[0] = array("I", range(len(a)))
            a.append(ra)
            b.append(rb)
            if cases[0] is not None:
                cases[0].append(case)

    def _values(self, name: str) -> tuple[Sequence[float], Sequence[float], list[str | None]]:
        entry = self.per_case.get(name)
        if entry is None:
            return [], [], []
        a, b, (cases,) = entry
        keys = self.clusters[: len(a)] if cases is None else [self.clusters[i] for i in cases]
        return a.doubles_all(), b.doubles_all(), keys

    def changes(self, alpha: float) -> list[CheckChange]:
        """Each check's counts and paired change, Holm over the checks."""
        out = []
        for name in sorted(self.tally_a.keys() | self.tally_b.keys()):
            (a_pass, a_fail, a_err, a_rev), (b_pass, b_fail, b_err, b_rev) = (
                self.tally_a.get(name, [0, 0, 0, 0]),
                self.tally_b.get(name, [0, 0, 0, 0]),
            )
            a, b, keys = self._values(name)
            out.append(
                CheckChange(
                    name,
                    a_pass=a_pass,
                    a_n=a_pass + a_fail,
                    a_error=a_err,
                    b_pass=b_pass,
                    b_n=b_pass + b_fail,
                    b_error=b_err,
                    n_cases=len(a),
                    change=_interval(a, b, keys, alpha) if a else None,
                    a_review=a_rev,
                    b_review=b_rev,
                )
            )
        tested = [c for c in out if c.change is not None and c.change.p_value is not None]
        for c, q in zip(tested, holm([c.change.p_value for c in tested]), strict=True):  # type: ignore[union-attr]
            c.p_holm = q
        return out


def check_changes(
    pairs: Sequence[tuple[list[dict[str, Any]], list[dict[str, Any]]]],
    clusters: Sequence[str | None],
    alpha: float,
) -> list[CheckChange]:
    """Each check's counts over the paired cases' scored rows, and its paired change.

    A case's value for a check is its pass rate over the scored rows where the check passed
    or failed (a check that errored is counted, never scored); the change is paired over
    the cases where the check was scored in both runs.
    """
    tally = CheckTally()
    for (rows_a, rows_b), cluster in zip(pairs, clusters, strict=True):
        tally.add(rows_a, rows_b, cluster)
    return tally.changes(alpha)


def category_changes(
    rates: Sequence[CaseOutcome], scores: Sequence[CaseOutcome], alpha: float
) -> list[GroupChange]:
    """Each category's paired change in pass rate and mean score, Holm over the table.

    `rates` and `scores` are the same cases scored in both runs, in the same order. Empty
    when no case has a category; cases without one form the group "(none)". When the cases
    carry cluster keys, a category is tested with its own clusters; a category of fewer than
    two clusters (one source document, say) has no test: its cases are one piece of
    evidence, and counting them as many is what made one document look "regressed".
    """
    if not any(c.category is not None for c in rates):
        return []
    clustered = any(c.cluster is not None for c in rates)
    # Each category's values as doubles and its keys as small integers, read in one pass
    # (the cases may be columns: no case is held as an object).
    table = Keys()
    groups: dict[str, tuple[array[float], array[float], array[float], array[float], KeyColumn]]
    groups = {}
    for r, s in zip(rates, scores, strict=True):
        name = r.category if r.category is not None else "(none)"
        group = groups.get(name)
        if group is None:
            group = groups[name] = (*(array("d") for _ in range(4)), KeyColumn(table))  # type: ignore[assignment]
        for column, value in zip(group, (r.a, r.b, s.a, s.b), strict=False):
            column.append(float(value))  # type: ignore[arg-type]
        group[4].append(r.cluster)
    out = []
    for name, (ra, rb, sa, sb, keys) in sorted(groups.items()):
        n_clusters = len({g for g in keys if g is not None}) + keys.count(None)
        testable = not clustered or n_clusters >= 2
        out.append(
            GroupChange(
                name=name,
                n=len(ra),
                rate_a=mean(ra),
                rate_b=mean(rb),
                score_a=mean(sa),
                score_b=mean(sb),
                rate=_interval(ra, rb, keys, alpha) if testable else None,
                score=_interval(sa, sb, keys, alpha) if testable else None,
                rate_p_holm=None,
                score_p_holm=None,
                n_clusters=n_clusters if clustered else None,
            )
        )
    tested = [g for g in out if g.rate is not None and g.score is not None]
    ps = [g.rate.p_value or 1.0 for g in tested] + [g.score.p_value or 1.0 for g in tested]  # type: ignore[union-attr]
    adjusted = holm(ps)
    for i, g in enumerate(tested):
        g.rate_p_holm, g.score_p_holm = adjusted[i], adjusted[len(tested) + i]
    return out


def cluster_info(
    clusters: Sequence[str | None], sources: Sequence[Sequence[str]] | None = None
) -> ClusterInfo:
    """How many of the paired cases carry a cluster key, and how many clusters there are.

    `sources` (each case's retrieved refs, `doc#section`) finds key-less cases that share a
    document: those may move together although nothing says so to the gate.
    """
    tally = ClusterTally()
    for g, refs in zip(clusters, sources or [[]] * len(clusters), strict=True):
        tally.add(g, refs)
    return tally.info()


class ClusterTally:
    """`cluster_info` one paired case at a time, holding a few bytes a case: the distinct
    keys, and for each ref of a key-less case a hash of its document and the case's number.

    Two documents are taken as one when their 64-bit hashes agree (about one chance in
    10^9 over 100,000 documents), which could only miscount `n_sharing`, a note."""

    def __init__(self) -> None:
        self.n_cases = 0
        self.n_keyed = 0
        self.keyed: set[str] = set()
        self._doc = array("q")
        self._case = array("q")

    def add(self, cluster: str | None, refs: Sequence[str]) -> None:
        if cluster is not None:
            self.n_keyed += 1
            self.keyed.add(cluster)
        else:
            for ref in refs:
                self._doc.append(hash(str(ref).split("#", 1)[0]))
                self._case.append(self.n_cases)
        self.n_cases += 1

    def info(self) -> ClusterInfo:
        order = sorted(range(len(self._doc)), key=self._doc.__getitem__)
        sharing: set[int] = set()
        start = 0
        while start < len(order):
            end = start
            doc = self._doc[order[start]]
            while end < len(order) and self._doc[order[end]] == doc:
                end += 1
            cases = {self._case[order[i]] for i in range(start, end)}
            if len(cases) > 1:
                sharing |= cases
            start = end
        return ClusterInfo(
            self.n_cases,
            self.n_keyed,
            len(self.keyed) + self.n_cases - self.n_keyed,
            len(sharing),
        )


def epoch_info(
    ids: Sequence[str],
    a_passes: Sequence[Sequence[float | None]],
    b_passes: Sequence[Sequence[float | None]],
    flaky: Sequence[bool],
) -> EpochInfo:
    """The epochs of the paired cases: attempts, flaky cases, and the case/epoch split."""
    scored_a = [[x for x in p if x is not None] for p in a_passes]
    scored_b = [[x for x in p if x is not None] for p in b_passes]
    known = any(len(x) > 1 for x in scored_a) or any(len(x) > 1 for x in scored_b)

    def split(scored: list[list[float]]) -> EpochSplit | None:
        if not known or not scored or not all(scored):
            return None
        return epoch_variance_split(dict(zip(ids, scored, strict=True)))

    return EpochInfo(
        epochs_a=max((len(p) for p in a_passes), default=1),
        epochs_b=max((len(p) for p in b_passes), default=1),
        known=known,
        flaky=[i for i, f in zip(ids, flaky, strict=True) if f],
        split_a=split(scored_a),
        split_b=split(scored_b),
        paired=paired_epoch_split(scored_a, scored_b) if known else None,
    )
