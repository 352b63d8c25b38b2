"""The compiled schema check agrees with `jsonschema` on every record shape it is shown."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from recordkit import header, row

from evals.suite.compiled_schema import SchemaCompileError, compile_schema
from evals.suite.schemas import schema, validator

DEFS = {"run": "header", "case": "row", "summary": "summary"}
VALUES: list[Any] = [None, True, False, 0, 1, -1, 1.0, 2.5, "x", "", [], {}, ["a"], [1], {"a": 1}]


def _summary() -> dict[str, Any]:
    rate = {"pass": 1, "fail": 0, "error": 0, "skip": 0, "n_scored": 1, "n_total": 1, "rate": 1.0}
    return {
        "kind": "summary",
        "completed": True,
        "counts": {"pass": 1, "fail": 0, "error": 0, "total": 1},
        "checks": {"facts": rate},
        "categories": {"pricing": rate},
        "tokens": {"prompt_tokens": 3},
    }


def _records() -> list[dict[str, Any]]:
    check = {"status": "fail", "score": 0.5, "detail": "1 of 2"}
    judged = row(
        "b",
        status="fail",
        score=0.5,
        checks={"facts": check},
        judge={"model": "j", "verdict": {"score": 2}, "error": None},
        review_reasons=["low score"],
    )
    settings = {"epochs": 2, "selection": {"case": None, "shard": {"index": 1, "count": 2}}}
    return [header(settings=settings), row("a"), judged, row("c", status="error"), _summary()]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*path, i))


def _mutants(rec: dict[str, Any], rng: random.Random) -> Iterator[dict[str, Any]]:
    """The record with one value replaced by each sample value, or deleted."""
    for path in list(_paths(rec))[1:]:
        for value in [*VALUES, "__delete__", rng.random()]:
            out = copy.deepcopy(rec)
            parent = out
            for key in path[:-1]:
                parent = parent[key]
            if value == "__delete__":
                if not isinstance(parent, dict):
                    continue
                del parent[path[-1]]
            else:
                parent[path[-1]] = value
            yield out


def test_the_compiled_run_schema_accepts_and_refuses_what_jsonschema_does() -> None:
    run_schema = schema("run.schema.json")
    slow = validator("run.schema.json")
    checks = {k: compile_schema(run_schema, f"#/$defs/{d}") for k, d in DEFS.items()}
    rng = random.Random(7)
    compared = 0
    for rec in _records():
        assert checks[rec["kind"]](rec) is None, rec
        for mutant in _mutants(rec, rng):
            kind = mutant.get("kind")
            if not isinstance(kind, str) or kind not in checks:
                continue
            fast = checks[kind](mutant)
            errors = list(slow.iter_errors(mutant))
            if fast is None:
                assert not errors, (mutant, errors[:1])  # never laxer than jsonschema
            elif not errors:
                # Stricter only where jsonschema lacks its optional date-time checker.
                assert fast[1].endswith("is not a date-time"), (mutant, fast)
            compared += 1
    assert compared > 500


def test_a_problem_names_the_path_to_the_bad_value() -> None:
    check = compile_schema(schema("run.schema.json"), "#/$defs/row")
    bad = row("a", checks={"facts": "pass"})
    assert check(bad) == (("checks", "facts"), "expected object, found string")
    assert check(row("a", score="1.0")) == (("score",), "expected number or null, found string")
    assert check({**row("a"), "case_sha": "xyz"})[0] == ("case_sha",)


def test_a_date_time_is_checked_whatever_jsonschema_has_installed() -> None:
    check = compile_schema(schema("run.schema.json"), "#/$defs/header")
    assert check(header(created="2026-11-29T10:00:00.5+01:00")) is None
    assert check(header(created="yesterday")) == (("created",), "'yesterday' is not a date-time")


def test_a_keyword_the_compiler_does_not_know_is_refused_at_compile_time() -> None:
    with pytest.raises(SchemaCompileError, match="patternProperties"):
        compile_schema({"type": "object", "patternProperties": {"^x": {"type": "string"}}})


def test_every_schema_of_the_project_compiles() -> None:
    for name in ("run.schema.json", "ledger.schema.json", "case.schema.json", "judge.schema.json"):
        try:
            compile_schema(schema(name))
        except SchemaCompileError as exc:
            # Only the run and ledger schemas are read through the compiled check.
            assert name not in ("run.schema.json", "ledger.schema.json"), exc
    assert json.dumps(schema("run.schema.json"))
