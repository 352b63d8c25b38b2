"""Cases over epochs: the per-case rate as the unit, flaky cases, and the case/epoch variance split.

Pure functions, stdlib only. With --epochs K every case is attempted K times per run; a
case's pass rate (or mean score) over its scored attempts is the paired unit, never a
majority vote, and a case whose outcome varies within one run is flaky: that is known
from the epochs, never guessed. The split of the noise into case-to-case and
attempt-to-attempt parts follows Miller (2024), "Adding Error Bars to Evals".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from evals.compare.intervals import TIE_TOLERANCE, mean, sample_var


@dataclass(frozen=True, slots=True)
class CaseOutcome:
    """One case in both runs for one figure: its pass rate (or score) over scored epochs.

    Errored epochs are not here (the gate leaves them out); an undecided epoch is (a
    `review` row, or every epoch of a case missing from B). `a` / `b` are None when every
    epoch of that run is undecided (or the case is missing from B: `missing`). `a_worst` /
    `b_worst` are the worst-case reading for B when some epoch is undecided: A's read as
    passes (ceiling), B's as fails (floor); `a_best` / `b_best` the other end (A's as fails,
    B's as passes); None when that run had no undecided epoch. Between them lies every value
    the undecided epochs could have given.
    """

    id: str
    a: float | None
    b: float | None
    cluster: str | None = None
    category: str | None = None
    flaky: bool = False  # its outcome varied within a run (or it is known to be flaky)
    a_worst: float | None = None
    b_worst: float | None = None
    a_best: float | None = None
    b_best: float | None = None
    missing: bool = False  # in run A, absent from run B (a killed or stopped run)

    @property
    def has_error(self) -> bool:
        """Some epoch is undecided in A or in B (the name is older than the distinction:
        errored epochs never reach a CaseOutcome)."""
        return (
            self.a is None or self.b is None or self.a_worst is not None or self.b_worst is not None
        )


def varies(values: Sequence[float]) -> bool:
    """Whether repeated outcomes of one case in one run differ (it is flaky)."""
    return len(values) > 1 and max(values) - min(values) > TIE_TOLERANCE


def case_from_epochs(
    case_id: str,
    a_epochs: Sequence[float | None],
    b_epochs: Sequence[float | None],
    cluster: str | None = None,
    category: str | None = None,
    *,
    flaky: bool | None = None,
    floor: float = 0.0,
    ceiling: float = 1.0,
) -> CaseOutcome:
    """A CaseOutcome from per-epoch outcomes (None = an undecided epoch, never scored).

    The per-case rate over scored epochs is the unit (not a majority vote); a case is
    flaky when its outcome varied within either run (unless `flaky` says otherwise). The
    worst-case reading replaces A's undecided epochs by `ceiling` and B's by `floor`.
    """
    sa = [x for x in a_epochs if x is not None]
    sb = [x for x in b_epochs if x is not None]
    if flaky is None:
        flaky = varies(sa) or varies(sb)
    a_worst = b_worst = a_best = b_best = None
    if len(sa) < len(a_epochs):
        a_worst = mean([ceiling if x is None else x for x in a_epochs])
        a_best = mean([floor if x is None else x for x in a_epochs])
    if len(sb) < len(b_epochs):
        b_worst = mean([floor if x is None else x for x in b_epochs])
        b_best = mean([ceiling if x is None else x for x in b_epochs])
    return CaseOutcome(
        case_id,
        mean(sa) if sa else None,
        mean(sb) if sb else None,
        cluster,
        category,
        flaky,
        a_worst,
        b_worst,
        a_best,
        b_best,
    )


@dataclass(frozen=True)
class EpochSplit:
    """Miller (2024, "Adding Error Bars to Evals", sec. on resampling) variance split.

    With K_i epochs of case i, Var(mean of case means) = (between + E[within_i / K_i]) / n:
    `between` is the spread of the cases' true pass rates, `within` the attempt-to-attempt
    noise of one case. `se` is estimated from the case means directly, so it is right
    whatever the split; the split says whether more epochs (shrink within/K) or more cases
    (shrink both) would narrow it.
    """

    n_cases: int
    case_means: dict[str, float]
    mean: float
    se: float  # SE of the mean, the case being the unit (epochs averaged first)
    between_var: float  # between-case variance of the true per-case means (>= 0)
    within_var: float | None  # mean within-case (epoch) variance; None without repeats
    mean_epochs: float
    se_if_attempts_independent: float  # the wrong SE that counts every attempt as a case
    flaky_cases: list[str] = field(default_factory=list)  # outcome varied within this run

    def se_with_epochs(self, k: int) -> float | None:
        """Projected SE of the mean with k epochs per case (planning)."""
        if self.within_var is None or k < 1:
            return None
        return math.sqrt((self.between_var + self.within_var / k) / self.n_cases)


def epoch_variance_split(
    per_case_epoch_outcomes: Mapping[str, Sequence[float]] | Sequence[Sequence[float]],
) -> EpochSplit:
    """Per-case means, between/within variance and the SE of the mean over cases with epochs.

    Input: each case's scored outcomes over its epochs (1/0 for pass/fail, or scores);
    errored epochs must be left out by the caller. A sequence is keyed "0", "1", ...
    within = mean over cases with >= 2 epochs of their unbiased sample variance;
    between = max(0, Var(case means) - mean(s_i^2 / K_i)) (method of moments).
    """
    items = (
        list(per_case_epoch_outcomes.items())
        if isinstance(per_case_epoch_outcomes, Mapping)
        else [(str(i), v) for i, v in enumerate(per_case_epoch_outcomes)]
    )
    items = [(str(k), list(v)) for k, v in items]
    if not items or any(not v for _, v in items):
        raise ValueError("every case needs at least one scored epoch")
    means = {k: mean(v) for k, v in items}
    n = len(items)
    xs = list(means.values())
    total_var = sample_var(xs)
    repeated = [(len(v), sample_var(v)) for _, v in items if len(v) >= 2]
    within = mean([s2 for _, s2 in repeated]) if repeated else None
    noise = mean([s2 / k for k, s2 in repeated]) if repeated else 0.0
    attempts = [x for _, v in items for x in v]
    return EpochSplit(
        n_cases=n,
        case_means=means,
        mean=mean(xs),
        se=math.sqrt(total_var / n),
        between_var=max(0.0, total_var - noise),
        within_var=within,
        mean_epochs=len(attempts) / n,
        se_if_attempts_independent=math.sqrt(sample_var(attempts) / len(attempts)),
        flaky_cases=[k for k, v in items if varies(v)],
    )


@dataclass(frozen=True)
class PairedEpochSplit:
    """The same split for the change B - A: how much of its noise more epochs would remove.

    d_i = mean_B_i - mean_A_i; Var(d_i) = between + s_A,i^2 / K_A,i + s_B,i^2 / K_B,i, where
    `between` is the case-to-case spread of the true changes and the rest is the
    attempt-to-attempt noise of the two runs (a case with one attempt in a run borrows the
    run's pooled within-case variance).
    """

    n_cases: int
    se: float  # SE of the mean change, cases as the unit
    var_diff: float  # sample variance of the per-case changes
    epoch_noise: float  # mean attempt-to-attempt part of Var(d_i)
    within_var: float  # pooled per-attempt variance, A and B together (s_A^2 + s_B^2)
    mean_epochs: float

    @property
    def between_var(self) -> float:
        """Case-to-case part of Var(d_i) (method of moments, >= 0)."""
        return max(0.0, self.var_diff - self.epoch_noise)

    @property
    def epoch_share(self) -> float | None:
        """Share of the noise of the mean change that is attempt-to-attempt noise."""
        if self.var_diff <= 0:
            return None
        return min(1.0, self.epoch_noise / self.var_diff)

    def se_with_epochs(self, k: int) -> float:
        """Projected SE of the mean change with k epochs per case in both runs (planning)."""
        return math.sqrt((self.between_var + self.within_var / k) / self.n_cases)


def paired_epoch_split(
    a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]
) -> PairedEpochSplit | None:
    """The case/epoch split of the change, from each case's scored outcomes in A and in B.

    None when no case has two scored attempts in either run: then the attempt-to-attempt
    noise cannot be seen at all.
    """
    pairs = [(list(x), list(y)) for x, y in zip(a, b, strict=True) if x and y]
    if not pairs or not any(len(x) > 1 or len(y) > 1 for x, y in pairs):
        return None
    pooled = []
    for side in (0, 1):
        repeated = [sample_var(p[side]) for p in pairs if len(p[side]) > 1]
        pooled.append(mean(repeated) if repeated else 0.0)

    def noise(values: list[float], side: int) -> float:
        s2 = sample_var(values) if len(values) > 1 else pooled[side]
        return s2 / len(values)

    diffs = [mean(y) - mean(x) for x, y in pairs]
    n = len(pairs)
    var_d = sample_var(diffs)
    return PairedEpochSplit(
        n_cases=n,
        se=math.sqrt(var_d / n),
        var_diff=var_d,
        epoch_noise=mean([noise(x, 0) + noise(y, 1) for x, y in pairs]),
        within_var=pooled[0] + pooled[1],
        mean_epochs=sum(len(x) + len(y) for x, y in pairs) / (2 * n),
    )
