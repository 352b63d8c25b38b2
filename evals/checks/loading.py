"""Loading a suite's case files and finding every problem in them at once."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evals.checks.base import REGISTRY
from evals.checks.grading import EXTERNAL_CHECKS, checks_for
from evals.checks.known_valid import KnownValid, file_key, rules_digest
from evals.checks.thing_counts import parse_expected
from evals.errors import InputError, Problem
from evals.suite.case import Case, parse_json_text
from evals.suite.folder import LINK_REFUSED, Suite, load_suite_checks
from evals.suite.patterns import pattern_problem
from evals.suite.schemas import schema_problems


def _obj(value: Any) -> dict[str, Any]:
    """`value` when it is an object, else empty: the schema already reports the wrong type."""
    return value if isinstance(value, dict) else {}


def _strings(value: Any) -> list[tuple[int, str]]:
    """The string items of a list, with their index; anything else is the schema's to report."""
    if not isinstance(value, list):
        return []
    return [(i, v) for i, v in enumerate(value) if isinstance(v, str)]


def case_problems(
    data: dict[str, Any], path: Path, known_checks: set[str], case: Case | None = None
) -> list[Problem]:
    """Problems in one parsed case beyond what the schema sees.

    Safe on any parsed JSON object: wrong types are left to the schema's report.
    """
    p = str(path)
    out: list[Problem] = []
    if data.get("id") != path.stem:
        out.append(
            Problem(p, "/id", f"id {data.get('id')!r} must equal the file stem {path.stem!r}")
        )
    expect = _obj(data.get("expect"))
    for where, pat in _phrasings(expect.get("mentions"), "/expect/mentions"):
        problem = pattern_problem(pat)
        if problem:
            out.append(Problem(p, where, f"regex {pat!r} {problem}"))
    for where, text in [
        *_phrasings(expect.get("figures"), "/expect/figures"),
        *(
            (f"/expect/forbidden_figures/{i}", s)
            for i, s in _strings(expect.get("forbidden_figures"))
        ),
    ]:
        if parse_expected(text) is None:
            out.append(
                Problem(
                    p,
                    where,
                    f"{text!r} is not a figure (an amount, percentage, duration, time, date, or a count:"
                    ' a number and the thing counted, "10 friends")',
                )
            )
    explicit = data.get("checks")
    for i, name in _strings(explicit):
        if name not in known_checks and name not in EXTERNAL_CHECKS:
            out.append(Problem(p, f"/checks/{i}", f"unknown check {name!r}"))
    for i, name in _strings(expect.get("add_checks")):
        if name not in known_checks:
            out.append(Problem(p, f"/expect/add_checks/{i}", unknown_added(name)))
    if (explicit is None or isinstance(explicit, list)) and isinstance(
        data.get("expect", {}), dict
    ):
        # Only the check list's shape matters here, so the content hash is not computed.
        view = case or Case({**data, "expect": expect, "retrieved": _retrieved(data)}, path, "-")
        if not checks_for(view):
            out.append(Problem(p, "/expect", "no check applies: the case would score nothing"))
    refs = [r.get("ref") for r in _retrieved(data)]
    for i, ref in enumerate(refs):
        if ref is not None and ref in refs[:i]:
            out.append(Problem(p, f"/retrieved/{i}/ref", f"duplicate ref {ref!r}"))
    return out


def unknown_added(name: str) -> str:
    """What an `add_checks` entry that names no registered check is told."""
    return (
        f"unknown check {name!r} (add_checks names a check of the suite's checks.py, "
        "registered with @check, or a built-in one)"
    )


def added_check_problems(suite: Suite, known_checks: set[str]) -> list[Problem]:
    """suite.toml's `add_checks` entries that name no registered check."""
    where = str(suite.path / "suite.toml")
    return [
        Problem(where, f"/add_checks/{i}", unknown_added(name))
        for i, name in enumerate(suite.settings.add_checks)
        if name not in known_checks
    ]


def _phrasings(value: Any, base: str) -> list[tuple[str, str]]:
    """Every phrasing of an expectation list with its JSON pointer (string, list or `any`)."""
    out: list[tuple[str, str]] = []
    if not isinstance(value, list):
        return out
    for i, entry in enumerate(value):
        if isinstance(entry, str):
            out.append((f"{base}/{i}", entry))
        elif isinstance(entry, list):
            out += [(f"{base}/{i}/{j}", s) for j, s in _strings(entry)]
        elif isinstance(entry, dict):
            key = "any" if "any" in entry else "value"
            alts = entry.get(key)
            if isinstance(alts, str):
                out.append((f"{base}/{i}/{key}", alts))
            else:
                out += [(f"{base}/{i}/{key}/{j}", s) for j, s in _strings(alts)]
    return out


def _retrieved(data: dict[str, Any]) -> list[dict[str, Any]]:
    value = data.get("retrieved")
    return [r for r in value if isinstance(r, dict)] if isinstance(value, list) else []


def suite_problems(suite: Suite) -> tuple[list[Problem], set[str]]:
    """What is wrong with a suite before its case files are read (its `checks.py`, the
    checks `suite.toml` adds, a missing `cases/`), and the check names then known."""
    problems: list[Problem] = []
    try:
        load_suite_checks(suite)
    except InputError as exc:
        problems += exc.problems
    known_checks = set(REGISTRY)
    problems += added_check_problems(suite, known_checks)
    if not suite.cases_dir.is_dir() and not suite.sealed_dir.is_dir():
        problems.append(Problem(str(suite.cases_dir), "", "no cases/ folder"))
    return problems, known_checks


def load_cases(
    suite: Suite, *, strict: bool = True, known: KnownValid | None = None
) -> tuple[list[Case], list[Problem]]:
    """Parse and validate every case file; returns the valid cases and all problems.

    With `known`, a file whose bytes were found valid before under the same rules is taken
    as it is (its content sha included), and every newly valid file is remembered."""
    problems, known_checks = suite_problems(suite)
    paths = suite.case_files()
    keys = [""] * len(paths)
    rules = ""
    if known is not None:
        rules = rules_digest(suite, known_checks | EXTERNAL_CHECKS)
        # The keys first, each file's bytes read and let go: 100,000 files' bytes held at
        # once were 60 MB (the page cache makes the second read below cheap).
        keys = [file_key(rules, p.name, r) if isinstance(r, bytes) else "" for p, r in _each(paths)]
        known.read([k for k in keys if k])
    # Every problem is kept with its file, so the report reads file by file.
    parsed = []
    for (path, raw), key in zip(_each(paths), keys, strict=True):
        # Read again: bytes that changed since their key was made are validated afresh.
        same = (
            known is not None and isinstance(raw, bytes) and file_key(rules, path.name, raw) == key
        )
        parsed.append(
            parse_case_file(path, raw, known.sha(key) if same and known else None, known_checks)
        )
    # A duplicated id belongs to the file named after it; every other holder is the duplicate.
    ids = [data.get("id") if isinstance(data, dict) else None for data, _, _ in parsed]
    holders: dict[str, list[Path]] = {}
    for path, cid in zip(paths, ids, strict=True):
        if isinstance(cid, str):
            holders.setdefault(cid, []).append(path)
    cases: list[Case] = []
    for path, cid, key, (_, case, found) in zip(paths, ids, keys, parsed, strict=True):
        if isinstance(cid, str) and len(holders[cid]) > 1 and path.stem != cid:
            other = next(p for p in holders[cid] if p != path)
            found.append(Problem(str(path), "/id", f"duplicate id {cid!r} (also in {other})"))
        problems += found
        if not found and case is not None:
            cases.append(case)
            if known is not None and known.sha(key) is None:
                known.remember(key, case.sha)
    if known is not None:
        known.write()
    if strict and problems:
        raise InputError(problems)
    return cases, problems


def parse_case_file(
    path: Path,
    raw: bytes | Problem,
    sha: str | None,
    known_checks: set[str],
    share: bool = True,
) -> tuple[Any, Case | None, list[Problem]]:
    """One case file's data, its Case when valid, and its problems (apart from duplicate ids).

    `sha` is the content sha of exactly these bytes when they passed every check before.
    `share=False` leaves its strings uninterned, for a caller that lets each case go once
    checked (interned strings stay in the interpreter's table for the whole process)."""
    keep = _shared if share else _as_is
    if not isinstance(raw, bytes):
        return None, None, [raw]
    if sha is not None:
        data = keep(json.loads(raw))  # the strict parse accepted these bytes: plain will do
        return data, Case(data, path, sha), []
    try:
        data = keep(parse_json_text(raw))
    except ValueError as exc:
        return None, None, [Problem(str(path), "", str(exc))]
    found = schema_problems(data, "case.schema.json", str(path))
    case = None
    if isinstance(data, dict):
        # Built once: its content hash is the costly part of loading a case.
        case = Case(data, path) if not found else None
        found += case_problems(data, path, known_checks, case)
    return data, case, found


def _as_is(value: Any) -> Any:
    return value


def _shared(value: Any) -> Any:
    """The parsed case with every key and short text kept once per process: cases repeat
    their keys, categories, refs and often whole passages (the same document retrieved by
    many cases), and each parse made its own copies of them all."""
    if isinstance(value, str):
        return sys.intern(value) if len(value) <= 4096 else value
    if isinstance(value, dict):
        return {sys.intern(k): _shared(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shared(v) for v in value]
    return value


def _each(paths: list[Path]) -> Iterator[tuple[Path, bytes | Problem]]:
    """Each case file's bytes, or the problem that keeps it from being read, one at a time."""
    for path in paths:
        try:
            # One lstat tells a link (never followed) and a folder from a file.
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                yield path, Problem(str(path), "", LINK_REFUSED)
            elif stat.S_ISDIR(mode):
                yield path, Problem(str(path), "", "is a directory, not a case file")
            else:
                yield path, path.read_bytes()
        except OSError as exc:
            yield path, Problem(str(path), "", f"cannot read: {exc.strerror or exc}")
