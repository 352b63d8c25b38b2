"""Reading run files: interrupted runs are readable, other files are refused in one line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from recordkit import header, row

from evals.errors import InputError
from evals.run.files import RunWriter, read_run, resolve_run

HEADER = header()
ROW = row("a")


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


# -- damaged run files: every command that reads one says which line, exit 2 --------------

OFFLINE = "local/extractive@2026-11-01"


def _commands(path: Path, good: Path, tmp: Path) -> dict[str, Any]:
    from evals.calibrate.judge import cmd_calibrate
    from evals.commands.run import RunOptions, cmd_run
    from evals.compare.baseline import cmd_baseline
    from evals.compare.command import cmd_diff
    from evals.label.command import cmd_label
    from evals.mutate.command import cmd_mutate
    from evals.report.command import cmd_report
    from evals.report.show import cmd_show
    from evals.run.merge import cmd_merge

    labels = tmp / "labels.jsonl"
    labels.write_text('{"case": "case-000", "label": "pass"}\n', encoding="utf-8")
    return {
        "report": lambda: cmd_report(str(path)),
        "report --html": lambda: cmd_report(str(path), html=str(tmp / "r.html")),
        "report --review": lambda: cmd_report(str(path), review=True),
        "show": lambda: cmd_show("case-000", str(path)),
        "label": lambda: cmd_label(str(path), port=0, no_browser=True),
        "comparison report": lambda: cmd_report(a=str(good), b=str(path), html=str(tmp / "c.html")),
        "diff": lambda: cmd_diff(str(good), str(path)),
        "baseline": lambda: cmd_baseline(str(path)),
        "run --resume": lambda: cmd_run(RunOptions(resume=str(path))),
        "mutate --from-run": lambda: cmd_mutate(None, None, str(path), "md", None),
        "merge": lambda: cmd_merge([f"{good},{path}"], str(tmp / "merged.jsonl")),
        "calibrate --run": lambda: cmd_calibrate(None, str(path), str(labels), None, False),
    }


def _deep(n: int) -> str:
    return "[" * n + "]" * n


def _mangle(records: list[dict[str, Any]], how: str) -> tuple[list[str], int]:
    """The run file's lines damaged one way, and the (1-based) line that is damaged."""
    lines = [json.dumps(r) for r in records]
    rec = json.loads(lines[1])
    if how == "nested row":
        lines[1] = lines[1][:-1] + ', "usage": ' + _deep(100_000) + "}"
        return lines, 2
    if how == "nested header":
        lines[0] = lines[0][:-1] + ', "x": ' + _deep(100_000) + "}"
        return lines, 1
    if how == "checks as a list":
        rec["checks"] = list(rec["checks"])
    elif how == "a check result as a string":
        rec["checks"][next(iter(rec["checks"]))] = "pass"
    elif how == "score as a string":
        rec["score"] = "1.0"
    elif how == "NaN score":
        lines[1] = lines[1].replace('"score": 1.0', '"score": NaN')
        return lines, 2
    elif how in ("settings as a string", "epochs as a string"):
        header = json.loads(lines[0])
        if how == "epochs as a string":
            header["settings"]["epochs"] = "two"
        else:
            header["settings"] = "fast"
        lines[0] = json.dumps(header)
        return lines, 1
    elif how in ("format 99", "epochs past the bound"):
        header = json.loads(lines[0])
        if how == "format 99":
            header["format"] = 99
        else:
            header["settings"]["epochs"] = 1_000_000_000
        lines[0] = json.dumps(header)
        return lines, 1
    elif how == "two summaries":
        lines.append(lines[-1])
        return lines, len(lines)
    elif how == "a cost of 1e999":
        rec["cost_usd"] = 12345.0
        lines[1] = json.dumps(rec).replace("12345.0", "1e999")
        return lines, 2
    elif how == "batch custom_ids as a number":
        batch = {"kind": "batch", "event": "uploaded", "at": "2026-11-29T10:00:00Z"}
        batch.update(input_file_id="file-1", requests=1, custom_ids=5)
        lines.insert(1, json.dumps(batch))
        return lines, 2
    elif how.startswith("a line of JSON "):
        lines.insert(2, how.removeprefix("a line of JSON "))
        return lines, 3
    elif how == "token counts as text":
        summary = json.loads(lines[-1])
        summary["tokens"] = {"prompt_tokens": "many"}
        lines[-1] = json.dumps(summary)
        return lines, len(lines)
    lines[1] = json.dumps(rec)
    return lines, 2


MANGLED = [
    "nested row",
    "nested header",
    "checks as a list",
    "a check result as a string",
    "score as a string",
    "NaN score",
    "settings as a string",
    "epochs as a string",
    "token counts as text",
    "format 99",
    "epochs past the bound",
    "two summaries",
    "a cost of 1e999",
    "batch custom_ids as a number",
    # JSON, but no record: each reader expects an object.
    *(f"a line of JSON {v}" for v in ("null", "5", '"str"', "true", "[1,2,3]")),
]


@pytest.fixture(scope="module")
def good_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run of the offline model over three cases."""
    import os

    from runkit import make_project

    from evals.cli import guarded
    from evals.commands.run import RunOptions, cmd_run

    root = make_project(tmp_path_factory.mktemp("proj"), 3)
    here = Path.cwd()
    os.chdir(root)
    try:
        assert guarded(lambda: cmd_run(RunOptions(models=[OFFLINE], model=OFFLINE))) in (0, 1)
    finally:
        os.chdir(here)
    (path,) = sorted((root / "runs").glob("*.jsonl"))
    return path


@pytest.mark.parametrize("how", MANGLED)
def test_a_damaged_run_file_is_one_line_and_exit_2_in_every_command_that_reads_one(
    good_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, how: str
) -> None:
    from evals.cli import guarded

    root = good_run.parent.parent
    monkeypatch.chdir(root)
    records = [json.loads(x) for x in good_run.read_text("utf-8").splitlines()]
    lines, bad_line = _mangle(records, how)
    path = root / "runs" / f"damaged-{re.sub(r'[^a-z0-9]+', '-', how)}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for name, command in _commands(path, good_run, tmp_path).items():
        capsys.readouterr()
        code = guarded(command)
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2, (name, code, err)
        assert len(err) == 1 and err[0].startswith(f"{path}: line {bad_line}"), (name, err)
    assert not (root / "runs" / "BASELINE").exists()
    assert not (tmp_path / "merged.jsonl").exists()


def test_a_run_file_writer_and_reader_agree_on_every_record_a_real_run_writes(
    good_run: Path,
) -> None:
    run = read_run(good_run)
    assert len(run.rows) == 3 and run.complete and not run.warnings


def test_a_row_of_another_run_is_named_in_a_warning(good_run: Path, tmp_path: Path) -> None:
    lines = good_run.read_text("utf-8").split("\n")
    rec = json.loads(lines[1])
    rec["run_id"] = "2026-01-01T00-00-00-000000Z_0000000"
    lines[1] = json.dumps(rec)
    path = tmp_path / "pasted.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    run = read_run(path)
    assert len(run.rows) == 3
    assert run.warnings == [
        f"{path}: line 2: a case record of run '2026-01-01T00-00-00-000000Z_0000000', not of "
        f"this run ({run.run_id!r}); read as this run's"
    ]


def test_a_row_repeated_for_the_same_case_and_epoch_is_named_in_a_warning(
    good_run: Path, tmp_path: Path
) -> None:
    lines = good_run.read_text("utf-8").split("\n")
    lines.insert(2, lines[1])
    path = tmp_path / "twice.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    run = read_run(path)
    case = run.rows[0]["case"]
    assert run.warnings == [
        f"{path}: line 3: a second row for case {case!r}, epoch 0 (the first is line 2); "
        "both are read"
    ]


def test_repeated_rows_are_named_in_line_order_among_the_other_warnings(
    good_run: Path, tmp_path: Path
) -> None:
    # Rows are remembered by a hash of their case and epoch; the warnings still name the
    # exact lines, the latest earlier one as "the first", in the order of the file.
    lines = good_run.read_text("utf-8").split("\n")
    row = json.loads(lines[1])
    pasted = json.dumps({**row, "run_id": "2026-01-01T00-00-00-000000Z_0000000"})
    lines[3:3] = [lines[1], pasted, lines[1]]
    path = tmp_path / "thrice.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    run = read_run(path)
    case = row["case"]
    second = "a second row for case"
    assert run.warnings == [
        f"{path}: line 4: {second} {case!r}, epoch 0 (the first is line 2); both are read",
        f"{path}: line 5: a case record of run '2026-01-01T00-00-00-000000Z_0000000', not of "
        f"this run ({run.run_id!r}); read as this run's",
        f"{path}: line 5: {second} {case!r}, epoch 0 (the first is line 4); both are read",
        f"{path}: line 6: {second} {case!r}, epoch 0 (the first is line 5); both are read",
    ]
    assert len(run.rows) == len(lines) - 2 - lines.count("")


def test_rows_of_one_case_in_different_epochs_are_no_repeat(good_run: Path, tmp_path: Path) -> None:
    lines = good_run.read_text("utf-8").split("\n")
    row = json.loads(lines[1])
    lines.insert(2, json.dumps({**row, "epoch": 1}))
    path = tmp_path / "epochs.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    assert read_run(path).warnings == []
