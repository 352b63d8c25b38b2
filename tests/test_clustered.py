"""CR2 and Bell-McCaffrey degrees of freedom, against the general matrix definitions."""

from __future__ import annotations

import random

import pytest

from evals.compare.clustered import bell_mccaffrey_dof, cluster_design, cr2_se
from evals.compare.intervals import paired_diff_interval


def _unbalanced() -> tuple[list[float], list[int]]:
    """Clusters of 60, 10, 5, 3, 1 and 1 cases; d ~ N(0, 1) rounded, random.Random(5)."""
    rng = random.Random(5)
    keys = [0] * 60 + [1] * 10 + [2] * 5 + [3] * 3 + [4] + [5]
    return [round(rng.gauss(0, 1), 3) for _ in keys], keys


def test_unbalanced_clusters_match_the_matrix_definitions() -> None:
    # numpy: A_g = (I - H_gg)^(-1/2), CR2 sandwich, and (sum l)^2 / sum l^2 over the
    # eigenvalues l of G'G (Imbens & Kolesar 2016, eq. 11); computed once and pasted here.
    d, keys = _unbalanced()
    design = cluster_design(keys)
    assert cr2_se(d, design) == pytest.approx(0.1400855788296584, rel=1e-12)
    assert design.dof == pytest.approx(1.4470022109171448, rel=1e-12)


def test_one_dominant_cluster_leaves_about_one_degree_of_freedom_not_g_minus_one() -> None:
    assert bell_mccaffrey_dof([60, 10, 5, 3, 1, 1]) < 1.5  # CR1 would claim 5
    ci = paired_diff_interval([0.0] * 80, _unbalanced()[0], _unbalanced()[1])
    assert ci.df == pytest.approx(1.447, abs=1e-3) and "CR2" in ci.method


@pytest.mark.parametrize("g,m", [(2, 3), (6, 10), (12, 10), (40, 1)])
def test_equal_clusters_give_g_minus_one(g: int, m: int) -> None:
    assert bell_mccaffrey_dof([m] * g) == pytest.approx(g - 1)


def test_singletons_are_the_paired_t_test() -> None:
    rng = random.Random(2)
    d = [rng.gauss(0, 1) for _ in range(25)]
    by_case = paired_diff_interval([0.0] * 25, d)
    singletons = paired_diff_interval([0.0] * 25, d, [str(i) for i in range(25)])
    assert singletons.se == pytest.approx(by_case.se)
    assert singletons.df == pytest.approx(by_case.df)
    assert singletons.p_value == pytest.approx(by_case.p_value)


def test_one_cluster_is_refused() -> None:
    with pytest.raises(ValueError, match="one cluster"):
        cluster_design(["doc"] * 5)
