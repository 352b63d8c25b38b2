"""What a streamed diff keeps of the paired cases for the epochs and the plain figures,
one case at a time, in a few bytes a case (`compare/streamed.py`; the pairing of whole runs
computes the same from lists: `breakdown.epoch_info`, `pairing.paired_stats`)."""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from evals.compare.breakdown import EpochInfo
from evals.compare.columns import ExactSum, Ids
from evals.compare.epochs import epoch_variance_split, paired_epoch_split
from evals.compare.pairing import TOL, PairedStats
from evals.compare.sides import SideCase


class EpochTally:
    """`epoch_info` one paired case at a time: each case's scored pass outcomes (0 or 1) a
    byte each, the flaky cases' ids, the most attempts per run."""

    def __init__(self, ids: Ids) -> None:
        self.ids = ids
        self.id_numbers = array("I")
        self.values = (array("B"), array("B"))
        self.ends = (array("I"), array("I"))
        self.epochs = [1, 1]
        self.known = False
        self.flaky: list[str] = []

    def add(
        self, id_number: int, a: Sequence[float | None], b: Sequence[float | None], flaky: bool
    ) -> None:
        self.id_numbers.append(id_number)
        for side, passes in enumerate((a, b)):
            scored = [int(x) for x in passes if x is not None]  # a pass is 1.0 or 0.0
            self.known = self.known or len(scored) > 1
            self.values[side].extend(scored)
            self.ends[side].append(len(self.values[side]))
            self.epochs[side] = max(self.epochs[side], len(passes))
        if flaky:
            self.flaky.append(self.ids[id_number])

    def _scored(self, side: int) -> list[list[float]]:
        values, ends = self.values[side], self.ends[side]
        return [
            [float(x) for x in values[(ends[i - 1] if i else 0) : ends[i]]]
            for i in range(len(ends))
        ]

    def info(self) -> EpochInfo:
        """What `breakdown.epoch_info` gives for the same cases; with epochs, each case's
        outcomes are read out of the arrays as lists for the variance split."""
        split_a = split_b = paired = None
        if self.known:
            ids = [self.ids[i] for i in self.id_numbers]
            scored_a, scored_b = self._scored(0), self._scored(1)
            if scored_a and all(scored_a):
                split_a = epoch_variance_split(dict(zip(ids, scored_a, strict=True)))
            if scored_b and all(scored_b):
                split_b = epoch_variance_split(dict(zip(ids, scored_b, strict=True)))
            paired = paired_epoch_split(scored_a, scored_b)
        return EpochInfo(
            epochs_a=self.epochs[0],
            epochs_b=self.epochs[1],
            known=self.known,
            flaky=self.flaky,
            split_a=split_a,
            split_b=split_b,
            paired=paired,
        )


@dataclass
class PairedTally:
    """The plain figures of the paired cases, one case at a time (`pairing.paired_stats`):
    exact running sums, so the means are those of `mean` over every case's value."""

    rate_a: ExactSum = field(default_factory=ExactSum)
    rate_b: ExactSum = field(default_factory=ExactSum)
    score_a: ExactSum = field(default_factory=ExactSum)
    score_b: ExactSum = field(default_factory=ExactSum)
    passed_a: int = 0
    passed_b: int = 0
    moves: Counter[int] = field(default_factory=Counter)  # -1 down, 0 tie, 1 up

    def add(self, a: SideCase, b: SideCase) -> None:
        self.rate_a.add(a.pass_rate or 0.0)
        self.rate_b.add(b.pass_rate or 0.0)
        self.score_a.add(a.score or 0.0)
        self.score_b.add(b.score or 0.0)
        self.passed_a += a.n_pass == a.n_scored
        self.passed_b += b.n_pass == b.n_scored
        d = (b.score or 0.0) - (a.score or 0.0)
        self.moves[1 if d > TOL else -1 if d < -TOL else 0] += 1

    def stats(self, alpha: float, power: float, margin: float) -> PairedStats:
        n = self.rate_a.n
        return PairedStats(
            n_paired=n,
            rate_a=self.rate_a.mean() if n else None,
            rate_b=self.rate_b.mean() if n else None,
            score_a=self.score_a.mean() if n else None,
            score_b=self.score_b.mean() if n else None,
            passed_a=self.passed_a,
            passed_b=self.passed_b,
            n_up=self.moves[1],
            n_down=self.moves[-1],
            n_ties=self.moves[0],
            alpha=alpha,
            power=power,
            margin=margin,
        )
