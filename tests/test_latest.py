"""`latest` as every command that reads runs means it: the newest run of the `--suite` in use
that ran to its end; a run that stopped early is read only when named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from diffkit import project, row, summary, write_run

from evals.cli import guarded
from evals.errors import InputError
from evals.run.latest import resolve_for_suite, stopped_early

OLD = "2026-11-01T10-00-00-000000Z_aaaaaaa"
OTHER = "2026-11-02T10-00-00-000000Z_bbbbbbb"
STOPPED = "2026-11-03T10-00-00-000000Z_ccccccc"


def stopped_run(path: Path, run_id: str, suite: str = "evals") -> Path:
    """A run the endpoint refused: every row an error, a summary that says it stopped."""
    rows = [row(run_id, f"c{i}", "error", error="connection refused") for i in range(3)]
    end = summary(run_id, rows) | {"completed": False, "stopped_reason": "refused: connection"}
    write_run(path, run_id, rows, complete=False, suite=suite)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(end) + "\n")
    return path


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project(tmp_path)
    for name in ("evals", "mine"):
        (tmp_path / name / "cases").mkdir(parents=True)
    runs = tmp_path / "runs"
    write_run(runs / f"{OLD}.jsonl", OLD, [row(OLD, "c0", "pass"), row(OLD, "c1", "fail")])
    rows = [row(OTHER, "plans-plus-price", "pass")]
    write_run(runs / f"{OTHER}.jsonl", OTHER, rows, suite="mine", created="2026-11-02T10:00:00Z")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_latest_is_the_newest_run_of_the_suite_given_with_suite(proj: Path) -> None:
    runs = proj / "runs"
    assert resolve_for_suite("latest", None, "--b RUN") == runs / f"{OLD}.jsonl"
    assert resolve_for_suite("latest", "mine", "--b RUN") == runs / f"{OTHER}.jsonl"
    # A run named outright is read whatever its suite.
    assert resolve_for_suite(OLD, "mine", "--b RUN") == runs / f"{OLD}.jsonl"


def test_latest_passes_over_a_run_that_stopped_early_and_says_so(proj: Path, capsys) -> None:
    runs = proj / "runs"
    stopped = stopped_run(runs / f"{STOPPED}.jsonl", STOPPED)
    assert stopped_early(stopped) == "refused: connection"
    assert stopped_early(runs / f"{OLD}.jsonl") is None
    assert resolve_for_suite("latest", None, "--b RUN") == runs / f"{OLD}.jsonl"
    assert f"latest passes over {STOPPED}.jsonl, which stopped early" in capsys.readouterr().err
    # Asked for: by name, or as resume takes it.
    assert resolve_for_suite(STOPPED, None, "--b RUN") == stopped
    assert resolve_for_suite("latest", None, "--resume RUN", stopped_ok=True) == stopped


def test_a_run_cut_off_before_its_summary_is_not_latest(proj: Path) -> None:
    runs = proj / "runs"
    cut = write_run(
        runs / f"{STOPPED}.jsonl", STOPPED, [row(STOPPED, "c0", "pass")], complete=False
    )
    assert stopped_early(cut) == "no summary (interrupted, or still running)"
    assert resolve_for_suite("latest", None, "--b RUN") == runs / f"{OLD}.jsonl"


def test_a_suite_whose_every_run_stopped_early_names_the_newest_and_how_to_read_it(
    proj: Path,
) -> None:
    stopped_run(proj / "runs" / f"{STOPPED}.jsonl", STOPPED, suite="mine")
    (proj / "runs" / f"{OTHER}.jsonl").unlink()
    with pytest.raises(InputError) as err:
        resolve_for_suite("latest", "mine", "--b RUN")
    assert err.value.lines() == [
        f"no run of the suite mine in {proj / 'runs'} ran to its end (the newest, "
        f"{STOPPED}.jsonl, stopped early: refused: connection): name the run with --b RUN"
    ]


def test_show_reads_the_suite_given_and_names_the_suite_of_a_run_without_the_case(
    proj: Path, capsys
) -> None:
    from evals.report.show import cmd_show

    assert guarded(lambda: cmd_show("plans-plus-price", suite="mine")) == 0
    assert f"run file: {proj / 'runs' / OTHER}.jsonl" in capsys.readouterr().out
    assert guarded(lambda: cmd_show("plans-plus-price")) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(
        f"{proj / 'runs' / OLD}.jsonl: no case 'plans-plus-price' in this run of the suite evals"
    )
    assert "--suite DIR" in err


def test_report_diff_and_baseline_take_latest_from_the_suite_given(proj: Path, capsys) -> None:
    from evals.compare.baseline import cmd_baseline
    from evals.report.command import cmd_report

    assert guarded(lambda: cmd_report(suite="mine")) == 0
    assert OTHER in capsys.readouterr().out
    assert guarded(lambda: cmd_baseline("latest", "mine")) == 0
    assert (proj / "runs" / "BASELINE").read_text("utf-8") == f"{OTHER}.jsonl\n"
    assert guarded(lambda: cmd_baseline("latest")) == 0
    assert (proj / "runs" / "BASELINE").read_text("utf-8") == f"{OLD}.jsonl\n"


def test_a_suite_folder_that_does_not_exist_is_named(proj: Path) -> None:
    with pytest.raises(InputError) as err:
        resolve_for_suite("latest", "nope", "--b RUN")
    assert err.value.lines() == ["--suite nope: no such folder"]
