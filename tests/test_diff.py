"""The release gate through `invoke diff`, on generated run files: the cases it must get right.

Each scenario is written as two real run files and judged by the real command. Rates over
many seeded repetitions use compare_runs (what `invoke diff` calls) so they stay fast; one
repetition of each goes through the `invoke diff` process as well.
"""

from __future__ import annotations

import json
import math
import os
import pty
import random
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from casekit import INVOKE, ROOT, invoke
from diffkit import header, project, row, summary, write_run

from evals.compare.command import guard_internal
from evals.compare.gate import ERRORS_WORST, LEFT_OUT, WORST
from evals.compare.jsondata import render_json
from evals.compare.pairing import compare_runs
from evals.compare.render import render_markdown, render_text
from evals.errors import InputError
from evals.run.files import RunFile, read_run

Rows = list[dict[str, Any]]


def _pair(folder: Path, rows_a: Rows, rows_b: Rows, **header: Any) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    project(folder)
    pa = write_run(folder / "runs" / "a.jsonl", "A", rows_a, **header)
    pb = write_run(folder / "runs" / "b.jsonl", "B", rows_b, **header)
    return pa, pb


def _diff(folder: Path, pa: Path, pb: Path, *flags: str):
    return invoke(folder, "diff", "--a", str(pa), "--b", str(pb), *flags)


def _json(folder: Path, pa: Path, pb: Path, *flags: str) -> dict[str, Any]:
    res = _diff(folder, pa, pb, "--format", "json", *flags)
    assert res.returncode in (0, 1, 3), res.stderr
    return json.loads(res.stdout)


def _status(rng: random.Random, p: float) -> str:
    return "pass" if rng.random() < p else "fail"


def flaky_aa(seed: int) -> tuple[Rows, Rows]:
    """Two runs of one system: 200 cases, 20 of them pass half the time, 180 never change."""
    rng = random.Random(seed)
    runs: tuple[Rows, Rows] = ([], [])
    for run_id, rows in zip("AB", runs, strict=True):
        for i in range(200):
            p = 0.5 if i < 20 else 1.0 if i < 160 else 0.0
            rows.append(row(run_id, f"c{i:03d}", _status(rng, p)))
    return runs


def clustered_null(seed: int) -> tuple[Rows, Rows]:
    """Two runs of one system: 12 source documents x 10 cases, each document's cases sharing
    a run-to-run shock (the noise a cluster key is for)."""
    rng = random.Random(seed)
    level = [rng.gauss(0, 1) for _ in range(12)]
    case = [[rng.gauss(0.7, 1) for _ in range(10)] for _ in range(12)]
    runs: tuple[Rows, Rows] = ([], [])
    for run_id, rows in zip("AB", runs, strict=True):
        for g in range(12):
            shock = rng.gauss(0, 1)
            for j in range(10):
                p = 1 / (1 + math.exp(-(level[g] + case[g][j] + shock)))
                rows.append(row(run_id, f"g{g:02d}-c{j}", _status(rng, p), cluster=f"doc{g}"))
    return runs


def _verdict(folder: Path, rows: tuple[Rows, Rows], name: str, **kw: Any) -> str:
    pa = write_run(folder / f"{name}-a.jsonl", "A", rows[0])
    pb = write_run(folder / f"{name}-b.jsonl", "B", rows[1])
    return compare_runs(read_run(pa), read_run(pb), **kw).decision.verdict


# --- no change must not fail ---------------------------------------------------------------


def test_an_aa_pair_with_20_flaky_cases_of_200_does_not_fail_under_the_default(
    tmp_path: Path,
) -> None:
    pa, pb = _pair(tmp_path, *flaky_aa(seed=1))
    res = _diff(tmp_path, pa, pb)
    assert res.returncode == 0, res.stderr
    assert res.stderr.startswith("PASS (--fail-on significant")
    assert "flakiness is unknown" in res.stdout
    # The old default failed on any single broken case: 99.7% of such pairs. Over 100
    # seeded pairs the default fails in at most alpha of them (plus 3 Monte Carlo SEs).
    verdicts = [_verdict(tmp_path, flaky_aa(seed), "aa") for seed in range(100)]
    assert verdicts.count("FAIL") <= 5 + 3 * math.sqrt(100 * 0.05 * 0.95), verdicts
    assert verdicts.count("INCONCLUSIVE") <= 2


def test_a_clustered_null_fails_significance_in_at_most_about_alpha_of_repetitions(
    tmp_path: Path,
) -> None:
    pa, pb = _pair(tmp_path, *clustered_null(seed=0))
    data = _json(tmp_path, pa, pb)
    rate = data["readings"][LEFT_OUT]["figures"][0]
    assert rate["interval"]["method"] == "cluster-robust t (CR2), 12 clusters (11 df)"
    assert data["stats"]["clusters"]["used"] is True
    verdicts = [_verdict(tmp_path, clustered_null(seed), "cl") for seed in range(150)]
    fails = verdicts.count("FAIL") / len(verdicts)
    assert fails <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / len(verdicts)), fails


# --- errors never make the gate greener ------------------------------------------------------


def test_eight_errors_in_b_where_a_passed_never_give_ok(tmp_path: Path) -> None:
    rows_a = [row("A", f"c{i:02d}", "pass") for i in range(40)]
    rows_b = [
        row("B", f"c{i:02d}", "error", error="ValueError in check")
        if i < 8
        else row("B", f"c{i:02d}", "pass")
        for i in range(40)
    ]
    pa, pb = _pair(tmp_path, rows_a, rows_b)
    for mode in ("significant", "noninferior", "strict"):
        res = _diff(tmp_path, pa, pb, "--fail-on", mode)
        assert res.returncode == 3, (mode, res.stderr)
        assert res.stderr.startswith("INCONCLUSIVE"), (mode, res.stderr)
        # noninferior cannot certify 32 cases within 5 points anyway; the others would pass
        # with the errors left out, and say why they do not.
        if mode != "noninferior":
            assert res.stderr.rstrip().endswith("[error-rate]"), (mode, res.stderr)
            assert "B's errors could hide breaks" in res.stderr
    data = _json(tmp_path, pa, pb)
    assert data["verdict"]["reason"] in ("error-rate", "margin-undecided")
    assert data["verdict"]["n_errored"] == 8
    worst, left_out = data["readings"][ERRORS_WORST], data["readings"][LEFT_OUT]
    assert (worst["verdict"], left_out["verdict"]) == ("FAIL", "PASS")
    assert worst["figures"][0]["interval"]["mcnemar"] == {
        "fixed": 0,
        "broken": 8,
        "n_discordant": 8,
    }
    md = _diff(tmp_path, pa, pb).stdout
    assert "also read at their least favourable: errors against B: FAIL over 40 case(s)" in md
    assert "| pass rate, undecided left out | 100.0% (32/32) |" in md
    assert "| pass rate, errors against B |" in md


# --- small suites: no promise the test cannot keep -------------------------------------------


def _all_broken(n: int) -> tuple[Rows, Rows]:
    return (
        [row("A", f"c{i}", "pass") for i in range(n)],
        [row("B", f"c{i}", "fail") for i in range(n)],
    )


def test_five_all_broken_cases_state_the_smallest_p_and_what_alpha_it_reaches(
    tmp_path: Path,
) -> None:
    pa, pb = _pair(tmp_path, *_all_broken(5))
    # One-sided exact: all five broke, p = 1/32 = 0.031 <= 0.05.
    res = _diff(tmp_path, pa, pb)
    assert res.returncode == 1, res.stderr
    assert "smallest one-sided p the exact McNemar test can give is 1/32 = 0.0312" in res.stdout
    # At 0.01 no result with 5 discordant pairs can be significant: said, and no power claim.
    strict = _diff(tmp_path, pa, pb, "--alpha", "0.01")
    assert strict.returncode == 3, strict.stderr
    assert "no result at this n could be significant" in strict.stdout
    assert "No change in pass rate is detectable at this n" in strict.stdout
    assert "detects a drop" not in strict.stdout
    data = _json(tmp_path, pa, pb, "--alpha", "0.01")
    fig = data["readings"][LEFT_OUT]["figures"][0]
    assert (fig["smallest_p"], fig["reachable"], fig["mde"], fig["mde_kind"]) == (
        1 / 32,
        False,
        None,
        "none",
    )


def test_four_all_broken_cases_can_never_be_significant_at_005(tmp_path: Path) -> None:
    pa, pb = _pair(tmp_path, *_all_broken(4))
    res = _diff(tmp_path, pa, pb)
    assert res.returncode == 3, res.stderr
    assert "1/16 = 0.0625 \\> 0.05: no result at this n could be significant" in res.stdout
    power = " ".join(_json(tmp_path, pa, pb)["power"])
    assert "1/16 = 0.0625 > 0.05: no result at this n could be significant" in power
    assert "detects a drop" not in res.stdout


def test_a_detectable_change_is_the_power_of_the_exact_test_in_use(tmp_path: Path) -> None:
    rows_a = [row("A", f"c{i:03d}", "pass" if i < 150 else "fail") for i in range(200)]
    rows_b = [
        row("B", f"c{i:03d}", "fail" if i < 6 else "pass" if i < 150 or i >= 196 else "fail")
        for i in range(200)
    ]
    pa, pb = _pair(tmp_path, rows_a, rows_b)
    data = _json(tmp_path, pa, pb)
    fig = data["readings"][LEFT_OUT]["figures"][0]
    assert fig["mde_kind"] == "exact" and 0 < fig["mde"] < 0.2
    assert f"detects a drop in pass rate of {100 * fig['mde']:.1f} points or more" in " ".join(
        data["power"]
    )


# --- the statistic shown is the statistic tested ---------------------------------------------


def test_a_mean_score_drop_with_more_cases_up_than_down_fails_significance(tmp_path: Path) -> None:
    # 30 cases failing in both runs; 20 gain 0.06 in score, 10 lose 0.6: mean -0.160.
    rows_a = [row("A", f"c{i:02d}", "fail", score=0.7) for i in range(30)]
    rows_b = [row("B", f"c{i:02d}", "fail", score=0.76 if i < 20 else 0.1) for i in range(30)]
    pa, pb = _pair(tmp_path, rows_a, rows_b)
    res = _diff(tmp_path, pa, pb)
    assert res.returncode == 1, res.stderr
    assert "B is worse in mean score" in res.stderr
    assert "20 case(s) up, 10 down" in res.stdout
    data = _json(tmp_path, pa, pb)
    score = data["readings"][LEFT_OUT]["figures"][1]
    assert score["name"] == "mean score"
    assert score["interval"]["estimate"] == pytest.approx(-0.16)
    assert score["interval"]["method"] == "paired t (29 df)"
    assert score["interval"]["high"] < 0 and score["p_value"] < 0.025


# --- intervals -------------------------------------------------------------------------------


def _intervals(data: dict[str, Any]) -> list[dict[str, Any]]:
    found = [f["interval"] for r in data["readings"].values() for f in r["figures"]]
    found += [c["change"] for c in data["checks"] if c["change"]]
    found += [g[k] for g in data["categories"] for k in ("rate", "score")]
    return found


@pytest.mark.parametrize(
    "scenario",
    ["one case broke", "fifty ties", "identical runs", "epoch ties", "clustered ties"],
)
def test_every_interval_has_non_zero_width(tmp_path: Path, scenario: str) -> None:
    if scenario == "one case broke":
        rows = ([row("A", "c0", "pass")], [row("B", "c0", "fail")])
    elif scenario == "fifty ties":
        rows = tuple(
            [row(r, f"c{i}", "pass" if i < 30 else "fail") for i in range(50)] for r in "AB"
        )
    elif scenario == "identical runs":
        rows = tuple([row(r, f"c{i}", "pass") for i in range(20)] for r in "AB")
    elif scenario == "epoch ties":
        rows = tuple(
            [row(r, f"c{i}", "pass", epoch=e) for i in range(10) for e in range(3)] for r in "AB"
        )
    else:
        rows = tuple(
            [row(r, f"c{i}", "fail", cluster=f"d{i % 3}") for i in range(12)] for r in "AB"
        )
    pa, pb = _pair(tmp_path, *rows)
    found = _intervals(_json(tmp_path, pa, pb))
    assert found
    for ci in found:
        assert ci["high"] - ci["low"] > 0, ci
        assert -1 <= ci["low"] <= ci["estimate"] <= ci["high"] <= 1, ci


def test_alpha_sets_the_interval_level(tmp_path: Path) -> None:
    pa, pb = _pair(tmp_path, *flaky_aa(seed=3))
    at_05 = _json(tmp_path, pa, pb)
    at_01 = _json(tmp_path, pa, pb, "--alpha", "0.01")
    for f05, f01 in zip(
        at_05["readings"][LEFT_OUT]["figures"], at_01["readings"][LEFT_OUT]["figures"], strict=True
    ):
        assert (f05["interval"]["level"], f01["interval"]["level"]) == (0.95, 0.99)
        assert (
            f01["interval"]["low"]
            < f05["interval"]["low"]
            <= f05["interval"]["high"]
            < f01["interval"]["high"]
        )
    md = _diff(tmp_path, pa, pb, "--alpha", "0.01").stdout
    assert "Each interval is two-sided at 99% (--alpha 0.01" in md
    assert at_01["checks"][0]["change"]["level"] == 0.99


# --- flaky cases, clusters, modes ------------------------------------------------------------


def test_strict_with_epochs_lists_flaky_cases_apart_and_does_not_fail_on_them(
    tmp_path: Path,
) -> None:
    rows_a, rows_b = [], []
    for i in range(10):
        for e in range(3):
            rows_a.append(row("A", f"c{i}", "pass", epoch=e))
            # c0 flips within B (flaky); c1..c9 never change.
            rows_b.append(row("B", f"c{i}", "fail" if i == 0 and e == 1 else "pass", epoch=e))
    pa, pb = _pair(tmp_path, rows_a, rows_b)
    res = _diff(tmp_path, pa, pb, "--fail-on", "strict")
    assert res.returncode == 0, res.stderr
    assert "1 flaky case(s) went down, reported only" in res.stderr
    assert "### Flaky cases (1)" in res.stdout and "1 case(s) are flaky" in res.stdout
    # A case that is stable within each run but changed between them still fails strict.
    rows_b = [r if r["case"] != "c2" else row("B", "c2", "fail", epoch=r["epoch"]) for r in rows_b]
    pa, pb = _pair(tmp_path / "b", rows_a, rows_b)
    res = _diff(tmp_path / "b", pa, pb, "--fail-on", "strict")
    assert res.returncode == 1 and "(c2)" in res.stderr


def test_strict_without_epochs_says_flakiness_is_unknown(tmp_path: Path) -> None:
    pa, pb = _pair(tmp_path, *flaky_aa(seed=1))
    res = _diff(tmp_path, pa, pb, "--fail-on", "strict")
    assert res.returncode == 1
    assert "flakiness is unknown" in res.stdout and "--epochs 3" in res.stdout


def test_the_report_says_where_cluster_keys_come_from(tmp_path: Path) -> None:
    pa, pb = _pair(tmp_path, *clustered_null(seed=2))
    md = _diff(tmp_path, pa, pb).stdout
    assert (
        "Clusters: 12 from the cases' \\`cluster\\` field (a case without one falls back to its first expected source"
        in md
    )
    assert "Bell-McCaffrey degrees of freedom: 11 here" in md


def test_noninferior_passes_only_within_the_margin(tmp_path: Path) -> None:
    rows_a = [row("A", f"c{i:03d}", "pass" if i < 800 else "fail") for i in range(1000)]
    rows_b = [row("B", f"c{i:03d}", "fail" if i < 5 else r["status"]) for i, r in enumerate(rows_a)]
    pa, pb = _pair(tmp_path, rows_a, rows_b)
    assert _diff(tmp_path, pa, pb, "--fail-on", "noninferior", "--margin", "0.02").returncode == 0
    res = _diff(tmp_path, pa, pb, "--fail-on", "noninferior", "--margin", "0.001")
    assert res.returncode in (1, 3) and "noninferior" in res.stderr


def test_the_report_says_which_mode_decided_and_how_to_read_it(tmp_path: Path) -> None:
    pa, pb = _pair(tmp_path, *flaky_aa(seed=1))
    for mode in ("significant", "noninferior", "strict", "never"):
        res = _diff(tmp_path, pa, pb, "--fail-on", mode)
        headline, first = res.stdout.split("\n")[2], res.stdout.split("\n")[4]
        assert headline == "**3 worse, 1 better, 196 same**", headline
        assert first.startswith(("**PASS**", "**FAIL**", "**INCONCLUSIVE**")), first
        assert f"--fail-on {mode}" in first
        assert "**How to read this**" in res.stdout
        text = _diff(tmp_path, pa, pb, "--fail-on", mode, "--format", "text").stdout
        assert "how to read this:" in text and f"--fail-on {mode}" in text


# --- ids and text from run files cannot break out of the Markdown -------------------------------

HOSTILE = "x` | <img src=x onerror=alert(1)> ![t](http://evil.example/t.png)"


def _breaks_out(md: str) -> list[str]:
    """Lines where markup escaped its cell or span: raw HTML, an image, a link, a bare URL, a
    code span that is not a plain id, or a table row with the wrong number of cells."""
    bad = []
    for line in md.splitlines():
        plain = re.sub(r"`[A-Za-z0-9._-]+`", "", line)  # code spans that hold a checked id
        plain = re.sub(r"\\.", "", plain)  # escaped characters are text
        if re.search(r"[<>`]|!\[|\]\(|https?://", plain):
            bad.append(line)
    table = [ln for ln in md.splitlines() if ln.startswith("|")]
    blocks: list[list[str]] = []
    for ln in md.splitlines():
        if ln.startswith("|"):
            if not blocks or blocks[-1] is None:
                blocks.append([])
            blocks[-1].append(ln)
        elif blocks and blocks[-1] is not None:
            blocks.append(None)  # type: ignore[arg-type]
    for block in [b for b in blocks if b]:
        cells = {len(re.findall(r"(?<!\\)(?:\\\\)*\|", ln)) for ln in block}
        if len(cells) != 1:
            bad.extend(block)
    assert table
    return bad


def test_a_hostile_id_in_a_run_file_cannot_break_out_of_the_markdown(tmp_path: Path) -> None:
    def hostile(run_id: str, status: str) -> Rows:
        r = row(run_id, HOSTILE, status)
        r["category"] = HOSTILE
        r["checks"][HOSTILE] = {
            "status": status,
            "score": 1.0 if status == "pass" else 0.0,
            "detail": "hostile",
        }
        r["failed_checks"] = [HOSTILE] if status == "fail" else []
        r["question"] = HOSTILE
        return [r, row(run_id, "c1", status), row(run_id, "c2", "pass")]

    project(tmp_path)
    header = {"label": HOSTILE, "model": HOSTILE}
    pa = write_run(tmp_path / "a.jsonl", HOSTILE, hostile("A", "pass"), **header)
    pb = write_run(tmp_path / "b.jsonl", HOSTILE, hostile("B", "fail"), **header)
    cmp = compare_runs(read_run(pa), read_run(pb), fail_on="strict")
    md = render_markdown(cmp, show_all=True)
    for raw in ("<img", "![t](", "http://evil", "`x`", "| <"):
        assert not re.search(r"(?<!\\)" + re.escape(raw), md), raw
    assert _breaks_out(md) == []
    # The id breaks the case-id rule: a stable placeholder is shown in its place, everywhere.
    shown = next(c.shown_id for c in cmp.cases if c.id == HOSTILE)
    assert shown.startswith("invalid-id-") and f"`{shown}`" in md
    assert shown in cmp.decision.main.broken and HOSTILE not in cmp.decision.reason
    assert md.startswith("## Eval diff: `invalid-run-id-")
    # Free text (category, check name, label, model) is escaped, never dropped.
    assert "x\\` \\| \\<img src=x onerror=alert(1)\\> !\\[t\\](http\\://evil.example/t.png)" in md
    text = render_text(cmp, show_all=True)
    assert f"  {shown}  " in text and text.startswith("diff invalid-run-id-")
    res = invoke(tmp_path, "diff", "--a", str(pa), "--b", str(pb))
    assert res.returncode in (0, 1, 3) and _breaks_out(res.stdout) == []


# --- small clustered suites: every shape renders, none crashes ---------------------------------


def small_clustered(seed: int) -> tuple[Rows, Rows]:
    """A small clustered suite over a few epochs where at most one case flips in B."""
    rng = random.Random(seed)
    n, n_docs, epochs = rng.choice([3, 5, 10]), rng.choice([1, 2, 3]), rng.choice([1, 2, 3])
    docs = [rng.choice([f"doc{k}" for k in range(n_docs)] + [None]) for _ in range(n)]
    flip = rng.randrange(n) if rng.random() < 0.7 else None
    runs: tuple[Rows, Rows] = ([], [])
    for i in range(n):
        for e in range(epochs):
            status = rng.choice(["pass", "pass", "fail", "error"]) if rng.random() < 0.3 else "pass"
            for run_id, rows in zip("AB", runs, strict=True):
                st = "fail" if run_id == "B" and i == flip and e == 0 else status
                err = "timeout" if st == "error" else None
                rows.append(row(run_id, f"c{i}", st, epoch=e, cluster=docs[i], error=err))
    return runs


def test_small_clustered_suites_with_one_flip_render_in_every_format(tmp_path: Path) -> None:
    # A single flip (or none) in a clustered suite left a figure without degrees of freedom,
    # and formatting it crashed `invoke diff` with exit 1, the code for a regression.
    for seed in range(60):
        pa = write_run(tmp_path / "a.jsonl", "A", small_clustered(seed)[0])
        pb = write_run(tmp_path / "b.jsonl", "B", small_clustered(seed)[1])
        cmp = compare_runs(read_run(pa), read_run(pb))
        for render in (render_markdown, render_text):
            assert cmp.decision.verdict in render(cmp)
        json.loads(render_json(cmp))
    rows_a = [
        row("A", f"c{i}", "pass", epoch=e, cluster=f"doc{i % 2}")
        for i in range(6)
        for e in range(3)
    ]
    rows_b = [
        row("B", f"c{i}", "fail" if (i, e) == (0, 0) else "pass", epoch=e, cluster=f"doc{i % 2}")
        for i in range(6)
        for e in range(3)
    ]
    pa, pb = _pair(tmp_path / "cli", rows_a, rows_b)
    res = _diff(tmp_path / "cli", pa, pb, "--fail-on", "never")
    assert res.returncode == 0, res.stderr
    html = tmp_path / "cli" / "cmp.html"
    rep = invoke(tmp_path / "cli", "report", "--a", str(pa), "--b", str(pb), "--html", str(html))
    assert rep.returncode == 0 and html.stat().st_size > 0, rep.stderr


def test_cases_missing_from_b_never_pass_through_invoke_diff(tmp_path: Path) -> None:
    # B stopped on its budget after 32 of 40 cases that all passed in A.
    rows_a = [row("A", f"c{i:02d}", "pass") for i in range(40)]
    rows_b = [row("B", f"c{i:02d}", "pass") for i in range(32)]
    pa, pb = _pair(tmp_path, rows_a, rows_b)
    for complete in (True, False):
        pb = write_run(tmp_path / "runs" / "b.jsonl", "B", rows_b, complete=complete)
        res = _diff(tmp_path, pa, pb)
        assert res.returncode == 3, res.stderr
        assert res.stderr.rstrip().endswith("[undecided-rows]")
        assert "8 missing from B" in res.stderr
    data = _json(tmp_path, pa, pb)
    assert data["verdict"]["n_missing"] == 8
    assert data["readings"][WORST]["figures"][0]["p_value"] == pytest.approx(1 / 256)
    assert "8 case(s) of A are missing from B" in _diff(tmp_path, pa, pb).stdout


def test_review_rows_are_undecided_and_counted_apart_from_errors(tmp_path: Path) -> None:
    # `review`: a check could not decide. The run-file schema does not list the status yet,
    # so the runs are built in memory: the pairing and the gate must read it anyway.
    rows_a = [row("A", f"c{i:02d}", "pass") for i in range(40)]
    rows_b = [row("B", f"c{i:02d}", "pass") for i in range(40)]
    for r in rows_b[:8]:
        r.update(status="review", score=None, error=None)
    run_a = RunFile(tmp_path / "a.jsonl", header("A"), rows_a, summary("A", rows_a))
    run_b = RunFile(tmp_path / "b.jsonl", header("B"), rows_b, summary("B", rows_b))
    cmp = compare_runs(run_a, run_b)
    assert cmp.decision.verdict == "INCONCLUSIVE" and "review rows decide it" in cmp.decision.reason
    assert cmp.decision.n_review == 8 and cmp.decision.n_errored == 0
    assert cmp.decision.readings[WORST].verdict == "FAIL"
    text = render_text(cmp)
    assert "B 0 errored, 8 in review, of 40" in text
    assert "0 worse, 0 better, 32 same (8 in review: not paired)" in text
    assert "review: a check could not decide" in text


def test_cases_that_share_a_source_without_cluster_keys_are_told_so(tmp_path: Path) -> None:
    rows_a = [row("A", f"c{i:02d}", "pass") for i in range(10)]
    rows_b = [row("B", f"c{i:02d}", "pass") for i in range(10)]
    pa, pb = _pair(tmp_path, rows_a, rows_b)
    text = _diff(tmp_path, pa, pb, "--format", "text").stdout
    assert "But 10 case(s) retrieved a document another case did" in text
    for r in (*rows_a, *rows_b):
        r["retrieved"] = [f"doc{r['case']}#s"]
    pa, pb = _pair(tmp_path / "apart", rows_a, rows_b)
    assert (
        "retrieved a document" not in _diff(tmp_path / "apart", pa, pb, "--format", "text").stdout
    )


def test_a_category_of_one_source_document_gets_no_test(tmp_path: Path) -> None:
    rows_a, rows_b = clustered_null(seed=3)
    for rows in (rows_a, rows_b):
        for r in rows:
            r["category"] = "billing" if r["cluster"] == "doc0" else "account"
    pa, pb = _pair(tmp_path, rows_a, rows_b)
    data = _json(tmp_path, pa, pb)
    by_name = {c["name"]: c for c in data["categories"]}
    assert by_name["billing"]["testable"] is False and by_name["billing"]["rate"] is None
    assert by_name["account"]["testable"] is True and by_name["account"]["n_clusters"] == 11
    text = _diff(tmp_path, pa, pb, "--format", "text").stdout
    assert "no per-category test is possible" in text and "no test: 1 cluster" in text


def test_a_bug_of_the_command_itself_is_one_line_and_exit_3_never_1(capsys) -> None:
    # Exit 1 means "B is worse" to CI: an unforeseen exception must not look like one.
    def broken() -> int:
        raise TypeError("unsupported format string passed to NoneType.__format__")

    assert guard_internal("invoke diff", broken) == 4
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error, no verdict (TypeError" in err
    with pytest.raises(InputError):
        guard_internal("invoke diff", lambda: (_ for _ in ()).throw(InputError("bad flag")))


# --- errors, review rows and a better B, as the gate is judged on them -----------------------


def _unchanged_with_errors(rng: random.Random, n: int, errors: float) -> tuple[Rows, Rows]:
    """Two runs of one system: each case passes with its own probability, each row errors
    with chance `errors` in either run (a transient fault nobody re-sent)."""
    rows_a, rows_b = [], []
    for i in range(n):
        p = rng.betavariate(0.8, 0.4)
        for rows, run_id in ((rows_a, "A"), (rows_b, "B")):
            if rng.random() < errors:
                rows.append(row(run_id, f"c{i:03d}", "error", error="timeout after 4 retries"))
            else:
                rows.append(row(run_id, f"c{i:03d}", _status(rng, p)))
    return rows_a, rows_b


def test_thirty_unchanged_pairs_with_five_percent_errors_rarely_fail_or_say_inconclusive(
    tmp_path: Path,
) -> None:
    rng = random.Random(31)
    verdicts = []
    for k in range(30):
        rows_a, rows_b = _unchanged_with_errors(rng, 200, 0.05)
        pa = write_run(tmp_path / f"a{k}.jsonl", "A", rows_a)
        pb = write_run(tmp_path / f"b{k}.jsonl", "B", rows_b)
        verdicts.append(compare_runs(read_run(pa), read_run(pb)).decision.verdict)
    assert verdicts.count("INCONCLUSIVE") <= 3, verdicts
    assert verdicts.count("FAIL") <= 3, verdicts
    res = _diff(tmp_path, pa, pb, "--format", "json")  # the last pair, through the command
    data = json.loads(res.stdout)
    assert res.returncode == {"PASS": 0, "FAIL": 1, "INCONCLUSIVE": 3}[verdicts[-1]]
    assert data["verdict"]["n_errored"] > 0 and data["verdict"]["error_rate"]["worse"] is False


def test_a_b_that_errors_on_six_percent_of_the_cases_passing_in_a_never_passes(
    tmp_path: Path,
) -> None:
    rng = random.Random(32)
    for k in range(10):
        rows_a, _ = _unchanged_with_errors(rng, 200, 0.0)
        rows_b = [row("B", r["case"], r["status"]) for r in rows_a]
        passing = [i for i, r in enumerate(rows_a) if r["status"] == "pass"]
        for i in rng.sample(passing, 12):
            rows_b[i] = row("B", rows_a[i]["case"], "error", error="timeout after 4 retries")
        pa = write_run(tmp_path / f"a{k}.jsonl", "A", rows_a)
        pb = write_run(tmp_path / f"b{k}.jsonl", "B", rows_b)
        for mode in ("significant", "noninferior", "strict"):
            d = compare_runs(read_run(pa), read_run(pb), fail_on=mode).decision
            assert d.verdict != "PASS", (k, mode, d.reason)
    res = _diff(tmp_path, pa, pb)
    assert res.returncode == 3 and res.stderr.rstrip().endswith("[error-rate]"), res.stderr


def test_a_b_that_broke_nothing_and_fixed_twenty_passes_noninferior(tmp_path: Path) -> None:
    rows_a = [row("A", f"c{i:03d}", "pass" if i < 150 else "fail") for i in range(200)]
    rows_b = [row("B", f"c{i:03d}", "pass" if i < 170 else "fail") for i in range(200)]
    pa, pb = _pair(tmp_path, rows_a, rows_b)
    res = _diff(
        tmp_path, pa, pb, "--fail-on", "noninferior", "--margin", "0.05", "--format", "json"
    )
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    rate = data["readings"][LEFT_OUT]["figures"][0]["interval"]
    assert rate["low"] > 0.06 and rate["high"] == pytest.approx(0.149, abs=1e-3)
    assert data["verdict"]["reason"] == "within-margin"


def test_cases_in_review_in_both_runs_count_in_the_worst_case_through_invoke_diff(
    tmp_path: Path,
) -> None:
    # 40 cases: 29 pass in both, 6 broken, 1 fixed, 4 in review in both runs. Left out the
    # exact test gives p = 0.0625 (PASS); the 4 read as a pass in A and a fail in B make
    # p = 12/2048 (FAIL), so the gate cannot say PASS.
    def side(run_id: str, broken_status: str, fixed_status: str) -> Rows:
        out = [row(run_id, f"s{i:02d}", "pass") for i in range(29)]
        out += [row(run_id, f"b{i}", broken_status) for i in range(6)]
        out += [row(run_id, "x0", fixed_status)]
        for i in range(4):
            r = row(run_id, f"r{i}", "pass")
            r.update(status="review", score=None, failed_checks=[])
            out.append(r)
        return out

    rows_a, rows_b = side("A", "pass", "fail"), side("B", "fail", "pass")
    run_a = RunFile(tmp_path / "a.jsonl", header("A"), rows_a, summary("A", rows_a))
    run_b = RunFile(tmp_path / "b.jsonl", header("B"), rows_b, summary("B", rows_b))
    d = compare_runs(run_a, run_b).decision
    assert d.readings[LEFT_OUT].verdict == "PASS" and d.readings[WORST].verdict == "FAIL"
    assert d.verdict == "INCONCLUSIVE" and d.code == "undecided-rows" and d.n_review == 4
    assert d.readings[WORST].figures[0].p_value == pytest.approx(12 / 2048)


def test_on_a_terminal_diff_prints_plain_text_and_markdown_when_piped(tmp_path: Path) -> None:
    rows_a = [row("A", f"c{i:02d}", "pass") for i in range(10)]
    rows_b = [row("B", f"c{i:02d}", "fail" if i < 2 else "pass") for i in range(10)]
    pa, pb = _pair(tmp_path, rows_a, rows_b)
    main, side = pty.openpty()
    try:
        proc = subprocess.run(
            [INVOKE, "-r", str(ROOT), "diff", "--a", str(pa), "--b", str(pb)],
            cwd=tmp_path,
            stdout=side,
            stderr=subprocess.PIPE,
            timeout=120,
        )
        os.close(side)
        chunks = []
        while True:
            try:
                data = os.read(main, 65536)
            except OSError:  # the terminal closed: everything was read
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(main)
    shown = b"".join(chunks).decode("utf-8")
    assert proc.returncode in (0, 3), proc.stderr
    assert shown.startswith("diff A -> B") and "2 worse, 0 better, 8 same" in shown
    assert "\\[" not in shown and "| --- |" not in shown and "**" not in shown
    piped = _diff(tmp_path, pa, pb)
    assert (
        piped.stdout.startswith("## Eval diff:") and "**2 worse, 0 better, 8 same**" in piped.stdout
    )
