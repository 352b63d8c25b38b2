"""The offline extractive model: deterministic, cites what it quotes, declines when nothing fits."""

from __future__ import annotations

from pathlib import Path

import jsonschema
from casekit import good_case, invoke, make_project, read_jsonl

from evals.providers.local import ExtractiveModel
from evals.suite.case import Case
from evals.suite.schemas import schema

MODEL = "local/extractive@2026-11-01"


def test_answers_from_the_most_relevant_passage_with_citation() -> None:
    case = Case(good_case(question="How much is a Pro seat per month?"))
    reply = ExtractiveModel(MODEL).reply_to(case)
    assert "45 €" in reply.answer
    assert "[doc:pricing#plans]" in reply.answer
    assert reply.cited == ["pricing#plans"] and reply.abstained is False


def test_declines_when_nothing_relevant_was_retrieved() -> None:
    case = Case(good_case(question="Can you recommend a good lawyer in Hamburg?"))
    reply = ExtractiveModel(MODEL).reply_to(case)
    assert reply.abstained is True and reply.cited == []


def test_is_deterministic() -> None:
    case = Case(good_case())
    assert (
        ExtractiveModel(MODEL).reply_to(case).answer == ExtractiveModel(MODEL).reply_to(case).answer
    )


def test_offline_run_writes_a_schema_valid_stamped_run_file(tmp_path: Path) -> None:
    make_project(
        tmp_path,
        [
            good_case("a"),
            good_case("b", expect={"abstain": True}, question="Can I fire someone for lateness?"),
        ],
    )
    res = invoke(tmp_path, "run")
    assert res.returncode in (0, 1), res.stdout + res.stderr
    [path] = list((tmp_path / "runs").glob("*.jsonl"))
    records = read_jsonl(path)
    validator = jsonschema.Draft202012Validator(schema("run.schema.json"))
    for rec in records:
        validator.validate(rec)
    header, *rows, summary = records
    assert header["kind"] == "run" and summary["kind"] == "summary" and summary["completed"]
    assert [r["kind"] for r in rows] == ["case", "case"]
    for row in rows:
        assert row["model"] == MODEL
        assert row["prompt_sha"] == header["prompt_sha"]
    assert path.name.endswith(f"_{header['prompt_sha'][:7]}.jsonl")
    # Relative to the project, so a committed run file does not name one machine's checkout.
    assert header["suite"] == "suite"
    assert "run file:" in res.stdout and "mean score" in res.stdout
