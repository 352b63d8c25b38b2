"""The cluster-robust mean change: CR2 standard error with Bell-McCaffrey degrees of freedom.

Pure functions, stdlib only. Cases that share a source document move together, so the mean
change B - A is tested with clusters as the unit of noise. The textbook CR1 estimator
(Liang-Zeger with G/(G - 1), t with G - 1 df) is too sure of itself when the clusters are
few and unequal: with clusters of 60, 10, 5, 3, 1 and 1 cases and nothing changed it fails
about 22% of the time at alpha 0.05, because one cluster carries most of the weight and its
single residual is all the evidence there is about the noise. CR2 (Bell & McCaffrey 2002)
rescales each cluster's residual by (1 - n_g/n)^(-1/2), which makes the variance unbiased
when the noise is homoskedastic, and the Bell-McCaffrey degrees of freedom (Imbens &
Kolesar 2016; Pustejovsky & Tipton 2018) count how much independent evidence the residuals
hold: G - 1 for equal clusters (where the test equals the t test on cluster means), close
to 1 when one cluster dominates. For the mean alone (a model with only an intercept) both
have closed forms, so nothing here needs a matrix library.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ClusterDesign:
    """Which cluster each paired case belongs to, and what CR2 and its dof need from that."""

    index: tuple[int, ...]  # cluster number of each case, in case order
    sizes: tuple[int, ...]  # cases per cluster
    weights: tuple[float, ...]  # CR2 factor per cluster: 1 / (1 - n_g / n)
    dof: float  # Bell-McCaffrey degrees of freedom

    @property
    def n(self) -> int:
        return len(self.index)

    @property
    def n_clusters(self) -> int:
        return len(self.sizes)


def bell_mccaffrey_dof(sizes: Sequence[int]) -> float:
    """Degrees of freedom of the CR2 t test of a mean, with cluster sizes `sizes`.

    Satterthwaite's (tr M)^2 / tr(M^2) for M = G'G of Imbens & Kolesar (2016, eq. 11) under
    a homoskedastic working model. For an intercept-only model tr M = n and
    tr(M^2) = sum n_g^2 + (S^2 - sum c_g^4 n_g^4) / n^2 with c_g^2 = 1 / (1 - n_g / n) and
    S = sum c_g^2 n_g^2; equal sizes give exactly G - 1, singletons n - 1.
    """
    n = sum(sizes)
    if len(sizes) < 2 or any(s <= 0 for s in sizes):
        raise ValueError("need at least two non-empty clusters")
    c2 = [1.0 / (1.0 - s / n) for s in sizes]
    big_s = math.fsum(c * s * s for c, s in zip(c2, sizes, strict=True))
    fourth = math.fsum(c * c * s**4 for c, s in zip(c2, sizes, strict=True))
    tr_m2 = math.fsum(s * s for s in sizes) + (big_s * big_s - fourth) / (n * n)
    return n * n / tr_m2


def cluster_design(keys: Sequence[Hashable | None]) -> ClusterDesign:
    """The design of one figure's paired cases; a None key makes that case its own cluster."""
    numbers: dict[Hashable, int] = {}
    index = []
    for i, g in enumerate(keys):
        key = g if g is not None else ("\0case", i)
        index.append(numbers.setdefault(key, len(numbers)))
    sizes = [0] * len(numbers)
    for k in index:
        sizes[k] += 1
    if len(sizes) < 2:
        raise ValueError(
            "every case is in one cluster: the cluster-to-cluster noise cannot be estimated"
        )
    n = len(index)
    return ClusterDesign(
        tuple(index),
        tuple(sizes),
        tuple(1.0 / (1.0 - s / n) for s in sizes),
        bell_mccaffrey_dof(sizes),
    )


def cr2_se(d: Sequence[float], design: ClusterDesign) -> float:
    """CR2 standard error of the mean of d: sqrt(sum_g w_g (sum_{i in g} (d_i - m))^2) / n."""
    n = design.n
    m = math.fsum(d) / n
    sums = [0.0] * design.n_clusters
    for di, g in zip(d, design.index, strict=True):
        sums[g] += di - m
    var = math.fsum(w * s * s for w, s in zip(design.weights, sums, strict=True))
    return math.sqrt(var) / n
