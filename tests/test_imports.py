"""Commands import only what they use: the offline run, `validate`, `diff` and `report` never
load the OpenAI SDK, and the other heavy modules stay out where nothing needs them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUITE_DATA = ("cases", "labelled", "prompt.txt", "judge_prompt.txt", "suite.toml")
# Runs one `invoke` command in this process, then writes which heavy modules it loaded.
PROBE = """
import json, os, sys
from invoke.main import program
try:
    program.run(["invoke", "--search-root", os.environ["PROBE_ROOT"], *sys.argv[1:]])
except SystemExit as exc:
    code = exc.code
else:
    code = 0
heavy = ("openai", "jsonschema", "cryptography", "rich", "httpx", "httpx2", "pydantic")
loaded = sorted({m.split(".")[0] for m in sys.modules} & set(heavy))
with open(os.environ["PROBE_OUT"], "w") as f:
    json.dump({"code": code, "loaded": loaded, "no_pyc": sys.dont_write_bytecode}, f)
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the example suite with the project's settings, and one offline run file."""
    root = tmp_path_factory.mktemp("example")
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    for name in SUITE_DATA:
        src = ROOT / "evals" / name
        if src.is_dir():
            shutil.copytree(src, root / "evals" / name)
        elif src.is_file():
            (root / "evals").mkdir(exist_ok=True)
            shutil.copy(src, root / "evals" / name)
    return root


def probe(project: Path, *argv: str, env_extra: dict[str, str] | None = None) -> dict[str, Any]:
    """`invoke ARGV` run in `project`: its exit code, the heavy modules it imported, and
    whether it left bytecode unwritten."""
    out = project / "probe.json"
    env = {**os.environ, "PROBE_ROOT": str(ROOT), "PROBE_OUT": str(out)}
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "EVAL_SEAL_KEY", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    env.update(env_extra or {})
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.exists(), proc.stderr[-2000:]
    result = json.loads(out.read_text("utf-8"))
    out.unlink()
    return result


def loaded_by(project: Path, *argv: str) -> tuple[int, set[str]]:
    """The exit code of `invoke ARGV` in `project`, and the heavy modules it imported."""
    result = probe(project, *argv)
    return result["code"], set(result["loaded"])


def run_file(project: Path) -> Path:
    """The newest run file of the project (made by an offline run when there is none)."""
    files = sorted((project / "runs").glob("*.jsonl"))
    if not files:
        loaded_by(project, "run")
        files = sorted((project / "runs").glob("*.jsonl"))
    return files[-1]


def test_the_offline_run_loads_no_heavy_module(project: Path) -> None:
    code, loaded = loaded_by(project, "run")
    assert code in (0, 1)  # the offline model fails some example cases for real reasons
    assert not loaded


def test_validate_loads_no_heavy_module(project: Path) -> None:
    code, loaded = loaded_by(project, "validate")
    assert code == 0
    assert not loaded


def test_diff_loads_no_heavy_module(project: Path) -> None:
    path = run_file(project)
    code, loaded = loaded_by(project, "diff", "--a", str(path), "--b", str(path))
    assert code in (0, 1, 3)
    assert not loaded


def test_report_loads_only_rich_for_its_tables(project: Path) -> None:
    code, loaded = loaded_by(project, "report", "--run", str(run_file(project)))
    assert code == 0
    assert loaded == {"rich"}


def test_an_invalid_case_still_gets_the_full_report(project: Path, tmp_path: Path) -> None:
    """jsonschema is loaded once a case file needs its report, and the report names the field."""
    bad = tmp_path / "bad"
    shutil.copytree(project, bad, ignore=shutil.ignore_patterns("runs", ".evals-cache"))
    case = next((bad / "evals" / "cases").glob("*.json"))
    data = json.loads(case.read_text("utf-8"))
    data["question"] = 7
    case.write_text(json.dumps(data), encoding="utf-8")
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("invoke")), "--search-root", str(ROOT), "validate"],
        cwd=bad,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 2
    assert f"{case.name}" in proc.stdout + proc.stderr
    assert "/question" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    _, loaded = loaded_by(bad, "validate")
    assert "jsonschema" in loaded and "openai" not in loaded


def test_commands_keep_pythons_bytecode_setting_instead_of_invokes(project: Path) -> None:
    """invoke turns bytecode writing off; the package's modules would then be compiled from
    source on every command. Python's own setting decides again."""
    assert probe(project, "validate")["no_pyc"] is False
    assert probe(project, "validate", env_extra={"PYTHONDONTWRITEBYTECODE": "1"})["no_pyc"] is True
