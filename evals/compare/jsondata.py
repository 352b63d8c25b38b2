"""The comparison as JSON-ready data: every figure the Markdown and text reports show.

Strings are as the run files hold them (JSON encoding makes them safe); each case also
carries the id the other reports show (`shown_id`: a placeholder when the id breaks the
case-id rule).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from evals.compare.explain import how_to_read, power_lines, stats_lines, verdict_line
from evals.compare.figures import Figure
from evals.compare.gate import Reading
from evals.compare.intervals import Interval
from evals.compare.pairing import CHANGE_ORDER, CaseDiff, Comparison, SideCase


def interval_data(ci: Interval | None) -> dict[str, Any] | None:
    """An interval and its one-sided test as plain values."""
    if ci is None:
        return None
    out = {
        "estimate": ci.estimate,
        "low": ci.low,
        "high": ci.high,
        "level": ci.level,
        "method": ci.method,
        "n": ci.n,
        "se": ci.se,
        "df": ci.df,
        "n_clusters": ci.n_clusters,
        "p_value": ci.p_value,
        "upper_one_sided": ci.upper_one_sided,
        "mcnemar": None,
    }
    if ci.mcnemar is not None:
        mc = ci.mcnemar
        out["mcnemar"] = {"fixed": mc.fixed, "broken": mc.broken, "n_discordant": mc.n_discordant}
    return out


def figure_data(f: Figure) -> dict[str, Any]:
    return {
        "name": f.name,
        "interval": interval_data(f.interval),
        "p_value": f.p_value,
        "p_adjusted": f.p_adjusted,
        "level": f.level,
        "smallest_p": f.smallest_p,
        "reachable": f.reachable,
        "mde": f.mde,
        "mde_kind": f.mde_kind,
        "noninferiority": f.noninferiority,
        "smallest_p_at_n": f.smallest_p_at_n,
        "can_fail": f.can_fail,
        "max_drop": f.max_drop,
        "gated": f.gated,
        "follows": f.follows,
    }


def reading_data(r: Reading) -> dict[str, Any]:
    return {
        "verdict": r.verdict,
        "reason": r.code,
        "why": r.reason,
        "test": r.test,
        "n_paired": r.n_paired,
        "figures": [figure_data(f) for f in r.figures],
        "broken": r.broken,
        "flaky_changed": r.flaky_changed,
    }


def _side_data(s: SideCase) -> dict[str, Any]:
    return {
        "n_epochs": s.n_epochs,
        "n_scored": s.n_scored,
        "n_pass": s.n_pass,
        "pass_rate": s.pass_rate,
        "score": s.score,
        "failed_checks": s.failed_checks,
        "errors": s.errors,
    }


def _case_data(c: CaseDiff) -> dict[str, Any]:
    return {
        "id": c.id,
        "shown_id": c.shown_id,
        "question": c.question,
        "category": c.category,
        "cluster": c.cluster,
        "change": c.change,
        "flaky": c.flaky,
        "score_diff": c.score_diff,
        "rate_diff": c.rate_diff,
        "a": _side_data(c.a),
        "b": _side_data(c.b),
    }


def comparison_data(cmp: Comparison, show_all: bool = True) -> dict[str, Any]:
    """A JSON-ready dict of the comparison; derived figures included so readers need no code."""
    d, e = cmp.decision, cmp.epochs
    cases = [c for c in cmp.cases if show_all or c.flaky or c.change != "same"]
    return {
        "a": dataclasses.asdict(cmp.a),
        "b": dataclasses.asdict(cmp.b),
        "header": [{"name": h.name, "a": h.a, "b": h.b, "differs": h.differs} for h in cmp.header],
        "counts": cmp.counts(),
        "headline": cmp.headline(),
        "verdict": {
            "verdict": d.verdict,
            "exit_code": d.exit_code,
            "failed": d.verdict != "PASS",
            "fail_on": cmp.fail_on,
            "mode": d.mode,
            "deprecated": cmp.deprecated,
            "test": d.test,
            "reason": d.code,  # for machines: evals.compare.reasons.REASONS
            "why": d.reason,
            "sentence": verdict_line(cmp),
            "alpha": d.alpha,
            "margin": d.margin,
            "power": d.power,
            "n_errored": d.n_errored,
            "n_unknown": d.n_unknown,
            "n_review": d.n_review,
            "n_missing": d.n_missing,
            "error_rate": None
            if d.errors is None
            else {
                **dataclasses.asdict(d.errors.counts),
                "p_value": d.errors.p_value,
                "by_test": d.errors.by_test,
                "by_share": d.errors.by_share,
                "worse": d.errors.worse,
            },
            "spread": {k: {"low": lo, "high": hi} for k, (lo, hi) in d.spread.items()},
        },
        "readings": {name: reading_data(r) for name, r in d.readings.items()},
        "cases": [
            _case_data(c) for c in sorted(cases, key=lambda c: (CHANGE_ORDER[c.change], c.id))
        ],
        "flaky": e.flaky,
        "changed": [dataclasses.asdict(u) for u in cmp.changed],
        "only_a": [dataclasses.asdict(u) for u in cmp.only_a],
        "only_b": [dataclasses.asdict(u) for u in cmp.only_b],
        "errored": [dataclasses.asdict(u) for u in cmp.errored],
        "in_review": [dataclasses.asdict(u) for u in cmp.in_review],
        "checks": [
            {
                **{k: v for k, v in dataclasses.asdict(r).items() if k != "change"},
                "rate_a": r.rate_a,
                "rate_b": r.rate_b,
                "change": interval_data(r.change),
            }
            for r in cmp.checks
        ],
        "categories": [
            {
                "name": g.name,
                "n": g.n,
                "rate_a": g.rate_a,
                "rate_b": g.rate_b,
                "score_a": g.score_a,
                "score_b": g.score_b,
                "rate": interval_data(g.rate),
                "score": interval_data(g.score),
                "rate_p_holm": g.rate_p_holm,
                "score_p_holm": g.score_p_holm,
                "n_clusters": g.n_clusters,
                "testable": g.testable,
            }
            for g in cmp.categories
        ],
        "stats": {
            **dataclasses.asdict(cmp.stats),
            "clusters": {**dataclasses.asdict(cmp.clusters), "used": cmp.clusters.used},
            "epochs": {
                "epochs_a": e.epochs_a,
                "epochs_b": e.epochs_b,
                "flakiness_known": e.known,
                "n_flaky": len(e.flaky),
                "paired_split": None
                if e.paired is None
                else {
                    "se": e.paired.se,
                    "var_diff": e.paired.var_diff,
                    "epoch_noise": e.paired.epoch_noise,
                    "between_var": e.paired.between_var,
                    "within_var": e.paired.within_var,
                    "epoch_share": e.paired.epoch_share,
                    "se_with_10_epochs": e.paired.se_with_epochs(10),
                },
            },
        },
        "how_to_read": how_to_read(cmp),
        "power": power_lines(cmp),
        "lines": stats_lines(cmp),
    }


def render_json(cmp: Comparison, show_all: bool = True) -> str:
    """The diff as one JSON line for machines."""
    # No indent: the C encoder is many times faster, and machines read this.
    return json.dumps(comparison_data(cmp, show_all), ensure_ascii=False) + "\n"
