"""The compiled schema check agrees with `jsonschema` on every record shape it is shown."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from casekit import good_case
from recordkit import header, row

from evals.suite.compiled_schema import SchemaCompileError, compile_schema
from evals.suite.schemas import reported_problems, schema, schema_problems, validator

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


# --- case files and labelled answers: the compiled check decides, jsonschema reports -------

EXAMPLE = Path(__file__).resolve().parent.parent / "evals"
# Values that probe the case schema's own rules: a date that is no day, a too-long id,
# characters an id refuses, a duplicate-making copy.
CASE_VALUES: list[Any] = [*VALUES, "2026-02-30", "2026-11-01", "26-11-01", "a" * 130, "A b", "x\n"]


def _seeds() -> dict[str, list[Any]]:
    """Every example case, a realistic test case, and every labelled answer of the example."""
    cases = [json.loads(p.read_text("utf-8")) for p in sorted((EXAMPLE / "cases").glob("*.json"))]
    labelled = [
        json.loads(line)
        for p in sorted((EXAMPLE / "labelled").glob("*.jsonl"))
        for line in p.read_text("utf-8").splitlines()
        if line.strip()
    ]
    return {"case.schema.json": [*cases, good_case()], "labelled.schema.json": labelled}


def _shape(path: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple("#" if isinstance(p, int) else p for p in path)


def _case_mutants(seeds: list[Any]) -> Iterator[Any]:
    """Each seed with one value replaced by each probe value or deleted, an unknown field
    added to each object, a list item doubled; each field's shape probed once over all seeds."""
    seen: set[tuple[Any, ...]] = set()
    for seed in seeds:
        for path in list(_paths(seed))[1:]:
            for value in [*CASE_VALUES, "__delete__", "__extra__", "__double__"]:
                key = (_shape(path), repr(value))
                if key in seen:
                    continue
                seen.add(key)
                out = copy.deepcopy(seed)
                parent = out
                for step in path[:-1]:
                    parent = parent[step]
                target = parent[path[-1]]
                if value == "__delete__":
                    if not isinstance(parent, dict):
                        continue
                    del parent[path[-1]]
                elif value == "__extra__":
                    if not isinstance(target, dict):
                        continue
                    target["not_a_field"] = 1
                elif value == "__double__":
                    if not isinstance(target, list) or not target:
                        continue
                    target.append(copy.deepcopy(target[0]))
                else:
                    parent[path[-1]] = value
                yield out
    yield from ([], "a case", None, 3, {})  # not objects at all


@pytest.mark.parametrize("name", ["case.schema.json", "labelled.schema.json"])
def test_case_and_labelled_files_get_the_same_verdict_and_report_from_both_validators(
    name: str,
) -> None:
    fast = compile_schema(schema(name))
    slow = validator(name)
    seeds = _seeds()[name]
    for seed in seeds:
        assert fast(seed) is None and not list(slow.iter_errors(seed)), seed
    malformed = 0
    for mutant in _case_mutants(seeds):
        first = fast(mutant)
        errors = list(slow.iter_errors(mutant))
        # The same verdict both ways: never laxer, and never stricter, than jsonschema.
        assert (first is None) == (not errors), (mutant, first, errors[:1])
        if first is None:
            continue
        malformed += 1
        # The compiled check's first problem is one jsonschema reports too, at the same place
        # (jsonschema names the object that holds an unknown field, the compiled check the field).
        where = first[0][:-1] if first[1] == "unknown field" else first[0]
        assert tuple(where) in {tuple(e.absolute_path) for e in errors}, (mutant, first)
        # What users read is jsonschema's full report, every problem with its pointer.
        assert schema_problems(mutant, name, "f.json") == reported_problems(mutant, name, "f.json")
        assert schema_problems(mutant, name, "f.json")
    assert malformed > (300 if name == "case.schema.json" else 40)


def test_a_valid_case_is_accepted_without_loading_jsonschema() -> None:
    code = (
        "import json, sys\n"
        "from evals.suite.schemas import schema_problems\n"
        f"data = json.loads({json.dumps(json.dumps(good_case()))})\n"
        "assert schema_problems(data, 'case.schema.json', 'x.json') == []\n"
        "print('jsonschema' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.stdout.strip() == "False", out.stderr


def test_a_date_must_be_a_real_day_and_an_id_fits_its_length() -> None:
    check = compile_schema(schema("case.schema.json"))
    assert check(good_case(checks=["facts", "facts"])) == (("checks",), "has duplicate items")
    assert check(good_case(id="a" * 121))[0] == ("id",)
    assert compile_schema({"format": "date"})("2026-02-30") == ((), "'2026-02-30' is not a date")
    assert compile_schema({"format": "date"})("2028-02-29") is None
