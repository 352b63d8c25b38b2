"""The `validate`, `fmt`, `new` and `init` commands."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

from evals.calibrate.labelled import (
    cut_note,
    labelled_files,
    precedents,
    read_labelled,
    sealed_skip_note,
    unpinned,
)
from evals.checks.lint import brittle
from evals.cli import EXIT_FAIL, EXIT_OK, EXIT_USAGE, suite_at
from evals.commands.scan import scan_cases
from evals.errors import Problem
from evals.seal.budget import ledger_history
from evals.seal.manifest import pile_problems
from evals.suite.casefiles import format_cases, placeholders_left, write_new_case
from evals.suite.caselist import CaseList, LazySet, count_case_files, file_stems
from evals.suite.folder import Suite
from evals.suite.scaffold import create_suite


def validate_suite(suite: Suite, notes: list[str] | None = None) -> list[Problem]:
    """Every problem in the suite's case files, labelled answers, prompt and sealed pile,
    without raising.

    Notes (what could not be checked, such as a ledger git cannot vouch for) go to `notes`.
    """
    return _validate(suite, notes)[1]


def _validate(suite: Suite, notes: list[str] | None) -> tuple[CaseList, list[Problem]]:
    """`validate_suite`, with the valid cases (read from their files when used)."""
    cases, problems = scan_cases(suite, strict=False)
    # Ids of every case file, valid or not: an invalid case is its own problem, not an unknown id.
    skipped: list[str] = []
    cut: list[str] = []
    problems += read_labelled(suite, file_stems(suite.cases_dir), skipped, cut)[1]
    for note in (sealed_skip_note(skipped), cut_note(cut)):
        if note and notes is not None:
            notes.append(f"note: {note}")
    if not suite.prompt_path.is_file():
        problems.append(Problem(str(suite.prompt_path), "", "prompt.txt is missing"))
    # The sealed pile's integrity needs no key; with EVAL_SEAL_KEY set its cases are checked too.
    problems += pile_problems(suite)
    history = ledger_history(suite)
    problems += history.problems
    if history.note and notes is not None:
        notes.append(history.note)
    return cases, problems


def cmd_validate(suite_dir: str | None) -> int:
    """Print every problem, one line each; exit 2 when there is any."""
    suite = suite_at(suite_dir)
    notes: list[str] = []
    cases, problems = _validate(suite, notes)
    for note in notes:
        print(note, file=sys.stderr)
    for p in problems:
        print(p, file=sys.stderr)
    n = count_case_files(suite.cases_dir)
    if problems:
        # A labelled answer's problem names its line (`file.jsonl:12`): count the file once.
        files = len({re.sub(r":\d+$", "", p.path) for p in problems})
        print(
            f"{len(problems)} problem(s) in {files} file(s); {n} case file(s) checked",
            file=sys.stderr,
        )
        return EXIT_USAGE
    # One pass over the case files, in the order of their names.
    warnings: list[str] = []
    unfilled = []
    for case in cases.in_name_order():
        warnings += brittle(case, suite.settings.prompt)
        if placeholders_left(case.data):
            unfilled.append(case)
    for w in warnings:
        print(w, file=sys.stderr)
    for case in unfilled:
        left = placeholders_left(case.data)
        at, text = left[0]
        print(
            f"{case.path}: {at}: warning: still the placeholder of `invoke new` ({text!r}"
            + (f", and {len(left) - 1} more" if len(left) > 1 else "")
            + "): fill the case in, or remove it; until then it runs and counts like any case",
            file=sys.stderr,
        )
    labels = read_labelled(suite, LazySet(cases.ids))[0]
    named = {item.case for item in labels}
    stale = precedents(labels, list(cases.where_id(named.__contains__)))[1]
    loose = unpinned(labels)
    if loose:
        print(
            f"note: {sum(loose.values())} label(s) in {', '.join(sorted(loose))} have no "
            "case_sha: each decides the same answer to its case whatever the case's content "
            "(`invoke label` writes the sha, so that editing the case voids the label)",
            file=sys.stderr,
        )
    for item in stale:
        print(
            f"{suite.path / item.source}: stale label: case {item.case!r} was edited after "
            f"it was labelled ({item.label}, by {item.by or 'unknown'}, {item.at or 'undated'}); "
            "it no longer decides runs: label the answer again or remove the line",
            file=sys.stderr,
        )
    labelled = labelled_files(suite)
    more = f" and {len(labelled)} labelled answer file(s)" if labelled else ""
    brittle_note = f"; {len(warnings)} brittle expectation(s) warned about" if warnings else ""
    stale_note = f"; {len(stale)} stale label(s) listed" if stale else ""
    unfilled_note = f"; {len(unfilled)} case(s) not filled in" if unfilled else ""
    print(
        f"ok: {n} case file(s){more} valid in {suite.path}{brittle_note}{stale_note}{unfilled_note}"
    )
    return EXIT_OK


def cmd_fmt(suite_dir: str | None, check: bool, files: list[str] | None = None) -> int:
    """Rewrite case files canonically; with --check, exit 1 when any would change."""
    suite = suite_at(suite_dir)
    paths = [Path(f) for f in files] if files else None
    result = format_cases(suite, check=check, paths=paths)
    for p in result.unreadable:
        print(p, file=sys.stderr)
    verb = "would reformat" if check else "reformatted"
    for path in result.changed:
        print(f"{verb} {path}")
    if result.unreadable:
        return EXIT_USAGE
    if check and result.changed:
        print(
            f"{len(result.changed)} file(s) not in canonical form; run `invoke fmt`",
            file=sys.stderr,
        )
        return EXIT_FAIL
    if not result.changed:
        print("all case files are in canonical form")
    return EXIT_OK


def cmd_new(suite_dir: str | None, case_id: str) -> int:
    """The `invoke new` command: write a case skeleton to fill in."""
    path = write_new_case(suite_at(suite_dir), case_id)
    # The hint is a command to copy: it names the suite the case went into.
    where = f" --suite {shlex.quote(suite_dir)}" if suite_dir else ""
    print(f"wrote {path}; fill it in, then run `invoke validate{where}`")
    return EXIT_OK


def cmd_init(directory: str) -> int:
    """The `invoke init DIR` command: an empty suite, ready for its first case."""
    path = Path(directory)
    create_suite(path)
    where = shlex.quote(str(path))
    print(f"created the suite {path}: cases/, prompt.txt, suite.toml, judge_prompt.txt")
    print(f"next: edit {path / 'prompt.txt'} for your assistant, then")
    print(f"  invoke new my-first-case --suite {where}   # a case to fill in")
    print(f"  invoke validate --suite {where}")
    print(f"  invoke run --suite {where}")
    return EXIT_OK
