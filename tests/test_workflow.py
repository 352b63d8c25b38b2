""".github/workflows/evals.yml: it parses, every task and flag it calls exists, its steps gate right."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from functools import cache
from pathlib import Path

import pytest
import yaml
from casekit import INVOKE, ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "evals.yml"
INSTALL = "python3 -m venv .venv && .venv/bin/pip install -e ."
CALL = re.compile(r"\.venv/bin/invoke[ \t]+([^\n;&|>]+)")


@cache
def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text("utf-8"))


def steps() -> list[dict]:
    return workflow()["jobs"]["evals"]["steps"]


def step(name: str) -> dict:
    return next(s for s in steps() if s.get("name") == name)


def invoke_calls() -> list[tuple[str, list[str]]]:
    """(task, flags) for every `.venv/bin/invoke TASK --flag ...` in the workflow's scripts."""
    calls = []
    for s in steps():
        for m in CALL.finditer(s.get("run", "")):
            tokens = shlex.split(m.group(1))
            flags = [t.split("=", 1)[0] for t in tokens[1:] if t.startswith("--")]
            calls.append((tokens[0], flags))
    return calls


@cache
def task_flags(task: str) -> set[str] | None:
    """The flags `invoke --help TASK` lists, or None when the task does not exist."""
    listed = subprocess.run([INVOKE, "-r", str(ROOT), "--list"], capture_output=True, text=True)
    names = {line.split()[0] for line in listed.stdout.splitlines() if line.startswith("  ")}
    if task not in names:
        return None
    helped = subprocess.run(
        [INVOKE, "-r", str(ROOT), "--help", task], capture_output=True, text=True
    )
    return set(re.findall(r"(--[a-z0-9][a-z0-9-]*)", helped.stdout))


def test_workflow_parses_and_runs_on_pull_requests_with_full_history():
    wf = workflow()
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` key as true
    assert "pull_request" in on
    checkout = steps()[0]
    assert checkout["uses"].startswith("actions/checkout@")
    assert checkout["with"]["fetch-depth"] == 0
    python = next(s for s in steps() if s.get("uses", "").startswith("actions/setup-python@"))
    assert str(python["with"]["python-version"]) == "3.11"
    env = wf["jobs"]["evals"]["env"]
    assert env["OPENAI_API_KEY"] == "${{ secrets.OPENAI_API_KEY }}"
    assert env["BASE_REF"] == "${{ github.base_ref }}"


def test_install_step_is_the_readme_command():
    assert step("Install")["run"].strip() == INSTALL
    readme = ROOT / "README.md"
    if readme.is_file():
        assert INSTALL in readme.read_text("utf-8"), "README's set-up command changed"


def test_workflow_calls_the_gate_in_order():
    order = [task for task, _ in invoke_calls()]
    assert order == ["validate", "fmt", "mutate", "calibrate", "run", "run", "diff", "review"]
    assert ("calibrate", ["--checks"]) in invoke_calls()
    assert ("diff", ["--a", "--b", "--format"]) in invoke_calls()
    assert ("review", ["--base"]) in invoke_calls()


@pytest.mark.parametrize("task,flags", invoke_calls(), ids=lambda v: str(v))
def test_every_task_and_flag_the_workflow_calls_exists(task, flags):
    known = task_flags(task)
    assert known is not None, f"`invoke {task}` does not exist (yet)"
    missing = [f for f in flags if f not in known]
    assert not missing, f"`invoke {task}` has no {missing}"


# --- the step scripts, run for real with a stand-in for invoke ---------------------------

STUB = """#!/bin/sh
echo "$*" >> "$CALLS"
echo "output of $1"
exit "${STUB_EXIT:-0}"
"""


def run_step(tmp_path: Path, name: str, stub_exit: int = 0, **env: str) -> tuple[int, str, str]:
    """Run one step's script as GitHub does (bash -eo pipefail) with a stub `.venv/bin/invoke`."""
    stub = tmp_path / ".venv" / "bin" / "invoke"
    stub.parent.mkdir(parents=True, exist_ok=True)
    stub.write_text(STUB)
    stub.chmod(0o755)
    summary = tmp_path / "summary.md"
    summary.write_text("")
    calls = tmp_path / "calls.log"
    calls.write_text("")
    script = tmp_path / "step.sh"
    script.write_text(step(name)["run"])
    full_env = {
        "PATH": os.environ["PATH"],
        "GITHUB_STEP_SUMMARY": str(summary),
        "RUNNER_TEMP": str(tmp_path),
        "CALLS": str(calls),
        "STUB_EXIT": str(stub_exit),
        "BASE_REF": "main",
        "PR_NUMBER": "7",
        "OPENAI_API_KEY": "",
        "EVAL_MODEL": "",
        **env,
    }
    proc = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=tmp_path,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    return proc.returncode, summary.read_text(), calls.read_text()


def test_run_step_uses_the_offline_model_without_a_key_and_tolerates_failed_cases(tmp_path):
    code, _, calls = run_step(tmp_path, "Run the suite", stub_exit=1)
    assert code == 0
    assert calls.strip() == "run --label pr-7"
    code, _, _ = run_step(tmp_path, "Run the suite", stub_exit=3)
    assert code == 3  # a case errored: never passes silently


def test_run_step_uses_the_pinned_model_when_the_key_is_set(tmp_path):
    model = "openai/gpt-4o-mini@2024-07-18"
    code, _, calls = run_step(tmp_path, "Run the suite", OPENAI_API_KEY="sk-test", EVAL_MODEL=model)
    assert code == 0
    assert calls.strip() == f"run --model {model} --label pr-7"
    code, _, calls = run_step(tmp_path, "Run the suite", OPENAI_API_KEY="sk-test")
    assert code == 2 and calls == ""


def test_diff_step_puts_the_table_in_the_summary_and_keeps_the_exit_code(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "BASELINE").write_text("release.jsonl\n")
    code, summary, calls = run_step(tmp_path, "Compare with the committed baseline", stub_exit=1)
    assert code == 1  # a regression fails the job
    assert summary == "output of diff\n"
    assert calls.strip() == "diff --a baseline --b latest --format md"
    code, _, _ = run_step(tmp_path, "Compare with the committed baseline", stub_exit=0)
    assert code == 0


def test_diff_step_without_a_baseline_warns_instead_of_failing(tmp_path):
    code, summary, calls = run_step(tmp_path, "Compare with the committed baseline", stub_exit=1)
    assert code == 0 and calls == ""
    assert "No committed baseline" in summary


def test_review_step_writes_the_summary_against_the_pr_base(tmp_path):
    code, summary, calls = run_step(tmp_path, "Review the change to the eval")
    assert code == 0
    assert summary == "output of review\n"
    assert calls.strip() == "review --base origin/main"


def _run_files(tmp_path: Path, base_model: str, run_model: str) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    for name, model in (("2026-01-01_release", base_model), ("2026-02-01_pr-7", run_model)):
        header = {"kind": "run", "run_id": name, "model": model}
        (runs / f"{name}.jsonl").write_text(json.dumps(header) + "\n", "utf-8")
    (runs / "BASELINE").write_text("2026-01-01_release.jsonl\n")


def test_a_fork_without_the_key_is_shown_the_diff_but_not_gated_on_another_models_baseline(
    tmp_path,
):
    _run_files(tmp_path, "openai/gpt-4o-mini@2024-07-18", "local/extractive@2026-11-01")
    code, summary, _ = run_step(tmp_path, "Compare with the committed baseline", stub_exit=1)
    assert code == 0
    assert summary.startswith("output of diff\n")
    assert "Not gated: this job had no OPENAI_API_KEY" in summary
    assert "`openai/gpt-4o-mini@2024-07-18`" in summary
    # Unreadable run files still fail the job.
    code, _, _ = run_step(tmp_path, "Compare with the committed baseline", stub_exit=2)
    assert code == 2


def test_a_regression_on_the_baselines_own_model_or_with_the_key_set_gates(tmp_path):
    model = "local/extractive@2026-11-01"
    _run_files(tmp_path, model, model)
    code, summary, _ = run_step(tmp_path, "Compare with the committed baseline", stub_exit=1)
    assert code == 1 and "Not gated" not in summary
    (tmp_path / "runs" / "2026-02-01_pr-7.jsonl").write_text('{"model": "openai/x@2025-01-01"}\n')
    code, summary, _ = run_step(
        tmp_path, "Compare with the committed baseline", stub_exit=1, OPENAI_API_KEY="sk-test"
    )
    assert code == 1 and "Not gated" not in summary  # a model change in a PR is gated


def test_review_step_leaves_this_jobs_own_run_file_out_of_the_review(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    code, _, _ = run_step(tmp_path, "Review the change to the eval")
    assert code == 0
    exclude = (tmp_path / ".git" / "info" / "exclude").read_text()
    assert exclude.splitlines()[-1] == "runs/*_pr-7.jsonl"
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "2026-02-01T00-00-00-000000Z_0744be0_pr-7.jsonl").write_text("{}\n")
    (runs / "mine.jsonl").write_text("{}\n")
    listed = subprocess.run(
        ["git", "ls-files", "-o", "--exclude-standard", "runs"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert listed == ["runs/mine.jsonl"]


def test_mutate_step_gates_and_puts_a_failing_report_in_the_summary(tmp_path):
    code, summary, calls = run_step(tmp_path, "Checks go red on known-wrong answers", stub_exit=1)
    assert code == 1 and summary == "output of mutate\n"
    assert calls.strip() == "mutate"
    code, summary, _ = run_step(tmp_path, "Checks go red on known-wrong answers", stub_exit=0)
    assert code == 0 and summary == ""


def test_diff_step_compares_this_jobs_run_file_not_the_last_name_in_runs(tmp_path):
    model = "local/extractive@2026-11-01"
    _run_files(tmp_path, model, model)
    (tmp_path / "runs" / "v1.0-release.jsonl").write_text('{"model": "x"}\n')  # sorts last
    code, _, calls = run_step(tmp_path, "Compare with the committed baseline")
    assert code == 0
    assert calls.strip() == "diff --a baseline --b runs/2026-02-01_pr-7.jsonl --format md"


def test_calibrate_step_gates_on_the_floors_and_always_puts_the_figures_in_the_summary(tmp_path):
    name = "Checks agree with the labelled answers"
    code, summary, calls = run_step(tmp_path, name, stub_exit=0)
    assert code == 0 and summary == "output of calibrate\n"
    assert calls.strip() == "calibrate --checks"
    for failing in (1, 2, 3):
        code, summary, _ = run_step(tmp_path, name, stub_exit=failing)
        assert code == failing and summary == "output of calibrate\n"
