"""A suite's case files read for a run or `invoke validate`: every problem, as `load_cases`
reports them, and the valid cases as a `CaseList`, which reads each case again when it is
asked for instead of holding it (100,000 parsed cases took 200 MB).

Files are read a block at a time: a block's bytes are hashed for the store of files known
to be valid, looked up in one query, parsed, and let go; what is newly valid is stored
after each block.
"""

from __future__ import annotations

from bisect import bisect_left
from pathlib import Path

from evals.checks.grading import EXTERNAL_CHECKS
from evals.checks.known_valid import KnownValid, file_key, rules_digest
from evals.checks.loading import _each, parse_case_file, suite_problems
from evals.errors import InputError, Problem
from evals.suite.case import parse_json_text
from evals.suite.caselist import CaseList, CaseListBuilder, case_names
from evals.suite.folder import Suite

#: Case files read, looked up and parsed together.
BLOCK = 1000


def scan_cases(
    suite: Suite, *, strict: bool = True, known: KnownValid | None = None
) -> tuple[CaseList, list[Problem]]:
    """Validate every case file; the valid cases (read again when used) and all problems.

    The same problems, in the same order, as `load_cases`."""
    problems, known_checks = suite_problems(suite)
    names = case_names(suite.cases_dir)
    rules = rules_digest(suite, known_checks | EXTERNAL_CHECKS) if known is not None else ""
    cases = CaseListBuilder(suite.cases_dir)
    # Every problem is kept with its file, so the report reads file by file.
    found: dict[str, list[Problem]] = {}
    others: list[tuple[str, str]] = []  # (file name, id) of files holding another file's id
    for start in range(0, len(names), BLOCK):
        paths = [suite.cases_dir / n for n in names[start : start + BLOCK]]
        raws = [raw for _, raw in _each(paths)]
        keys = [
            file_key(rules, p.name, r) if known is not None and isinstance(r, bytes) else ""
            for p, r in zip(paths, raws, strict=True)
        ]
        if known is not None:
            known.read([k for k in keys if k])
        for path, raw, key in zip(paths, raws, keys, strict=True):
            sha = known.sha(key) if known is not None and key else None
            data, case, errs = parse_case_file(path, raw, sha, known_checks, share=False)
            cid = data.get("id") if isinstance(data, dict) else None
            if isinstance(cid, str) and cid != path.stem:
                others.append((path.name, cid))
            if errs:
                found[path.name] = errs
            elif case is not None and isinstance(raw, bytes):
                cases.add(path.stem, case.sha, raw)
                if known is not None and sha is None:
                    known.remember(key, case.sha)
        if known is not None:
            known.write()
    _duplicates(suite.cases_dir, names, others, found)
    for name in names:
        problems += found.get(name, [])
    if strict and problems:
        raise InputError(problems)
    return cases.build(), problems


def _duplicates(
    folder: Path, names: list[str], others: list[tuple[str, str]], found: dict[str, list[Problem]]
) -> None:
    """A duplicated id belongs to the file named after it; every other holder is the
    duplicate (only a file whose id is not its own name can be one)."""
    holders: dict[str, list[str]] = {}
    for name, cid in others:
        holders.setdefault(cid, []).append(name)
    for cid, held in holders.items():
        own = f"{cid}.json"
        i = bisect_left(names, own)
        if i < len(names) and names[i] == own and _id_of(folder / own) == cid:
            held.append(own)
        held.sort()
    for name, cid in others:
        if len(holders[cid]) > 1:
            other = next(n for n in holders[cid] if n != name)
            found.setdefault(name, []).append(
                Problem(
                    str(folder / name), "/id", f"duplicate id {cid!r} (also in {folder / other})"
                )
            )


def _id_of(path: Path) -> object:
    try:
        data = parse_json_text(path.read_bytes())
    except (OSError, ValueError):
        return None
    return data.get("id") if isinstance(data, dict) else None
