"""The suite folder: symbolic links into or out of it are refused wherever case files are read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from casekit import good_case, make_project
from sealkit import new_key

from evals.cli import guarded
from evals.commands.run import RunOptions, cmd_run
from evals.commands.suite import cmd_fmt, cmd_validate
from evals.seal.sealing import cmd_seal

OUTSIDE = {**good_case("stolen"), "question": "Secret question from outside the suite?"}


def _commands() -> dict[str, object]:
    return {
        "validate": lambda: cmd_validate(None),
        "fmt": lambda: cmd_fmt(None, False),
        "fmt --check": lambda: cmd_fmt(None, True),
        "run": lambda: cmd_run(RunOptions()),
        "seal": lambda: cmd_seal(None, ids="price-pro", budget=2),
    }


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "proj").mkdir()
    suite = make_project(tmp_path / "proj", [good_case()])
    monkeypatch.chdir(suite.parent)
    monkeypatch.setenv("EVAL_SEAL_KEY", new_key())
    return suite


def _outside_file(tmp_path: Path) -> Path:
    target = tmp_path / "outside" / "stolen.json"
    target.parent.mkdir()
    # Not canonical (one line), so `fmt` would rewrite it if it followed the link.
    target.write_text(json.dumps(OUTSIDE), encoding="utf-8")
    return target


@pytest.mark.parametrize("command", list(_commands()))
def test_a_symlinked_case_file_is_refused_and_left_alone(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    target = _outside_file(tmp_path)
    link = project / "cases" / "stolen.json"
    link.symlink_to(target)
    before = target.read_bytes()
    assert guarded(_commands()[command]) == 2
    err = capsys.readouterr().err
    assert f"{link}: /: a symbolic link" in err and "Traceback" not in err
    assert link.is_symlink() and target.read_bytes() == before
    assert not (project.parent / "runs").exists()  # nothing ran
    assert OUTSIDE["question"] not in err


@pytest.mark.parametrize("folder", ["cases", "sealed"])
@pytest.mark.parametrize("command", list(_commands()))
def test_a_symlinked_cases_or_sealed_folder_is_refused(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], folder: str, command: str
) -> None:
    real = tmp_path / f"real-{folder}"
    if folder == "cases":
        shutil.move(project / "cases", real)
    else:
        real.mkdir()
    (project / folder).symlink_to(real, target_is_directory=True)
    assert guarded(_commands()[command]) == 2
    err = capsys.readouterr().err
    assert f"{project / folder}: /: a symbolic link" in err and "Traceback" not in err
    assert not (project.parent / "runs").exists()


def test_a_symlink_inside_sealed_is_refused_by_validate(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert guarded(lambda: cmd_seal(None, ids="price-pro", budget=2)) == 0
    elsewhere = tmp_path / "ledger-elsewhere.jsonl"
    elsewhere.write_text("", encoding="utf-8")
    (project / "sealed" / "LEDGER.jsonl").symlink_to(elsewhere)
    capsys.readouterr()
    assert guarded(lambda: cmd_validate(None)) == 2
    assert f"{project / 'sealed' / 'LEDGER.jsonl'}: /: a symbolic link" in capsys.readouterr().err


def test_review_refuses_a_symlinked_case_file_instead_of_quoting_its_target(
    project: Path, tmp_path: Path
) -> None:
    import os
    import subprocess

    from casekit import GIT_ENV, invoke

    root = project.parent
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "suite"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    link = project / "cases" / "stolen.json"
    link.symlink_to(_outside_file(tmp_path))
    r = invoke(root, "review", "--base", "HEAD", env=GIT_ENV)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "a symbolic link" in r.stderr and OUTSIDE["question"] not in r.stdout + r.stderr
