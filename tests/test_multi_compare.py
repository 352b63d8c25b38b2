"""`invoke compare`: several runs against one baseline, Holm over the candidates, "best" only
when it is significant, the disagreement grid first, and the diff's exit codes."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from casekit import invoke
from diffkit import project, row, write_run

from evals.compare.epochs import CaseOutcome
from evals.compare.gate import decide
from evals.multi.command import build
from evals.multi.family import holm_gate

Rows = list[dict[str, Any]]
N = 200


def _rows(run_id: str, failing: set[int], errored: set[int] = frozenset()) -> Rows:  # type: ignore[assignment]
    out = []
    for i in range(N):
        status = "error" if i in errored else "fail" if i in failing else "pass"
        out.append(
            row(
                run_id,
                f"case-{i:03d}",
                status,
                error="ProviderError: 500" if status == "error" else None,
            )
        )
    return out


BASE_FAILS = set(range(0, 200, 5))  # 40 of 200 fail in every run


def _runs(tmp: Path, **fails: set[int]) -> dict[str, Path]:
    tmp.mkdir(parents=True, exist_ok=True)
    project(tmp)
    return {
        name: write_run(tmp / "runs" / f"{name}.jsonl", name, _rows(name, f), label=name)
        for name, f in fails.items()
    }


def _compare(tmp: Path, *args: str):
    return invoke(tmp, "compare", *args)


def test_a_worse_candidate_fails_its_holm_step_and_its_cases_lead_the_grid(tmp_path: Path) -> None:
    broken = set(range(1, 200, 7))  # 29 cases that pass elsewhere fail here
    runs = _runs(
        tmp_path,
        base=BASE_FAILS,
        same1=BASE_FAILS,
        same2=BASE_FAILS,
        worse=BASE_FAILS | broken,
    )
    res = _compare(tmp_path, *map(str, runs.values()), "--gate", "all", "--format", "json")
    assert res.returncode == 1, res.stderr
    data = json.loads(res.stdout)
    verdicts = {c["run"]: c["verdict"] for c in data["candidates"]}
    assert verdicts == {"R1": "PASS", "R2": "PASS", "R3": "FAIL"}
    worse = next(c for c in data["candidates"] if c["run"] == "R3")
    assert worse["holm_step"] == 0 and worse["level"] == pytest.approx(0.05 / 3)
    assert (
        "R3 worse" in data["ranking"]["worst"] and "significantly worse" in data["ranking"]["worst"]
    )
    lead = data["grid"][: len(broken - BASE_FAILS)]
    assert {g["case"] for g in lead} == {f"case-{i:03d}" for i in broken - BASE_FAILS}
    assert all(g["disagree"] for g in lead) and not data["grid"][len(lead)]["disagree"]
    assert [c["status"] for c in lead[0]["cells"]] == ["pass", "pass", "pass", "fail"]
    text = _compare(tmp_path, *map(str, runs.values()), "--format", "text").stdout
    assert f"Where the runs disagree ({len(broken - BASE_FAILS)} of 200 cases)" in text
    assert "R3 worse (gated)" not in text and "facts_present" in text


def test_only_gated_candidates_set_the_exit_code(tmp_path: Path) -> None:
    runs = _runs(
        tmp_path, base=BASE_FAILS, same=BASE_FAILS, worse=BASE_FAILS | set(range(1, 200, 7))
    )
    paths = list(map(str, runs.values()))
    assert _compare(tmp_path, *paths, "--gate", paths[1]).returncode == 0
    assert _compare(tmp_path, *paths).returncode == 0
    res = _compare(tmp_path, *paths, "--gate", paths[2], "--format", "md")
    assert res.returncode == 1 and "| R2 worse (gated) |" in res.stdout


def test_the_baseline_flag_picks_the_reference_run(tmp_path: Path) -> None:
    runs = _runs(tmp_path, a=BASE_FAILS, b=BASE_FAILS | set(range(1, 200, 7)))
    res = _compare(tmp_path, str(runs["a"]), "--baseline", str(runs["b"]), "--format", "json")
    data = json.loads(res.stdout)
    assert data["baseline"] == "R0" and data["runs"][0]["label"] == "b"
    assert data["candidates"][0]["figures"]["pass rate"]["interval"]["estimate"] > 0


def test_best_is_named_only_when_it_beats_every_other_run(tmp_path: Path) -> None:
    better = set(range(0, 200, 5)) - set(range(0, 200, 10))  # fixes 20 of the 40 fails
    fails = set(range(0, 200, 5))
    runs = _runs(tmp_path, base=fails, good=better, other=fails | {1, 2})
    data = json.loads(_compare(tmp_path, *map(str, runs.values()), "--format", "json").stdout)
    assert data["ranking"]["best"] == "R1"
    runs = _runs(tmp_path / "tie", base=fails, close=fails - {0, 5}, same=fails)
    data = json.loads(
        _compare(tmp_path / "tie", *map(str, runs.values()), "--format", "json").stdout
    )
    assert data["ranking"]["best"] is None
    assert set(data["ranking"]["cannot_be_told_apart"]) == {"R0", "R1", "R2"}
    assert "cannot be told apart" in data["ranking"]["sentence"]


def test_holm_stops_a_drop_that_one_diff_alone_would_fail() -> None:
    # Five broken cases, none fixed: exact one-sided p = 1/32 = 0.031, under 0.05 alone but
    # over the 0.025 of the first Holm step when a second (unchanged) candidate is compared.
    worse = [CaseOutcome(f"c{i}", 1.0, 0.0 if i < 5 else 1.0) for i in range(60)]
    same = [CaseOutcome(f"c{i}", 1.0, 1.0 if i else 0.0) for i in range(60)]
    gate = lambda cases, level: decide(cases, alpha=level, compute_mde=False)  # noqa: E731
    alone = holm_gate([partial(gate, worse)], 0.05)
    assert alone[0].verdict == "FAIL" and alone[0].level == 0.05
    two = holm_gate([partial(gate, same), partial(gate, worse)], 0.05)
    assert two[1].step == 0 and two[1].level == 0.025 and two[1].verdict != "FAIL"
    assert two[1].p_holm == pytest.approx(2 / 32)


def test_errors_in_a_gated_candidate_that_decide_it_exit_3(tmp_path: Path) -> None:
    runs = _runs(
        tmp_path,
        base=BASE_FAILS,
        flaky=BASE_FAILS | {1, 2, 3},
        errs=BASE_FAILS,
    )
    rows = _rows("errs", BASE_FAILS | {1, 2, 3}, errored=set(range(6, 16)))
    write_run(runs["errs"], "errs", rows, label="errs")
    res = _compare(
        tmp_path, *map(str, runs.values()), "--gate", str(runs["errs"]), "--format", "json"
    )
    data = json.loads(res.stdout)
    errs = next(c for c in data["candidates"] if c["run"] == "R2")
    assert errs["verdict"] == "INCONCLUSIVE" and res.returncode == 3, errs["reason"]
    assert data["runs"][2]["n_error"] == 10 and data["runs"][2]["n_scored"] == 190


def test_runs_of_another_suite_and_unknown_runs_are_refused_in_one_go(tmp_path: Path) -> None:
    runs = _runs(tmp_path, base=BASE_FAILS)
    other = write_run(tmp_path / "runs" / "other.jsonl", "other", [row("other", "zzz", "pass")])
    res = _compare(tmp_path, str(runs["base"]), str(other), "nope-run", "--format", "json")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "nope-run" in res.stderr
    res = _compare(tmp_path, str(runs["base"]), str(other))
    assert res.returncode == 2 and "no case in common" in res.stderr


def test_one_run_alone_is_a_usage_error(tmp_path: Path) -> None:
    runs = _runs(tmp_path, base=BASE_FAILS)
    res = _compare(tmp_path, str(runs["base"]))
    assert res.returncode == 2 and "at least two runs" in res.stderr
    assert _compare(tmp_path, str(runs["base"]), "--bogus").returncode == 2


def test_a_hostile_label_cannot_break_the_markdown_table(tmp_path: Path) -> None:
    project(tmp_path)
    a = write_run(tmp_path / "runs" / "a.jsonl", "a", _rows("a", BASE_FAILS), label="a|b <!--")
    b = write_run(tmp_path / "runs" / "b.jsonl", "b", _rows("b", BASE_FAILS), label="x")
    md = _compare(tmp_path, str(a), str(b), "--format", "md").stdout
    assert "a\\|b \\<!--" in md and "<!--" not in md.replace("\\<!--", "")


def test_four_runs_are_compared_in_process_like_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = _runs(tmp_path, base=BASE_FAILS, b=BASE_FAILS, c=BASE_FAILS, d=BASE_FAILS)
    monkeypatch.chdir(tmp_path)
    mc = build([str(p) for p in runs.values()], gate=["all"])
    assert mc.exit_verdict() == "PASS" and mc.disagreeing == []
    assert [r.n_scored for r in mc.runs] == [N] * 4
    assert mc.runs[0].pass_ci is not None and mc.runs[0].pass_ci[0] < 0.8 < mc.runs[0].pass_ci[1]


def test_runs_with_epochs_show_attempt_counts_and_the_per_case_rate(tmp_path: Path) -> None:
    project(tmp_path)

    def rows(run_id: str, flaky: set[int]) -> Rows:
        out = []
        for i in range(40):
            for e in range(3):
                status = "fail" if i in flaky and e == 0 else "pass"
                out.append(row(run_id, f"case-{i:03d}", status, epoch=e))
        return out

    a = write_run(tmp_path / "runs" / "a.jsonl", "a", rows("a", set()), label="a")
    b = write_run(tmp_path / "runs" / "b.jsonl", "b", rows("b", {4, 9}), label="b")
    res = _compare(tmp_path, str(a), str(b), "--format", "json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert [g["case"] for g in data["grid"][:2]] == ["case-004", "case-009"]
    assert data["grid"][0]["cells"][1]["text"] == "2/3 pass"
    assert data["runs"][1]["pass_rate"] == pytest.approx(1 - 2 / 3 / 40)
    assert data["runs"][1]["n_scored"] == 40
