"""The workflow's sharded job, run here: each shard's step, the hand-over of the run files,
the merge and the gate, with the real `invoke` on a small suite."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from casekit import INVOKE, ROOT, good_case, invoke, make_project

WORKFLOW = ROOT / ".github" / "workflows" / "evals.yml"
pytestmark = pytest.mark.slow


def script(job: str, name: str) -> str:
    steps = yaml.safe_load(WORKFLOW.read_text("utf-8"))["jobs"][job]["steps"]
    return next(s for s in steps if s.get("name") == name)["run"]


def run_script(cwd: Path, text: str, **env: str) -> subprocess.CompletedProcess[str]:
    path = cwd / "step.sh"
    path.write_text(text, "utf-8")
    full = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(path)],
        cwd=cwd,
        env={**full, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_three_shards_uploaded_merged_and_gated_give_the_whole_runs_result(tmp_path: Path) -> None:
    cases = [good_case(f"case-{i:02d}") for i in range(12)]
    make_project(tmp_path, cases)
    # The steps call `.venv/bin/invoke`: this project's, pointed at the package under test.
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    wrapper = tmp_path / ".venv" / "bin" / "invoke"
    wrapper.write_text(f'#!/bin/sh\nexec "{INVOKE}" -r "{ROOT}" "$@"\n', "utf-8")
    wrapper.chmod(0o755)
    whole = invoke(tmp_path, "run", "--label", "release")
    assert whole.returncode in (0, 1), whole.stderr
    (release,) = (tmp_path / "runs").glob("*_release.jsonl")
    assert invoke(tmp_path, "baseline", str(release)).returncode == 0

    shards = tmp_path / "shards"
    shards.mkdir()
    for i in (1, 2, 3):
        done = run_script(tmp_path, script("shard", "Run one shard"), SHARD=str(i), SHARDS="3")
        assert done.returncode == 0, done.stderr
        # What upload-artifact and download-artifact (merge-multiple) do with the files.
        for f in (tmp_path / "runs").glob(f"*_nightly-shard-{i}.jsonl"):
            shutil.move(f, shards / f.name)
    assert len(list(shards.glob("*.jsonl"))) == 3

    merged = run_script(tmp_path, script("merge", "Merge the shards"))
    assert merged.returncode == 0, merged.stderr
    gate = run_script(
        tmp_path, script("merge", "Compare the merged run with the committed baseline")
    )
    assert gate.returncode == 0, gate.stdout + gate.stderr
    assert "PASS" in (tmp_path / "diff.md").read_text("utf-8")

    lines = (tmp_path / "runs" / "merged-nightly.jsonl").read_text("utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    rows = [r for r in records if r["kind"] == "case"]
    assert sorted(r["case"] for r in rows) == [c["id"] for c in cases]
    whole_rows = [json.loads(x) for x in release.read_text("utf-8").splitlines()]
    status = {r["case"]: r["status"] for r in whole_rows if r["kind"] == "case"}
    assert {r["case"]: r["status"] for r in rows} == status
    assert records[-1]["counts"] == whole_rows[-1]["counts"]


def test_a_missing_shard_stops_the_merge_before_any_gate(tmp_path: Path) -> None:
    make_project(tmp_path, [good_case(f"case-{i:02d}") for i in range(12)])
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    wrapper = tmp_path / ".venv" / "bin" / "invoke"
    wrapper.write_text(f'#!/bin/sh\nexec "{INVOKE}" -r "{ROOT}" "$@"\n', "utf-8")
    wrapper.chmod(0o755)
    shards = tmp_path / "shards"
    shards.mkdir()
    for i in (1, 2):
        assert (
            run_script(
                tmp_path, script("shard", "Run one shard"), SHARD=str(i), SHARDS="3"
            ).returncode
            == 0
        )
        for f in (tmp_path / "runs").glob(f"*_nightly-shard-{i}.jsonl"):
            shutil.move(f, shards / f.name)
    merged = run_script(tmp_path, script("merge", "Merge the shards"))
    assert merged.returncode == 2 and "missing" in merged.stderr
