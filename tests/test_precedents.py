"""Labels as precedents: a person's verdict decides the same answer to the same case content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from casekit import invoke, make_project, read_jsonl, write_case
from reportkit import cases, run_replay, write_answers

from evals.run.precedents import answer_sha, label_counts, normalise_answer
from evals.suite.case import canonical_json, content_sha, parse_json_value

MODEL = "acme/support-bot@2026-10-01"
# The checks fail this answer (the fact is "22:00"); the person who read it says it is right.
NIGHT = "The night surcharge applies from 21:45 on [doc:rules#night]."
# The checks pass this answer; the person says it is wrong.
PRICE = "An extra Pro seat costs 45 € per seat and month [doc:pricing#plans]."


def case_sha(suite: Path, case_id: str) -> str:
    data = parse_json_value((suite / "cases" / f"{case_id}.json").read_text("utf-8"))
    return content_sha(data)


def label_line(suite: Path, case: str, answer: str, label: str, **over: Any) -> dict[str, Any]:
    rec = {
        "case": case,
        "answer": answer,
        "label": label,
        "why": f"read by a person: {label}",
        "case_sha": case_sha(suite, case),
        "answer_sha": answer_sha(answer),
        "run": "earlier-run",
        "by": "ana",
        "at": "2026-12-01T10:00:00Z",
    }
    rec.update(over)
    return rec


def write_labels(suite: Path, records: list[dict[str, Any]]) -> Path:
    path = suite / "labelled" / "people.jsonl"
    path.parent.mkdir(exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    suite = make_project(tmp_path, [])
    for c in cases():
        if c["id"] in ("night-shift", "price-pro"):
            write_case(suite, c)
    # White space differs from the labelled text: the normalised answers are the same.
    write_answers(
        tmp_path / "a.jsonl", {"night-shift": NIGHT.replace(" on ", "  on\n"), "price-pro": PRICE}
    )
    write_labels(
        suite,
        [
            label_line(suite, "night-shift", NIGHT, "pass"),
            label_line(suite, "price-pro", PRICE, "fail"),
        ],
    )
    return tmp_path


def rows_by_case(path: Path) -> dict[str, dict[str, Any]]:
    return {r["case"]: r for r in read_jsonl(path) if r.get("kind") == "case"}


def test_a_labelled_answer_takes_the_persons_verdict_and_keeps_every_checks_own_result(
    project: Path,
) -> None:
    out = invoke(project, "run", "--model", MODEL, "--answers", str(project / "a.jsonl"))
    assert out.returncode == 1, out.stderr  # the person's fail decides the exit code too
    # Failed by the label alone: no empty "failed:" list of checks.
    assert "FAIL  price-pro  decided by a label (ana, 2026-12-01T10:00:00Z)" in out.stdout
    (path,) = (project / "runs").glob("*.jsonl")
    rows = rows_by_case(path)
    night, price = rows["night-shift"], rows["price-pro"]
    assert night["status"] == "pass" and night["score"] == 1.0
    assert night["checks"]["facts_present"]["status"] == "fail"  # the check's own verdict stays
    assert night["precedent"] == {
        "label": "pass",
        "by": "ana",
        "at": "2026-12-01T10:00:00Z",
        "why": "read by a person: pass",
        "source": "labelled/people.jsonl:1",
        "run": "earlier-run",
        "pinned": True,
        "checks_status": "fail",
        "checks_score": night["precedent"]["checks_score"],
    }
    assert price["status"] == "fail" and price["precedent"]["checks_status"] == "pass"
    summary = read_jsonl(path)[-1]
    assert summary["labels"] == {"n": 2, "pass": 1, "fail": 1, "checks_disagreed": 2}
    assert summary["counts"]["pass"] == 1 and summary["counts"]["fail"] == 1


def test_the_terminal_show_and_both_html_reports_say_who_decided_and_when(project: Path) -> None:
    a = run_replay(project, MODEL, project / "a.jsonl", "one")
    write_answers(
        project / "b.jsonl", {"night-shift": NIGHT, "price-pro": PRICE.replace("45", "39")}
    )
    out = invoke(project, "run", "--model", MODEL, "--answers", str(project / "b.jsonl"))
    assert out.returncode == 1, out.stderr
    assert "PASS  night-shift  decided by a label (ana, 2026-12-01T10:00:00Z)" in out.stdout
    # Only the night-shift answer was labelled in B: one case decided apart from the checks.
    assert (
        "decided by a label: 1 case(s) (1 pass, 0 fail); the checks alone said otherwise on 1"
        in out.stdout
    )
    shown = invoke(project, "show", "night-shift", "--run", str(a))
    assert shown.returncode == 0, shown.stderr
    assert (
        "decided by a label (ana, 2026-12-01T10:00:00Z): labelled pass; the checks alone said fail"
        in shown.stdout
    )
    assert "why: read by a person: pass" in shown.stdout
    report = invoke(project, "report", str(a))
    assert "decided by a label: 2 case(s) (1 pass, 1 fail)" in report.stdout
    html = project / "a.html"
    assert invoke(project, "report", str(a), "--html", str(html)).returncode == 0
    page = html.read_text("utf-8")
    assert "decided by a label (ana, 2026-12-01T10:00:00Z)" in page
    assert 'id="card-labels"' in page
    b = sorted((project / "runs").glob("*.jsonl"))[-1]
    cmp = project / "cmp.html"
    assert (
        invoke(project, "report", "--a", str(a), "--b", str(b), "--html", str(cmp)).returncode == 0
    )
    assert "decided by a label (ana, 2026-12-01T10:00:00Z)" in cmp.read_text("utf-8")


def test_editing_the_case_voids_its_precedents_and_validate_lists_them(project: Path) -> None:
    suite = project / "suite"
    path = suite / "cases" / "night-shift.json"
    data = parse_json_value(path.read_text("utf-8"))
    data["question"] += " Asking for the Saturday shift."
    path.write_text(canonical_json(data), "utf-8")
    out = invoke(project, "validate")
    assert out.returncode == 0, out.stderr
    assert (
        "people.jsonl:1: stale label: case 'night-shift' was edited after it was labelled"
        in out.stderr
    )
    assert "1 stale label(s) listed" in out.stdout
    rows = rows_by_case(run_replay(project, MODEL, project / "a.jsonl", "edited"))
    assert rows["night-shift"]["status"] == "fail" and "precedent" not in rows["night-shift"]
    assert rows["price-pro"]["precedent"]["label"] == "fail"  # its case was not edited


def test_calibrate_checks_still_measures_the_checks_alone(project: Path) -> None:
    out = invoke(project, "calibrate", "--checks", "--format", "json")
    report = json.loads(out.stdout)
    alarms = {(g["case"], g["source"]) for g in report["false_alarms"]}
    misses = {(g["case"], g["source"]) for g in report["misses"]}
    assert ("night-shift", "labelled/people.jsonl:1") in alarms
    assert ("price-pro", "labelled/people.jsonl:2") in misses


def test_a_label_whose_answer_sha_does_not_match_its_answer_is_a_problem_and_decides_nothing(
    project: Path,
) -> None:
    suite = project / "suite"
    rec = label_line(suite, "night-shift", NIGHT, "pass", answer_sha=answer_sha("something else"))
    write_labels(suite, [rec])
    out = invoke(project, "validate")
    assert out.returncode == 2
    assert "people.jsonl:1: /answer_sha: does not match the answer" in out.stderr
    run = invoke(project, "run", "--model", MODEL, "--answers", str(project / "a.jsonl"))
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "warning: 1 problem(s) in " in run.stderr and "decide no verdict" in run.stderr
    (path,) = (project / "runs").glob("*.jsonl")
    night = rows_by_case(path)["night-shift"]
    assert night["status"] == "fail" and "precedent" not in night


def test_the_normalised_answer_ignores_white_space_and_unicode_composition_only() -> None:
    assert normalise_answer("  Pro costs\n45 €\t[doc:a]. ") == "Pro costs 45 € [doc:a]."
    assert answer_sha("Caf\u00e9  ok") == answer_sha("Cafe\u0301 ok")
    assert answer_sha("Pro costs 45 €") != answer_sha("pro costs 45 €")


def test_label_counts_keep_the_persons_verdicts_apart_from_the_checks() -> None:
    rows = [
        {"status": "pass", "precedent": {"label": "pass", "checks_status": "fail"}},
        {"status": "fail", "precedent": {"label": "fail", "checks_status": "fail"}},
        {"status": "pass"},
    ]
    assert label_counts(rows) == {"n": 2, "pass": 1, "fail": 1, "checks_disagreed": 1}
    assert label_counts([{"status": "pass"}]) is None


def test_a_label_written_by_hand_without_the_case_sha_decides_unpinned_and_validate_says_so(
    project: Path,
) -> None:
    suite = project / "suite"
    # The documented minimum a person writes by hand: case, answer, label, why.
    bare = [
        {"case": "night-shift", "answer": NIGHT, "label": "pass", "why": "right in substance"},
        {"case": "price-pro", "answer": PRICE, "label": "fail", "why": "wrong plan"},
    ]
    write_labels(suite, bare)
    out = invoke(project, "run", "--model", MODEL, "--answers", str(project / "a.jsonl"))
    assert out.returncode == 1, out.stderr
    (path,) = (project / "runs").glob("*.jsonl")
    rows = rows_by_case(path)
    assert rows["night-shift"]["status"] == "pass"
    assert rows["night-shift"]["precedent"]["pinned"] is False
    assert rows["price-pro"]["status"] == "fail"
    assert read_jsonl(path)[-1]["labels"]["n"] == 2
    out = invoke(project, "validate")
    assert out.returncode == 0
    assert "note: 2 label(s) in labelled/people.jsonl have no case_sha" in out.stderr
    # No edit of the case can void it: it carries no sha to compare.
    path = suite / "cases" / "night-shift.json"
    data = parse_json_value(path.read_text("utf-8"))
    data["question"] += " Thanks!"
    path.write_text(canonical_json(data), "utf-8")
    invoke(project, "run", "--model", MODEL, "--answers", str(project / "a.jsonl"))
    newest = sorted((project / "runs").glob("*.jsonl"))[-1]
    assert rows_by_case(newest)["night-shift"]["precedent"]["pinned"] is False


def test_a_label_decides_only_the_reply_it_was_given_not_the_same_text_citing_or_abstaining_otherwise(
    project: Path,
) -> None:
    suite = project / "suite"
    # The person labelled PRICE as cited by the system; the run's reply has the same text but
    # reports another cited passage and an abstention: the checks read those, so must the label.
    labelled = label_line(suite, "price-pro", PRICE, "fail", cited=["pricing#plans"])
    write_labels(suite, [labelled, label_line(suite, "night-shift", NIGHT, "pass")])
    lines = [
        {
            "case": "price-pro",
            "answer": PRICE,
            "cited": ["pricing#archive-2025"],
            "abstained": True,
        },
        {"case": "night-shift", "answer": NIGHT},
    ]
    answers = project / "b.jsonl"
    answers.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines), "utf-8")
    out = invoke(project, "run", "--model", MODEL, "--answers", str(answers))
    assert "Traceback" not in out.stderr
    (path,) = (project / "runs").glob("*.jsonl")
    rows = rows_by_case(path)
    assert "precedent" not in rows["price-pro"]  # another reply: the checks decide it
    assert rows["night-shift"]["precedent"]["label"] == "pass"  # the same reply: the label


def test_two_labels_of_one_answer_that_disagree_decide_nothing_and_validate_and_run_name_them(
    project: Path,
) -> None:
    suite = project / "suite"
    write_labels(
        suite,
        [
            label_line(suite, "night-shift", NIGHT, "pass"),
            label_line(suite, "night-shift", NIGHT, "fail", by="ben"),
        ],
    )
    out = invoke(project, "validate")
    assert out.returncode == 2
    assert "people.jsonl:2: /label: contradicts the label of the same answer" in out.stderr
    assert "at people.jsonl:1 (there pass, here fail): neither decides" in out.stderr
    run = invoke(project, "run", "--model", MODEL, "--answers", str(project / "a.jsonl"))
    assert "Traceback" not in run.stderr
    assert "people.jsonl:2: /label: contradicts" in run.stderr
    (path,) = (project / "runs").glob("*.jsonl")
    night = rows_by_case(path)["night-shift"]
    assert "precedent" not in night and night["status"] == "fail"  # the checks alone


def test_labels_of_one_reply_that_disagree_decide_nothing_even_when_one_records_the_passages(
    project: Path,
) -> None:
    from evals.calibrate.labelled import Labelled, precedents
    from evals.checks.loading import load_cases
    from evals.suite.folder import open_suite

    suite = open_suite(project / "suite")
    cases = load_cases(suite)[0]
    night = next(c for c in cases if c.id == "night-shift")
    sha = night.sha
    a = Labelled("night-shift", NIGHT, "pass", "ok", "labelled/a.jsonl:1", case_sha=sha)
    # The page records the case's passages as retrieved; a hand label leaves them implied.
    b = Labelled(
        "night-shift",
        NIGHT,
        "fail",
        "no",
        "labelled/b.jsonl:1",
        retrieved=night.retrieved_refs,
        case_sha=sha,
    )
    index, _ = precedents([a, b], cases)
    assert index == {}
    assert len(precedents([a], cases)[0]) == 1
