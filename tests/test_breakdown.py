"""Per-check and per-category changes with intervals and Holm p; clusters and epochs described."""

from __future__ import annotations

import pytest
from diffkit import row

from evals.compare import breakdown as bd
from evals.compare.epochs import CaseOutcome as C
from evals.compare.intervals import holm


def test_check_changes_count_rows_and_pair_each_checks_per_case_rate() -> None:
    pairs = []
    for i in range(20):
        a = [row("A", f"c{i}", "pass")]
        # c0..c5 fail facts_present in B; c6 errors in B (counted, not scored).
        if i < 6:
            b = [row("B", f"c{i}", "fail")]
        elif i == 6:
            b = [row("B", f"c{i}", "error")]
        else:
            b = [row("B", f"c{i}", "pass")]
        pairs.append((a, b))
    out = {c.name: c for c in bd.check_changes(pairs, [None] * 20, 0.05)}
    facts = out["facts_present"]
    assert (facts.a_pass, facts.a_n, facts.b_pass, facts.b_n) == (20, 20, 13, 19)
    assert facts.n_cases == 19  # c6 was scored in A only
    assert facts.change.estimate == pytest.approx(-6 / 19)
    assert facts.change.mcnemar.broken == 6 and facts.change.width > 0
    ps = [c.change.p_value for c in out.values()]
    assert [c.p_holm for c in out.values()] == pytest.approx(holm(ps))
    assert out["no_forbidden"].change.estimate == 0 and out["no_forbidden"].change.width > 0


def test_a_check_that_errors_is_counted_and_never_scored() -> None:
    a = row("A", "c0", "pass")
    b = row("B", "c0", "fail")
    b["checks"]["sources_cited"] = {"status": "error", "score": None, "detail": "crashed"}
    out = {c.name: c for c in bd.check_changes([([a], [b])], [None], 0.05)}
    assert (out["sources_cited"].b_error, out["sources_cited"].b_n) == (1, 0)
    assert out["sources_cited"].change is None and out["sources_cited"].n_cases == 0


def test_a_check_that_could_not_decide_is_counted_apart_from_errors() -> None:
    a = row("A", "c0", "pass")
    b = row("B", "c0", "fail")
    b["checks"]["sources_cited"] = {"status": "review", "score": None, "detail": "unsure"}
    out = {c.name: c for c in bd.check_changes([([a], [b])], [None], 0.05)}
    got = out["sources_cited"]
    assert (got.b_error, got.b_review, got.b_n) == (0, 1, 0)


def test_category_changes_are_holm_adjusted_over_the_whole_table() -> None:
    rates = (
        [C(f"s{i}", 1.0, 1.0, category="x") for i in range(100)]
        + [C(f"t{i}", 1.0, 0.0 if i < 12 else 1.0, category="y") for i in range(30)]
        + [C(f"u{i}", 0.0, 1.0, category="x") for i in range(10)]
        + [C("v", 1.0, 1.0)]
    )
    scores = [C(c.id, 0.5 + 0.5 * c.a, 0.5 + 0.5 * c.b, category=c.category) for c in rates]  # type: ignore[operator]
    out = {g.name: g for g in bd.category_changes(rates, scores, 0.05)}
    assert set(out) == {"x", "y", "(none)"}
    y = out["y"]
    assert (y.n, y.rate_a, y.rate_b) == (30, 1.0, pytest.approx(18 / 30))
    raw = [g.rate.p_value for g in out.values()] + [g.score.p_value for g in out.values()]
    adjusted = holm(raw)
    assert [g.rate_p_holm for g in out.values()] == pytest.approx(adjusted[:3])
    assert y.rate_p_holm <= 0.05  # the 12 breaks in y stand out even after the adjustment
    assert bd.category_changes([C("a", 1.0, 1.0)], [C("a", 1.0, 1.0)], 0.05) == []


def test_cluster_info_counts_keys_and_key_less_cases() -> None:
    info = bd.cluster_info(["d1", "d1", "d2", None, None])
    assert (info.n_cases, info.n_keyed, info.n_clusters, info.used) == (5, 3, 4, True)
    assert not bd.cluster_info([None, None]).used
    assert not bd.cluster_info(["d1", "d1"]).used


def test_epoch_info_knows_flakiness_only_from_repeated_attempts() -> None:
    one = bd.epoch_info(["a", "b"], [[1.0], [0.0]], [[0.0], [0.0]], [False, False])
    assert not one.known and one.paired is None and one.split_a is None
    many = bd.epoch_info(
        ["a", "b", "c"],
        [[1.0, 1.0, 1.0], [1.0, 0.0, 1.0], [0.0, 0.0, None]],
        [[1.0, 1.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]],
        [False, True, False],
    )
    assert many.known and many.flaky == ["b"] and (many.epochs_a, many.epochs_b) == (3, 3)
    assert many.split_a.flaky_cases == ["b"] and many.paired.n_cases == 3


def test_a_row_whose_checks_are_not_an_object_counts_no_check() -> None:
    a, b = row("A", "c0", "pass"), row("B", "c0", "fail")
    b["checks"] = ["facts_present"]
    out = {c.name: c for c in bd.check_changes([([a], [b])], [None], 0.05)}
    assert out["facts_present"].b_n == 0 and out["facts_present"].a_n == 1
