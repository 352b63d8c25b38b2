"""JSON Lines everywhere the harness reads them: only `\n` ends a line, however a record's
strings are written; numbers too large for a float are refused like NaN."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from recordkit import header, row

from evals.errors import Problem
from evals.interchange.reading import read_jsonl
from evals.providers.replay import load_answers
from evals.run.files import RunWriter, read_run
from evals.suite.jsonl import jsonl_lines, parse_record

#: Line and paragraph separators and NEL: `str.splitlines()` ends a line at each, JSON does not.
SEPARATORS = "a\u2028b\u2029c\x85d\x1ce\x1df\x1eg\x0bh\x0ci"


def test_only_a_newline_ends_a_jsonl_line():
    text = json.dumps({"answer": SEPARATORS}, ensure_ascii=False) + "\r\n" + "{}\n"
    assert len(text.splitlines()) > 2  # what the harness must not do
    lines = jsonl_lines(text)
    assert len(lines) == 2 and parse_record(lines[0]) == {"answer": SEPARATORS}
    assert jsonl_lines("") == [] and jsonl_lines("{}") == ["{}"]


def test_a_number_too_large_for_a_float_is_not_read_as_infinity():
    with pytest.raises(ValueError, match="too large"):
        parse_record('{"cost_usd": 1e999}')
    with pytest.raises(ValueError, match="not JSON"):
        parse_record('{"cost_usd": -Infinity}')
    assert parse_record('{"cost_usd": 1e308}') == {"cost_usd": 1e308}


def test_a_run_file_row_with_raw_separators_reads_back_whole(tmp_path: Path):
    path = tmp_path / "r1.jsonl"
    with RunWriter(path) as w:
        w.write(header())
        w.write(row("a", draft=SEPARATORS))
    assert "a\u2028b\u2029c\x85d" in path.read_text("utf-8")  # written raw, not escaped
    (got,) = read_run(path).rows
    assert got["draft"] == SEPARATORS


def test_an_imported_jsonl_line_with_raw_separators_is_one_record(tmp_path: Path):
    path = tmp_path / "golden.jsonl"
    line = json.dumps({"id": "a", "question": SEPARATORS}, ensure_ascii=False)
    problems: list[Problem] = []
    got = read_jsonl(path, line + "\n" + line.replace('"a"', '"b"') + "\n", problems)
    assert problems == []
    assert [(n, r["id"], r["question"]) for n, r in got] == [
        (1, "a", SEPARATORS),
        (2, "b", SEPARATORS),
    ]


def test_a_replayed_answer_with_raw_separators_is_one_answer(tmp_path: Path):
    path = tmp_path / "answers.jsonl"
    answer = f"45 EUR {SEPARATORS}"
    path.write_text(
        json.dumps({"case": "case-000", "answer": answer}, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    got = load_answers(path)
    assert list(got) == ["case-000"] and got["case-000"]["answer"] == answer
