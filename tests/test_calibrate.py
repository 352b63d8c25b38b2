"""Calibration: the judge's verdicts against people's labels, as agreement and Cohen's kappa."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from casekit import good_case, invoke, make_project
from openai_server import OpenAIServer

from evals.calibrate.judge import cmd_calibrate
from evals.calibrate.stats import agreement, cohen_kappa, confusion
from evals.cli import guarded

JUDGE = "anthropic/claude-3-5-haiku@2024-10-22"


def pairs(pp: int, pf: int, fp: int, ff: int) -> list[tuple[str, str]]:
    """(human, judge) pairs: pp both pass, pf human pass / judge fail, and so on."""
    return (
        [("pass", "pass")] * pp
        + [("pass", "fail")] * pf
        + [("fail", "pass")] * fp
        + [("fail", "fail")] * ff
    )


# -- statistics ----------------------------------------------------------------------------


def test_cohen_kappa_equals_the_hand_computation() -> None:
    # n = 100; observed agreement (45 + 15) / 100 = 0.60.
    # Human: 60 pass, 40 fail. Judge: 70 pass, 30 fail.
    # Chance agreement 0.6 * 0.7 + 0.4 * 0.3 = 0.54; kappa = (0.60 - 0.54) / (1 - 0.54) = 0.06 / 0.46.
    p = pairs(45, 15, 25, 15)
    assert agreement(p) == pytest.approx(0.60)
    assert cohen_kappa(p) == pytest.approx(0.06 / 0.46)
    assert round(cohen_kappa(p), 4) == 0.1304  # type: ignore[arg-type]
    # n = 10: agreement 0.7, chance 0.5 * 0.6 + 0.5 * 0.4 = 0.5, kappa 0.4.
    assert cohen_kappa(pairs(4, 1, 2, 3)) == pytest.approx(0.4)


def test_kappa_is_one_for_perfect_agreement_minus_one_for_perfect_disagreement() -> None:
    assert cohen_kappa(pairs(3, 0, 0, 2)) == pytest.approx(1.0)
    assert cohen_kappa(pairs(0, 5, 5, 0)) == pytest.approx(-1.0)


def test_kappa_is_undefined_when_everything_is_one_class_and_without_pairs() -> None:
    assert cohen_kappa(pairs(6, 0, 0, 0)) is None
    assert cohen_kappa([]) is None
    assert agreement([]) is None


def test_the_confusion_matrix_has_human_rows_and_judge_columns() -> None:
    assert confusion(pairs(4, 1, 2, 3)) == {
        "pass": {"pass": 4, "fail": 1},
        "fail": {"pass": 2, "fail": 3},
    }


# -- invoke calibrate on the suite's reference answers -------------------------------------


def verdict(ok: bool, why: str) -> str:
    return json.dumps({"score": 5 if ok else 2, "grounded": ok, "rubric_met": ok, "reasoning": why})


# case id: (human label, judge says pass?)
LABELLED = {
    "r-1": ("pass", True),
    "r-2": ("pass", True),
    "r-3": ("pass", False),
    "r-4": ("fail", False),
    "r-5": ("fail", False),
    "r-6": ("fail", True),
}


def by_case(body: dict[str, Any]) -> str:
    cid = re.search(r"\[(r-\d)\]", body["messages"][1]["content"]).group(1)  # type: ignore[union-attr]
    ok = LABELLED[cid][1]
    return verdict(ok, f"{cid}: the judge's reasons for {'pass' if ok else 'fail'}")


def labelled_project(tmp: Path, floor: float = 0.6) -> Path:
    cases = [
        good_case(cid, expect={"rubric": f"[{cid}] Gives the Pro price."}, human={"label": label})
        for cid, (label, _) in LABELLED.items()
    ]
    cases.append(good_case("unlabelled"))
    suite = make_project(tmp, cases)
    (suite / "judge_prompt.txt").write_text("Grade strictly.\n", encoding="utf-8")
    set_floor(tmp, floor)
    return suite


def set_floor(tmp: Path, floor: float) -> None:
    (tmp / "pyproject.toml").write_text(
        f'[tool.evals]\nsuite = "suite"\nkappa_floor = {floor}\n'
        'default_model = "anthropic/claude-3-5-sonnet@2024-10-22"\n',
        encoding="utf-8",
    )


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def calib(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., Result]:
    """`invoke calibrate` in this process (the same command body, exit code and output)."""

    def call(env: dict[str, str] | None = None, **flags: Any) -> Result:
        monkeypatch.chdir(tmp_path)
        for k, val in (env or {}).items():
            monkeypatch.setenv(k, val)
        capsys.readouterr()
        code = guarded(lambda: cmd_calibrate(**flags))
        out = capsys.readouterr()
        return Result(code, out.out, out.err)

    return call


def env(srv: OpenAIServer) -> dict[str, str]:
    return {"OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": "sk-dummy"}


def test_calibrate_on_references_prints_kappa_matrix_and_disagreements(
    tmp_path: Path, openai_server: OpenAIServer
) -> None:
    labelled_project(tmp_path)
    openai_server.responder = by_case
    proc = invoke(tmp_path, "calibrate", "--judge", JUDGE, env=env(openai_server))
    out = proc.stdout
    # By hand: pp=2, pf=1, fp=1, ff=2; agreement 4/6; chance 0.5; kappa (4/6 - 0.5) / 0.5 = 1/3.
    # 0.333 is below the floor of 0.6, but 6 answers cannot show it: its one-sided 95%
    # bounds are -0.31 and 0.77, so the floor lies between them (exit 3).
    assert proc.returncode == 3, out + proc.stderr
    assert "n = 6" in out
    assert "agreement: 66.7% (4/6)" in out
    assert "Cohen's kappa: 0.333 (95% CI -0.41 to 0.81) (floor 0.6, n = 6)" in out
    assert out.rstrip().endswith(
        "kappa 0.333 cannot be told from the floor 0.6 (bounds -0.31 to 0.77, one-sided 95% "
        "each): label more answers of both kinds (exit 3)"
    )
    assert re.search(r"human pass\s+2\s+1", out) and re.search(r"human fail\s+1\s+2", out)
    assert "disagreements: 2" in out
    assert "r-3: human pass, judge fail (score 2 on 1-5, not grounded, rubric not met)" in out
    assert "r-3: the judge's reasons for fail" in out
    assert "r-6: human fail, judge pass" in out and "r-6: the judge's reasons for pass" in out
    assert len(openai_server.chat_requests) == 6  # the unlabelled case is not judged
    # The same family as the default model under test: warned.
    assert "warning:" in proc.stderr and "both 'claude-3' models" in proc.stderr
    # A floor above the upper bound fails, one below the lower bound passes; the verdicts
    # come from the cache.
    set_floor(tmp_path, 0.98)
    proc = invoke(tmp_path, "calibrate", "--judge", JUDGE, env=env(openai_server))
    assert proc.returncode == 1 and "even its upper bound" in proc.stdout, proc.stdout
    set_floor(tmp_path, -0.5)
    proc = invoke(tmp_path, "calibrate", "--judge", JUDGE, env=env(openai_server))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "meets the floor -0.5 at its lower bound" in proc.stdout
    assert len(openai_server.chat_requests) == 6


def test_calibrate_on_references_needs_a_judge_and_labels_with_references(
    tmp_path: Path, openai_server: OpenAIServer, calib: Callable[..., Result]
) -> None:
    suite = labelled_project(tmp_path)
    proc = calib(env=env(openai_server))
    assert proc.returncode == 2 and "needs --judge MODEL" in proc.stderr
    data = json.loads((suite / "cases" / "r-1.json").read_text("utf-8"))
    del data["reference"]
    (suite / "cases" / "r-1.json").write_text(json.dumps(data), encoding="utf-8")
    proc = calib(judge=JUDGE, env=env(openai_server))
    assert proc.returncode == 2
    assert "r-1.json: /human: a human label needs a `reference` answer to judge" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not openai_server.chat_requests


# -- invoke calibrate on a run's drafts ----------------------------------------------------


def write_run(runs: Path, verdicts: dict[str, dict[str, Any] | None]) -> Path:
    """A judged run file: one row per case, a verdict or a judge error each."""
    runs.mkdir(parents=True, exist_ok=True)
    path = runs / "2026-11-29T10-00-00-000000Z_abcdef0.jsonl"
    from recordkit import header as run_header
    from recordkit import row

    header = run_header(
        run_id=path.stem,
        model="openai/gpt-4o-mini@2024-07-18",
        judge={"model": "openai/gpt-4o@2024-08-06", "scale": [1, 5], "threshold": 3},
    )
    lines = [header]
    for cid, v in verdicts.items():
        judge = {
            "model": "openai/gpt-4o@2024-08-06",
            "verdict": v,
            "error": None
            if v
            else "no valid verdict after 3 attempts: attempt 1: the reply is not JSON",
        }
        lines.append(row(cid, run_id=path.stem, draft=f"draft of {cid}", judge=judge))
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    return path


def v(score: int, ok: bool = True) -> dict[str, Any]:
    return {"score": score, "grounded": ok, "rubric_met": ok, "reasoning": f"score {score}"}


def write_labels(path: Path, labels: dict[str, str]) -> Path:
    path.write_text(
        "".join(json.dumps({"case": c, "label": lab}) + "\n" for c, lab in labels.items()), "utf-8"
    )
    return path


def test_calibrate_a_run_from_its_recorded_verdicts(
    tmp_path: Path, calib: Callable[..., Result]
) -> None:
    make_project(tmp_path, [good_case()])
    (tmp_path / "pyproject.toml").write_text("[tool.evals]\nkappa_floor = 0.7\n", "utf-8")
    # Judge pass needs score > 3, grounded and rubric met: a, b, e pass; c (score 3), d fail.
    run = write_run(
        tmp_path / "runs", {"a": v(5), "b": v(4), "c": v(3), "d": v(5, ok=False), "e": v(4)}
    )
    labels = write_labels(
        tmp_path / "labels.jsonl", {"a": "pass", "b": "pass", "c": "fail", "d": "fail", "e": "fail"}
    )
    proc = calib(run=str(run), labels=str(labels))
    # pp=2, pf=0, fp=1, ff=2: agreement 0.8; chance (2/5)(3/5) + (3/5)(2/5) = 0.48;
    # kappa 0.32 / 0.52 = 0.615, below the floor of 0.7, but with bounds 0.09 to 1.00 over
    # 5 answers: undecided (exit 3).
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert f"Cohen's kappa: {0.32 / 0.52:.3f}" in proc.stdout
    assert "agreement: 80.0% (4/5)" in proc.stdout
    assert "e: human fail, judge pass (score 4 on 1-5, grounded, rubric met)" in proc.stdout
    # The run's model and the judge are both gpt-4o models: warned.
    assert "both 'gpt-4o' models" in proc.stderr
    # By run id, with labels that agree: kappa 1, lower bound 0.18 over 5 answers, so it
    # meets a floor of 0.15 (exit 0) and not yet one of 0.7.
    write_labels(labels, {"a": "pass", "b": "pass", "c": "fail", "d": "fail", "e": "pass"})
    (tmp_path / "pyproject.toml").write_text("[tool.evals]\nkappa_floor = 0.15\n", "utf-8")
    proc = calib(run=run.stem, labels=str(labels))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Cohen's kappa: 1.000" in proc.stdout


def test_a_label_whose_verdict_is_a_judge_error_is_shown_not_counted_and_exits_3(
    tmp_path: Path, calib: Callable[..., Result]
) -> None:
    make_project(tmp_path, [good_case()])
    run = write_run(tmp_path / "runs", {"a": v(5), "b": v(1, ok=False), "c": None})
    labels = write_labels(tmp_path / "labels.jsonl", {"a": "pass", "b": "fail", "c": "fail"})
    proc = calib(run=str(run), labels=str(labels))
    assert proc.returncode == 3
    assert "n = 2" in proc.stdout
    assert "without a verdict (not counted): 1" in proc.stdout
    assert (
        "  1x no valid verdict after 3 attempts: attempt 1: the reply is not JSON  (c (human fail))"
        in proc.stdout
    )
    assert "incomplete: some labels have no judge verdict (exit 3)" in proc.stdout


def test_labels_on_rows_in_review_count_like_any_and_the_judges_agreement_there_is_shown(
    tmp_path: Path, calib: Callable[..., Result]
) -> None:
    make_project(tmp_path, [good_case()])
    run = write_run(
        tmp_path / "runs", {"a": v(5), "b": v(5), "c": v(1, ok=False), "d": v(5), "e": None}
    )
    recs = [json.loads(x) for x in run.read_text("utf-8").splitlines()]
    for rec in recs:
        if rec.get("case") in ("a", "b", "e"):  # the checks could not decide these
            rec.update(status="review", score=None, review_checks=["scope"])
    recs[-1].pop("judge")  # e: the judge never graded it
    run.write_text("".join(json.dumps(r) + "\n" for r in recs), "utf-8")
    labels = write_labels(
        tmp_path / "labels.jsonl",
        {"a": "pass", "b": "fail", "c": "fail", "d": "pass", "e": "pass"},
    )
    proc = calib(run=str(run), labels=str(labels))
    out = proc.stdout
    assert "n = 4" in out and "agreement: 75.0% (3/4)" in out
    assert (
        "in review in the run (the checks could not decide): 3 labelled, 2 with a verdict; "
        "the judge agrees with people on 1 of 2" in out
    )
    assert "  b (in review in the run): human fail, judge pass" in out
    assert (
        "  1x the judge did not grade this case in the run (its checks could not decide it: "
        "the row is in review)  (e (human pass))" in out
    )
    assert proc.returncode == 3  # e has no verdict


def test_kappa_undefined_when_every_label_is_one_class_exits_1(
    tmp_path: Path, calib: Callable[..., Result]
) -> None:
    make_project(tmp_path, [good_case()])
    run = write_run(tmp_path / "runs", {"a": v(5), "b": v(4)})
    labels = write_labels(tmp_path / "labels.jsonl", {"a": "pass", "b": "pass"})
    proc = calib(run=str(run), labels=str(labels))
    assert proc.returncode == 1
    assert "agreement: 100.0% (2/2)" in proc.stdout
    assert "Cohen's kappa: undefined" in proc.stdout
    assert "label answers of both kinds" in proc.stdout


def test_bad_labels_are_reported_all_at_once_with_exit_2(
    tmp_path: Path, calib: Callable[..., Result]
) -> None:
    make_project(tmp_path, [good_case()])
    run = write_run(tmp_path / "runs", {"a": v(5), "b": v(2)})
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        '{"case": "a", "label": "pass"}\n'
        "not json\n"
        '{"case": "b", "label": "good"}\n'
        '{"case": "a", "label": "fail"}\n'
        '{"label": "pass"}\n',
        encoding="utf-8",
    )
    proc = calib(run=str(run), labels=str(labels))
    assert proc.returncode == 2
    err = proc.stderr
    assert f"{labels}: line 2: invalid JSON" in err
    assert f"{labels}: line 3/label: 'good' is not 'pass' or 'fail'" in err
    assert f"{labels}: line 4: case 'a' is labelled twice" in err
    assert f"{labels}: line 5: needs" in err
    assert "Traceback" not in err
    write_labels(labels, {"a": "pass", "zzz": "fail"})
    proc = calib(run=str(run), labels=str(labels))
    assert proc.returncode == 2 and "case 'zzz' is not in run" in proc.stderr
    proc = calib(run=str(run))
    assert proc.returncode == 2 and "--run needs --labels" in proc.stderr


def test_calibrate_judges_a_runs_drafts_now_with_judge(
    tmp_path: Path, openai_server: OpenAIServer, calib: Callable[..., Result]
) -> None:
    suite = make_project(
        tmp_path, [good_case("a", expect={"rubric": "Gives the price."}), good_case("b")]
    )
    (suite / "judge_prompt.txt").write_text("Grade strictly.\n", encoding="utf-8")
    run = write_run(tmp_path / "runs", {"a": None, "b": None})  # recorded verdicts are ignored
    labels = write_labels(tmp_path / "labels.jsonl", {"a": "pass", "b": "fail"})
    openai_server.responder = lambda body: verdict(
        "draft of a" in body["messages"][1]["content"], "why"
    )
    proc = calib(run=str(run), labels=str(labels), judge=JUDGE, env=env(openai_server))
    assert proc.returncode == 3, proc.stdout + proc.stderr  # 2 answers cannot show 0.6
    assert "Cohen's kappa: 1.000" in proc.stdout
    sent = [r.body["messages"][1]["content"] for r in openai_server.chat_requests]
    assert sorted("draft of a" in s for s in sent) == [False, True]


def test_labels_saved_with_a_bom_windows_line_ends_and_capitals_are_read(
    tmp_path: Path, calib: Callable[..., Result]
) -> None:
    make_project(tmp_path, [good_case()])
    run = write_run(tmp_path / "runs", {"a": v(5), "b": v(2, ok=False)})
    labels = tmp_path / "labels.jsonl"
    labels.write_bytes(
        b'\xef\xbb\xbf{"case": "a", "label": "PASS"}\r\n{"case": "b", "label": " Fail "}\r\n'
    )
    proc = calib(run=str(run), labels=str(labels))
    assert proc.returncode == 3, proc.stdout + proc.stderr  # 2 answers cannot show 0.6
    assert "agreement: 100.0% (2/2)" in proc.stdout and "Cohen's kappa: 1.000" in proc.stdout
    labels.write_bytes(b'{"case": "a", "label": "pass"}\n\xff\xfe broken\n')
    proc = calib(run=str(run), labels=str(labels))
    assert proc.returncode == 2 and "not UTF-8 text" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_deep_or_huge_number_label_line_is_a_problem_on_that_line_not_a_crash(
    tmp_path: Path, calib: Callable[..., Result]
) -> None:
    make_project(tmp_path, [good_case()])
    run = write_run(tmp_path / "runs", {"a": v(5), "b": v(2)})
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        '{"case": "a", "label": "pass"}\n'
        '{"case": "b", "label": "fail", "x": ' + "[" * 10_000 + "]" * 10_000 + "}\n"
        '{"case": "b", "label": "fail", "n": ' + "9" * 5000 + "}\n",
        encoding="utf-8",
    )
    proc = calib(run=str(run), labels=str(labels))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.splitlines() == [
        f"{labels}: line 2: invalid JSON: nested too deeply",
        f"{labels}: line 3: invalid JSON: Exceeds the limit (4300 digits) for integer string "
        "conversion",
    ]


def test_repeated_judge_errors_are_one_line_each_with_their_count_as_report_groups_them(
    tmp_path: Path, calib: Callable[..., Result]
) -> None:
    make_project(tmp_path, [good_case()])
    verdicts = {"a": v(5), **{k: None for k in "bcdefgh"}}
    run = write_run(tmp_path / "runs", verdicts)
    labels = write_labels(tmp_path / "labels.jsonl", {k: "fail" for k in verdicts})
    out = calib(run=str(run), labels=str(labels)).stdout
    assert "without a verdict (not counted): 7" in out
    assert (
        "  7x no valid verdict after 3 attempts: attempt 1: the reply is not JSON  "
        "(b (human fail), c (human fail), "
        "d (human fail), e (human fail), f (human fail), ...)" in out
    )
    assert out.count("no valid verdict") == 1


def test_the_example_suite_gives_the_judge_labels_of_both_kinds_for_a_kappa_with_its_interval(
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from casekit import ROOT

    def judge(body: dict[str, Any]) -> str:
        if "quote" in json.dumps(body["response_format"]):  # a question per fact
            return json.dumps({"stated": True, "quote": "", "reasoning": "r"})
        # A judge that passes every answer citing a passage: it agrees with some labels only.
        ok = "[doc:" in body["messages"][1]["content"]
        return verdict(ok, "r")

    openai_server.responder = judge
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-dummy")
    guarded(lambda: cmd_calibrate(judge="openai/gpt-4o@2024-08-06", use_cache=False))
    out = capsys.readouterr().out
    head = out.split("\n\n", 1)[0]
    n = int(re.search(r"^n = (\d+)$", head, re.MULTILINE).group(1))  # type: ignore[union-attr]
    assert n >= 100, head  # the cases' labelled answers, not only three references
    assert re.search(r"human pass\s+\d+\s+\d+", out) and re.search(r"human fail\s+\d+\s+\d+", out)
    table = re.findall(r"human (?:pass|fail)\s+(\d+)\s+(\d+)", out)
    assert all(int(a) + int(b) >= 30 for a, b in table)  # both kinds, dozens of each
    assert re.search(r"Cohen's kappa: -?\d\.\d{3} \(95% CI -?\d\.\d\d to -?\d\.\d\d\)", head)
