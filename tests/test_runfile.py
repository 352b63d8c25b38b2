"""Reading run files: interrupted runs are readable, other files are refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.errors import InputError
from evals.run.files import RunWriter, read_run, resolve_run

HEADER = {"kind": "run", "run_id": "r1", "model": "m@2026-01-01"}
ROW = {"kind": "case", "case": "a", "status": "pass", "score": 1.0}


def test_truncated_last_line_is_reported_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "r1.jsonl"
    path.write_text(json.dumps(HEADER) + "\n" + json.dumps(ROW) + "\n" + '{"kind": "ca')
    run = read_run(path)
    assert run.truncated and len(run.rows) == 1 and not run.complete
    assert "truncated last line" in run.warnings[0]


def test_a_text_file_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n\nnot json\nstill not\n" * 50)
    with pytest.raises(InputError) as info:
        read_run(path)
    assert info.value.lines() == [f"{path}: line 1: not a run file (no JSON run header)"]


def test_a_jsonl_file_of_other_records_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text('{"case": "a", "answer": "x"}\n' * 30)
    with pytest.raises(InputError) as info:
        read_run(path)
    assert len(info.value.problems) == 1 and "not a run file" in info.value.lines()[0]


def test_writer_refuses_to_overwrite_a_run_file(tmp_path: Path) -> None:
    path = tmp_path / "r1.jsonl"
    with RunWriter(path) as w:
        w.write(HEADER)
    with pytest.raises(FileExistsError):
        RunWriter(path)
    assert read_run(path).header == HEADER


def test_baseline_pointing_at_a_missing_file_says_so(tmp_path: Path) -> None:
    (tmp_path / "BASELINE").write_text("gone.jsonl\n")
    with pytest.raises(InputError, match="BASELINE points at 'gone.jsonl', which does not exist"):
        resolve_run("baseline", tmp_path)


def test_latest_and_run_id_resolve(tmp_path: Path) -> None:
    for name in ("2026-01-01_a.jsonl", "2026-02-01_b.jsonl"):
        (tmp_path / name).write_text(json.dumps(HEADER) + "\n")
    assert resolve_run("latest", tmp_path).name == "2026-02-01_b.jsonl"
    assert resolve_run("2026-01-01_a", tmp_path).name == "2026-01-01_a.jsonl"
    (tmp_path / "BASELINE").write_text("2026-01-01_a.jsonl\n")
    assert resolve_run("baseline", tmp_path).name == "2026-01-01_a.jsonl"


def test_latest_ignores_a_hand_named_file_that_sorts_last(tmp_path: Path) -> None:
    for name in ("2026-01-01T10-00-00-000000Z_a.jsonl", "merged.jsonl"):
        (tmp_path / name).write_text(json.dumps(HEADER) + "\n")
    assert resolve_run("latest", tmp_path).name == "2026-01-01T10-00-00-000000Z_a.jsonl"


def test_a_lone_surrogate_in_an_answer_is_escaped_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "r1.jsonl"
    with RunWriter(path) as w:
        w.write(HEADER)
        w.write({**ROW, "draft": "45 € \ud800 [doc:pricing#plans]"})
    run = read_run(path)
    assert run.rows[0]["draft"] == "45 € \ud800 [doc:pricing#plans]"
