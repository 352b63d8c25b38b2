"""Loading a suite's case files and finding every problem in them at once."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from evals.case import Case, read_json_file
from evals.errors import InputError, Problem, pointer
from evals.grading import EXTERNAL_CHECKS, checks_for
from evals.patterns import PatternError, screen_pattern
from evals.suite import Suite, load_suite_checks

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


@cache
def schema(name: str) -> dict[str, Any]:
    """A JSON Schema from schemas/ by file name."""
    return json.loads((SCHEMA_DIR / name).read_text("utf-8"))


@cache
def validator(name: str) -> jsonschema.protocols.Validator:
    s = schema(name)
    cls = jsonschema.validators.validator_for(s)
    return cls(s, format_checker=cls.FORMAT_CHECKER)


def schema_problems(data: Any, schema_name: str, path: str) -> list[Problem]:
    """Every schema violation of `data`, each with its JSON pointer."""
    errors = sorted(validator(schema_name).iter_errors(data), key=lambda e: list(e.absolute_path))
    out = []
    for e in errors:
        msg = e.message
        if e.validator == "additionalProperties":
            msg = f"unknown field(s): {msg.split('(')[-1].rstrip(')')}"
        out.append(Problem(path, pointer(list(e.absolute_path)), msg))
    return out


def case_problems(data: dict[str, Any], path: Path, known_checks: set[str]) -> list[Problem]:
    """Problems in one parsed case beyond what the schema sees."""
    p = str(path)
    out: list[Problem] = []
    if data.get("id") != path.stem:
        out.append(
            Problem(p, "/id", f"id {data.get('id')!r} must equal the file stem {path.stem!r}")
        )
    for i, pat in enumerate(data.get("expect", {}).get("mentions", []) or []):
        try:
            screen_pattern(pat)
        except PatternError as exc:
            out.append(Problem(p, f"/expect/mentions/{i}", f"regex {pat!r} {exc}"))
    case = Case(data, path)
    names = checks_for(case)
    for i, name in enumerate(data.get("checks", []) or []):
        if name not in known_checks and name not in EXTERNAL_CHECKS:
            out.append(Problem(p, f"/checks/{i}", f"unknown check {name!r}"))
    if not names:
        out.append(Problem(p, "/expect", "no check applies: the case would score nothing"))
    refs = [r.get("ref") for r in data.get("retrieved", [])]
    for i, ref in enumerate(refs):
        if ref in refs[:i]:
            out.append(Problem(p, f"/retrieved/{i}/ref", f"duplicate ref {ref!r}"))
    return out


def load_cases(suite: Suite, *, strict: bool = True) -> tuple[list[Case], list[Problem]]:
    """Parse and validate every case file; returns the valid cases and all problems."""
    from evals.checks import REGISTRY

    problems: list[Problem] = []
    try:
        load_suite_checks(suite)
    except InputError as exc:
        problems += exc.problems
    known = set(REGISTRY)
    parsed: list[tuple[Path, Any, list[Problem]]] = []
    if not suite.cases_dir.is_dir() and not suite.sealed_dir.is_dir():
        problems.append(Problem(str(suite.cases_dir), "", "no cases/ folder"))
    for path in suite.case_files():
        try:
            data = read_json_file(path)
        except ValueError as exc:
            problems.append(Problem(str(path), "", str(exc)))
            continue
        except OSError as exc:
            problems.append(Problem(str(path), "", f"cannot read: {exc.strerror}"))
            continue
        found = schema_problems(data, "case.schema.json", str(path))
        if isinstance(data, dict):
            found += case_problems(data, path, known)
        parsed.append((path, data, found))
    # A duplicated id belongs to the file named after it; every other holder is the duplicate.
    holders: dict[str, list[Path]] = {}
    for path, data, _ in parsed:
        if isinstance(data, dict) and isinstance(data.get("id"), str):
            holders.setdefault(data["id"], []).append(path)
    cases: list[Case] = []
    for path, data, found in parsed:
        cid = data.get("id") if isinstance(data, dict) else None
        others = [p for p in holders.get(cid, []) if p != path] if isinstance(cid, str) else []
        if others and path.stem != cid:
            found.append(Problem(str(path), "/id", f"duplicate id {cid!r} (also in {others[0]})"))
        problems += found
        if not found:
            cases.append(Case(data, path))
    if strict and problems:
        raise InputError(problems)
    return cases, problems


def validate_suite(suite: Suite) -> list[Problem]:
    """Every problem in the suite's case files (and prompt), without raising."""
    _, problems = load_cases(suite, strict=False)
    if not suite.prompt_path.is_file():
        problems.append(Problem(str(suite.prompt_path), "", "prompt.txt is missing"))
    # The sealed pile's integrity needs no key; with EVAL_SEAL_KEY set its cases are checked too.
    from evals.seal_manifest import pile_problems

    problems += pile_problems(suite)
    return problems
