"""The run summary: each check's mean score beside its pass rate, and a rubric no judge graded
shown as a skip with its reason (never an error)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import jsonschema
from casekit import good_case, invoke, make_project, read_jsonl, write_case

from evals.checks.grading import NOT_GRADED
from evals.report.data import build_report
from evals.report.html import render_run_html
from evals.run.console import print_summary
from evals.run.files import read_run
from evals.run.summary import check_rates, summarise

SCHEMA = json.loads(
    (Path(__file__).resolve().parent.parent / "schemas" / "run.schema.json").read_text("utf-8")
)


def row(status: str, **checks: tuple[str, float | None]) -> dict[str, Any]:
    return {
        "kind": "case",
        "case": "c",
        "status": status,
        "score": None,
        "checks": {n: {"status": s, "score": v, "detail": ""} for n, (s, v) in checks.items()},
    }


def test_each_check_has_its_mean_score_beside_its_pass_rate():
    rows = [
        row("pass", facts_present=("pass", 1.0)),
        row("fail", facts_present=("fail", 0.5)),
        row("fail", facts_present=("fail", 0.0)),
        row("error", facts_present=("error", None)),
        row("pass", facts_present=("skip", None)),
    ]
    rate = check_rates(rows)["facts_present"]
    assert rate["rate"] == round(1 / 3, 6) and rate["n_scored"] == 3 and rate["n_total"] == 5
    # Errors and skips are left out of the mean as they are out of the rate: never a 0.
    assert rate["score_mean"] == 0.5


def test_a_check_that_scored_nothing_has_no_mean_rather_than_zero():
    rate = check_rates([row("error", judge=("error", None)), row("pass", judge=("skip", None))])
    assert rate["judge"]["score_mean"] is None and rate["judge"]["rate"] is None


def test_the_printed_summary_puts_the_mean_score_beside_the_pass_rate():
    summary = summarise(
        [row("fail", facts_present=("fail", 0.5)), row("pass", facts_present=("pass", 1.0))],
        completed=True,
        run_id="r",
    )
    jsonschema.validate(summary, SCHEMA)
    out = io.StringIO()
    print_summary(summary, "runs/x.jsonl", out)
    text = out.getvalue()
    assert "mean score" in text
    (line,) = [x for x in text.splitlines() if x.strip().startswith("facts_present")]
    assert "50.0%" in line and "0.750" in line


def rubric_case(case_id: str, **expect: Any) -> dict[str, Any]:
    data = good_case(case_id)
    data["expect"] = {**expect, "rubric": "Gives the Pro price with its source."}
    return data


def run_file(project: Path) -> list[dict[str, Any]]:
    [path] = sorted((project / "runs").glob("*.jsonl"))
    return read_jsonl(path)


def test_a_rubric_nobody_grades_is_a_skip_with_the_reason_and_rubric_only_cases_are_not_run(
    tmp_path,
):
    suite = make_project(tmp_path)
    write_case(suite, rubric_case("rubric-and-facts", facts=["45 €"]))
    only = rubric_case("rubric-only")
    del only["retrieved"]  # nothing but the rubric grades it
    write_case(suite, only)
    res = invoke(tmp_path, "run")
    assert res.returncode in (0, 1), res.stdout + res.stderr  # never 3: nothing errored
    recs = run_file(tmp_path)
    rows = {r["case"]: r for r in recs if r["kind"] == "case"}
    assert set(rows) == {"price-pro", "rubric-and-facts"}  # no request for rubric-only
    judge = rows["rubric-and-facts"]["checks"]["judge"]
    assert judge == {"status": "skip", "score": None, "detail": NOT_GRADED}
    summary = recs[-1]
    jsonschema.validate(summary, SCHEMA)
    assert summary["counts"]["error"] == 0
    assert summary["checks"]["judge"]["skip"] == 1
    assert summary["not_graded"] == {
        "check": "judge",
        "n_rows": 1,
        "reasons": {NOT_GRADED: 1},
        "cases_left_out": ["rubric-only"],
    }
    assert summary["judge"] is None  # no verdict to cover
    assert recs[0]["settings"]["left_out"] == ["rubric-only"]
    assert "judge: skip on 1 case(s) (not graded: no judge in this run" in res.stdout
    assert "1 case(s) graded only by the judge were not run" in res.stdout
    assert "rubric-only" in res.stdout


def test_a_run_of_rubric_only_cases_without_a_judge_is_refused_as_bad_input(tmp_path):
    suite = make_project(tmp_path, cases=[])
    only = rubric_case("rubric-only")
    del only["retrieved"]
    write_case(suite, only)
    res = invoke(tmp_path, "run")
    assert res.returncode == 2
    assert "graded only by its rubric" in res.stderr and "--judge" in res.stderr
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").glob("*.jsonl"))


def test_a_run_that_left_rubric_only_cases_out_resumes_without_them(tmp_path):
    suite = make_project(tmp_path)
    write_case(suite, good_case("second"))
    only = rubric_case("rubric-only")
    del only["retrieved"]
    write_case(suite, only)
    assert invoke(tmp_path, "run").returncode in (0, 1)
    [path] = sorted((tmp_path / "runs").glob("*.jsonl"))
    lines = path.read_text("utf-8").splitlines()
    path.write_text("\n".join(lines[:2]) + "\n", "utf-8")  # killed after its first row
    res = invoke(tmp_path, "run", "--resume", "latest")
    assert res.returncode in (0, 1), res.stdout + res.stderr
    cases = sorted(r["case"] for r in read_jsonl(path) if r["kind"] == "case")
    assert cases == ["price-pro", "second"]


def test_the_printed_summary_lines_up_its_columns_and_prints_brackets_as_written():
    rows = [
        {**row("pass", facts_present=("pass", 1.0)), "category": "[beta] pricing"},
        {**row("fail", no_forbidden=("fail", 0.0)), "category": "billing"},
    ]
    summary = summarise(rows, completed=True, run_id="r")
    out = io.StringIO()
    print_summary(summary, "runs/[x].jsonl", out)
    lines = out.getvalue().splitlines()
    table = lines[: lines.index("categories (case pass rate)")]
    assert table[0] == "checks" and set(table[2]) == {"━", "╇"}
    # Every bar of the header, rule and rows stands in the same column.
    bars = {tuple(i for i, ch in enumerate(x) if ch in "┃╇│") for x in table[1:]}
    assert len(bars) == 1 and len(next(iter(bars))) == 5
    assert any(x.startswith(" [beta] pricing ") for x in lines)
    assert lines[-1] == "run file: runs/[x].jsonl"


def test_both_reports_show_each_checks_mean_score(tmp_path):
    make_project(tmp_path)
    invoke(tmp_path, "run")
    res = invoke(tmp_path, "report", "latest")
    assert res.returncode == 0, res.stderr
    assert "mean: the mean score over the scored rows" in res.stdout
    [path] = sorted((tmp_path / "runs").glob("*.jsonl"))
    summary = read_run(path).summary
    for name, r in summary["checks"].items():
        (line,) = [x for x in res.stdout.splitlines() if x.strip().startswith(name + " ")]
        mean = "n/a" if r["score_mean"] is None else f"{r['score_mean']:.3f}"
        assert mean in line.split("│")[2], line
    rep = build_report(read_run(path))
    html = render_run_html(rep)
    assert 'id="check-means"' in html and "<th>mean score</th>" in html
    mean = rep.summary["checks"]["mentions_expected"]["score_mean"]
    assert f"<td>{mean:.3f}</td>" in html


def test_a_report_of_an_older_run_file_computes_the_means_from_its_rows(tmp_path):
    make_project(tmp_path)
    invoke(tmp_path, "run")
    [path] = sorted((tmp_path / "runs").glob("*.jsonl"))
    recs = read_jsonl(path)
    for rate in recs[-1]["checks"].values():
        del rate["score_mean"]  # as written before checks had means
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), "utf-8")
    rep = build_report(read_run(path))
    means = {k: r["score_mean"] for k, r in rep.summary["checks"].items()}
    assert means == {k: r["score_mean"] for k, r in check_rates(rep.rows).items()}
    assert all(m is not None for m in means.values())
